# SPDX-License-Identifier: Apache-2.0
"""What ONOS 2.7 does to the app's flow rules and CLONE groups before they reach a switch,
transcribed from its sources (the jars that hold it, onos-core-net and
onos-protocols-p4runtime-ctl, are not among the build's dependencies), so the contract check
sends what ONOS would send:

* PiFlowRuleTranslatorImpl: the table is looked up by name in the pipeconf's P4Info (the
  Tofino one: the app's pipeconf); every exact field of the table must be in the PiCriterion,
  absent ternary/range/LPM/optional fields are "don't care", a PiCriterion field the table
  lacks is refused; each value is fitted to the field's bit width (ImmutableByteSequence.fit:
  refused if a bit above the width is set, else ceil(width/8) bytes), ternary values are
  ANDed with the mask; the action must be one of the table's, with every parameter, each
  fitted to its width; tables with a ternary, range or optional field get P4Runtime priority
  flow-rule priority + 1 (capped at 2^24), the others none.
* The P4Runtime codecs of ONOS 2.7 (FieldMatchCodec, ActionCodec): the fitted bytes go on
  the wire as they are, ceil(width/8) bytes with leading zeros (2.7's ImmutableByteSequence
  has no canonical(); later ONOS versions send canonical byte strings).
* PiReplicationGroupTranslatorImpl: a CLONE group is clone session `group id`, one replica
  per bucket, whose one OUTPUT instruction is its port (a bucket with none or several is
  refused; instance 0 for a port's first replica, 1 for its second, ...),
  packet_length_bytes from the buckets' TRUNCATE instruction (0 when none; once a bucket has
  one, every later bucket must have the same).

Then, for BMv2, by NAME in BMv2's P4Info (ids may differ): a field or parameter whose type
the Tofino P4Info names FabPortId_t (@p4runtime_translation, a 32-bit SDN port on Stratum)
is a 9-bit device port on BMv2, where PI does not translate ports and the port number is the
device port (as ptf-tests/run numbers them); every other width must be the same in both.
"""

MAX_PI_PRIORITY = 1 << 24
MIN_PI_PRIORITY = 1
PORT_TYPE = "FabPortId_t"


class ContractError(Exception):
    """The entity cannot be sent: the message names it and what is wrong."""


def nbytes(width):
    return (width + 7) // 8


def fit(hexval, width, what):
    """int of `hexval` after ImmutableByteSequence.fit(width); ContractError if it does not fit."""
    if not isinstance(hexval, str) or not hexval or len(hexval) % 2:
        raise ContractError("%s: %r is not a hex byte string" % (what, hexval))
    v = int(hexval, 16)
    if v >> width:
        raise ContractError("%s: value 0x%s does not fit in %d bits (ONOS's translation refuses it)"
                            % (what, hexval, width))
    return v


def wire(v, width):
    """The bytes ONOS 2.7 sends for `v` in a `width`-bit field: ceil(width/8), leading zeros kept."""
    return v.to_bytes(nbytes(width), "big")


def _exact(info, kind, name):
    objs = info._by_kind[kind]
    if name not in objs:
        raise ContractError("%s %r is not in the P4Info" % (kind, name))
    return objs[name]


def _is_port(obj):
    return obj.HasField("type_name") and obj.type_name.name == PORT_TYPE


class Translator:
    """Flow rules of the export -> (description, p4runtime TableEntry for BMv2)."""

    def __init__(self, onos_info, bmv2_info):
        self.onos, self.bmv2 = onos_info, bmv2_info

    def _width(self, model_obj, bmv2_obj, what):
        """(ONOS model width, BMv2 width, is port) of a field or parameter found in both P4Infos."""
        if _is_port(model_obj):
            return model_obj.bitwidth, bmv2_obj.bitwidth, True
        if model_obj.bitwidth != bmv2_obj.bitwidth:
            raise ContractError("%s: %d bits in the pipeconf's P4Info, %d in BMv2's" % (
                what, model_obj.bitwidth, bmv2_obj.bitwidth))
        return model_obj.bitwidth, bmv2_obj.bitwidth, False

    @staticmethod
    def _to_bmv2(v, bwidth, is_port, what):
        if is_port and v >> bwidth:
            raise ContractError("%s: port %d is no BMv2 device port (%d bits)" % (what, v, bwidth))
        return v

    def entry(self, rule):
        """(text naming the rule, TableEntry, canonical key for the read-back comparison)."""
        from p4.config.v1 import p4info_pb2
        from p4.v1 import p4runtime_pb2
        MT = p4info_pb2.MatchField
        tname = rule.get("table")
        desc = "%s %s" % (tname, " ".join("%s=%s" % (m.get("field"), m.get("value", "%s..%s" % (
            m.get("low"), m.get("high")))) for m in rule.get("match", [])))
        try:
            mt = _exact(self.onos, "table", tname)
            bt = _exact(self.bmv2, "table", tname)
            given = {m["field"]: m for m in rule.get("match", [])}
            fields = {f.name: f for f in mt.match_fields}
            extra = sorted(set(given) - set(fields))
            if extra:
                raise ContractError("PiCriterion field(s) %s not in table %s (has: %s)" % (
                    ", ".join(extra), tname, ", ".join(fields)))
            te = p4runtime_pb2.TableEntry(table_id=bt.preamble.id)
            key, needs_priority = [], False
            bfields = {f.name: f for f in bt.match_fields}
            for name, f in fields.items():
                kind = MT.MatchType.Name(f.match_type)
                needs_priority |= kind in ("TERNARY", "RANGE", "OPTIONAL")
                if name not in bfields:
                    raise ContractError("match field %s of %s not in BMv2's P4Info" % (name, tname))
                what = "%s.%s" % (tname, name)
                w, bw, port = self._width(f, bfields[name], what)
                m = given.get(name)
                if m is None:
                    if kind == "EXACT":
                        raise ContractError("no value for exact match field %s" % what)
                    continue
                if m["kind"] != kind:
                    raise ContractError("%s: match kind %s, the table has %s" % (what, m["kind"], kind))
                fm = te.match.add(field_id=bfields[name].id)
                if kind in ("EXACT", "OPTIONAL"):
                    v = self._to_bmv2(fit(m["value"], w, what), bw, port, what)
                    (fm.exact if kind == "EXACT" else fm.optional).value = wire(v, bw)
                    key.append((name, v))
                elif kind == "TERNARY":
                    mask = fit(m["mask"], w, what + " mask")
                    v = fit(m["value"], w, what) & mask
                    if port:
                        raise ContractError("%s: a ternary port match cannot be mapped to BMv2 ports" % what)
                    fm.ternary.value, fm.ternary.mask = wire(v, bw), wire(mask, bw)
                    key.append((name, v, mask))
                elif kind == "RANGE":
                    lo, hi = fit(m["low"], w, what + " low"), fit(m["high"], w, what + " high")
                    fm.range.low, fm.range.high = wire(lo, bw), wire(hi, bw)
                    key.append((name, lo, hi))
                elif kind == "LPM":
                    plen = int(m["prefix_len"])
                    if plen > w:
                        raise ContractError("%s: prefix length %d > %d bits" % (what, plen, w))
                    v = fit(m["value"], w, what) & (((1 << plen) - 1) << (w - plen))
                    fm.lpm.value, fm.lpm.prefix_len = wire(v, bw), plen
                    key.append((name, v, plen))
            if needs_priority:
                p = int(rule["priority"])
                te.priority = MAX_PI_PRIORITY if p > MAX_PI_PRIORITY else MIN_PI_PRIORITY + p
            act = rule.get("action")
            if act is None:
                raise ContractError("no action")
            aname = act["name"]
            allowed = {self.onos._by_id[r.id].preamble.name for r in mt.action_refs}
            if aname not in allowed:
                raise ContractError("action %s is not an action of table %s (has: %s)" % (
                    aname, tname, ", ".join(sorted(allowed))))
            ma, ba = _exact(self.onos, "action", aname), _exact(self.bmv2, "action", aname)
            gp = {p["name"]: p["value"] for p in act.get("params", [])}
            mparams = {p.name: p for p in ma.params}
            if set(gp) != set(mparams):
                raise ContractError("action %s: parameters %s, the P4Info has %s" % (
                    aname, sorted(gp), sorted(mparams)))
            te.action.action.action_id = ba.preamble.id
            bparams = {p.name: p for p in ba.params}
            params = []
            for name, p in mparams.items():
                what = "%s(%s)" % (aname, name)
                if name not in bparams:
                    raise ContractError("parameter %s not in BMv2's P4Info" % what)
                w, bw, port = self._width(p, bparams[name], what)
                v = self._to_bmv2(fit(gp[name], w, what), bw, port, what)
                te.action.action.params.add(param_id=bparams[name].id, value=wire(v, bw))
                params.append((name, v))
        except ContractError as e:
            raise ContractError("flow rule %s: %s" % (desc, e)) from None
        canon = (tname, tuple(sorted(key)), te.priority, aname, tuple(sorted(params)))
        return desc, te, canon

    def canonical(self, te):
        """The canonical key of a TableEntry read back from BMv2 (ints: servers may strip leading zeros)."""
        t = self.bmv2._by_id[te.table_id]
        fields = {f.id: f for f in t.match_fields}
        key = []
        for m in te.match:
            name = fields[m.field_id].name
            which = m.WhichOneof("field_match_type")
            x = getattr(m, which)
            if which in ("exact", "optional"):
                key.append((name, int.from_bytes(x.value, "big")))
            elif which == "ternary":
                key.append((name, int.from_bytes(x.value, "big"), int.from_bytes(x.mask, "big")))
            elif which == "range":
                key.append((name, int.from_bytes(x.low, "big"), int.from_bytes(x.high, "big")))
            elif which == "lpm":
                key.append((name, int.from_bytes(x.value, "big"), x.prefix_len))
        a = self.bmv2._by_id[te.action.action.action_id]
        pnames = {p.id: p.name for p in a.params}
        params = [(pnames[p.param_id], int.from_bytes(p.value, "big")) for p in te.action.action.params]
        return (t.preamble.name, tuple(sorted(key)), te.priority, a.preamble.name, tuple(sorted(params)))


def clone_session(group):
    """(session id, [(port, instance)], packet_length_bytes) of a CLONE group, as ONOS 2.7 builds it."""
    if group.get("type") != "CLONE":
        raise ContractError("group %s: type %s, the app writes CLONE groups only" % (group.get("id"), group.get("type")))
    # Bucket by bucket as PiReplicationGroupTranslatorImpl: exactly one OUTPUT, and a TRUNCATE
    # length (0 = DO_NOT_TRUNCATE) that, once set, every later bucket repeats.
    replicas, seen, trunc = [], {}, 0
    for b in group.get("buckets", []):
        outs = b.get("outputs", [])
        if len(outs) != 1:
            raise ContractError("group %s: a bucket with %d OUTPUT instructions (ONOS 2.7 takes exactly one per "
                                "bucket)" % (group["id"], len(outs)))
        if "truncate" in b:
            if trunc and b["truncate"] != trunc:
                raise ContractError("group %s: all TRUNCATE instructions must be the same in a CLONE group"
                                    % group["id"])
            trunc = b["truncate"]
        elif trunc:
            raise ContractError("group %s: all TRUNCATE instructions must be the same in a CLONE group" % group["id"])
        if b.get("other"):
            raise ContractError("group %s: bucket has unsupported instruction(s) %s" % (group["id"], b["other"]))
        port = outs[0]
        replicas.append((port, seen.get(port, 0)))
        seen[port] = seen.get(port, 0) + 1
    return int(group["id"]), replicas, trunc
