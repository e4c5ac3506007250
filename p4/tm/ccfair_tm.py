# SPDX-License-Identifier: Apache-2.0
"""ccfair traffic-manager set-up, run once per switch boot by the SDE:

    bfshell -b /path/to/p4/tm/ccfair_tm.py

(set CCFAIR_PARAMS=/path/to/params/ccfair.json and CCFAIR_PORTS="1,2,3,..." =
the front-panel device ports in use; CCFAIR_PROFILE=tofino|tofino2, default
from the chip bfrt reports.)

What it sets, from params/ccfair.json, and nothing else (policy changes at run
time go through P4Runtime tables and registers, never through the TM):
  * queues.per_port queues on every listed port, identity qid -> queue map
    (the P4 queue_map table returns qids 0 .. per_port-1);
  * their scheduling: queues.scheduler ("dwrr": all queues at one priority,
    queue q at DWRR weight queues.dwrr_weights[q], the weights the ONOS app's
    isolated layout picks its queues by (docs/algorithm.md D18); "rr": same
    with equal weights, which gives that layout's groups equal shares;
    "strict": priority = qid);
  * the egress-to-ingress group-update path: one mirror session per pipe,
    id update.mirror_session_base + pipe, to that pipe's recirculation port
    (update.recirc_port_<profile>), copies truncated to update.truncate_bytes;
  * on Tofino 2 the recirculation port is added in loopback.

bfshell -b runs this file inside bfrt_python, where the name `bfrt` exists.
Outside it (e.g. `python3 ccfair_tm.py --dry-run`) it prints the plan only.
`python3 ccfair_tm.py --stratum NODE_ID` prints the same queue plan as the
vendor_config block of a Stratum chassis config (stratum_bfrt); the mirror
session is then a P4Runtime clone session the controller writes.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_PARAMS = os.path.join(HERE, "..", "..", "params", "ccfair.json")


def load_params():
    path = os.environ.get("CCFAIR_PARAMS", DEFAULT_PARAMS)
    with open(path) as f:
        return json.load(f)


def ports_from_env():
    raw = os.environ.get("CCFAIR_PORTS", "").strip()
    if not raw:
        return []
    try:
        return [int(x) for x in raw.split(",") if x.strip()]
    except ValueError:
        raise SystemExit("CCFAIR_PORTS must be a comma-separated list of device ports, got %r" % raw)


def plan(p, profile, ports):
    """The TM operations as data, so the dry run and the real run agree."""
    q = p["queues"]
    upd = p["update"]
    n = q["per_port"]
    if not 1 <= n <= 32:
        raise SystemExit("queues.per_port must be 1..32, got %r" % n)
    sched = q["scheduler"]
    if sched not in ("dwrr", "rr", "strict"):
        raise SystemExit("queues.scheduler must be dwrr, rr or strict, got %r" % sched)
    weights = q.get("dwrr_weights")
    if (not isinstance(weights, list) or len(weights) != n
            or not all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= 1023 for w in weights)):
        raise SystemExit("queues.dwrr_weights must list queues.per_port (%d) integers in 1..1023, got %r" % (n, weights))
    recirc_local = upd["recirc_port_" + profile]
    ops = []
    for port in ports:
        ops.append(("port_queues", port, n))
        for qid in range(n):
            if sched == "strict":
                ops.append(("queue_sched", port, qid, {"max_priority": min(qid, 7)}))
            else:
                w = weights[qid] if sched == "dwrr" else 1
                ops.append(("queue_sched", port, qid, {"max_priority": 0, "dwrr_weight": w}))
    pipes = sorted({port >> 7 for port in ports}) or [0]
    for pipe in pipes:
        recirc = (pipe << 7) | recirc_local
        if profile == "tofino2":
            ops.append(("loopback_port", recirc))
        ops.append(("mirror_session", upd["mirror_session_base"] + pipe, recirc, upd["truncate_bytes"]))
    return ops


def apply(ops, profile):
    tm = bfrt.tf1.tm if profile == "tofino" else bfrt.tf2.tm  # noqa: F821 (bfrt_python global)
    for op in ops:
        kind = op[0]
        if kind == "port_queues":
            _, port, n = op
            qmap = [i % n for i in range(32)]
            tm.port.cfg.mod(dev_port=port, port_queues_count=n, ingress_qid_map=qmap)
        elif kind == "queue_sched":
            _, port, qid, fields = op
            entry = tm.port.cfg.get(dev_port=port, print_ents=False)
            pg_id = entry.data[b"pg_id"]
            pg_queue = entry.data[b"egress_qid_queues"][qid]
            tm.queue.sched_cfg.mod(pipe=port >> 7, pg_id=pg_id, pg_queue=pg_queue, **fields)
        elif kind == "loopback_port":
            _, port = op
            bfrt.port.port.add(DEV_PORT=port, SPEED="BF_SPEED_100G", FEC="BF_FEC_TYP_NONE",  # noqa: F821
                               LOOPBACK_MODE="BF_LPBK_MAC_NEAR", PORT_ENABLE=True)
        elif kind == "mirror_session":
            _, sid, port, trunc = op
            bfrt.mirror.cfg.add_with_normal(sid=sid, direction="EGRESS", session_enable=True,  # noqa: F821
                                            ucast_egress_port=port, ucast_egress_port_valid=1,
                                            max_pkt_len=trunc)
    bfrt.complete_operations()  # noqa: F821


def stratum_config(ops, node_id):
    """The queue part of the plan as Stratum's vendor_config.tofino_config."""
    by_port = {}
    for op in ops:
        if op[0] == "queue_sched":
            _, port, qid, fields = op
            by_port.setdefault(port, []).append((qid, fields))
    blobs = []
    for port, queues in sorted(by_port.items()):
        maps = []
        for qid, f in queues:
            maps.append("          queue_mapping {\n"
                        "            queue_id: %d\n"
                        "            priority: PRIO_%d\n"
                        "            weight: %d\n"
                        "          }" % (qid, f["max_priority"], f.get("dwrr_weight", 1)))
        blobs.append("        queue_configs {\n          sdk_port: %d\n%s\n        }" % (port, "\n".join(maps)))
    return ("vendor_config {\n  tofino_config {\n    node_id_to_qos_config {\n"
            "      key: %d\n      value {\n%s\n      }\n    }\n  }\n}\n" % (node_id, "\n".join(blobs)))


def main():
    p = load_params()
    if "--stratum" in sys.argv:
        i = sys.argv.index("--stratum")
        try:
            node_id = int(sys.argv[i + 1])
        except (IndexError, ValueError):
            raise SystemExit("--stratum needs the chassis-config node id (an integer)")
        profile = os.environ.get("CCFAIR_PROFILE", "tofino")
        if profile not in p["targets"]["profiles"]:
            raise SystemExit("CCFAIR_PROFILE must be one of %s, got %r" % (sorted(p["targets"]["profiles"]), profile))
        sys.stdout.write(stratum_config(plan(p, profile, ports_from_env()), node_id))
        return
    dry = "--dry-run" in sys.argv or "bfrt" not in globals()
    profile = os.environ.get("CCFAIR_PROFILE")
    if profile is None:
        profile = "tofino" if dry or hasattr(bfrt, "tf1") else "tofino2"  # noqa: F821
    if profile not in p["targets"]["profiles"]:
        raise SystemExit("CCFAIR_PROFILE must be one of %s, got %r" % (sorted(p["targets"]["profiles"]), profile))
    ops = plan(p, profile, ports_from_env())
    for op in ops:
        print("ccfair_tm:", *op)
    if not dry:
        apply(ops, profile)


main()
