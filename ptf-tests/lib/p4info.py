# SPDX-License-Identifier: Apache-2.0
"""Name -> id/width resolution from a P4Info text file.

The PTF tests never hard-code P4Runtime ids: every table, action, register,
counter, digest and controller-header field is looked up here by its P4 name,
either the fully qualified name (``Ingress.l2.l2_exact``) or the alias
bf-p4c writes (shortest unique suffix), or any unique dotted suffix.
The same index powers the ``make test`` cross-check against the committed
P4Info, so the names the tests use are checked without a switch.
"""
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

# P4Info repeated field -> short kind name used in errors and manifests.
KINDS = {
    "tables": "table",
    "actions": "action",
    "counters": "counter",
    "direct_counters": "direct_counter",
    "meters": "meter",
    "registers": "register",
    "digests": "digest",
    "controller_packet_metadata": "controller_packet_metadata",
    "action_profiles": "action_profile",
    "value_sets": "value_set",
}


class P4InfoError(LookupError):
    """A name the caller asked for is missing or ambiguous in the P4Info."""


def _bitwidth_of_type_spec(spec, type_info):
    """Bit width of a P4DataTypeSpec: bitstring, or a named struct/header (sum of members); None if untyped."""
    which = spec.WhichOneof("type_spec")
    if which is None:
        return None
    if which == "bitstring":
        bs = spec.bitstring
        kind = bs.WhichOneof("type_spec")
        return getattr(bs, kind).max_bitwidth if kind == "varbit" else getattr(bs, kind).bitwidth
    if which == "struct":
        st = type_info.structs[spec.struct.name]
        return sum(_bitwidth_of_type_spec(m.type_spec, type_info) for m in st.members)
    if which == "header":
        h = type_info.headers[spec.header.name]
        return sum(m.type_spec.bitwidth for m in h.members)
    if which == "serializable_enum":
        return type_info.serializable_enums[spec.serializable_enum.name].underlying_type.bitwidth
    if which == "new_type":
        nt = type_info.new_types[spec.new_type.name]
        if nt.WhichOneof("representation") == "translated_type":
            return nt.translated_type.sdn_bitwidth
        return _bitwidth_of_type_spec(nt.original_type, type_info)
    raise P4InfoError("unsupported type_spec %r" % which)


def _struct_fields(spec, type_info):
    """[(name, bitwidth)] of a digest's struct type (empty for a plain bitstring)."""
    if spec.WhichOneof("type_spec") != "struct":
        return []
    st = type_info.structs[spec.struct.name]
    return [(m.name, _bitwidth_of_type_spec(m.type_spec, type_info)) for m in st.members]


class P4Info:
    """Index over one P4Info message; look-ups by name, alias or unique suffix."""

    def __init__(self, msg):
        self.msg = msg
        self._by_kind = {}
        self._by_id = {}
        for field, kind in KINDS.items():
            objs = {}
            for obj in getattr(msg, field):
                objs[obj.preamble.name] = obj
                self._by_id[obj.preamble.id] = obj
            self._by_kind[kind] = objs

    @classmethod
    def from_file(cls, path):
        msg = p4info_pb2.P4Info()
        with open(path) as f:
            text_format.Merge(f.read(), msg)
        return cls(msg)

    # -- generic look-up -------------------------------------------------
    def names(self, kind):
        return sorted(self._by_kind[kind])

    def get(self, kind, name):
        """The P4Info object of `kind` called `name` (full name, alias or unique suffix)."""
        objs = self._by_kind[kind]
        if name in objs:
            return objs[name]
        hits = [o for o in objs.values() if o.preamble.alias == name]
        if not hits:
            hits = [o for full, o in objs.items() if full.endswith("." + name)]
        if not hits and kind == "digest":
            # bf-p4c names a digest after its Digest<> instance; docs name it after its struct type
            hits = [o for o in objs.values() if o.type_spec.struct.name == name]
        if len(hits) == 1:
            return hits[0]
        if not hits:
            raise P4InfoError("%s %r not found in P4Info (has: %s)"
                              % (kind, name, ", ".join(sorted(objs)) or "none"))
        raise P4InfoError("%s %r is ambiguous in P4Info: %s"
                          % (kind, name, ", ".join(sorted(o.preamble.name for o in hits))))

    def has(self, kind, name):
        try:
            self.get(kind, name)
            return True
        except P4InfoError:
            return False

    def id(self, kind, name):
        return self.get(kind, name).preamble.id

    def by_id(self, obj_id):
        return self._by_id[obj_id]

    # -- tables ------------------------------------------------------------
    def match_field(self, table, field):
        t = self.get("table", table)
        for mf in t.match_fields:
            if mf.name == field or mf.name.endswith("." + field):
                return mf
        raise P4InfoError("table %s has no match field %r (has: %s)" % (
            t.preamble.name, field, ", ".join(m.name for m in t.match_fields)))

    def match_fields(self, table):
        """{name: (bitwidth, match type name)} of a table's keys."""
        t = self.get("table", table)
        return {mf.name: (mf.bitwidth, p4info_pb2.MatchField.MatchType.Name(mf.match_type))
                for mf in t.match_fields}

    def table_actions(self, table):
        t = self.get("table", table)
        return [self.by_id(r.id).preamble.name for r in t.action_refs]

    def table_size(self, table):
        return self.get("table", table).size

    # -- actions -------------------------------------------------------------
    def action_param(self, action, param):
        a = self.get("action", action)
        for p in a.params:
            if p.name == param:
                return p
        raise P4InfoError("action %s has no parameter %r (has: %s)" % (
            a.preamble.name, param, ", ".join(p.name for p in a.params) or "none"))

    def action_params(self, action):
        return {p.name: p.bitwidth for p in self.get("action", action).params}

    # -- externs with a data type ---------------------------------------------
    def register_width(self, name):
        r = self.get("register", name)
        return _bitwidth_of_type_spec(r.type_spec, self.msg.type_info)

    def register_fields(self, name):
        """[(member, width)] of a register whose cells are a struct; [] for a plain bitstring."""
        return _struct_fields(self.get("register", name).type_spec, self.msg.type_info)

    def register_size(self, name):
        return self.get("register", name).size

    def counter_size(self, name):
        return self.get("counter", name).size

    def counter_unit(self, name):
        c = self.get("counter", name)
        return p4info_pb2.CounterSpec.Unit.Name(c.spec.unit)

    def digest_fields(self, name):
        d = self.get("digest", name)
        return _struct_fields(d.type_spec, self.msg.type_info)

    def controller_header(self, name):
        """[(field name, id, bitwidth)] of a @controller_header (packet_in / packet_out)."""
        h = self.get("controller_packet_metadata", name)
        return [(m.name, m.id, m.bitwidth) for m in h.metadata]

    def controller_header_names(self):
        return self.names("controller_packet_metadata")
