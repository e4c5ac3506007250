# SPDX-License-Identifier: Apache-2.0
"""ptf-tests/run: the ccfair PTF suite on tofino-model, from the user's Intel SDE.

Order of work: check everything that can be checked without root (arguments,
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
import shlex
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PTF_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PTF_DIR)
sys.path.insert(0, os.path.join(PTF_DIR, "lib"))
sys.path.insert(0, os.path.join(REPO, "tools"))

import device_config  # noqa: E402
from ccfair import params as P  # noqa: E402

PROG = "ptf-tests/run"
EXIT_REFUSED = 2


class Refusal(Exception):
    """The runner cannot start: the message names what is missing and how to get it."""


def parse_args(argv, profiles):
    ap = argparse.ArgumentParser(prog=PROG, description="Run the ccfair PTF suite on tofino-model.")
    ap.add_argument("--profile", default="tofino", help="one of: %s (default tofino)" % ", ".join(profiles))
    ap.add_argument("--agent", default="stratum", choices=["stratum", "switchd"],
                    help="P4Runtime agent: stratum_bfrt (default) or bf_switchd built with P4Runtime (P4RT=ON)")
    ap.add_argument("--build-dir", help="compiled program (default p4/build/<profile>)")
    ap.add_argument("--grpc-addr", help="P4Runtime address the agent serves (default from model-configs/fabric.json)")
    ap.add_argument("--device-id", type=int, help="P4Runtime device id (default from model-configs/fabric.json)")
    ap.add_argument("--log-dir", help="where logs go (default build/ptf-logs/<profile>-<time>)")
    ap.add_argument("--allow-sde-mismatch", action="store_true",
                    help="run even if the SDE is not the version ccfair targets (results may differ)")
    ap.add_argument("--startup-timeout", type=int, default=600, help="seconds to wait for the agent's gRPC port")
    ap.add_argument("--dry-run", action="store_true", help="check everything, print the commands, run nothing")
    ap.add_argument("tests", nargs="*", help="PTF test names or groups (default: all)")
    args = ap.parse_args(argv)
    if args.profile not in profiles:
        raise Refusal("unknown profile %r: choose one of %s (params/ccfair.json targets.profiles)"
                      % (args.profile, ", ".join(profiles)))
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
        on_path = _which("stratum_bfrt", env)
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


def _which(name, env):
    for d in env.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


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
        "log_dir": os.path.abspath(args.log_dir or os.path.join(
            REPO, "build", "ptf-logs", "%s-%s" % (args.profile, time.strftime("%Y%m%d-%H%M%S")))),
        "tests": args.tests, "startup_timeout": args.startup_timeout,
    }


def load_port_map(path):
    """[{p4_port, iface_name}] with every entry checked; a bad file is refused, naming the entry."""
    try:
        with open(path) as f:
            ports = json.load(f)
    except (OSError, ValueError) as e:
        raise Refusal("port map %s unreadable: %s" % (path, e))
    if not isinstance(ports, list) or not ports:
        raise Refusal("port map %s must be a non-empty JSON list of {p4_port, iface_name}" % path)
    seen_p, seen_i = set(), set()
    for i, e in enumerate(ports):
        if not isinstance(e, dict) or set(e) != {"p4_port", "iface_name"}:
            raise Refusal("port map %s entry %d must have exactly p4_port and iface_name, got %r" % (path, i, e))
        if not isinstance(e["p4_port"], int) or e["p4_port"] < 0:
            raise Refusal("port map %s entry %d: p4_port %r is not a port number" % (path, i, e["p4_port"]))
        if e["p4_port"] in seen_p or e["iface_name"] in seen_i:
            raise Refusal("port map %s entry %d repeats a port or interface: %r" % (path, i, e))
        seen_p.add(e["p4_port"])
        seen_i.add(e["iface_name"])
    return ports


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
    dev_of_iface = {"veth%d" % v["veth2"]: v["device_port"] for v in plan["veths"]}
    dev_ports = ",".join("%d:%d" % (p["p4_port"], dev_of_iface[p["iface_name"]]) for p in plan["ports"])
    test_params = ";".join([
        "p4info='%s'" % os.path.join(plan["build_dir"], "p4info.txt"),
        "device_config='%s'" % os.path.join(plan["log_dir"], "device_config.bin"),
        "grpcaddr='%s'" % plan["grpc_addr"], "device_id=%d" % plan["device_id"],
        "profile='%s'" % plan["profile"],
        "vectors='%s'" % os.path.join(REPO, "testdata", "vectors"),
        "dev_ports='%s'" % dev_ports, "shaped_port=%d" % plan["shaped_port"],
    ])
    argv = [os.path.join(REPO, ".venv", "bin", "ptf"), "--test-dir", os.path.join(PTF_DIR, "tests"),
            "--log-file", os.path.join(plan["log_dir"], "ptf.log"),
            "--test-params=" + test_params]
    for p in plan["ports"]:
        argv += ["-i", "%d@%s" % (p["p4_port"], p["iface_name"])]
    return argv + list(plan["tests"])


def wait_for_port(addr, procs, timeout):
    host, port = addr.rsplit(":", 1)
    host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    deadline = time.time() + timeout
    while time.time() < deadline:
        for name, p in procs:
            if p.poll() is not None:
                raise RuntimeError("%s exited with code %d while starting (see its log)" % (name, p.returncode))
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                return
        except OSError:
            time.sleep(1)
    raise RuntimeError("the P4Runtime agent did not open %s within %d s" % (addr, timeout))


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

    created, procs = [], []

    def teardown():
        for name, p in reversed(procs):
            if p.poll() is None:
                print("%s: stopping %s (pid %d)" % (PROG, name, p.pid))
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
        for iface in created:
            subprocess.call(["ip", "link", "del", iface], stderr=subprocess.DEVNULL)

    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
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
                log = open(os.path.join(plan["log_dir"], what + ".log"), "w")
                print("%s: starting %s: %s" % (PROG, what, " ".join(shlex.quote(a) for a in argv)))
                procs.append((what, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env,
                                                     cwd=plan["log_dir"], start_new_session=True)))
                if what == "agent":
                    wait_for_port(plan["grpc_addr"], procs, plan["startup_timeout"])
            else:
                print("%s: running PTF: %s" % (PROG, " ".join(shlex.quote(a) for a in argv)))
                rc = subprocess.call(argv, env=env)
    except (RuntimeError, subprocess.CalledProcessError) as e:
        print("%s: FAILED: %s (logs: %s)" % (PROG, e, plan["log_dir"]), file=sys.stderr)
        rc = 1
    finally:
        teardown()
    print("%s: PTF exit code %d; logs in %s" % (PROG, rc, plan["log_dir"]))
    return rc


def main(argv=None, env=None):
    env = dict(os.environ if env is None else env)
    params = P.load()
    profiles = sorted(params["targets"]["profiles"])
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv, profiles)
        plan = preflight(args, env, params)
    except Refusal as e:
        print("%s: cannot run: %s" % (PROG, e), file=sys.stderr)
        return EXIT_REFUSED
    if args.dry_run:
        print("%s: dry run for profile %s, SDE %s at %s, agent %s" % (
            PROG, plan["profile"], plan["sde_version"] or "unknown", plan["sde_install"], plan["agent_bin"]))
        for what, cmd in commands(plan):
            print("%-12s %s" % (what, " ".join(shlex.quote(a) for a in cmd)))
        return 0
    if os.geteuid() != 0:
        print("%s: cannot run: must be root to create veths and open raw sockets: sudo -E %s %s"
              % (PROG, PROG, " ".join(sys.argv[1:] if argv is None else argv)), file=sys.stderr)
        return EXIT_REFUSED
    return execute(plan)


if __name__ == "__main__":
    sys.exit(main())
