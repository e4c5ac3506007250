# SPDX-License-Identifier: Apache-2.0
"""testbed/testbed.py: real Linux TCP (iperf3, kernel reno / cubic / bbr) through the ccfair
v1model program on BMv2's simple_switch_grpc, with the policy the ONOS app computes.

One run of a scenario in one mode: three network namespaces (sender, receiver, switch), two
veth pairs, simple_switch_grpc in the switch's namespace; switchctl.py there pushes the program,
writes the app's export (ptf-tests/contract's translation and writer) and sets the bottleneck
queue over Thrift, then samples each flow's flow_group slot and the queue's q_max_delay while
iperf3 moves the traffic; everything is torn down in a `finally` (SIGINT/SIGTERM/SIGHUP end the
run through it; the tear-down itself holds them off), and the tear-down is checked (ip netns list,
ip link, pgrep). Namespaces an earlier, killed run left behind are removed at the start.

  sudo -E .venv/bin/python testbed/testbed.py [SCENARIO.json ...] [--modes fifo,ccfair] [--model]
  sudo -E .venv/bin/python testbed/testbed.py --ceiling      # BMv2's forwarding ceiling (UDP)
  sudo -E .venv/bin/python testbed/testbed.py --smoke        # make test's 10 s Cubic-vs-BBR check

Exit 0 when every run finished (and, with --smoke, its checks held), 1 on a failure, 2 when
it cannot run (the message names what is missing; --smoke prints SKIPPED: testbed (...) and
exits 0 then).
"""
import argparse
import fcntl
import glob
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "ptf-tests", "lib"))

import tblib  # noqa: E402
from ccfair import params as P  # noqa: E402  (tblib put tools/ on the path)

PROG = "testbed"
PY = os.path.join(REPO, ".venv", "bin", "python")
BUILD = os.path.join(REPO, "p4", "build", "bmv2")
EXPORT_DIR = os.path.join(REPO, "onos-app", "target", "testbed")
ONOS_P4INFO = os.path.join(REPO, "p4", "p4info", "tofino", "p4info.txt")
LOCK = "/tmp/ccfair-ptf.lock"   # the PTF runs' lock: one BMv2 run at a time on this machine
TOOLS = ("simple_switch_grpc", "iperf3", "ip", "ss", "ethtool", "ping")
LISTEN_WAIT_S = 10   # how long an iperf3 server may take to listen
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRPC_PORT, THRIFT_PORT, DEVICE_ID = 9559, 9090, 1
POLL_S = 0.25
SMOKE = os.path.join(HERE, "scenarios", "smoke-cubic-vs-bbr.json")


class Refusal(Exception):
    """The testbed cannot run here; the message says what is missing."""


def log(msg):
    print("%s: %s" % (PROG, msg), flush=True)


def sh(argv, check=True, **kw):
    return subprocess.run(argv, check=check, capture_output=True, text=True, **kw)


# -- preflight ----------------------------------------------------------------------------------------
def kernel_ccs():
    try:
        with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
            return set(f.read().split())
    except OSError:
        return set()


def load_ccs(need):
    """The kernel CCs of `need` still unavailable after `modprobe tcp_<cc>` of each missing one."""
    missing = sorted(set(need) - kernel_ccs())
    for cc in missing:
        r = sh(["modprobe", "tcp_" + cc], check=False)
        log("modprobe tcp_%s: %s" % (cc, "ok" if r.returncode == 0 else (r.stderr.strip() or "exit %d" % r.returncode)))
    return sorted(set(need) - kernel_ccs())


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_namespaces():
    """Namespaces (and what runs in them) of an earlier run whose runner is dead: a run killed
    with SIGKILL, or a machine that lost power, cannot tear down; this does it for it."""
    for ns in tblib.stale_namespaces(sh(["ip", "netns", "list"], check=False).stdout, pid_alive, os.getpid()):
        pids = sh(["ip", "netns", "pids", ns], check=False).stdout.split()
        for pid in pids:
            subprocess.call(["kill", "-KILL", pid])
        r = sh(["ip", "netns", "del", ns], check=False)
        log("removed namespace %s of an earlier run that is gone (killed %s; ip netns del: %s)" % (
            ns, ("processes " + " ".join(pids)) if pids else "no process",
            "ok" if r.returncode == 0 else r.stderr.strip() or "exit %d" % r.returncode))


def preflight(need_exports, need_ccs=()):
    if os.geteuid() != 0:
        raise Refusal("needs root for network namespaces and veths (sudo -E make testbed)")
    gone = load_ccs(need_ccs)
    if gone:
        raise Refusal("kernel CC %s not available: %s" % (" and ".join(gone),
                                                          "; ".join("modprobe tcp_%s" % cc for cc in gone)))
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        raise Refusal("%s not found (apt: iperf3 ethtool iputils-ping; BMv2: ../shared/toolchain/install)"
                      % " and ".join(missing))
    if not os.path.isfile(os.path.join(BUILD, "bmv2.json")):
        if not shutil.which("p4c-bm2-ss"):
            raise Refusal("p4/build/bmv2 missing and p4c-bm2-ss not found")
        log("building the v1model program (make -C p4 bmv2)")
        if subprocess.call(["make", "-s", "-C", os.path.join(REPO, "p4"), "bmv2"]) != 0:
            raise Refusal("make -C p4 bmv2 failed")
    for n in need_exports:
        if not os.path.isfile(export_path(n)):
            raise Refusal("%s missing: run `mvn -q test -Dtest=TestbedExportTest -pl onos-app` (make testbed does)"
                          % os.path.relpath(export_path(n), REPO))
    try:
        import bmv2  # noqa: F401
        bmv2.use_runtime()
    except Exception as e:  # noqa: BLE001
        raise Refusal("BMv2's Thrift stubs: %s" % e)
    remove_stale_namespaces()


def export_path(nflows):
    return os.path.join(EXPORT_DIR, "tb-%dflows.json" % nflows)


# -- namespaces and processes -----------------------------------------------------------------------------
class Bed:
    """One run's namespaces and processes; teardown() undoes all of it and checks."""

    def __init__(self, topo, out_dir):
        pid = os.getpid()
        self.topo, self.out = topo, out_dir
        self.ns = {k: "cctb-%s-%d" % (k, pid) for k in ("sw", "snd", "rcv", "dly")}
        self.made, self.procs = [], []

    def run(self, argv):
        r = subprocess.run(argv, capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError("%s: %s" % (" ".join(argv), r.stderr.strip() or "exit %d" % r.returncode))
        return r.stdout

    def ex(self, ns, argv):
        return ["ip", "netns", "exec", self.ns[ns]] + argv

    def up(self, delay_ms=0.0):
        """Namespaces, veths, addresses; with delay_ms a delay line (delayline.py, in a namespace
        of its own) between the switch's receiver port and the receiver."""
        t = self.topo
        keys = ("sw", "snd", "rcv") + (("dly",) if delay_ms > 0 else ())
        for k in keys:
            self.run(["ip", "netns", "add", self.ns[k]])
            self.made.append(self.ns[k])
            self.run(self.ex(k, ["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                                 "net.ipv6.conf.default.disable_ipv6=1"]))
            self.run(["ip", "-n", self.ns[k], "link", "set", "lo", "up"])
        links = []  # (namespace key, interface) of every veth end
        for h in ("snd", "rcv"):
            host = t["sender" if h == "snd" else "receiver"]
            swif = "swp%d" % host["port"]
            if h == "rcv" and delay_ms > 0:
                self.run(["ip", "-n", self.ns["sw"], "link", "add", swif, "type", "veth", "peer", "name", "d0",
                          "netns", self.ns["dly"]])
                self.run(["ip", "-n", self.ns["dly"], "link", "add", "d1", "type", "veth", "peer", "name", "eth0",
                          "netns", self.ns[h]])
                links += [("dly", "d0"), ("dly", "d1")]
            else:
                self.run(["ip", "-n", self.ns["sw"], "link", "add", swif, "type", "veth", "peer", "name", "eth0",
                          "netns", self.ns[h]])
            self.run(["ip", "-n", self.ns[h], "link", "set", "eth0", "address", host["mac"]])
            self.run(["ip", "-n", self.ns[h], "addr", "add", host["ip"] + "/24", "dev", "eth0"])
            links += [(h, "eth0"), ("sw", swif)]
        for ns, ifc in links:
            self.run(["ip", "-n", self.ns[ns], "link", "set", ifc, "up"])
            # Frames of at most one MTU with real checksums: BMv2 (and the delay line) read raw frames
            # and forward what they read (a 64 kB TSO segment or a partial checksum would pass as is).
            self.run(self.ex(ns, ["ethtool", "-K", ifc, "tx", "off", "rx", "off", "tso", "off", "gso", "off",
                                  "gro", "off"]))
        # The export punts ARP to a controller the testbed does not run: static neighbours.
        s, r = t["sender"], t["receiver"]
        self.run(["ip", "-n", self.ns["snd"], "neigh", "add", r["ip"], "lladdr", r["mac"], "dev", "eth0"])
        self.run(["ip", "-n", self.ns["rcv"], "neigh", "add", s["ip"], "lladdr", s["mac"], "dev", "eth0"])
        if delay_ms > 0:
            self.start("delayline", self.ex("dly", [PY, os.path.join(HERE, "delayline.py"), "--a", "d0", "--b", "d1",
                                                    "--delay-ms", str(delay_ms),
                                                    "--stats", os.path.join(self.out, "delayline-stats.json")]))

    def start(self, name, argv, **kw):
        logf = open(os.path.join(self.out, name + ".log"), "w")
        p = subprocess.Popen(argv, stdout=kw.pop("stdout", logf), stderr=kw.pop("stderr", logf),
                             start_new_session=True, **kw)
        self.procs.append((name, p))
        return p

    def switch(self):
        t = self.topo
        argv = ["simple_switch_grpc", "--device-id", str(DEVICE_ID)]
        for h in ("sender", "receiver"):
            argv += ["-i", "%d@swp%d" % (t[h]["port"], t[h]["port"])]
        # no --log-file: BMv2's per-packet logging would cost most of its CPU
        argv += ["--thrift-port", str(THRIFT_PORT), "--no-p4", "--",
                 "--grpc-server-addr", "127.0.0.1:%d" % GRPC_PORT,
                 "--cpu-port", str(self.params["cpu"]["port_bmv2"]),
                 "--priority-queues", str(self.params["targets"]["profiles"]["bmv2"]["priority_queues"])]
        return self.start("simple_switch_grpc", self.ex("sw", argv))

    def alive(self, name):
        for n, p in self.procs:
            if n == name and p.poll() is not None:
                raise RuntimeError("%s exited with code %d (log: %s)" % (name, p.returncode,
                                                                        os.path.join(self.out, name + ".log")))

    def teardown(self):
        """Stop, delete, check. SIGINT/SIGTERM/SIGHUP are held off while it runs (a second Ctrl-C
        must not leave half a bed behind) and delivered as SystemExit once it is done."""
        pending = []
        old = {sig: signal.signal(sig, lambda signum, _f: pending.append(signum)) for sig in STOP_SIGNALS}
        try:
            left = self._teardown()
        finally:
            for sig, h in old.items():
                signal.signal(sig, h)
        if pending:
            if left:
                log("WARNING: left behind: %s" % ", ".join(left))
            log("signal %d during the tear-down: stopping now that it is done" % pending[0])
            raise SystemExit(128 + pending[0])
        return left

    def _teardown(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                    p.wait(timeout=10)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    p.wait()
        existing = sh(["ip", "netns", "list"], check=False).stdout
        names = {line.split()[0] for line in existing.splitlines() if line.strip()}
        for ns in self.made:
            for pid in sh(["ip", "netns", "pids", ns], check=False).stdout.split():
                subprocess.call(["kill", "-KILL", pid])
        for argv in tblib.cleanup_plan(self.made, names):
            subprocess.call(argv)
        left = tblib.leftovers(sh(["ip", "netns", "list"], check=False).stdout,
                               sh(["ip", "-o", "link"], check=False).stdout,
                               [str(p.pid) for _, p in self.procs
                                if sh(["pgrep", "-g", str(p.pid)], check=False).stdout.strip()],
                               list(self.ns.values()),
                               ["swp%d" % self.topo[h]["port"] for h in ("sender", "receiver")] + ["d0", "d1"])
        return left


def wait_listening(bed, port, server, what):
    """Poll until `server` (an iperf3 -s in the receiver) listens on TCP `port`, at most LISTEN_WAIT_S."""
    deadline = time.time() + LISTEN_WAIT_S
    while True:
        r = sh(bed.ex("rcv", ["ss", "-Hltn", "sport = :%d" % port]), check=False)
        if r.returncode == 0 and r.stdout.strip():
            return
        if server.poll() is not None:
            raise RuntimeError("%s exited with code %d before listening on port %d (log: %s)" % (
                what, server.returncode, port, os.path.join(bed.out, what + ".log")))
        if time.time() > deadline:
            raise RuntimeError("%s not listening on port %d after %d s (ss -Hltn in %s; log: %s)" % (
                what, port, LISTEN_WAIT_S, bed.ns["rcv"], os.path.join(bed.out, what + ".log")))
        time.sleep(0.05)


def log_excerpt(path, n=6):
    """The error of an iperf3 --json log, or its last n lines."""
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        return "(%s: %s)" % (path, e.strerror)
    try:
        err = json.loads(text).get("error")
        if err:
            return err
    except (ValueError, AttributeError):
        pass
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return " | ".join(lines[-n:]) or "(empty log)"


def ping_rtt(bed, dst, n=20):
    out = sh(bed.ex("snd", ["ping", "-q", "-c", str(n), "-i", "0.05", "-W", "2", dst]), check=False).stdout
    for line in out.splitlines():
        if "min/avg/max" in line:
            mn, avg, mx = [float(x) for x in line.split("=")[1].split()[0].split("/")[:3]]
            return {"min_ms": mn, "avg_ms": avg, "max_ms": mx}
    return None


# -- one run ---------------------------------------------------------------------------------------------
def start_agent(bed, cfg):
    cfg_path = os.path.join(bed.out, "switchctl.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    p = bed.start("switchctl", bed.ex("sw", [PY, os.path.join(HERE, "switchctl.py"), "--config", cfg_path,
                                             "--out", os.path.join(bed.out, "switch-samples.json")]),
                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        # select first: a switchctl stuck before its first line must not hang the run
        if not select.select([p.stdout], [], [], 1.0)[0]:
            bed.alive("simple_switch_grpc")
            continue
        line = p.stdout.readline()
        if line.startswith("READY "):
            return p, json.loads(line[6:])
        if line == "" and p.poll() is not None:
            break
    raise RuntimeError("switchctl did not get ready within 120 s (exit %s; log: %s)" % (
        p.poll(), os.path.join(bed.out, "switchctl.log")))


def stop_agent(p):
    try:
        p.stdin.write("STOP\n")
        p.stdin.flush()
    except (BrokenPipeError, ValueError):
        pass
    p.wait(timeout=30)


def agent_config(bed, export_file, policy_file, scn, port, stats_idx, qid, slots, ng):
    return {"export": policy_file, "p4info": os.path.join(BUILD, "p4info.txt"), "onos_p4info": ONOS_P4INFO,
            "device_config": os.path.join(BUILD, "bmv2.json"), "grpc_port": GRPC_PORT, "thrift_port": THRIFT_PORT,
            "device_id": DEVICE_ID, "port": port, "depth_pkts": scn["buffer_pkts"],
            "rate_pps": scn.get("rate_pps", tblib.pps(scn["rate_mbps"])), "stats_idx": stats_idx, "qid": qid,
            "slots": slots, "poll_s": POLL_S, "num_groups": ng, "source_export": export_file}


def prepare_policy(export_file, mode, port, out, depth_pkts):
    with open(export_file) as f:
        export = json.load(f)
    binds = tblib.limit_never_binds(export, port, depth_pkts)
    if binds:
        raise RuntimeError("%s: %s (the queue depth must be the only buffer limit)" % (
            os.path.relpath(export_file, REPO), binds))
    pol, changes, qid = tblib.policy_for_mode(export, mode, port)
    stats_idx = export["counters"]["ports"][str(port)]["stats_index"]
    path = os.path.join(out, "policy-%s.json" % mode)
    with open(path, "w") as f:
        json.dump(pol, f)
    return path, changes, qid, stats_idx


def run_scenario(scn, mode, topo, params, out):
    """Run one scenario in one mode; returns the raw result (iperf3 outputs, switch samples)."""
    os.makedirs(out, exist_ok=True)
    port = topo["receiver"]["port"]
    idx_bits = (params["targets"]["profiles"]["bmv2"]["flows_per_pipe"] - 1).bit_length()
    flows = tblib.flow_plan(scn["flows"], topo, idx_bits)
    export_file = export_path(len(flows))
    policy, changes, qid, stats_idx = prepare_policy(export_file, mode, port, out, scn["buffer_pkts"])
    bed = Bed(topo, out)
    bed.params = params
    res = {"scenario": scn, "mode": mode, "policy_changes": changes, "qid": qid, "stats_idx": stats_idx,
           "export": os.path.relpath(export_file, REPO), "flows": flows}
    delay = tblib.one_way_delay_ms(scn, topo)
    res["delay_line_one_way_ms"] = delay
    try:
        bed.up(delay)
        bed.switch()
        agent, ready = start_agent(bed, agent_config(bed, export_file, policy, scn, port, stats_idx, qid,
                                                     [f["slot"] for f in flows], P.num_groups(params)))
        res["switch"] = ready
        log("%s/%s: switch ready (%d entries, %.1f s); bottleneck port %d queue %d: %d pkts, %d pps" % (
            scn["name"], mode, ready["entries"], ready["write_s"], port, qid, scn["buffer_pkts"],
            tblib.pps(scn["rate_mbps"])))
        res["ping_idle"] = ping_rtt(bed, topo["receiver"]["ip"])
        log("%s/%s: idle RTT through the switch %s" % (scn["name"], mode, res["ping_idle"]))
        dur = int(scn["duration_s"])
        servers = []
        for f in flows:
            servers.append(bed.start("iperf3-s%d" % f["id"], bed.ex("rcv", [
                "iperf3", "-s", "-1", "-p", str(f["sport"]), "-i", "0.5", "--json"])))
        for f, srv in zip(flows, servers):
            wait_listening(bed, f["sport"], srv, "iperf3-s%d" % f["id"])
        t0 = time.time() + 0.2
        res["t0"] = t0
        clients = []
        for f in sorted(flows, key=lambda x: x["start_s"]):
            while time.time() < t0 + f["start_s"]:
                for name in ("simple_switch_grpc",) + (("delayline",) if delay else ()):
                    bed.alive(name)
                time.sleep(min(0.05, max(0.0, t0 + f["start_s"] - time.time())))
            f["launched_s"] = round(time.time() - t0, 3)
            clients.append((f, bed.start("iperf3-c%d" % f["id"], bed.ex("snd", [
                "iperf3", "-c", topo["receiver"]["ip"], "-p", str(f["sport"]), "--cport", str(f["cport"]),
                "-C", f["cc"], "-t", str(max(1, int(round(dur - f["start_s"])))), "-i", "0.5", "--json"]))))
        deadline = t0 + dur + 30
        for f, p in clients:
            try:
                p.wait(timeout=max(1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                raise RuntimeError("iperf3 client of flow %d did not finish" % f["id"])
            if p.returncode:
                lp = os.path.join(out, "iperf3-c%d.log" % f["id"])
                raise RuntimeError("iperf3 client of flow %d (%s) exited with code %d: %s (log: %s)" % (
                    f["id"], f["cc"], p.returncode, log_excerpt(lp), lp))
        for p in servers:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        stop_agent(agent)
        bed.alive("simple_switch_grpc")
        if delay:
            bed.alive("delayline")
        for h in ("snd", "rcv"):  # per-namespace counters: only this run's flows are in them
            res["tcp_ext_" + h] = tblib.parse_netstat(sh(bed.ex(h, ["cat", "/proc/net/netstat"]), check=False).stdout)
    finally:
        left = bed.teardown()
        res["leftovers"] = left
        log("%s/%s: torn down: %s" % (scn["name"], mode, "WARNING: left behind: " + ", ".join(left) if left else
                                      "no namespace, veth or process left (ip netns list, ip -o link, pgrep)"))
    for f in flows:
        with open(os.path.join(out, "iperf3-s%d.log" % f["id"])) as fh:
            f["server_json"] = fh.read()
    with open(os.path.join(out, "switch-samples.json")) as fh:
        res["switch_samples"] = json.load(fh)
    if delay:
        try:
            with open(os.path.join(out, "delayline-stats.json")) as fh:
                res["delay_line"] = json.load(fh)
        except (OSError, ValueError) as e:
            res["delay_line"] = {"error": "delayline-stats.json: %s" % e}
        dl = res["delay_line"]
        log("%s/%s: delay line: %s" % (scn["name"], mode, json.dumps(dl)))
    return res


# -- metrics ----------------------------------------------------------------------------------------------
def summarise(res, params):
    scn, flows = res["scenario"], res["flows"]
    names = P.group_names(params)
    lo, hi = scn["warmup_s"], scn["duration_s"]
    out_flows = []
    for f in flows:
        ivs, _ = tblib.parse_iperf3(f["server_json"], "iperf3 server of flow %d" % f["id"])
        off = f.get("launched_s", f["start_s"])
        f_lo = max(lo, off)
        g = tblib.mean_rate(ivs, f_lo, hi, off) / 1e6
        tl = [[round(a + off, 2), round(b / 1e6, 3)] for a, _, b in ivs]
        out_flows.append({"id": f["id"], "cc": f["cc"], "start_s": f["start_s"], "goodput_mbps": round(g, 3),
                          "timeline_mbps": tl, "slot": f["slot"]})
    samples = res["switch_samples"]["samples"]
    t0 = res["t0"]
    qd = []
    for s in samples:
        t = s["t"] - t0
        if lo <= t <= hi:
            qd.append(s["q_max_delay"] * 1.024e-3)  # units of 2^10 ns -> ms
    for i, f in enumerate(out_flows):
        tl, seen = [], []
        for s in samples:
            w = tblib.decode_group_word(s["group"][i])
            ok = w["valid"] and (s["sig"][i] >> 16) == flows[i]["sig"]
            t = round(s["t"] - t0, 2)
            if ok:
                tl.append([t, names[w["group"]] if w["group"] < len(names) else w["group"]])
                if max(lo, f["start_s"]) <= t <= hi:
                    seen.append(w["group"])
        f["group_timeline"] = _compress(tl)
        f["group_reads"] = len(tl)
        f["group_shares"] = tblib.group_shares(seen, names) if seen else {}
    gp = [f["goodput_mbps"] for f in out_flows]
    return {"name": scn["name"], "mode": res["mode"], "rate_mbps": scn["rate_mbps"], "buffer_pkts": scn["buffer_pkts"],
            "jfi": round(tblib.jfi(gp), 3), "utilization": round(sum(gp) / scn["rate_mbps"], 3),
            "qdelay_p50_ms": _r(tblib.percentile(qd, 0.5)), "qdelay_p99_ms": _r(tblib.percentile(qd, 0.99)),
            "qdelay_samples": len(qd), "ping_idle": res.get("ping_idle"),
            "shares_by_cc": tblib.shares_by_cc(out_flows), "flows": out_flows,
            "pg_counters": res["switch_samples"].get("pg_counters"), "policy_changes": res["policy_changes"],
            "export": res["export"], "leftovers": res["leftovers"],
            "delay_line_one_way_ms": res.get("delay_line_one_way_ms", 0.0), "delay_line": res.get("delay_line"),
            "tcp_ext_sender": res.get("tcp_ext_snd"), "tcp_ext_receiver": res.get("tcp_ext_rcv")}


def _r(x):
    return None if x is None else round(x, 2)


def _compress(tl):
    """[[t, group]] keeping only the reads where the group changed (and the last)."""
    out = []
    for t, g in tl:
        if not out or out[-1][1] != g:
            out.append([t, g])
    if tl and out[-1] != tl[-1]:
        out.append(tl[-1])
    return out


# -- the ns-3 model ----------------------------------------------------------------------------------------
def model(scn_path, aqm, lo, hi):
    """eval/run's result for the same scenario, with each CC's group shares in [lo, hi)."""
    r = subprocess.run([PY, os.path.join(REPO, "eval", "run"), scn_path, "--aqm", aqm], capture_output=True,
                       text=True)
    if r.returncode:
        return {"error": (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]}
    d = json.loads(r.stdout)
    flows = []
    for f in d["flows"]:
        sh_ = tblib.timeline_shares(f.get("group_timeline") or [], max(lo, f.get("start_s", 0)), hi)
        flows.append({"cc": f["cc"], "group_shares": sh_})
    return {"jfi": d["jfi"], "utilization": d["utilization"], "qdelay_p50_ms": d.get("qdelay_p50_ms"),
            "qdelay_p99_ms": d.get("qdelay_p99_ms"), "drops": d.get("drops"),
            "goodput_mbps": [[f["cc"], round(f["goodput_mbps"], 3)] for f in d["flows"]],
            "shares_by_cc": tblib.shares_by_cc(flows), "rtt_ms": d["flows"][0]["rtt_ms"]}


def report(out):
    """docs/results.md's "Real Linux TCP on BMv2" table rows from a results directory."""
    with open(os.path.join(out, "all.json")) as f:
        allsum = json.load(f)
    rows = ["| scenario | run | JFI | utilisation | queueing delay p50 / p99 (ms) | groups per kernel CC |",
            "|---|---|---|---|---|---|"]
    for a in allsum:
        mp = os.path.join(out, a["scenario"], "model.json")
        models = json.load(open(mp)) if os.path.exists(mp) else {}
        rows += tblib.markdown_rows(a["scenario"], a["runs"], models)
    text = "\n".join(rows) + "\n"
    with open(os.path.join(out, "results-section.md"), "w") as f:
        f.write(text)
    return text


# -- plot --------------------------------------------------------------------------------------------------
def plot(summaries, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(summaries), figsize=(6 * len(summaries), 7), squeeze=False)
    colours = {"cubic": "tab:blue", "bbr": "tab:red", "reno": "tab:green"}
    for j, s in enumerate(summaries):
        ax = axes[0][j]
        labelled = set()
        for f in s["flows"]:
            xs = [t for t, _ in f["timeline_mbps"]]
            ys = [v for _, v in f["timeline_mbps"]]
            ax.plot(xs, ys, color=colours.get(f["cc"], "k"), lw=0.8,
                    label=None if f["cc"] in labelled else f["cc"])
            labelled.add(f["cc"])
        ax.set_title("%s, %s: JFI %.2f, util %.2f" % (s["name"], s["mode"], s["jfi"], s["utilization"]))
        ax.set_ylabel("goodput (Mbit/s)")
        ax.axvline(s.get("warmup_s", 0), color="grey", ls=":")
        ax.legend(fontsize=7, loc="upper right")
        ax = axes[1][j]
        names = sorted({g for f in s["flows"] for _, g in f["group_timeline"]}, key=str)
        for f in s["flows"]:
            tl = f["group_timeline"]
            ax.step([t for t, _ in tl], [names.index(g) + 0.05 * f["id"] for _, g in tl], where="post",
                    color=colours.get(f["cc"], "k"), lw=0.8)
        ax.set_yticks(range(len(names)))
        ax.set_yticklabels(names)
        ax.set_xlabel("time (s)")
        ax.set_ylabel("group read from the switch")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# -- ceiling -----------------------------------------------------------------------------------------------
def ceiling(topo, params, out, rates):
    """UDP through the switch at each offered rate, no queue rate limit: the receiver's loss."""
    os.makedirs(out, exist_ok=True)
    port = topo["receiver"]["port"]
    export_file = export_path(2)
    scn = {"buffer_pkts": 1000, "rate_mbps": topo["rate_mbps"], "rate_pps": 0}
    policy, _, qid, stats_idx = prepare_policy(export_file, "ccfair", port, out, scn["buffer_pkts"])
    bed = Bed(topo, out)
    bed.params = params
    rows = []
    try:
        bed.up()
        bed.switch()
        agent, _ = start_agent(bed, agent_config(bed, export_file, policy, scn, port, stats_idx, qid, [0], 8))
        for mbps in rates:
            srv = bed.start("udp-s-%g" % mbps, bed.ex("rcv", ["iperf3", "-s", "-1", "-p", "5201", "--json"]))
            wait_listening(bed, 5201, srv, "udp-s-%g" % mbps)  # iperf3's control connection is TCP
            cpu0 = _cpu_of(bed)
            c = subprocess.run(bed.ex("snd", ["iperf3", "-c", topo["receiver"]["ip"], "-p", "5201", "-u", "-b",
                                              "%gM" % mbps, "-l", "1448", "-t", "5", "--json"]),
                               capture_output=True, text=True, timeout=40)
            if c.returncode:
                try:
                    why = json.loads(c.stdout).get("error") or ""
                except (ValueError, AttributeError):
                    why = ""
                why = why or " | ".join((c.stderr.strip() or c.stdout.strip()).splitlines()[-6:])
                raise RuntimeError("iperf3 UDP client at %g Mbit/s: exit %d: %s" % (mbps, c.returncode, why))
            cpu1 = _cpu_of(bed)
            srv.wait(timeout=10)
            with open(os.path.join(out, "udp-s-%g.log" % mbps)) as fh:
                d = json.loads(fh.read())
            s = d["end"].get("sum_received") or d["end"]["sum"]
            rows.append({"offered_mbps": mbps, "received_mbps": round(s["bits_per_second"] / 1e6, 2),
                         "lost_percent": round(s["lost_percent"], 2),
                         "switch_cpu_percent": round(100 * (cpu1 - cpu0) / 5.0, 0) if cpu0 is not None else None})
            log("ceiling: offered %g Mbit/s: received %.2f, lost %.2f %%, switch CPU %s %%" % (
                mbps, rows[-1]["received_mbps"], rows[-1]["lost_percent"], rows[-1]["switch_cpu_percent"]))
        stop_agent(agent)
    finally:
        left = bed.teardown()
        if left:
            log("WARNING: left behind: %s" % ", ".join(left))
    return rows


def _cpu_of(bed):
    """CPU seconds simple_switch_grpc used so far (utime + stime of its process)."""
    for n, p in bed.procs:
        if n == "simple_switch_grpc":
            pids = sh(["pgrep", "-g", str(p.pid)], check=False).stdout.split()
            tot = 0.0
            for pid in pids:
                try:
                    with open("/proc/%s/stat" % pid) as f:
                        v = f.read().rsplit(")", 1)[1].split()
                    tot += (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
                except OSError:
                    pass
            return tot
    return None


# -- main --------------------------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", help="scenario files (default: testbed/scenarios/*.json but smoke)")
    ap.add_argument("--modes", default="fifo,ccfair")
    ap.add_argument("--model", action="store_true", help="also run each scenario in the ns-3 model (eval/run)")
    ap.add_argument("--out", help="results directory (default build/testbed/<time>)")
    ap.add_argument("--smoke", action="store_true", help="the make test check: one 10 s Cubic-vs-BBR run")
    ap.add_argument("--ceiling", action="store_true", help="measure BMv2's forwarding ceiling with UDP")
    ap.add_argument("--rates", default="4,8,12,16,20,24,28,32,40,48",
                    help="--ceiling's offered rates, Mbit/s (default: the ones of docs/testbed.md's table)")
    ap.add_argument("--report", metavar="DIR", help="print the results table of an earlier run's directory")
    ap.add_argument("--model-only", metavar="DIR", help="rerun the ns-3 model for an earlier run's directory")
    args = ap.parse_args(argv)
    if args.report:
        print(report(os.path.abspath(args.report)), end="")
        return 0
    if args.model_only:
        return model_only(os.path.abspath(args.model_only))
    params = P.load()
    topo = tblib.load_topology()
    out = os.path.abspath(args.out or os.path.join(REPO, "build", "testbed", time.strftime("%Y%m%d-%H%M%S")))
    # Any CC the model knows passes here; preflight then loads (modprobe) or refuses the ones the
    # kernel lacks, so an unloaded tcp_bbr gives "kernel CC bbr not available", not a bad scenario.
    ccs = kernel_ccs() | set(tblib.ce.CCS)
    try:
        paths = [SMOKE] if args.smoke else (args.scenarios or sorted(
            p for p in glob.glob(os.path.join(HERE, "scenarios", "*.json")) if not p.endswith(os.path.basename(SMOKE))))
        scns = [(p, tblib.load_scenario(p, topo, ccs)) for p in paths]
    except tblib.ScenarioError as e:
        print("%s: bad scenario: %s" % (PROG, e), file=sys.stderr)
        return 2
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in modes if m not in tblib.MODES]
    if bad:
        print("%s: --modes: unknown mode %s (allowed: %s)" % (PROG, bad[0], ", ".join(tblib.MODES)), file=sys.stderr)
        return 2
    if args.smoke:
        modes = ["ccfair"]
    try:
        need_ccs = set() if args.ceiling else {f["cc"] for _, s in scns for f in s["flows"]}
        preflight(sorted({len(s["flows"]) for _, s in scns} | ({2} if args.ceiling else set())), need_ccs)
    except Refusal as e:
        if args.smoke:
            print("SKIPPED: testbed (%s)" % e, flush=True)
            return 0
        print("%s: cannot run: %s" % (PROG, e), file=sys.stderr)
        return 2

    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)
    for sig in STOP_SIGNALS:
        signal.signal(sig, on_signal)

    lock = open(LOCK, "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        log("waiting for %s (another BMv2 run holds it)" % LOCK)
        fcntl.flock(lock, fcntl.LOCK_EX)
    os.makedirs(out, exist_ok=True)
    log("results in %s; load average %s" % (out, open("/proc/loadavg").read().split()[:3]))
    try:
        if args.ceiling:
            try:
                rows = ceiling(topo, params, os.path.join(out, "ceiling"), [float(x) for x in args.rates.split(",")])
            except (RuntimeError, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, ValueError) as e:
                log("ceiling: FAILED: %s" % e)
                return 1
            with open(os.path.join(out, "ceiling.json"), "w") as f:
                json.dump({"rows": rows, "loadavg": open("/proc/loadavg").read().split()[:3]}, f, indent=1)
            return 0
        allsum, rc = [], 0
        for path, scn in scns:
            per = []
            for mode in modes:
                d = os.path.join(out, scn["name"], mode)
                t_run = time.time()
                try:
                    res = run_scenario(scn, mode, topo, params, d)
                    s = summarise(res, params)
                except (RuntimeError, tblib.Iperf3Error, subprocess.CalledProcessError, subprocess.TimeoutExpired,
                        OSError) as e:
                    log("%s/%s: FAILED: %s" % (scn["name"], mode, e))
                    rc = 1
                    continue
                s["warmup_s"] = scn["warmup_s"]
                s["wall_s"] = round(time.time() - t_run, 1)
                s["loadavg"] = open("/proc/loadavg").read().split()[:3]
                with open(os.path.join(d, "summary.json"), "w") as f:
                    json.dump(s, f, indent=1)
                log("%s/%s: sender's TcpExt %s" % (scn["name"], mode, json.dumps(s["tcp_ext_sender"])))
                log("%s/%s: JFI %.3f, utilisation %.3f, q_max_delay p50/p99 %s/%s ms, groups %s, goodput %s" % (
                    scn["name"], mode, s["jfi"], s["utilization"], s["qdelay_p50_ms"], s["qdelay_p99_ms"],
                    json.dumps(s["shares_by_cc"]), [f["goodput_mbps"] for f in s["flows"]]))
                per.append(s)
                if args.smoke:
                    rc |= smoke_checks(s)
            if per and not args.smoke:
                plot(per, os.path.join(out, scn["name"], "testbed.png"))
            if args.model and not args.smoke:
                m = {}
                mpath = model_scenario(path, scn, per, out)
                for aqm in modes:
                    m[aqm] = model(mpath, aqm, scn["warmup_s"], scn["duration_s"])
                    log("%s: model %s: %s" % (scn["name"], aqm, json.dumps(m[aqm])))
                with open(os.path.join(out, scn["name"], "model.json"), "w") as f:
                    json.dump(m, f, indent=1)
            allsum.append({"scenario": scn["name"], "runs": per})
        with open(os.path.join(out, "all.json"), "w") as f:
            json.dump(allsum, f, indent=1)
        if not args.smoke:
            print(report(out), flush=True)
        return rc
    finally:
        lock.close()


def model_only(out):
    """Rerun the ns-3 model for every scenario of an earlier run (at the RTT that run measured)."""
    topo, ccs = tblib.load_topology(), kernel_ccs() | set(tblib.ce.CCS)
    by_name = {}
    for p in glob.glob(os.path.join(HERE, "scenarios", "*.json")):
        scn = tblib.load_scenario(p, topo, ccs)
        by_name[scn["name"]] = (p, scn)
    with open(os.path.join(out, "all.json")) as f:
        allsum = json.load(f)
    for a in allsum:
        path, scn = by_name[a["scenario"]]
        mpath = model_scenario(path, scn, a["runs"], out)
        m = {aqm: model(mpath, aqm, scn["warmup_s"], scn["duration_s"]) for aqm in tblib.MODES}
        for aqm in tblib.MODES:
            log("%s: model %s: %s" % (scn["name"], aqm, json.dumps(m[aqm])))
        with open(os.path.join(out, a["scenario"], "model.json"), "w") as f:
            json.dump(m, f, indent=1)
    print(report(out), end="")
    return 0


def model_scenario(path, scn, per, out):
    """The scenario for eval/run with rtt_ms = the RTT the testbed measured idle (the model needs
    at least 2 ms), so the model runs at the testbed's base RTT rather than a number it does not have."""
    with open(path) as f:
        raw = json.load(f)
    pings = [s["ping_idle"]["avg_ms"] for s in per if s.get("ping_idle")]
    rtt = max(2.0, round(sum(pings) / len(pings), 1)) if pings else None
    if rtt is not None:
        for fl in raw["flows"]:
            fl["rtt_ms"] = rtt
    p = os.path.join(out, scn["name"], "model-scenario.json")
    with open(p, "w") as f:
        json.dump(raw, f, indent=1)
    return p


def smoke_checks(s):
    """What must hold for the smoke, whatever the fairness: traffic moved, groups read back, no leftovers."""
    problems = []
    for f in s["flows"]:
        if f["goodput_mbps"] <= 0.05 * s["rate_mbps"] / len(s["flows"]):
            problems.append("flow %d (%s) moved %.3f Mbit/s" % (f["id"], f["cc"], f["goodput_mbps"]))
        if f["group_reads"] == 0:
            problems.append("flow %d (%s): no valid flow_group read with its signature" % (f["id"], f["cc"]))
    if s["leftovers"]:
        problems.append("left behind: %s" % ", ".join(s["leftovers"]))
    if s["utilization"] <= 0.3:
        problems.append("utilisation %.2f" % s["utilization"])
    for p in problems:
        log("smoke: FAIL: %s" % p)
    log("smoke: %s" % ("PASS" if not problems else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
