# SPDX-License-Identifier: Apache-2.0
"""The testbed's switch side; testbed.py runs it inside the switch's network namespace (the
switch's gRPC and Thrift ports listen on that namespace's 127.0.0.1).

Pushes the pipeline, writes the policy (an export of the ONOS app, translated as ONOS 2.7
would by ptf-tests/contract/translate.py and written by the contract check's writer), sets the
bottleneck queue's depth and rate over Thrift, prints one line "READY {json}", then samples
every flow's flow_group / flow_sig slot and the bottleneck queue's q_max_delay (read, then
reset: each sample is the largest sojourn since the previous one) until a line "STOP" (or
EOF) arrives on stdin, and writes the samples as JSON to --out. Exit 1 with the reason on any
refusal.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "ptf-tests", "contract"))
sys.path.insert(0, os.path.join(REPO, "ptf-tests", "lib"))
sys.path.insert(0, HERE)

import select  # noqa: E402

import bmv2  # noqa: E402
import check  # noqa: E402  (the contract check's writer: batches, per-update refusals)
import p4rt  # noqa: E402
import tblib  # noqa: E402
import translate as T  # noqa: E402
from p4info import P4Info  # noqa: E402

PROG = "testbed/switchctl"
FLOW_GROUP = "IngressPipe.flow_tracker.flow_group"
FLOW_SIG = "IngressPipe.flow_tracker.flow_sig"
Q_MAX_DELAY = "EgressPipe.aqm.q_max_delay"
PG_COUNTERS = ("EgressPipe.telemetry.pg_pkts", "EgressPipe.telemetry.pg_drops", "EgressPipe.telemetry.pg_marks")


def write_policy(sw, bm, onos, export):
    tr = T.Translator(onos, bm)
    entries, descs = [], []
    for r in export["flow_rules"]:
        d, te, _ = tr.entry(r)
        entries.append(te)
        descs.append("flow rule " + d)
    problems = check.write(sw, entries, descs)
    # PI's BMv2 target cannot truncate: check.write_sessions writes such a session without it
    err, _, _, nsess = check.write_sessions(sw, [T.clone_session(g) for g in export["groups"]])
    problems += err
    if problems:
        raise RuntimeError("the switch refused %d writes, first: %s" % (len(problems), problems[0]))
    return len(entries), nsess


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True, help="JSON: export, p4info, onos_p4info, device_config, "
                    "grpc_port, thrift_port, device_id, port, depth_pkts, rate_pps, stats_idx, qid, slots, poll_s")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    with open(args.config) as f:
        c = json.load(f)
    deadline = time.time() + c.get("timeout_s", 60)
    try:
        bmv2.wait_for("127.0.0.1", c["grpc_port"], deadline, "simple_switch_grpc's P4Runtime server", every=0.3)
        bmv2.wait_for("127.0.0.1", c["thrift_port"], deadline, "simple_switch_grpc's Thrift server", every=0.3)
        bm, onos = P4Info.from_file(c["p4info"]), P4Info.from_file(c["onos_p4info"])
        with open(c["device_config"], "rb") as f:
            cfg = f.read()
        with open(c["export"]) as f:
            export = json.load(f)
        sw = p4rt.Client(bm, "127.0.0.1:%d" % c["grpc_port"], c["device_id"], timeout=30)
        t0 = time.time()
        sw.set_pipeline(cfg, p4rt.pipeline_cookie(cfg, bm))
        n, nsess = write_policy(sw, bm, onos, export)
        t_write = time.time() - t0
        th = bmv2.Switch(c["thrift_port"])
        port = c["port"]
        th.set_queue_depth(port, c["depth_pkts"])
        th.set_queue_rate(port, c["rate_pps"])
    except Exception as e:  # noqa: BLE001  (any failure here ends the run with its reason)
        print("%s: FAILED: %s: %s" % (PROG, type(e).__name__, e), file=sys.stderr, flush=True)
        return 1
    qidx = tblib.queue_index(c["stats_idx"], c["qid"])
    slots = c["slots"]
    print("READY " + json.dumps({"entries": n, "clone_sessions": nsess, "write_s": round(t_write, 2),
                                 "queue_index": qidx}), flush=True)
    samples = []
    try:
        th.write_register(Q_MAX_DELAY, qidx, 0)
        stop = False
        while not stop:
            r, _, _ = select.select([sys.stdin], [], [], c["poll_s"])
            if r:
                line = sys.stdin.readline()
                stop = line == "" or line.strip() == "STOP"
            t = time.time()
            groups = [th.read_register(FLOW_GROUP, s) for s in slots]
            sigs = [th.read_register(FLOW_SIG, s) for s in slots]
            qd = th.read_register(Q_MAX_DELAY, qidx)
            th.write_register(Q_MAX_DELAY, qidx, 0)
            samples.append({"t": t, "group": groups, "sig": sigs, "q_max_delay": qd})
        cells = [(c["stats_idx"] << 5) | g for g in range(c["num_groups"])]
        pg = {name: [th.read_counter(name, i)[0] for i in cells] for name in PG_COUNTERS}
    except Exception as e:  # noqa: BLE001
        print("%s: FAILED while sampling: %s: %s" % (PROG, type(e).__name__, e), file=sys.stderr, flush=True)
        pg = {}
    finally:
        with open(args.out, "w") as f:
            json.dump({"samples": samples, "pg_counters": pg, "queue_index": qidx}, f)
        sw.close()
        th.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
