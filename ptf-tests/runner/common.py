# SPDX-License-Identifier: Apache-2.0
"""What both targets of ptf-tests/run share: refusals, the port map, waiting for a
port, the PTF command line, and the processes the run starts and must stop."""
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PTF_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PTF_DIR)

PROG = "ptf-tests/run"
EXIT_REFUSED = 2


class Refusal(Exception):
    """The runner cannot start: the message names what is missing and how to get it."""


def which(name, env):
    for d in env.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if d and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def shell_line(argv):
    return " ".join(shlex.quote(a) for a in argv)


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


def log_dir(arg, name):
    return os.path.abspath(arg or os.path.join(REPO, "build", "ptf-logs",
                                               "%s-%s" % (name, time.strftime("%Y%m%d-%H%M%S"))))


def test_params(pairs):
    """PTF --test-params text: strings quoted, numbers bare (PTF evaluates each value)."""
    return ";".join("%s=%s" % (k, ("'%s'" % v) if isinstance(v, str) else v) for k, v in pairs)


def ptf_argv(test_dir, log_dir_, params, ports, tests):
    argv = [os.path.join(REPO, ".venv", "bin", "ptf"), "--test-dir", test_dir,
            "--log-file", os.path.join(log_dir_, "ptf.log"), "--test-params=" + test_params(params)]
    for p in ports:
        argv += ["-i", "%d@%s" % (p["p4_port"], p["iface_name"])]
    return argv + list(tests)


def dev_ports_param(ports, dev_of_iface):
    """'p4_port:device_port,...' (test param dev_ports) for the PTF ports."""
    return ",".join("%d:%d" % (p["p4_port"], dev_of_iface[p["iface_name"]]) for p in ports)


def wait_for_port(addr, procs, timeout, what="the P4Runtime agent"):
    host, port = addr.rsplit(":", 1)
    host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    deadline = time.time() + timeout
    while time.time() < deadline:
        procs.check_alive()
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                return
        except OSError:
            time.sleep(1)
    raise RuntimeError("%s did not open %s within %d s" % (what, addr, timeout))


class Processes:
    """Background processes of one run, each in its own process group so that stopping
    it stops its children too; stopped in reverse start order."""

    def __init__(self, log_dir_, env):
        self.log_dir, self.env, self.procs = log_dir_, env, []

    def start(self, name, argv):
        log = open(os.path.join(self.log_dir, name + ".log"), "w")
        print("%s: starting %s: %s" % (PROG, name, shell_line(argv)), flush=True)
        self.procs.append((name, subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                                  cwd=self.log_dir, start_new_session=True)))

    def check_alive(self):
        for name, p in self.procs:
            if p.poll() is not None:
                raise RuntimeError("%s exited with code %d while starting (see its log)" % (name, p.returncode))

    def stop_all(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                print("%s: stopping %s (pid %d)" % (PROG, name, p.pid), flush=True)
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()


def run_ptf(argv, env, timeout=None):
    """PTF's exit code; a run past `timeout` seconds is killed and fails (a PTF whose runner died
    on an internal error can hang on its own threads, and make test must end)."""
    p = subprocess.Popen(argv, env=env)
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError("PTF did not finish within %d s (--ptf-timeout); killed" % timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def exit_on_signals():
    """SIGINT/SIGTERM end the run through SystemExit, so every `finally` tears down."""
    def on_signal(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def report_end(rc, log_dir_):
    print("%s: PTF exit code %d; logs in %s" % (PROG, rc, log_dir_), flush=True)
    return rc


def fail(e, log_dir_):
    print("%s: FAILED: %s (logs: %s)" % (PROG, e, log_dir_), file=sys.stderr, flush=True)
    return 1
