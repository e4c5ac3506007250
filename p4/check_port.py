#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cross-check of the v1model port's P4Info against the TNA program's.

  check_port.py [TOFINO_P4INFO [BMV2_P4INFO]]   (default: the committed contracts)

The PTF suite and the ONOS app address the program by name, so the port must
expose the same tables (keys, match kinds, widths, actions, sizes), the same
actions with the same parameters, counters, registers (size and cell width),
digest fields and controller headers as the Tofino 1 profile. The only
differences allowed are listed in EXCEPTIONS, each with its reason; anything
else is reported and the exit status is 1.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "ptf-tests", "lib"))
from p4info import P4Info, p4info_pb2  # noqa: E402

# Why the two P4Infos may differ; main() prints which ones applied.
EXCEPTIONS = {
    "port": "ports are 32-bit SDN ids translated by Stratum (@p4runtime_translation) on Tofino and 9-bit "
            "device ports on BMv2: PI, BMv2's P4Runtime server, does not implement the translation",
    "packed": "a register whose cells are a struct on Tofino (a stateful-ALU pair) is one bitstring of the "
              "same width on BMv2 (BMv2 registers hold bit<W>), first member in the high bits",
    "direct-actions": "actions called directly from a control (no table) are how each architecture computes "
                      "times and hashes; they are not part of the control-plane contract",
    "const-size": "a table whose entries are all const and whose size the program leaves open gets each "
                  "compiler's default (bf-p4c 512, p4c 1024); the control plane cannot write it",
    "digest-name": "bf-p4c names the digest after its Digest<> instance, p4c-bm2-ss after its struct type; "
                   "clients look it up by struct type (ptf-tests/lib/p4info.py)",
}
PORT_TYPE = "FabPortId_t"


def _port(mf_or_param):
    return mf_or_param.type_name.name == PORT_TYPE


def _width_diff(what, tna, bm, tw, bw, is_port, used, problems):
    if is_port:
        if (tw, bw) != (32, 9):
            problems.append("%s: port width %d on Tofino, %d on BMv2 (expected 32 and 9)" % (what, tw, bw))
        used.add("port")
    elif tw != bw:
        problems.append("%s: width %d on Tofino, %d on BMv2" % (what, tw, bw))


def compare(tna, bm):
    """(problems, exceptions used) for two P4Info indexes."""
    problems, used = [], set()
    MT = p4info_pb2.MatchField.MatchType.Name

    def names(info, field):
        return {o.preamble.name: o for o in getattr(info.msg, field)}

    def same_set(kind, a, b):
        for n in sorted(set(a) - set(b)):
            problems.append("%s %s: on Tofino, missing on BMv2" % (kind, n))
        for n in sorted(set(b) - set(a)):
            problems.append("%s %s: on BMv2, not on Tofino" % (kind, n))

    tt, bt = names(tna, "tables"), names(bm, "tables")
    same_set("table", tt, bt)
    in_tables = set()
    for n in sorted(set(tt) & set(bt)):
        t, b = tt[n], bt[n]
        tf, bf = {m.name: m for m in t.match_fields}, {m.name: m for m in b.match_fields}
        if list(tf) != list(bf):
            problems.append("table %s: keys %s on Tofino, %s on BMv2" % (n, list(tf), list(bf)))
            continue
        for k in tf:
            if MT(tf[k].match_type) != MT(bf[k].match_type):
                problems.append("table %s key %s: %s on Tofino, %s on BMv2"
                                % (n, k, MT(tf[k].match_type), MT(bf[k].match_type)))
            _width_diff("table %s key %s" % (n, k), tna, bm, tf[k].bitwidth, bf[k].bitwidth, _port(tf[k]),
                        used, problems)
        ta = sorted(tna.by_id(r.id).preamble.name for r in t.action_refs)
        ba = sorted(bm.by_id(r.id).preamble.name for r in b.action_refs)
        if ta != ba:
            problems.append("table %s: actions %s on Tofino, %s on BMv2" % (n, ta, ba))
        in_tables.update(ta)
        if t.size != b.size and t.is_const_table and b.is_const_table:
            used.add("const-size")
        elif t.size != b.size:
            problems.append("table %s: size %d on Tofino, %d on BMv2" % (n, t.size, b.size))
        if t.is_const_table != b.is_const_table:
            problems.append("table %s: const entries on one target only" % n)
        tdc = [tna.by_id(i).preamble.name for i in t.direct_resource_ids]
        bdc = [bm.by_id(i).preamble.name for i in b.direct_resource_ids]
        if tdc != bdc:
            problems.append("table %s: direct resources %s on Tofino, %s on BMv2" % (n, tdc, bdc))

    ta, ba = names(tna, "actions"), names(bm, "actions")
    ta = {k: v for k, v in ta.items() if k in in_tables or k not in ba}
    ba = {k: v for k, v in ba.items() if k in in_tables or k not in ta}
    direct = sorted(set(names(tna, "actions")) - set(ta)) + sorted(set(names(bm, "actions")) - set(ba))
    if direct:
        used.add("direct-actions")
    same_set("action", {k for k in ta if k in in_tables}, {k for k in ba if k in in_tables})
    for n in sorted(in_tables & set(ta) & set(ba)):
        tp, bp = list(ta[n].params), list(ba[n].params)
        if [p.name for p in tp] != [p.name for p in bp]:
            problems.append("action %s: params %s on Tofino, %s on BMv2"
                            % (n, [p.name for p in tp], [p.name for p in bp]))
            continue
        for p, q in zip(tp, bp):
            _width_diff("action %s param %s" % (n, p.name), tna, bm, p.bitwidth, q.bitwidth, _port(p), used,
                        problems)

    for field, kind in (("counters", "counter"), ("direct_counters", "direct counter")):
        tc, bc = names(tna, field), names(bm, field)
        same_set(kind, tc, bc)
        for n in sorted(set(tc) & set(bc)):
            if tc[n].spec.unit != bc[n].spec.unit:
                problems.append("%s %s: unit differs" % (kind, n))
            if field == "counters" and tc[n].size != bc[n].size:
                problems.append("%s %s: size %d on Tofino, %d on BMv2" % (kind, n, tc[n].size, bc[n].size))

    tr, br = names(tna, "registers"), names(bm, "registers")
    same_set("register", tr, br)
    for n in sorted(set(tr) & set(br)):
        if tr[n].size != br[n].size:
            problems.append("register %s: size %d on Tofino, %d on BMv2" % (n, tr[n].size, br[n].size))
        tw, bw = tna.register_width(n), bm.register_width(n)
        if tw != bw:
            problems.append("register %s: cell width %d on Tofino, %d on BMv2" % (n, tw, bw))
        if tna.register_fields(n) and not bm.register_fields(n):
            used.add("packed")

    td = {d.type_spec.struct.name: d for d in tna.msg.digests}
    bd = {d.type_spec.struct.name: d for d in bm.msg.digests}
    same_set("digest of struct", td, bd)
    for n in sorted(set(td) & set(bd)):
        if td[n].preamble.name != bd[n].preamble.name:
            used.add("digest-name")
        tf, bf = tna.digest_fields(n), bm.digest_fields(n)
        if tf != bf:
            problems.append("digest %s: fields %s on Tofino, %s on BMv2" % (n, tf, bf))

    th, bh = names(tna, "controller_packet_metadata"), names(bm, "controller_packet_metadata")
    same_set("controller header", th, bh)
    for n in sorted(set(th) & set(bh)):
        tm, bmm = list(th[n].metadata), list(bh[n].metadata)
        if [m.name for m in tm] != [m.name for m in bmm]:
            problems.append("controller header %s: fields differ" % n)
            continue
        for a, b in zip(tm, bmm):
            _width_diff("controller header %s.%s" % (n, a.name), tna, bm, a.bitwidth, b.bitwidth, _port(a),
                        used, problems)
    return problems, used


def main(argv):
    tofino = argv[1] if len(argv) > 1 else os.path.join(HERE, "p4info", "tofino", "p4info.txt")
    bmv2 = argv[2] if len(argv) > 2 else os.path.join(HERE, "p4info", "bmv2", "p4info.txt")
    problems, used = compare(P4Info.from_file(tofino), P4Info.from_file(bmv2))
    if problems:
        for p in problems:
            sys.stderr.write("FAIL: %s\n" % p)
        sys.stderr.write("v1model port and TNA program disagree in %d place(s)\n" % len(problems))
        return 1
    print("bmv2 P4Info matches tofino: same tables, actions, counters, registers, digest, controller headers; "
          "allowed differences: %s" % ", ".join(sorted(used)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
