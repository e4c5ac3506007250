# SPDX-License-Identifier: Apache-2.0
"""ptf-tests/run --target bmv2: the suite on BMv2's simple_switch_grpc (the v1model port).

The run lives in a network namespace of its own (default ccfair-bmv2-<pid>): its
veth pairs, the switch's gRPC and Thrift ports on 127.0.0.1 and PTF's raw sockets
never meet the host's or another run's, so two runs (or a tofino-model run) can
share the machine. Order: check tools, Thrift stubs, compiled program and port
map without root (refusing with one message); create the namespace, its
loopback and the veths from model-configs/ptf/bmv2/; start simple_switch_grpc
with no program; run runner/bmv2_setup.py in the namespace (wait for gRPC,
push the pipeline, write the clone sessions, shape the shaped port over
Thrift); run PTF there; and whatever happens stop the switch, kill anything
left in the namespace and delete it (which deletes its veths).
"""
import importlib.util
import json
import os
import shutil
import subprocess
import time

from common import (PROG, PTF_DIR, REPO, Processes, Refusal, dev_ports_param, exit_on_signals, fail,
                    load_port_map, log_dir, ptf_argv, report_end, run_ptf, shell_line, which)

import bmv2
import device_config

TOOLS = ("simple_switch_grpc", "p4c-bm2-ss")
SETUP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bmv2_setup.py")
VENV_PY = os.path.join(REPO, ".venv", "bin", "python")
PTF_TIMEOUT = 1800  # the whole suite took 2 min on BMv2 here; far past that, PTF hangs


def find_tools(env):
    """{tool: path}, $BMV2_PREFIX/bin first (asked for explicitly), then PATH; Refusal naming the missing ones."""
    prefix = env.get("BMV2_PREFIX")
    found, missing = {}, []
    for t in TOOLS:
        cand = os.path.join(prefix, "bin", t) if prefix else None
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            found[t] = cand
        elif which(t, env):
            found[t] = which(t, env)
        else:
            missing.append(t)
    if missing:
        raise Refusal("%s not found on PATH%s: install BMv2 (behavioral-model configured --with-pi --with-thrift) "
                      "and p4c's BMv2 back end, then put them on PATH or set BMV2_PREFIX to their install prefix"
                      % (" and ".join(missing),
                         " or in $BMV2_PREFIX/bin (%s/bin)" % prefix if prefix else " (BMV2_PREFIX not set)"))
    return found


def preflight(args, env, params):
    """Everything the run needs, checked without root; raises Refusal naming what is missing."""
    tools = find_tools(env)
    prefix = bmv2.find_prefix(dict(env, PATH=os.path.dirname(tools["simple_switch_grpc"]) + os.pathsep
                                   + env.get("PATH", "")))
    site = bmv2.site_packages(prefix)
    if not site:
        raise Refusal("BMv2's Python Thrift stubs (%s) are not under %s/lib/python3*/site-packages: register reads "
                      "and queue settings need them; set BMV2_PREFIX to the prefix BMv2 was installed to"
                      % (", ".join(bmv2.RUNTIME_PACKAGES), prefix))
    if importlib.util.find_spec("thrift") is None:
        raise Refusal("the Python package thrift is not in the venv (requirements.txt): run tools/setup.sh venv")
    if not which("ip", env):
        raise Refusal("the ip command (iproute2) is not on PATH: it creates the namespace and the veths")

    build_dir = os.path.abspath(args.build_dir or os.path.join(REPO, "p4", "build", "bmv2"))
    missing = device_config.missing_artifacts(build_dir, "bmv2")
    if missing:
        raise Refusal("compiled program for profile bmv2 is missing: %s; run `make -C p4 bmv2` (needs p4c-bm2-ss) "
                      "first" % ", ".join(os.path.relpath(m, REPO) if m.startswith(REPO) else m for m in missing))

    cfg_dir = os.path.join(REPO, "model-configs", "ptf", "bmv2")
    with open(os.path.join(REPO, "model-configs", "fabric.json")) as f:
        fabric = json.load(f)
    ports = load_port_map(os.path.join(cfg_dir, "port_map.json"))
    with open(os.path.join(cfg_dir, "bmv2-ports.json")) as f:
        veths = json.load(f)["PortToVeth"]
    by_iface = {"veth%d" % v["veth2"]: v for v in veths}
    stray = [p["iface_name"] for p in ports if p["iface_name"] not in by_iface]
    if stray:
        raise Refusal("port map names interfaces the BMv2 port file does not create: %s" % ", ".join(stray))
    cpu_port, recirc = params["cpu"]["port_bmv2"], params["update"]["recirc_port_bmv2"]
    clash = sorted({v["port"] for v in veths} & {cpu_port, recirc})
    if clash:
        raise Refusal("model-configs/ptf/bmv2 attaches an interface to port(s) %s, which params/ccfair.json reserves "
                      "(cpu.port_bmv2 %d, update.recirc_port_bmv2 %d)" % (clash, cpu_port, recirc))
    netns = args.netns or "ccfair-bmv2-%d" % os.getpid()
    if os.path.exists(os.path.join("/run/netns", netns)):
        raise Refusal("network namespace %s exists already: another run uses it, or one was killed before its "
                      "tear-down (then delete it: ip netns del %s)" % (netns, netns))
    return {
        "profile": "bmv2", "switch_bin": tools["simple_switch_grpc"], "prefix": prefix, "site_packages": site,
        "build_dir": build_dir, "ports": ports, "veths": veths, "netns": netns,
        "grpc_addr": args.grpc_addr or fabric["ptf"]["grpc_addr"],
        "device_id": args.device_id if args.device_id is not None else fabric["ptf"]["device_id"],
        "thrift_port": fabric["bmv2"]["thrift_port"], "shaped_port": fabric["ptf"]["shaped_port"],
        "shaped_rate_pps": fabric["bmv2"]["shaped_rate_pps"],
        "cpu_port": cpu_port, "priority_queues": params["targets"]["profiles"]["bmv2"]["priority_queues"],
        "log_dir": log_dir(args.log_dir, "bmv2"),
        "test_dir": os.path.abspath(args.test_dir or os.path.join(PTF_DIR, "tests")),
        "tests": args.tests, "startup_timeout": args.startup_timeout,
        "ptf_timeout": PTF_TIMEOUT if args.ptf_timeout is None else args.ptf_timeout or None,
    }


# -- the run ------------------------------------------------------------------------------------------
def files(plan):
    """Where the run keeps its copy of the program (so a rebuild during the run cannot change what the
    tests push: a new cookie would re-push and reset the switch) and the stubs' directory."""
    L = plan["log_dir"]
    return {"p4info": os.path.join(L, "p4info.txt"), "device_config": os.path.join(L, "device_config.bin"),
            "py": os.path.join(L, "bmv2-py")}


def in_ns(plan, argv):
    return ["ip", "netns", "exec", plan["netns"]] + argv


def commands(plan):
    """[(what, argv)] in run order; the same list is printed by --dry-run."""
    ns, F = plan["netns"], files(plan)
    cmds = [("netns", ["ip", "netns", "add", ns]),
            # before the veths exist, so that they inherit it: no IPv6 neighbour discovery on PTF ports
            ("netns", in_ns(plan, ["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                                   "net.ipv6.conf.default.disable_ipv6=1"])),
            ("netns", ["ip", "-n", ns, "link", "set", "lo", "up"])]  # gRPC and Thrift listen on 127.0.0.1
    for v in plan["veths"]:
        a, b = "veth%d" % v["veth1"], "veth%d" % v["veth2"]
        cmds.append(("veth", ["ip", "-n", ns, "link", "add", a, "type", "veth", "peer", "name", b]))
        for i in (a, b):
            cmds.append(("veth", ["ip", "-n", ns, "link", "set", "dev", i, "mtu", "10240", "up"]))
    switch = [plan["switch_bin"], "--device-id", str(plan["device_id"])]
    for v in plan["veths"]:
        switch += ["-i", "%d@veth%d" % (v["port"], v["veth1"])]
    switch += ["--thrift-port", str(plan["thrift_port"]),
               "--log-file", os.path.join(plan["log_dir"], "bmv2"), "--log-flush", "--no-p4",
               "--", "--grpc-server-addr", plan["grpc_addr"], "--cpu-port", str(plan["cpu_port"]),
               "--priority-queues", str(plan["priority_queues"])]
    cmds.append(("switch", in_ns(plan, switch)))
    cmds.append(("setup", in_ns(plan, [
        VENV_PY, SETUP, "--grpc-addr", plan["grpc_addr"], "--device-id", str(plan["device_id"]),
        "--p4info", F["p4info"], "--device-config", F["device_config"],
        "--thrift-port", str(plan["thrift_port"]), "--bmv2-py", F["py"],
        "--shape", "%d:%d" % (plan["shaped_port"], plan["shaped_rate_pps"]),
        "--timeout", str(plan["startup_timeout"])])))
    cmds.append(("ptf", in_ns(plan, ptf_command(plan))))
    return cmds


def ptf_command(plan):
    F = files(plan)
    params = [("p4info", F["p4info"]), ("device_config", F["device_config"]),
              ("grpcaddr", plan["grpc_addr"]), ("device_id", plan["device_id"]), ("profile", "bmv2"),
              ("vectors", os.path.join(REPO, "testdata", "vectors")),
              # BMv2 has no SDK port numbering: the device port is the port number
              ("dev_ports", dev_ports_param(plan["ports"], {"veth%d" % v["veth2"]: v["port"] for v in plan["veths"]})),
              ("shaped_port", plan["shaped_port"]), ("thrift_port", plan["thrift_port"]), ("bmv2_py", F["py"])]
    return ptf_argv(plan["test_dir"], plan["log_dir"], params, plan["ports"], plan["tests"])


def run_watched(argv, procs, seconds, what, env=None, poll_s=0.5):
    """Run `argv` to its end and return its exit code; fails early (and kills it) if the switch
    dies under it or it runs longer than `seconds`."""
    p = subprocess.Popen(argv, env=env)
    deadline = time.time() + seconds
    try:
        while p.poll() is None:
            procs.check_alive()
            if time.time() > deadline:
                raise RuntimeError("%s did not finish within %d s" % (what, seconds))
            time.sleep(poll_s)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    return p.returncode


def run_setup(argv, procs, env, timeout):
    """The set-up script, failing early if the switch dies under it."""
    print("%s: setting up the switch: %s" % (PROG, shell_line(argv)), flush=True)
    rc = run_watched(argv, procs, timeout + 60, "switch set-up", env=env)
    if rc:
        raise RuntimeError("switch set-up failed (exit %d, message above)" % rc)


def remove_netns(ns):
    """Kill what still runs in `ns` (only this run's processes can be there) and delete it."""
    pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
    for pid in pids:
        print("%s: killing process %s left in namespace %s" % (PROG, pid, ns), flush=True)
        subprocess.call(["kill", "-KILL", pid])
    if subprocess.call(["ip", "netns", "del", ns]) != 0 or os.path.exists(os.path.join("/run/netns", ns)):
        print("%s: WARNING: could not delete network namespace %s: ip netns del %s" % (PROG, ns, ns), flush=True)
    else:
        print("%s: deleted network namespace %s and its veths" % (PROG, ns), flush=True)


def execute(plan):
    F = files(plan)
    os.makedirs(plan["log_dir"], exist_ok=True)
    shutil.copyfile(os.path.join(plan["build_dir"], "p4info.txt"), F["p4info"])
    with open(F["device_config"], "wb") as f:
        f.write(device_config.build("bmv2", plan["build_dir"], "bmv2"))
    bmv2.make_runtime_dir(plan["site_packages"], F["py"])
    env = dict(os.environ)
    # base_test on the path too, so a --test-dir outside ptf-tests/tests can import it
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(PTF_DIR, "lib"), os.path.join(PTF_DIR, "tests")]
                                        + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))

    procs, made_ns = Processes(plan["log_dir"], env), False
    exit_on_signals()
    rc = 1
    try:
        for what, argv in commands(plan):
            if what in ("netns", "veth"):
                subprocess.check_call(argv)
                made_ns = True
            elif what == "switch":
                print("%s: network namespace %s: lo up, veth pairs %s" % (PROG, plan["netns"], ", ".join(
                    "port %d veth%d-veth%d" % (v["port"], v["veth1"], v["veth2"]) for v in plan["veths"])), flush=True)
                procs.start("simple_switch_grpc", argv)
            elif what == "setup":
                run_setup(argv, procs, env, plan["startup_timeout"])
            else:
                print("%s: running PTF in namespace %s: %s" % (PROG, plan["netns"], shell_line(argv)), flush=True)
                rc = run_ptf(argv, env, plan["ptf_timeout"])
    except (RuntimeError, subprocess.CalledProcessError) as e:
        rc = fail(e, plan["log_dir"])
    finally:
        procs.stop_all()
        if made_ns:
            remove_netns(plan["netns"])
    return report_end(rc, plan["log_dir"])
