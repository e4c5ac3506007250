# SPDX-License-Identifier: Apache-2.0
"""ptf-tests/contract/run: the ONOS app's P4Runtime contract on BMv2's simple_switch_grpc.

Starts the switch as ptf-tests/run --target bmv2 does (a network namespace of its own, the
veths of model-configs/ptf/bmv2, the same checks and refusals: runner/target_bmv2.py), with
no program, runs check.py in the namespace on the export of onos-app's ContractExportTest,
and tears everything down. Holds /tmp/ccfair-ptf.lock while the switch runs, so it never
overlaps another run on this machine. Exit 0 when the contract holds, 1 when it does not,
2 when it cannot run (the message names what is missing).
"""
import argparse
import fcntl
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PTF_DIR = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(PTF_DIR, "runner"))
sys.path.insert(0, os.path.join(PTF_DIR, "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(PTF_DIR), "tools"))

import common  # noqa: E402
import device_config  # noqa: E402
import target_bmv2  # noqa: E402
from ccfair import params as P  # noqa: E402

PROG = "ptf-tests/contract/run"
REPO = common.REPO
EXPORT = os.path.join(REPO, "onos-app", "target", "contract", "leaf1.json")
LOCK = "/tmp/ccfair-ptf.lock"


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--export", default=EXPORT, help="ContractExportTest's JSON (default %(default)s; "
                    "written by mvn verify, or: mvn -q test -Dtest=ContractExportTest -pl onos-app)")
    ap.add_argument("--build-dir", help="compiled BMv2 program (default p4/build/bmv2)")
    ap.add_argument("--log-dir")
    ap.add_argument("--netns")
    ap.add_argument("--startup-timeout", type=int, default=60)
    args = ap.parse_args(argv)
    params = P.load()
    try:
        if not os.path.isfile(args.export):
            raise common.Refusal("%s is missing: run `mvn -q test -Dtest=ContractExportTest -pl onos-app` (or "
                                 "mvn verify) first; it writes what the app hands to ONOS" % args.export)
        ns = argparse.Namespace(build_dir=args.build_dir, netns=args.netns, grpc_addr=None, device_id=None,
                                log_dir=args.log_dir, test_dir=None, tests=[], startup_timeout=args.startup_timeout,
                                ptf_timeout=None)
        plan = target_bmv2.preflight(ns, os.environ, params)
        plan["log_dir"] = common.log_dir(args.log_dir, "contract-bmv2")
        if os.geteuid() != 0:
            raise common.Refusal("needs root for its network namespace and veths (sudo -E %s)" % PROG)
    except common.Refusal as e:
        print("%s: cannot run: %s" % (PROG, e), file=sys.stderr)
        return common.EXIT_REFUSED

    L = plan["log_dir"]
    os.makedirs(L, exist_ok=True)
    F = {"p4info": os.path.join(L, "p4info.txt"), "device_config": os.path.join(L, "device_config.bin")}
    shutil.copyfile(os.path.join(plan["build_dir"], "p4info.txt"), F["p4info"])
    with open(F["device_config"], "wb") as f:
        f.write(device_config.build("bmv2", plan["build_dir"], "bmv2"))
    check = [target_bmv2.VENV_PY, os.path.join(HERE, "check.py"), "--export", os.path.abspath(args.export),
             "--onos-p4info", os.path.join(REPO, "p4", "p4info", "tofino", "p4info.txt"),
             "--p4info", F["p4info"], "--device-config", F["device_config"],
             "--grpc-addr", plan["grpc_addr"], "--device-id", str(plan["device_id"])]
    for v in plan["veths"]:
        check += ["--iface", "%d:veth%d" % (v["port"], v["veth2"])]

    lock = open(LOCK, "w")
    t_wait = time.time()
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("%s: waiting for %s (another BMv2 run holds it)" % (PROG, LOCK), flush=True)
        fcntl.flock(lock, fcntl.LOCK_EX)
        print("%s: got the lock after %.0f s" % (PROG, time.time() - t_wait), flush=True)
    procs, made_ns, rc = common.Processes(L, dict(os.environ)), False, 1
    common.exit_on_signals()
    t0 = time.time()
    try:
        for what, cmd in target_bmv2.commands(plan):
            if what in ("netns", "veth"):
                subprocess.check_call(cmd)
                made_ns = True
            elif what == "switch":
                procs.start("simple_switch_grpc", cmd)  # check.py waits for its gRPC port (in the namespace)
        cmd = target_bmv2.in_ns(plan, check)
        print("%s: %s" % (PROG, common.shell_line(cmd)), flush=True)
        rc = wait_check(cmd, procs, args.startup_timeout)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        rc = common.fail(e, L)
    finally:
        procs.stop_all()
        if made_ns:
            target_bmv2.remove_netns(plan["netns"])
        lock.close()
    print("%s: %s in %.0f s; logs in %s" % (PROG, "PASS" if rc == 0 else "FAIL", time.time() - t0, L), flush=True)
    return rc


def wait_check(cmd, procs, startup_timeout):
    """check.py's exit code; fails early if the switch dies under it."""
    return target_bmv2.run_watched(cmd, procs, startup_timeout + 120, "the contract check", poll_s=0.2)


if __name__ == "__main__":
    sys.exit(main())
