# SPDX-License-Identifier: Apache-2.0
"""The ONOS app's P4Runtime contract against simple_switch_grpc; run by run_contract.py inside
the network namespace where the switch and its veths are.

Reads the export of onos-app's ContractExportTest (the flow rules, CLONE groups and counter
cells of one device, as the app hands them to ONOS), translates them as ONOS 2.7 would
(translate.py), pushes the BMv2 pipeline, writes every entity, reads every table and clone
session back and compares them field by field, sends traffic between the two hosts the
export forwards to, and reads the counter cells the app reads. Exit 0 when everything holds,
1 with every problem listed (a server's refusal is quoted with the entity it refused).
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, HERE)

import grpc  # noqa: E402
from p4.v1 import p4runtime_pb2  # noqa: E402

import p4rt  # noqa: E402
from p4info import P4Info  # noqa: E402
import translate as T  # noqa: E402

PROG = "contract"
BATCH = 100  # updates per WriteRequest: the per-update status of a refused write must fit gRPC's 16 KiB metadata limit


def refused(err, updates):
    """The server's per-update errors of a failed Write, each with the entity it names."""
    from google.rpc import code_pb2, status_pb2
    out = []
    for key, value in (err.trailing_metadata() or ()):
        if key != "grpc-status-details-bin":
            continue
        for i, any_ in enumerate(status_pb2.Status.FromString(value).details):
            pe = p4runtime_pb2.Error()
            if any_.Unpack(pe) and pe.canonical_code != code_pb2.OK:
                out.append("%s: %s: %s" % (updates[i] if i < len(updates) else "update %d" % i,
                                           code_pb2.Code.Name(pe.canonical_code), pe.message or "(no message)"))
    if not out:
        out.append("Write refused (%s): %s" % (err.code().name, err.details()))
    return out


def write(sw, entities, descs, kind="INSERT"):
    """Write in batches; [] or the refusals."""
    problems = []
    for i in range(0, len(entities), BATCH):
        req = p4runtime_pb2.WriteRequest(device_id=sw.device_id)
        req.election_id.high, req.election_id.low = sw.election_id
        for ent in entities[i:i + BATCH]:
            u = req.updates.add(type=p4runtime_pb2.Update.Type.Value(kind))
            if isinstance(ent, p4runtime_pb2.TableEntry):
                u.entity.table_entry.CopyFrom(ent)
            else:
                u.entity.packet_replication_engine_entry.CopyFrom(ent)
        try:
            sw.stub.Write(req)
        except grpc.RpcError as e:
            problems += refused(e, descs[i:i + BATCH])
    return problems


def write_sessions(sw, sessions):
    """Write clone sessions [(sid, replicas, plen)]. A truncation PI's BMv2 target refuses
    (pi_clone_imp.cpp: max_packet_length != 0 is NOT_IMPLEMENTED_BY_TARGET, reported as "Error
    when creating clone session in target") is retried without it, which tells that limit from a
    wrong id or port. Returns (refusals, [(sid, plen, refusal)] written without truncation, the
    sessions as written, how many were written)."""
    problems, skipped, written, n = [], [], [], 0
    for sid, replicas, plen in sessions:
        what = "clone session %d (replicas %s, packet_length_bytes %d)" % (sid, replicas, plen)
        err = write(sw, [session_entry(sid, replicas, plen)], [what])
        if err and plen and not write(sw, [session_entry(sid, replicas, 0)], [what + " without truncation"]):
            skipped.append((sid, plen, err[0]))
            plen, err = 0, []
        written.append((sid, replicas, plen))
        problems += err
        n += not err
    return problems, skipped, written, n


def session_entry(sid, replicas, plen):
    pre = p4runtime_pb2.PacketReplicationEngineEntry()
    cs = pre.clone_session_entry
    cs.session_id, cs.packet_length_bytes = sid, plen
    for p, inst in replicas:
        cs.replicas.add(egress_port=p, instance=inst)
    return pre


def read_table(sw, table_id):
    ent = p4runtime_pb2.Entity()
    ent.table_entry.table_id = table_id
    return [e.table_entry for e in sw.read(ent)]


def read_counter_whole(sw, counter_id):
    """{index: (packets, bytes)} of every cell: a wildcard read, as ONOS's counterCells(ids) does."""
    ent = p4runtime_pb2.Entity()
    ent.counter_entry.counter_id = counter_id
    return {e.counter_entry.index.index: (e.counter_entry.data.packet_count, e.counter_entry.data.byte_count)
            for e in sw.read(ent)}


def read_counter_cells(sw, counter_id, cells):
    """{index: packets} of the given cells in one ReadRequest, as ONOS reads a list of cell handles."""
    req = p4runtime_pb2.ReadRequest(device_id=sw.device_id)
    for c in cells:
        e = req.entities.add()
        e.counter_entry.counter_id = counter_id
        e.counter_entry.index.index = c
    out = {}
    for rep in sw.stub.Read(req):
        for e in rep.entities:
            out[e.counter_entry.index.index] = e.counter_entry.data.packet_count
    return out


def send_traffic(hosts, ifaces, n):
    """n UDP packets and one TCP SYN from the host on the lower port to the one on the higher;
    (egress port, packets sent, packets received there)."""
    from scapy.all import AsyncSniffer, Ether, IP, TCP, UDP, Raw, sendp, conf
    conf.verb = 0
    (mac_a, pa), (mac_b, pb) = sorted(((m.lower(), p) for m, p in hosts.items()), key=lambda kv: kv[1])[:2]
    ia, ib = ifaces[pa], ifaces[pb]
    sniff = AsyncSniffer(iface=ib, store=True, lfilter=lambda p: Ether in p and p[Ether].dst == mac_b)
    sniff.start()
    time.sleep(0.5)
    pkts = [Ether(src=mac_a, dst=mac_b) / IP(src="10.0.0.2", dst="10.0.0.3") / UDP(sport=4000 + i, dport=4001)
            / Raw(b"\0" * 100) for i in range(n)]
    pkts.append(Ether(src=mac_a, dst=mac_b) / IP(src="10.0.0.2", dst="10.0.0.3") /
                TCP(sport=47000, dport=5001, flags="S") / Raw(b"\0" * 10))
    sendp(pkts, iface=ia)
    time.sleep(1.0)
    got = sniff.stop()
    return pb, len(pkts), len(got)


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--export", required=True, help="ContractExportTest's JSON")
    ap.add_argument("--onos-p4info", required=True, help="P4Info of the app's pipeconf (p4/p4info/tofino)")
    ap.add_argument("--p4info", required=True, help="BMv2's P4Info")
    ap.add_argument("--device-config", required=True, help="the BMv2 JSON")
    ap.add_argument("--grpc-addr", required=True)
    ap.add_argument("--device-id", type=int, required=True)
    ap.add_argument("--iface", action="append", default=[], metavar="PORT:IFACE",
                    help="the far end of switch port PORT's veth (repeatable)")
    ap.add_argument("--packets", type=int, default=10)
    args = ap.parse_args(argv)
    with open(args.export) as f:
        ex = json.load(f)
    onos, bm = P4Info.from_file(args.onos_p4info), P4Info.from_file(args.p4info)
    tr = T.Translator(onos, bm)
    problems = []

    # -- ONOS's translation of every flow rule (a rule ONOS would refuse fails here) ---------
    entries, descs, want = [], [], {}
    for r in ex["flow_rules"]:
        try:
            d, te, canon = tr.entry(r)
        except T.ContractError as e:
            problems.append(str(e))
            continue
        entries.append(te)
        descs.append("flow rule " + d)
        want.setdefault(canon[0], {})[canon[1:3]] = (canon, d)
    sessions = []
    for g in ex["groups"]:
        try:
            sessions.append(T.clone_session(g))
        except T.ContractError as e:
            problems.append(str(e))
    if problems:
        return report(problems)

    host, port = args.grpc_addr.rsplit(":", 1)
    with open(args.device_config, "rb") as f:
        cfg = f.read()
    sw = p4rt.Client(bm, "%s:%s" % ("127.0.0.1" if host in ("", "0.0.0.0") else host, port), args.device_id,
                     timeout=30)
    try:
        t0 = time.time()
        sw.set_pipeline(cfg, p4rt.pipeline_cookie(cfg, bm))
        print("%s: pipeline pushed (%.1f s)" % (PROG, time.time() - t0), flush=True)

        # -- writes -----------------------------------------------------------------------------------
        t0 = time.time()
        problems += write(sw, entries, descs)
        err, skipped, sessions, nsess = write_sessions(sw, sessions)
        problems += err
        if skipped:
            print("SKIPPED: truncation of clone sessions %s to %s bytes on BMv2 (PI's bmv2 target cannot truncate: "
                  "refused as %r; accepted with packet_length_bytes 0, which the read-back then checks)" % (
                      ", ".join(str(s[0]) for s in skipped), "/".join(sorted({str(s[1]) for s in skipped})),
                      skipped[0][2].split(": ", 1)[1]), flush=True)
        print("%s: wrote %d table entries of %d tables and %d clone sessions (%.1f s)%s" % (
            PROG, len(entries), len(want), nsess, time.time() - t0,
            "; %d refused" % len(problems) if problems else ""), flush=True)
        if problems:
            return report(problems)

        # -- read back ----------------------------------------------------------------------------------
        t0, nread = time.time(), 0
        for tname, by_key in sorted(want.items()):
            got = {}
            for te in read_table(sw, bm.id("table", tname)):
                c = tr.canonical(te)
                got[c[1:3]] = c
                nread += 1
            for k, (c, d) in by_key.items():
                if k not in got:
                    problems.append("flow rule %s: not on the switch after the write" % d)
                elif got[k] != c:
                    problems.append("flow rule %s: reads back as %s, written %s" % (d, got[k][3:], c[3:]))
            for k in set(got) - set(by_key):
                problems.append("table %s: entry %s on the switch that the app did not write" % (tname, got[k]))
        for sid, replicas, plen in sessions:
            cs = sw.read_clone_session(sid)
            back = None if cs is None else (sorted((r.egress_port, r.instance) for r in cs.replicas),
                                            cs.packet_length_bytes)
            if back != (sorted(replicas), plen):
                problems.append("clone session %d: reads back as %s, written %s" % (sid, back, (replicas, plen)))
        print("%s: read back %d table entries and %d clone sessions: %s (%.1f s)" % (
            PROG, nread, len(sessions), "all equal to what was written" if not problems else
            "%d differences" % len(problems), time.time() - t0), flush=True)

        # -- traffic and the counter cells the app reads -----------------------------------------------------
        ifaces = {int(s.split(":")[0]): s.split(":", 1)[1] for s in args.iface}
        hosts = ex["hosts"]
        missing = [p for p in hosts.values() if p not in ifaces]
        if missing:
            problems.append("no interface for host port(s) %s" % missing)
            return report(problems)
        eg, sent, recv = send_traffic(hosts, ifaces, args.packets)
        print("%s: sent %d packets to the host on port %d, %d arrived" % (PROG, sent, eg, recv), flush=True)
        if recv != sent:
            problems.append("%d of %d packets to port %d arrived (forwarding through the app's l2_exact "
                            "entries)" % (recv, sent, eg))
        cnt = ex["counters"]
        whole = {c: read_counter_whole(sw, bm.id("counter", c)) for c in cnt["read_whole"]}
        for c, cells in whole.items():
            if len(cells) != bm.counter_size(c):
                problems.append("counter %s: a wildcard read returned %d cells, the P4Info says %d" % (
                    c, len(cells), bm.counter_size(c)))
        ports = cnt["ports"]
        mine = {int(p): v for p, v in ports.items()}
        if eg not in mine:
            problems.append("the app reads no counter cells of port %d" % eg)
            return report(problems)
        pkts = "EgressPipe.telemetry.pg_pkts"
        at = lambda c, p: sum(whole[c].get(i, (0, 0))[0] for i in mine[p]["pg_cells"])  # noqa: E731
        total = sum(v[0] for v in whole[pkts].values())
        print("%s: %s: %d packets in port %d's cells (stats index %d), %d in all cells" % (
            PROG, pkts, at(pkts, eg), eg, mine[eg]["stats_index"], total), flush=True)
        if at(pkts, eg) != recv or total != recv:
            problems.append("%s: %d packets left port %d, its cells %s (where the app reads) count %d, all "
                            "cells %d" % (pkts, recv, eg, mine[eg]["pg_cells"], at(pkts, eg), total))
        enter = "IngressPipe.update.pg_flow_enter"
        print("%s: %s: %d flows entered in port %d's cells, %d in all cells" % (
            PROG, enter, at(enter, eg), eg, sum(v[0] for v in whole[enter].values())), flush=True)
        if at(enter, eg) != 1 or sum(v[0] for v in whole[enter].values()) != 1:
            problems.append("%s: one new TCP flow to port %d: its cells count %d, all cells %d" % (
                enter, eg, at(enter, eg), sum(v[0] for v in whole[enter].values())))
        nonzero = 0
        for c, cells in sorted(mine[eg]["queue_cells"].items()):
            vals = read_counter_cells(sw, bm.id("counter", c), cells)
            if len(vals) != len(cells):
                problems.append("counter %s: %d of %d cells read" % (c, len(vals), len(cells)))
            s = sum(vals.values())
            nonzero += sum(1 for v in vals.values() if v)
            allc = sum(v[0] for v in read_counter_whole(sw, bm.id("counter", c)).values())
            print("%s: %s: read %d cells of port %d by index: %d packets, %d in all cells" % (
                PROG, c, len(cells), eg, s, allc), flush=True)
            if c.endswith("q_depth_hist") and (s != recv or allc != recv):
                problems.append("%s: %d packets left port %d, the cells the app reads count %d, all cells %d"
                                % (c, recv, eg, s, allc))
        if not nonzero:
            problems.append("no non-zero per-queue cell of port %d" % eg)
    finally:
        sw.close()
    return report(problems)


def report(problems):
    for p in problems:
        print("%s: FAIL: %s" % (PROG, p), flush=True)
    print("%s: %s" % (PROG, "%d problem(s)" % len(problems) if problems else "PASS"), flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
