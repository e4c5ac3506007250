# SPDX-License-Identifier: Apache-2.0
"""Cross-check of P4 names and widths against a P4Info.

- ``check_contract(info)``: every object in lib/contract.py (what the PTF tests use)
  exists with the declared match kinds, widths, action parameters, register widths,
  counter units, digest fields and controller-header fields.
- ``onos_references(root)`` / ``check_onos(info, refs)``: every P4 name the ONOS app's
  Java code builds a Pi*Id from (``PiTableId.of("...")`` and friends, generated
  constants included) exists in the P4Info; bit widths the generated constants
  declare (``..._BITWIDTH = N`` next to a match field or parameter) match.
Both return a list of human-readable problems (empty = consistent).
"""
import glob
import os
import re

import contract as C
from p4info import P4InfoError


def _port_ok(info, width, type_name):
    """A PortId in P4Runtime: 32 bits, translated as tna/PortId_t when the P4Info names a type."""
    if width != C.PORT_SDN_BITS:
        return False
    if type_name:
        nt = info.msg.type_info.new_types.get(type_name)
        if nt is None or nt.WhichOneof("representation") != "translated_type":
            return False
        return nt.translated_type.uri == C.PORT_URI and nt.translated_type.sdn_bitwidth == C.PORT_SDN_BITS
    return True


def _width_ok(info, want, got, type_name=""):
    if want == C.PORT:
        return _port_ok(info, got, type_name)
    return want == got


def _show(w):
    return "PortId (32-bit, translated %s)" % C.PORT_URI if w == C.PORT else "%d" % w


def check_contract(info):
    problems = []

    def get(kind, name):
        try:
            return info.get(kind, name)
        except P4InfoError as e:
            problems.append(str(e).split(" (has:")[0])
            return None

    for tname, spec in C.TABLES.items():
        t = get("table", tname)
        if t is None:
            continue
        fields = {mf.name: mf for mf in t.match_fields}
        for key, (kind, width) in spec["keys"].items():
            mf = fields.get(key)
            if mf is None:
                problems.append("table %s: no match field %r (has: %s)" % (tname, key, ", ".join(fields)))
                continue
            got_kind = mf.MatchType.Name(mf.match_type)
            if got_kind != kind:
                problems.append("table %s: %s is %s, contract says %s" % (tname, key, got_kind, kind))
            if not _width_ok(info, width, mf.bitwidth, mf.type_name.name):
                problems.append("table %s: %s is %d bits, contract says %s" % (tname, key, mf.bitwidth, _show(width)))
        refs = {info.by_id(r.id).preamble.name for r in t.action_refs}
        for a in spec["actions"]:
            if a not in refs:
                problems.append("table %s: action %s not among its actions (%s)" % (tname, a, ", ".join(sorted(refs))))
    for aname, params in C.ACTIONS.items():
        a = get("action", aname)
        if a is None:
            continue
        got = {p.name: p for p in a.params}
        if set(got) != set(params):
            problems.append("action %s: parameters %s, contract says %s" % (aname, sorted(got), sorted(params)))
        for pname, width in params.items():
            if pname in got and not _width_ok(info, width, got[pname].bitwidth, got[pname].type_name.name):
                problems.append("action %s: %s is %d bits, contract says %s"
                                % (aname, pname, got[pname].bitwidth, _show(width)))
    for rname, width in C.REGISTERS.items():
        if get("register", rname) is not None and info.register_width(rname) != width:
            problems.append("register %s is %d bits, contract says %d" % (rname, info.register_width(rname), width))
    for cname, unit in C.COUNTERS.items():
        if get("counter", cname) is not None and info.counter_unit(cname) != unit:
            problems.append("counter %s counts %s, contract says %s" % (cname, info.counter_unit(cname), unit))
    for cname, table in C.DIRECT_COUNTERS.items():
        dc = get("direct_counter", cname)
        if dc is not None and info.has("table", table) and dc.direct_table_id != info.id("table", table):
            problems.append("direct counter %s is not attached to %s" % (cname, table))
    for dname, fields in C.DIGESTS.items():
        if get("digest", dname) is not None and info.digest_fields(dname) != fields:
            problems.append("digest %s fields %s, contract says %s" % (dname, info.digest_fields(dname), fields))
    for hname, fields in C.CONTROLLER_HEADERS.items():
        h = get("controller_packet_metadata", hname)
        if h is None:
            continue
        got = [(m.name, m.bitwidth, m.type_name.name) for m in h.metadata]
        if [g[0] for g in got] != [f for f, _ in fields] or not all(
                _width_ok(info, w, g[1], g[2]) for (_, w), g in zip(fields, got)):
            problems.append("controller header %s is %s, contract says %s" % (
                hname, [(n, b) for n, b, _ in got], [(f, _show(w)) for f, w in fields]))
    return problems


# -- the ONOS app ------------------------------------------------------------------------------------
PI_KINDS = {
    "PiTableId": "table", "PiActionId": "action", "PiCounterId": "counter", "PiRegisterId": "register",
    "PiMeterId": "meter", "PiActionProfileId": "action_profile", "PiMatchFieldId": "match_field",
    "PiActionParamId": "action_param", "PiPacketMetadataId": "packet_metadata",
}
PI_REF = re.compile(r"\b(%s)\.of\(\s*\"([^\"]+)\"\s*\)" % "|".join(PI_KINDS))
BITWIDTH = re.compile(r"\b(\w+)_BITWIDTH\s*=\s*(\d+)\s*;")
CONST = re.compile(r"\b(\w+)\s*=\s*(%s)\.of\(\s*\"([^\"]+)\"\s*\)" % "|".join(PI_KINDS))


def onos_java_files(root):
    pats = [os.path.join(root, "onos-app", "src", "main", "**", "*.java"),
            os.path.join(root, "onos-app", "target", "generated-sources", "**", "*.java")]
    return sorted({f for p in pats for f in glob.glob(p, recursive=True)})


def onos_references(root):
    """[(file, kind, name)] of every Pi*Id.of("name") in the app, and {CONST: bitwidth}."""
    refs, widths, consts = [], {}, {}
    for f in onos_java_files(root):
        text = open(f, encoding="utf-8").read()
        rel = os.path.relpath(f, root)
        refs += [(rel, PI_KINDS[k], n) for k, n in PI_REF.findall(text)]
        widths.update({c: int(w) for c, w in BITWIDTH.findall(text)})
        consts.update({c: (PI_KINDS[k], n) for c, k, n in CONST.findall(text)})
    return refs, widths, consts


def check_onos(info, refs, widths=None, consts=None):
    problems = []
    match_fields = {}
    for t in info.msg.tables:
        for mf in t.match_fields:
            match_fields.setdefault(mf.name, set()).add(mf.bitwidth)
    params = {}
    for a in info.msg.actions:
        for p in a.params:
            params.setdefault(p.name, set()).add(p.bitwidth)
    meta = {}
    for h in info.msg.controller_packet_metadata:
        for m in h.metadata:
            meta.setdefault(m.name, set()).add(m.bitwidth)
    pools = {"match_field": match_fields, "action_param": params, "packet_metadata": meta}
    for rel, kind, name in refs:
        if kind in pools:
            if name not in pools[kind]:
                problems.append("%s: %s %r is not in the P4Info" % (rel, kind, name))
        elif kind == "counter":
            if not (info.has("counter", name) or info.has("direct_counter", name)):
                problems.append("%s: counter %r is not in the P4Info" % (rel, name))
        elif not info.has(kind, name):
            problems.append("%s: %s %r is not in the P4Info" % (rel, kind, name))
    # generated constants: FOO = PiMatchFieldId.of("x") with FOO_BITWIDTH = n next to it
    for const, width in (widths or {}).items():
        kind, name = (consts or {}).get(const, (None, None))
        if kind in pools and name in pools[kind] and width not in pools[kind][name]:
            problems.append("ONOS constant %s_BITWIDTH = %d, but %s %r is %s bits in the P4Info"
                            % (const, width, kind, name, "/".join(map(str, sorted(pools[kind][name])))))
    return problems
