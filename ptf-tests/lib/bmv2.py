# SPDX-License-Identifier: Apache-2.0
"""BMv2 (``simple_switch_grpc``) beside P4Runtime: what PI does not serve.

PI answers P4Runtime register reads and writes with UNIMPLEMENTED, and queue
depth and rate are no P4Runtime objects at all; both go through
simple_switch's Thrift server, with the calls ``simple_switch_CLI`` makes.
Registers are named as in the BMv2 JSON, i.e. by their full P4 name
("IngressPipe.flow_tracker.flow_sig"), the same name the P4Info gives them.

The Thrift stubs (``bm_runtime.standard``, ``sswitch_runtime``) are generated
modules BMv2 installs under ``$BMV2_PREFIX/lib/python3.X/site-packages``. That
directory also holds PI's own ``p4`` and ``google`` packages, which would shadow
the venv's p4runtime and protobuf for every gRPC client in the process, so it
never goes on ``sys.path``: ``make_runtime_dir`` links the two stub packages
into a directory of their own, and only that one is added.

Also here: the clone sessions the v1model port clones through, written through
P4Runtime's packet replication engine (PI implements that part).
"""
import atexit
import glob
import os
import shutil
import socket
import sys
import tempfile
import time

RUNTIME_PACKAGES = ("bm_runtime", "sswitch_runtime")
# Replica instance of the clone sessions (P4Runtime: egress_rid of the copy); the
# program never reads it, and 0 is what a single-copy session conventionally uses.
CLONE_INSTANCE = 0


class Bmv2Error(RuntimeError):
    """A Thrift call to simple_switch failed; the message names the object and the reason."""


# -- the Thrift stubs, without the rest of BMv2's site-packages ----------------------------
def wait_for(host, port, deadline, what, every=0.5):
    """Return once host:port accepts a TCP connection (a switch's gRPC or Thrift server);
    RuntimeError naming `what` after `deadline` (time.time())."""
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.time() > deadline:
                raise RuntimeError("%s did not open %s:%d in time" % (what, host, port))
            time.sleep(every)


def find_prefix(env=None):
    """BMv2's install prefix: $BMV2_PREFIX, else the directory above the bin/ that holds
    simple_switch_grpc on PATH (symlinks resolved: /usr/local/bin links into the prefix)."""
    env = os.environ if env is None else env
    if env.get("BMV2_PREFIX"):
        return env["BMV2_PREFIX"]
    exe = shutil.which("simple_switch_grpc", path=env.get("PATH"))
    return os.path.dirname(os.path.dirname(os.path.realpath(exe))) if exe else None


def site_packages(prefix):
    """The site-packages directory under `prefix` holding the Thrift stubs, or None."""
    for d in sorted(glob.glob(os.path.join(prefix, "lib", "python3*", "*-packages"))):
        if all(os.path.isdir(os.path.join(d, p)) for p in RUNTIME_PACKAGES):
            return d
    return None


def make_runtime_dir(site, dest):
    """`dest` with a symlink to each stub package in `site` (and nothing else)."""
    os.makedirs(dest, exist_ok=True)
    for p in RUNTIME_PACKAGES:
        link = os.path.join(dest, p)
        if not os.path.islink(link):
            os.symlink(os.path.join(site, p), link)
    return dest


_runtime_on_path = None


def use_runtime(runtime_dir=None):
    """Put the stubs on sys.path: `runtime_dir` (ptf-tests/run passes its own as test param
    bmv2_py), or a private one linked from BMv2's prefix and removed at exit."""
    global _runtime_on_path
    if _runtime_on_path:
        return _runtime_on_path
    if not runtime_dir:
        prefix = find_prefix()
        site = site_packages(prefix) if prefix else None
        if not site:
            raise Bmv2Error("BMv2's Python Thrift stubs (%s) not found under %s: set BMV2_PREFIX to BMv2's "
                            "install prefix" % (", ".join(RUNTIME_PACKAGES),
                                                prefix or "any prefix (no $BMV2_PREFIX, no simple_switch_grpc)"))
        runtime_dir = make_runtime_dir(site, tempfile.mkdtemp(prefix="ccfair-bmv2-py-"))
        atexit.register(shutil.rmtree, runtime_dir, True)
    sys.path.insert(0, runtime_dir)
    _runtime_on_path = runtime_dir
    return runtime_dir


# -- Thrift client ---------------------------------------------------------------------------
class Switch:
    """One Thrift connection to simple_switch: registers, counters, egress queues."""

    def __init__(self, thrift_port, host="127.0.0.1", runtime_dir=None, timeout=10):
        use_runtime(runtime_dir)
        try:
            from thrift.protocol import TBinaryProtocol, TMultiplexedProtocol
            from thrift.Thrift import TApplicationException
            from thrift.transport import TSocket, TTransport
        except ImportError as e:
            raise Bmv2Error("the Python package thrift is missing (%s): run tools/setup.sh venv" % e)
        from bm_runtime.standard import Standard
        from bm_runtime.standard import ttypes as std_types
        from sswitch_runtime import SimpleSwitch
        self._types = std_types
        self._app_error = TApplicationException
        sock = TSocket.TSocket(host, thrift_port)
        sock.setTimeout(timeout * 1000)
        self._transport = TTransport.TBufferedTransport(sock)
        proto = TBinaryProtocol.TBinaryProtocol(self._transport)
        # simple_switch multiplexes its services on one port under these names
        self.std = Standard.Client(TMultiplexedProtocol.TMultiplexedProtocol(proto, "standard"))
        self.sswitch = SimpleSwitch.Client(TMultiplexedProtocol.TMultiplexedProtocol(proto, "simple_switch"))
        try:
            self._transport.open()
        except TTransport.TTransportException as e:
            raise Bmv2Error("cannot reach simple_switch's Thrift server at %s:%d: %s" % (host, thrift_port, e))

    def close(self):
        self._transport.close()

    def _call(self, what, fn, *args):
        # Raised outside the except blocks on purpose: the stubs' exceptions are immutable, and
        # unittest, formatting a failed test, sets __traceback__ on every exception in the chain;
        # one of them as __context__ makes that a TypeError that kills PTF's runner (PTF then hangs).
        try:
            return fn(*args)
        except (self._types.InvalidRegisterOperation, self._types.InvalidCounterOperation) as e:
            codes = (self._types.RegisterOperationErrorCode
                     if isinstance(e, self._types.InvalidRegisterOperation) else self._types.CounterOperationErrorCode)
            reason = codes._VALUES_TO_NAMES.get(e.code, e.code)
        except self._app_error as e:  # an exception in the switch, e.g. a priority queue that does not exist
            reason = str(e)
        raise Bmv2Error("%s: %s" % (what, reason))

    def _queue_call(self, what, fn, *args):
        rc = self._call(what, fn, *args)
        if rc:
            raise Bmv2Error("%s: simple_switch returned %d" % (what, rc))

    # registers: Thrift carries them as a signed i64
    def read_register(self, name, index):
        v = self._call("register %s[%d]" % (name, index), self.std.bm_register_read, 0, name, index)
        return v & ((1 << 64) - 1)

    def write_register(self, name, index, value):
        if not 0 <= value < (1 << 63):
            raise Bmv2Error("register %s[%d]: value %r does not fit Thrift's i64" % (name, index, value))
        self._call("register %s[%d]" % (name, index), self.std.bm_register_write, 0, name, index, value)

    def reset_register(self, name):
        """Every cell of `name` back to 0."""
        self._call("register %s" % name, self.std.bm_register_reset, 0, name)

    def read_counter(self, name, index):
        """(packets, bytes), as p4rt.Client.read_counter returns them."""
        v = self._call("counter %s[%d]" % (name, index), self.std.bm_counter_read, 0, name, index)
        return v.packets, v.bytes

    # egress queues: with --priority-queues N each port has N strict-priority queues
    def set_queue_depth(self, port, depth_pkts, priority=None):
        """Depth in packets of one priority queue of `port`, or of all of them (priority None)."""
        if priority is None:
            self._queue_call("port %d queues" % port, self.sswitch.set_egress_queue_depth, port, depth_pkts)
        else:
            self._queue_call("port %d queue %d" % (port, priority), self.sswitch.set_egress_priority_queue_depth,
                       port, priority, depth_pkts)

    def set_queue_rate(self, port, rate_pps, priority=None):
        """Rate limit in packets per second (0: none) of one priority queue of `port`, or of each of
        them (priority None: each queue separately, not the port as a whole)."""
        if priority is None:
            self._queue_call("port %d queues" % port, self.sswitch.set_egress_queue_rate, port, rate_pps)
        else:
            self._queue_call("port %d queue %d" % (port, priority), self.sswitch.set_egress_priority_queue_rate,
                       port, priority, rate_pps)


# -- clone sessions (P4Runtime PRE) --------------------------------------------------------------
def clone_sessions(params):
    """[(session id, egress port)] the v1model port clones through: the group update (egress
    mirror to the recirculation port; one pipe, so session mirror_session_base) and, when
    params name one, the copy-to-CPU session.

    Whole packets: BMv2's PI refuses any packet_length_bytes but 0 ("no truncation in bmv2",
    pi_clone_imp.cpp), so params update.truncate_bytes cannot be applied here; the v1model
    port must truncate the update copy itself (v1model's truncate()) if it depends on it."""
    u, cpu = params["update"], params["cpu"]
    out = [(u["mirror_session_base"], u["recirc_port_bmv2"])]
    if "copy_session_bmv2" in cpu:
        out.append((cpu["copy_session_bmv2"], cpu["port_bmv2"]))
    return out


def write_clone_sessions(client, params):
    """Write clone_sessions(params) through `client` (a p4rt.Client); returns them."""
    sessions = clone_sessions(params)
    for sid, port in sessions:
        client.write_clone_session(sid, [(port, CLONE_INSTANCE)])
    return sessions
