# SPDX-License-Identifier: Apache-2.0
"""Cross-check of P4 names and widths against a P4Info.

- ``check_contract(info)``: every object in lib/contract.py (what the PTF tests use)
  exists with the declared match kinds, widths, action parameters, register widths,
  counter units, digest fields and controller-header fields.
- ``check_onos_app(root, info, ...)``: the ONOS app's generated constants and the
  Pi*Id names its Java code uses exist in the P4Info with the same widths.
Both return a list of human-readable problems (empty = consistent).
"""
import glob
import os
import re
import sys

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
            problems.append("register %s is %s bits, contract says %d" % (rname, info.register_width(rname), width))
    for rname, fields in C.REGISTER_FIELDS.items():
        if info.has("register", rname):
            got = info.register_fields(rname)
            if got != fields:
                problems.append("register %s cells are %s, contract says %s" % (rname, got, fields))
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
# The app's Java constants are generated from the committed P4Info by onos-app/tools/gen_p4_constants.py
# (or, before there is one, from its contract copy). The check runs that generator on the committed
# P4Info and verifies that every constant the hand-written Java code uses is still generated, that
# every Pi*Id name behind a constant or written literally in the code exists in the P4Info, and that
# every _BITWIDTH constant equals the P4Info's width.
PI_KINDS = {
    "PiTableId": "table", "PiActionId": "action", "PiCounterId": "counter", "PiRegisterId": "register",
    "PiMeterId": "meter", "PiActionProfileId": "action_profile", "PiMatchFieldId": "match_field",
    "PiActionParamId": "action_param", "PiPacketMetadataId": "packet_metadata",
}
PI_REF = re.compile(r"\b(%s)\.of\(\s*\"([^\"]+)\"\s*\)" % "|".join(PI_KINDS))
CONST = re.compile(r"\b([A-Z][A-Z0-9_]*)\s*=\s*(%s)\.of\(\s*\"([^\"]+)\"\s*\)" % "|".join(PI_KINDS))
INT_CONST = re.compile(r"\b([A-Z][A-Z0-9_]*)\s*=\s*(\d+)\s*;")
IDENT = re.compile(r"\b[A-Z][A-Z0-9_]+\b")
GENERATOR = os.path.join("onos-app", "tools", "gen_p4_constants.py")
CONTRACT_COPY = os.path.join("onos-app", "tools", "contract-p4info.txt")
GENERATED_NAME = "P4InfoConstants.java"


def parse_constants(java_text):
    """({CONST: (kind, p4 name)}, {CONST: int}) of a generated constants class."""
    refs = {c: (PI_KINDS[k], n) for c, k, n in CONST.findall(java_text)}
    ints = {c: int(v) for c, v in INT_CONST.findall(java_text)}
    return refs, ints


def generate_onos_constants(root, p4infos, out_dir, fallback=False):
    """Run the app's generator; (java text, None) or (None, error text)."""
    import subprocess
    argv = [sys.executable, os.path.join(root, GENERATOR)]
    if fallback:
        argv += ["--fallback", os.path.join(root, CONTRACT_COPY)]
    p = subprocess.run(argv + [out_dir] + list(p4infos), capture_output=True, text=True, cwd=root)
    if p.returncode != 0:
        return None, (p.stderr or p.stdout).strip()
    path = os.path.join(out_dir, "org", "ccfair", "app", "pipeconf", GENERATED_NAME)
    with open(path) as f:
        return f.read(), None


def onos_sources(root):
    """Hand-written Java sources of the app (generated constants excluded)."""
    return sorted(f for f in glob.glob(os.path.join(root, "onos-app", "src", "main", "**", "*.java"), recursive=True)
                  if os.path.basename(f) != GENERATED_NAME)


def onos_usage(root, known_constants):
    """(constants of `known_constants` the hand-written code names, [(file, kind, name)] literal Pi*Id refs)."""
    used, literal = set(), []
    for f in onos_sources(root):
        text = open(f, encoding="utf-8").read()
        rel = os.path.relpath(f, root)
        literal += [(rel, PI_KINDS[k], n) for k, n in PI_REF.findall(text)]
        used |= set(IDENT.findall(text)) & set(known_constants)
    return used, literal


def _pools(info):
    pools = {"match_field": {}, "action_param": {}, "packet_metadata": {}}
    for t in info.msg.tables:
        for mf in t.match_fields:
            pools["match_field"].setdefault(mf.name, set()).add(mf.bitwidth)
    for a in info.msg.actions:
        for p in a.params:
            pools["action_param"].setdefault(p.name, set()).add(p.bitwidth)
    for h in info.msg.controller_packet_metadata:
        for m in h.metadata:
            pools["packet_metadata"].setdefault(m.name, set()).add(m.bitwidth)
    return pools


def check_onos(info, refs, widths=None, consts=None):
    """refs: [(where, kind, name)]; consts: {CONST: (kind, name)}; widths: {CONST_BITWIDTH's CONST: n}."""
    problems = []
    pools = _pools(info)
    for where, kind, name in refs:
        if kind in pools:
            ok = name in pools[kind]
        elif kind == "counter":
            ok = info.has("counter", name) or info.has("direct_counter", name)
        else:
            ok = info.has(kind, name)
        if not ok:
            problems.append("%s: %s %r is not in the P4Info" % (where, kind, name))
    for const, width in (widths or {}).items():
        kind, name = (consts or {}).get(const, (None, None))
        if kind in pools and name in pools[kind] and width not in pools[kind][name]:
            problems.append("ONOS constant %s_BITWIDTH = %d, but %s %r is %s bits in the P4Info"
                            % (const, width, kind, name, "/".join(map(str, sorted(pools[kind][name])))))
    return problems


def check_onos_app(root, info, p4infos, tmp):
    """All ONOS checks against one P4Info; (problems, summary dict)."""
    gen, err = generate_onos_constants(root, p4infos, os.path.join(tmp, "p4info"))
    if gen is None:
        return ["onos-app/tools/gen_p4_constants.py fails on the committed P4Info: %s" % err], {}
    consts, ints = parse_constants(gen)
    fb, _ = generate_onos_constants(root, [os.path.join(tmp, "absent", "p4info.txt")],
                                    os.path.join(tmp, "contract"), fallback=True)
    fb_consts = parse_constants(fb)[0] if fb else {}
    used, literal = onos_usage(root, set(consts) | set(fb_consts) | set(ints))
    problems = ["the ONOS app uses %s (%s %r in its contract copy), which the committed P4Info no longer generates"
                % (u, fb_consts[u][0], fb_consts[u][1]) for u in sorted(used) if u in fb_consts and u not in consts]
    refs = [(GENERATED_NAME, k, n) for k, n in consts.values()] + literal
    widths = {c[:-len("_BITWIDTH")]: v for c, v in ints.items() if c.endswith("_BITWIDTH")}
    problems += check_onos(info, refs, widths, consts)
    return problems, {"constants": len(consts), "used": len(used & set(consts)), "literal": len(literal),
                      "widths": len(widths)}
