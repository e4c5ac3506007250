# SPDX-License-Identifier: Apache-2.0
"""Set up a fresh simple_switch_grpc for the PTF suite; ptf-tests/run --target bmv2
runs it inside the run's network namespace, where the switch's ports are.

Waits for the P4Runtime and Thrift ports, pushes the pipeline with the cookie
the tests compute (so the first test does not push it again, which would reset
what follows), writes the clone sessions through the PRE, and rate-limits the
queues of the shaped port over Thrift (the BMv2 counterpart of the port shaping
in tofino-model's chassis config). Exit 0 when all of it is done, else 1 with
the reason on stderr.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools"))

import bmv2  # noqa: E402
import p4rt  # noqa: E402
from ccfair import params as P  # noqa: E402
from p4info import P4Info  # noqa: E402

PROG = "bmv2_setup"


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--grpc-addr", required=True)
    ap.add_argument("--device-id", type=int, required=True)
    ap.add_argument("--p4info", required=True)
    ap.add_argument("--device-config", required=True, help="the BMv2 JSON, pushed as p4_device_config")
    ap.add_argument("--thrift-port", type=int, required=True)
    ap.add_argument("--bmv2-py", help="directory holding BMv2's Thrift stubs (bm_runtime, sswitch_runtime)")
    ap.add_argument("--shape", action="append", default=[], metavar="PORT:PPS",
                    help="rate-limit every priority queue of PORT to PPS packets/s (repeatable)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds to wait for the switch's ports")
    args = ap.parse_args(argv)
    host, gport = args.grpc_addr.rsplit(":", 1)
    host = "127.0.0.1" if host in ("", "0.0.0.0") else host
    deadline = time.time() + args.timeout
    try:
        bmv2.wait_for(host, int(gport), deadline, "simple_switch_grpc's P4Runtime server")
        bmv2.wait_for("127.0.0.1", args.thrift_port, deadline, "simple_switch_grpc's Thrift server")
        info = P4Info.from_file(args.p4info)
        with open(args.device_config, "rb") as f:
            cfg = f.read()
        sw = p4rt.Client(info, "%s:%s" % (host, gport), args.device_id, timeout=max(5, int(deadline - time.time())))
        try:
            cookie = p4rt.pipeline_cookie(cfg, info)
            if sw.get_pipeline_cookie() != cookie:
                t0 = time.time()
                sw.set_pipeline(cfg, cookie)
                print("%s: pipeline pushed (%d bytes of BMv2 JSON, %.1f s)" % (PROG, len(cfg), time.time() - t0))
            for sid, port in bmv2.write_clone_sessions(sw, P.load()):
                got = sw.read_clone_session(sid)
                if got is None or [r.egress_port for r in got.replicas] != [port]:
                    raise RuntimeError("clone session %d reads back as %r" % (sid, got))
                print("%s: clone session %d -> port %d (whole packets: BMv2 cannot truncate)" % (PROG, sid, port))
        finally:
            sw.close()
        if args.shape:
            th = bmv2.Switch(args.thrift_port, runtime_dir=args.bmv2_py)
            try:
                for spec in args.shape:
                    port, pps = (int(x) for x in spec.split(":"))
                    th.set_queue_rate(port, pps)
                    print("%s: port %d: every priority queue limited to %d packets/s" % (PROG, port, pps))
            finally:
                th.close()
    except Exception as e:  # anything here leaves the switch unusable for the suite: say what and stop
        print("%s: FAILED: %s: %s" % (PROG, type(e).__name__, e), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
