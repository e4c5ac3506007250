# SPDX-License-Identifier: Apache-2.0
"""ptf-tests/run: the ccfair PTF suite on tofino-model, from the user's Intel SDE,
or (``--target bmv2``, runner/target_bmv2.py) on BMv2's simple_switch_grpc.

Order of work on tofino-model: check everything that can be checked without root (arguments,
$SDE/$SDE_INSTALL, SDE version, binaries, compiled program, port map) and
refuse with one message naming what is missing; then, as root, create the
veths from the port map, start tofino-model and the P4Runtime agent (Stratum
``stratum_bfrt``, or ``bf_switchd`` built with P4Runtime), wait for its gRPC
port, run PTF (whose base class pushes the pipeline), and tear everything down
whatever happens (finally + SIGINT/SIGTERM). ``--dry-run`` prints the commands
instead of running them.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from common import (EXIT_REFUSED, PROG, PTF_DIR, REPO, Processes, Refusal, dev_ports_param,  # noqa: E402
                    exit_on_signals, fail, load_port_map, log_dir, ptf_argv, report_end, run_ptf, shell_line,
                    wait_for_port, which)

sys.path.insert(0, os.path.join(PTF_DIR, "lib"))
sys.path.insert(0, os.path.join(REPO, "tools"))

import device_config  # noqa: E402
import target_bmv2  # noqa: E402
from ccfair import params as P  # noqa: E402

TARGETS = ("tofino-model", "bmv2")


def parse_args(argv, profiles):
    ap = argparse.ArgumentParser(prog=PROG, description="Run the ccfair PTF suite on tofino-model or BMv2.")
    ap.add_argument("--target", default="tofino-model", choices=TARGETS,
                    help="switch to run on: tofino-model from an Intel SDE (default), or BMv2's simple_switch_grpc "
                         "with the v1model port (profile bmv2)")
    ap.add_argument("--profile", help="tofino-model profile, one of: %s (default tofino)"
                    % ", ".join(p for p in profiles if p != "bmv2"))
    ap.add_argument("--agent", choices=["stratum", "switchd"],
                    help="tofino-model's P4Runtime agent: stratum_bfrt (default) or bf_switchd built with "
                         "P4Runtime (P4RT=ON)")
    ap.add_argument("--build-dir", help="compiled program (default p4/build/<profile>)")
    ap.add_argument("--grpc-addr", help="P4Runtime address the switch serves (default from model-configs/fabric.json)")
    ap.add_argument("--device-id", type=int, help="P4Runtime device id (default from model-configs/fabric.json)")
    ap.add_argument("--log-dir", help="where logs go (default build/ptf-logs/<profile>-<time>)")
    ap.add_argument("--test-dir", help="PTF test directory (default ptf-tests/tests)")
    ap.add_argument("--netns", help="bmv2: name of the network namespace to create (default ccfair-bmv2-<pid>)")
    ap.add_argument("--allow-sde-mismatch", action="store_true",
                    help="run even if the SDE is not the version ccfair targets (results may differ)")
    ap.add_argument("--startup-timeout", type=int, default=600, help="seconds to wait for the switch's gRPC port")
    ap.add_argument("--ptf-timeout", type=int,
                    help="seconds PTF may run before it is killed and the run fails (default: none on tofino-model, "
                         "%d on bmv2, where the whole suite takes a few minutes)" % target_bmv2.PTF_TIMEOUT)
    ap.add_argument("--dry-run", action="store_true", help="check everything, print the commands, run nothing")
    ap.add_argument("tests", nargs="*", help="PTF test names or groups (default: all)")
    args = ap.parse_args(argv)
    if args.target == "bmv2":
        if args.profile not in (None, "bmv2"):
            raise Refusal("--target bmv2 runs profile bmv2 (the v1model port); --profile %s is a tofino-model "
                          "profile" % args.profile)
        if args.agent:
            raise Refusal("--agent chooses tofino-model's P4Runtime agent; BMv2 serves P4Runtime itself")
        args.profile = "bmv2"
        return args
    args.profile = args.profile or "tofino"
    args.agent = args.agent or "stratum"
    if args.profile == "bmv2":
        raise Refusal("profile bmv2 is the v1model port for BMv2: run it with --target bmv2")
    if args.profile not in profiles:
        raise Refusal("unknown profile %r: choose one of %s (params/ccfair.json targets.profiles)"
                      % (args.profile, ", ".join(profiles)))
    if args.netns:
        raise Refusal("--netns applies to --target bmv2 only (tofino-model's veths live in the host namespace)")
    return args


# -- SDE ----------------------------------------------------------------------------------
VERSION_RE = re.compile(r"(\d+\.\d+\.\d+)")


def detect_sde_version(sde, sde_install):
    """(version, where it was read) or (None, places looked at).

    open-p4studio writes $SDE_INSTALL/share/VERSION; Intel's SDE tarballs ship
    $SDE/bf-sde-X.Y.Z.manifest and unpack into a directory named bf-sde-X.Y.Z.
    """
    looked = []
    vfile = os.path.join(sde_install, "share", "VERSION")
    looked.append(vfile)
    if os.path.isfile(vfile):
        m = VERSION_RE.search(open(vfile).read())
        if m:
            return m.group(1), vfile
    pattern = os.path.join(sde, "bf-sde-*.manifest")
    looked.append(pattern)
    for man in sorted(glob.glob(pattern)):
        m = VERSION_RE.search(os.path.basename(man))
        if m:
            return m.group(1), man
    looked.append("the name of %s" % sde)
    m = re.search(r"bf-sde-(\d+\.\d+\.\d+)", os.path.basename(os.path.normpath(sde)))
    if m:
        return m.group(1), sde
    return None, looked


def find_agent(agent, sde_install, env):
    if agent == "stratum":
        cands = [env.get("STRATUM_BFRT")] if env.get("STRATUM_BFRT") else []
        on_path = which("stratum_bfrt", env)
        cands += [on_path] if on_path else []
        cands.append(os.path.join(sde_install, "bin", "stratum_bfrt"))
        hint = ("stratum_bfrt (Stratum built against this SDE) was not found: set $STRATUM_BFRT, put it on PATH, "
                "or install it into $SDE_INSTALL/bin; or use --agent switchd")
    else:
        cands = [os.path.join(sde_install, "bin", "bf_switchd")]
        hint = ("bf_switchd was not found in $SDE_INSTALL/bin: build the SDE with P4Runtime support "
                "(open-p4studio: -DP4RT=ON), or use --agent stratum")
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise Refusal("%s (looked at: %s)" % (hint, ", ".join(c for c in cands if c)))


# -- preflight ---------------------------------------------------------------------------------
def preflight(args, env, params):
    """Everything the run needs, checked without root; raises Refusal naming what is missing."""
    sde, sde_install = env.get("SDE"), env.get("SDE_INSTALL")
    unset = [n for n, v in (("$SDE", sde), ("$SDE_INSTALL", sde_install)) if not v]
    if unset:
        raise Refusal("%s not set: ccfair's PTF suite runs on tofino-model from an Intel P4 Studio SDE %s "
                      "(open-p4studio); set SDE to its root and SDE_INSTALL to its install directory "
                      "(usually $SDE/install)" % (" and ".join(unset), params["targets"]["sde_version"]))
    for name, d in (("$SDE", sde), ("$SDE_INSTALL", sde_install)):
        if not os.path.isdir(d):
            raise Refusal("%s=%s is not a directory" % (name, d))
    want = params["targets"]["sde_version"]
    have, where = detect_sde_version(sde, sde_install)
    if have is None:
        msg = ("cannot tell which SDE version %s is (looked at: %s); ccfair targets SDE %s "
               "(params/ccfair.json targets.sde_version)" % (sde, ", ".join(where), want))
        if not args.allow_sde_mismatch:
            raise Refusal(msg + "; pass --allow-sde-mismatch to run anyway")
        print("%s: WARNING: %s" % (PROG, msg), file=sys.stderr)
    elif have != want:
        msg = ("SDE version mismatch: found %s (%s), ccfair was written and tested for SDE %s "
               "(params/ccfair.json targets.sde_version)" % (have, where, want))
        if not args.allow_sde_mismatch:
            raise Refusal(msg + "; install SDE %s, or pass --allow-sde-mismatch to run anyway "
                          "(tofino-model behaviour differs between SDE releases)" % want)
        print("%s: WARNING: %s; running anyway (--allow-sde-mismatch)" % (PROG, msg), file=sys.stderr)
    model = os.path.join(sde_install, "bin", "tofino-model")
    if not (os.path.isfile(model) and os.access(model, os.X_OK)):
        raise Refusal("tofino-model not found at %s: build the SDE with the model "
                      "(open-p4studio profile with tofino-model)" % model)
    agent = find_agent(args.agent, sde_install, env)

    build_dir = os.path.abspath(args.build_dir or os.path.join(REPO, "p4", "build", args.profile))
    missing = device_config.missing_artifacts(build_dir, args.profile)
    if missing:
        raise Refusal("compiled program for profile %s is missing: %s; run `make p4` (needs bf-p4c) first"
                      % (args.profile, ", ".join(os.path.relpath(m, REPO) if m.startswith(REPO) else m
                                                  for m in missing)))

    cfg_dir = os.path.join(REPO, "model-configs", "ptf", args.profile)
    with open(os.path.join(REPO, "model-configs", "fabric.json")) as f:
        fabric = json.load(f)
    ports = load_port_map(os.path.join(cfg_dir, "port_map.json"))
    with open(os.path.join(cfg_dir, "tofino-model-ports.json")) as f:
        veths = json.load(f)["PortToVeth"]
    ptf_ifaces = {"veth%d" % v["veth2"] for v in veths}
    stray = [p["iface_name"] for p in ports if p["iface_name"] not in ptf_ifaces]
    if stray:
        raise Refusal("port map names interfaces the tofino-model port file does not create: %s" % ", ".join(stray))
    prof_spec = fabric["profiles"][args.profile]
    return {
        "profile": args.profile, "agent": args.agent, "agent_bin": agent, "model_bin": model,
        "sde": sde, "sde_install": sde_install, "sde_version": have,
        "build_dir": build_dir, "cfg_dir": cfg_dir, "ports": ports, "veths": veths,
        "chip_type": prof_spec["chip_type"], "shaped_port": fabric["ptf"]["shaped_port"],
        "grpc_addr": args.grpc_addr or fabric["ptf"]["grpc_addr"],
        "device_id": args.device_id if args.device_id is not None else fabric["ptf"]["device_id"],
        "log_dir": log_dir(args.log_dir, args.profile),
        "test_dir": os.path.abspath(args.test_dir or os.path.join(PTF_DIR, "tests")),
        "tests": args.tests, "startup_timeout": args.startup_timeout, "ptf_timeout": args.ptf_timeout or None,
    }


# -- the run ------------------------------------------------------------------------------------------
def commands(plan):
    """[(what, argv)] in start order; the same list is printed by --dry-run."""
    L, cfg = plan["log_dir"], plan["cfg_dir"]
    cmds = []
    for v in plan["veths"]:
        a, b = "veth%d" % v["veth1"], "veth%d" % v["veth2"]
        cmds.append(("veth", ["ip", "link", "add", a, "type", "veth", "peer", "name", b]))
        for i in (a, b):
            cmds.append(("veth", ["ip", "link", "set", "dev", i, "mtu", "10240", "up"]))
            cmds.append(("veth", ["sysctl", "-q", "net.ipv6.conf.%s.disable_ipv6=1" % i]))
    cmds.append(("tofino-model", [plan["model_bin"], "--chip-type", str(plan["chip_type"]),
                                  "-f", os.path.join(cfg, "tofino-model-ports.json"),
                                  "--p4-target-config", os.path.join(L, "tofino-model.conf.json"),
                                  "--install-dir", plan["sde_install"], "--log-dir", os.path.join(L, "model")]))
    switchd_cfg = os.path.join(cfg, "switchd.conf")
    if plan["agent"] == "stratum":
        cmds.append(("agent", [plan["agent_bin"], "-bf_sde_install=" + plan["sde_install"], "-bf_sim",
                               "-bf_switchd_background=true", "-bf_switchd_cfg=" + switchd_cfg,
                               "-chassis_config_file=" + os.path.join(cfg, "chassis_config.pb.txt"),
                               "-external_stratum_urls=" + plan["grpc_addr"],
                               "-persistent_config_dir=" + os.path.join(L, "stratum"),
                               "-forwarding_pipeline_configs_file=/dev/null",
                               "-write_req_log_file=" + os.path.join(L, "p4rt-writes.log"),
                               "-enable_onlp=false", "-log_dir=" + os.path.join(L, "stratum")]))
    else:
        # bf_switchd built with -DP4RT=ON serves P4Runtime itself (PI device config format).
        cmds.append(("agent", [plan["agent_bin"], "--install-dir", plan["sde_install"],
                               "--conf-file", switchd_cfg, "--skip-p4", "--background",
                               "--p4rt-server", plan["grpc_addr"]]))
    cmds.append(("ptf", ptf_command(plan)))
    return cmds


def ptf_command(plan):
    dev_ports = dev_ports_param(plan["ports"], {"veth%d" % v["veth2"]: v["device_port"] for v in plan["veths"]})
    params = [("p4info", os.path.join(plan["build_dir"], "p4info.txt")),
              ("device_config", os.path.join(plan["log_dir"], "device_config.bin")),
              ("grpcaddr", plan["grpc_addr"]), ("device_id", plan["device_id"]), ("profile", plan["profile"]),
              ("vectors", os.path.join(REPO, "testdata", "vectors")),
              ("dev_ports", dev_ports), ("shaped_port", plan["shaped_port"])]
    return ptf_argv(plan["test_dir"], plan["log_dir"], params, plan["ports"], plan["tests"])


def execute(plan):
    os.makedirs(plan["log_dir"], exist_ok=True)
    with open(os.path.join(plan["cfg_dir"], "tofino-model.conf.json")) as f:
        conf = f.read().replace("%BUILD_DIR%", plan["build_dir"])
    with open(os.path.join(plan["log_dir"], "tofino-model.conf.json"), "w") as f:
        f.write(conf)
    with open(os.path.join(plan["log_dir"], "device_config.bin"), "wb") as f:
        f.write(device_config.build(plan["agent"], plan["build_dir"], plan["profile"]))
    for sub in ("model", "stratum"):
        os.makedirs(os.path.join(plan["log_dir"], sub), exist_ok=True)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.path.join(plan["sde_install"], "lib") + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    env["PYTHONPATH"] = os.path.join(PTF_DIR, "lib") + os.pathsep + env.get("PYTHONPATH", "")

    created, procs = [], Processes(plan["log_dir"], env)
    exit_on_signals()
    rc = 1
    try:
        for what, argv in commands(plan):
            if what == "veth":
                if argv[:3] == ["ip", "link", "add"] and os.path.exists("/sys/class/net/%s" % argv[3]):
                    continue  # left by an earlier run; reused, not ours to delete
                subprocess.check_call(argv)
                if argv[:3] == ["ip", "link", "add"]:
                    created.append(argv[3])
            elif what in ("tofino-model", "agent"):
                procs.start(what, argv)
                if what == "agent":
                    wait_for_port(plan["grpc_addr"], procs, plan["startup_timeout"])
            else:
                print("%s: running PTF: %s" % (PROG, shell_line(argv)), flush=True)
                rc = run_ptf(argv, env, plan["ptf_timeout"])
    except (RuntimeError, subprocess.CalledProcessError) as e:
        rc = fail(e, plan["log_dir"])
    finally:
        procs.stop_all()
        for iface in created:
            subprocess.call(["ip", "link", "del", iface], stderr=subprocess.DEVNULL)
    return report_end(rc, plan["log_dir"])


def main(argv=None, env=None):
    env = dict(os.environ if env is None else env)
    params = P.load()
    profiles = sorted(params["targets"]["profiles"])
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = parse_args(argv, profiles)
        bmv2 = args.target == "bmv2"
        plan = target_bmv2.preflight(args, env, params) if bmv2 else preflight(args, env, params)
    except Refusal as e:
        print("%s: cannot run: %s" % (PROG, e), file=sys.stderr)
        return EXIT_REFUSED
    if args.dry_run:
        if bmv2:
            print("%s: dry run for profile bmv2 on %s (BMv2 prefix %s), network namespace %s" % (
                PROG, plan["switch_bin"], plan["prefix"], plan["netns"]))
        else:
            print("%s: dry run for profile %s, SDE %s at %s, agent %s" % (
                PROG, plan["profile"], plan["sde_version"] or "unknown", plan["sde_install"], plan["agent_bin"]))
        for what, cmd in (target_bmv2.commands(plan) if bmv2 else commands(plan)):
            print("%-12s %s" % (what, shell_line(cmd)))
        return 0
    if os.geteuid() != 0:
        print("%s: cannot run: must be root to create %s and open raw sockets: sudo -E %s %s"
              % (PROG, "a network namespace, veths" if bmv2 else "veths", PROG, " ".join(argv)), file=sys.stderr)
        return EXIT_REFUSED
    return target_bmv2.execute(plan) if bmv2 else execute(plan)


if __name__ == "__main__":
    sys.exit(main())
