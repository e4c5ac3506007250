# SPDX-License-Identifier: Apache-2.0
"""The BMv2 parts of the framework without a switch or root: lib/bmv2.py's Thrift client
against an in-process fake simple_switch Thrift server (BMv2's own generated stubs, so
only where BMv2 is installed), the stub path that must not shadow the venv's p4runtime,
the clone sessions, and base_test's register routing, struct packing and tna_only."""
import os
import socket
import sys
import threading
import unittest

import pytest

import bmv2
import p4rt
from conftest import REPO, report
from test_ptf_suite import _load

PARAMS = {"update": {"mirror_session_base": 1, "recirc_port_bmv2": 68, "truncate_bytes": 64},
          "cpu": {"port_bmv2": 255}}


# -- the stub path ----------------------------------------------------------------------------
def fake_prefix(root):
    site = root / "lib" / "python3.11" / "site-packages"
    for pkg in bmv2.RUNTIME_PACKAGES + ("p4", "google"):  # PI installs p4 and google there too
        (site / pkg).mkdir(parents=True)
        (site / pkg / "__init__.py").write_text("")
    return site


def test_runtime_dir_links_only_the_thrift_stubs(tmp_path):
    site = fake_prefix(tmp_path / "prefix")
    assert bmv2.site_packages(str(tmp_path / "prefix")) == str(site)
    d = bmv2.make_runtime_dir(str(site), str(tmp_path / "py"))
    assert sorted(os.listdir(d)) == sorted(bmv2.RUNTIME_PACKAGES)
    assert os.path.realpath(os.path.join(d, "bm_runtime")) == str(site / "bm_runtime")
    assert bmv2.make_runtime_dir(str(site), d) == d  # idempotent: the runner and a test may both call it
    assert bmv2.site_packages(str(tmp_path / "nowhere")) is None


def test_prefix_from_env_or_from_the_switch_binary(tmp_path):
    assert bmv2.find_prefix({"BMV2_PREFIX": "/opt/x", "PATH": ""}) == "/opt/x"
    (tmp_path / "prefix" / "bin").mkdir(parents=True)
    exe = tmp_path / "prefix" / "bin" / "simple_switch_grpc"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    (tmp_path / "usrbin").mkdir()
    os.symlink(str(exe), str(tmp_path / "usrbin" / "simple_switch_grpc"))  # as /usr/local/bin links it
    assert bmv2.find_prefix({"PATH": str(tmp_path / "usrbin")}) == str(tmp_path / "prefix")
    assert bmv2.find_prefix({"PATH": str(tmp_path)}) is None


def test_clone_sessions_from_params():
    assert bmv2.clone_sessions(PARAMS) == [(1, 68)]
    with_cpu = {"update": PARAMS["update"], "cpu": {"port_bmv2": 255, "copy_session_bmv2": 64}}
    assert bmv2.clone_sessions(with_cpu) == [(1, 68), (64, 255)]

    class Client:
        def __init__(self):
            self.written = []

        def write_clone_session(self, sid, replicas, packet_length_bytes=0):
            self.written.append((sid, replicas, packet_length_bytes))

    c = Client()
    bmv2.write_clone_sessions(c, with_cpu)
    # whole packets: BMv2's PI refuses truncation (packet_length_bytes != 0)
    assert c.written == [(1, [(68, 0)], 0), (64, [(255, 0)], 0)]


# -- Thrift client against a fake simple_switch ---------------------------------------------------
def _stubs_or_skip():
    prefix = bmv2.find_prefix()
    if not (prefix and bmv2.site_packages(prefix)):
        report("SKIPPED: lib/bmv2.py Thrift client against a fake simple_switch (BMv2's Thrift stubs not found: "
               "simple_switch_grpc not on PATH and BMV2_PREFIX not set)")
        pytest.skip("BMv2 not installed")
    bmv2.use_runtime()


class FakeSimpleSwitch:
    """Handler for both services; registers {name: [cells]}, rejects what simple_switch rejects."""

    def __init__(self, types):
        self.t = types
        self.registers = {"IngressPipe.flow_tracker.flow_sig": [0] * 4}
        self.queue_calls = []

    def _reg(self, name, idx=None):
        if name not in self.registers:
            raise self.t.InvalidRegisterOperation(self.t.RegisterOperationErrorCode.INVALID_REGISTER_NAME)
        if idx is not None and not 0 <= idx < len(self.registers[name]):
            raise self.t.InvalidRegisterOperation(self.t.RegisterOperationErrorCode.INVALID_INDEX)
        return self.registers[name]

    def bm_register_read(self, cxt_id, name, idx):
        return self._reg(name, idx)[idx]

    def bm_register_write(self, cxt_id, name, idx, value):
        self._reg(name, idx)[idx] = value

    def bm_register_reset(self, cxt_id, name):
        cells = self._reg(name)
        cells[:] = [0] * len(cells)

    def bm_counter_read(self, cxt_id, name, idx):
        if name != "IngressPipe.flow_tracker.untracked":
            raise self.t.InvalidCounterOperation(self.t.CounterOperationErrorCode.INVALID_COUNTER_NAME)
        return self.t.BmCounterValue(bytes=640, packets=10)

    def __getattr__(self, name):  # the queue calls: recorded, 0 = done
        if name.startswith("set_"):
            return lambda *args: self.queue_calls.append((name,) + args) or 0
        raise AttributeError(name)


@pytest.fixture
def thrift_switch():
    _stubs_or_skip()
    from bm_runtime.standard import Standard
    from bm_runtime.standard import ttypes
    from sswitch_runtime import SimpleSwitch
    from thrift.protocol import TBinaryProtocol
    from thrift.server import TServer
    from thrift.TMultiplexedProcessor import TMultiplexedProcessor
    from thrift.transport import TSocket, TTransport
    fake = FakeSimpleSwitch(ttypes)
    proc = TMultiplexedProcessor()
    proc.registerProcessor("standard", Standard.Processor(fake))
    proc.registerProcessor("simple_switch", SimpleSwitch.Processor(fake))
    with socket.socket() as s:  # a free port (TServerSocket cannot report one it picked itself)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server_sock = TSocket.TServerSocket(host="127.0.0.1", port=port)
    server = TServer.TThreadedServer(proc, server_sock, TTransport.TBufferedTransportFactory(),
                                     TBinaryProtocol.TBinaryProtocolFactory(), daemon=True)
    threading.Thread(target=server.serve, daemon=True).start()
    for _ in range(100):
        try:
            client = bmv2.Switch(port)
            break
        except bmv2.Bmv2Error:
            threading.Event().wait(0.05)
    else:
        pytest.fail("fake Thrift server did not start")
    yield fake, client
    client.close()  # the server thread (a daemon) keeps listening until pytest exits: TServer has no stop


def test_thrift_registers_counters_and_queues(thrift_switch):
    fake, sw = thrift_switch
    reg = "IngressPipe.flow_tracker.flow_sig"
    sw.write_register(reg, 2, 0x12340001)
    assert fake.registers[reg][2] == 0x12340001 and sw.read_register(reg, 2) == 0x12340001
    fake.registers[reg][3] = -1  # Thrift's i64 is signed: a 64-bit cell with the top bit set
    assert sw.read_register(reg, 3) == (1 << 64) - 1
    with pytest.raises(bmv2.Bmv2Error, match=r"register IngressPipe.flow_tracker.flow_sig\[9\]: INVALID_INDEX"):
        sw.read_register(reg, 9)
    with pytest.raises(bmv2.Bmv2Error, match=r"register IngressPipe.nope\[0\]: INVALID_REGISTER_NAME") as err:
        sw.write_register("IngressPipe.nope", 0, 1)
    # no stub exception in the chain: they are immutable, and unittest sets __traceback__ on the whole
    # chain when it reports a failed test (a TypeError there hung a PTF run)
    assert err.value.__context__ is None and err.value.__cause__ is None
    result = unittest.TestResult()
    try:
        sw.read_register(reg, 9)
    except bmv2.Bmv2Error:
        result.addError(unittest.FunctionTestCase(lambda: None), sys.exc_info())
    assert "INVALID_INDEX" in result.errors[0][1]
    with pytest.raises(bmv2.Bmv2Error, match="does not fit Thrift's i64"):
        sw.write_register(reg, 0, 1 << 63)
    sw.reset_register(reg)
    assert fake.registers[reg] == [0, 0, 0, 0]
    assert sw.read_counter("IngressPipe.flow_tracker.untracked", 1) == (10, 640)
    with pytest.raises(bmv2.Bmv2Error, match="INVALID_COUNTER_NAME"):
        sw.read_counter("nope", 0)
    sw.set_queue_depth(3, 32, priority=7)
    sw.set_queue_depth(3, 64)
    sw.set_queue_rate(8, 1250)
    sw.set_queue_rate(8, 100, priority=0)
    assert fake.queue_calls == [("set_egress_priority_queue_depth", 3, 7, 32), ("set_egress_queue_depth", 3, 64),
                                ("set_egress_queue_rate", 8, 1250), ("set_egress_priority_queue_rate", 8, 0, 100)]
    report("lib/bmv2.py: Thrift register read/write/reset, counter read, queue depth and rate against a fake "
           "simple_switch (BMv2's stubs, venv thrift)")


def test_stubs_on_the_path_do_not_shadow_the_venvs_p4runtime():
    _stubs_or_skip()
    import google.protobuf
    import p4.v1.p4runtime_pb2 as pb
    venv = os.path.join(sys.prefix, "lib")
    assert pb.__file__.startswith(venv) and google.protobuf.__file__.startswith(venv)
    assert bmv2.site_packages(bmv2.find_prefix()) not in sys.path


# -- base_test: registers over Thrift, struct packing, tna_only --------------------------------------
class RecordingRegisters:
    def __init__(self):
        self.cells = {}

    def write_register(self, name, index, value):
        self.cells[(name, index)] = value

    def read_register(self, name, index):
        return self.cells.get((name, index), 0)


@pytest.fixture
def base(monkeypatch):
    mod = _load("base_test")
    params = {}
    monkeypatch.setattr(mod, "param", lambda name, default=None: params.get(name, default))
    t = mod.CcfairTest()
    t.sw, t._thrift, t.profile = RecordingRegisters(), RecordingRegisters(), "tofino"
    return mod, t, params


def test_register_access_goes_over_thrift_on_bmv2_only(base):
    mod, t, params = base
    sig = mod.IG + ".flow_tracker.flow_sig"
    t.write_register(sig, 3, [0x1234, 0x0001])  # struct members, first highest
    assert t.sw.cells == {(sig, 3): 0x12340001} and not t._thrift.cells
    assert t.read_register(sig, 3) == [0x1234, 0x0001]
    params["thrift_port"] = 9090
    t.write_register(mod.EG + ".aqm.q_ctv", 5, 77)
    assert t._thrift.cells == {(mod.EG + ".aqm.q_ctv", 5): 77}
    assert t.read_register(mod.EG + ".aqm.q_ctv", 5) == 77
    t.write_register(sig, 4, (0xFFFF, 0))
    assert t._thrift.cells[(sig, 4)] == 0xFFFF0000
    assert t.read_register(sig, 4) == [0xFFFF, 0]


def test_struct_writes_are_checked_member_by_member(base):
    mod, t, _ = base
    sig = mod.IG + ".flow_tracker.flow_sig"
    with pytest.raises(ValueError, match="member sig = 65536 does not fit 16 bits"):
        t.write_register(sig, 0, [1 << 16, 0])
    with pytest.raises(ValueError, match="1 values given, its cells have members"):
        t.write_register(sig, 0, [1])
    with pytest.raises(ValueError, match="its cells have one value"):
        t.write_register(mod.EG + ".aqm.q_ctv", 0, [1, 2])


def test_tna_only_skips_on_bmv2_with_the_skipped_line(base, capfd):
    mod, t, _ = base
    t.tna_only("not reached on tofino")
    assert capfd.readouterr().out == ""
    t.profile = "bmv2"
    with pytest.raises(unittest.SkipTest, match="TNA only: needs the TM's queue depth"):
        t.tna_only("needs the TM's queue depth")
    lines = capfd.readouterr().out.splitlines()
    assert "SKIPPED: %s on bmv2 (needs the TM's queue depth)" % t in lines
    assert str(t).endswith("CcfairTest")  # the PTF test name, without unittest's .runTest


class ReadBackTables(p4rt.Client):
    """The P4Runtime client's entry builder without a connection, and a read that returns the
    entries it holds, their match values in the byte form a server may use (full width)."""

    def __init__(self, info):  # no channel: nothing here talks to a switch
        self.info, self.entries = info, []

    def read_table(self, table):
        return [te for te in self.entries if te.table_id == self.info.id("table", table)]


def test_entry_action_reads_an_entry_back_whatever_its_byte_form(base):
    from p4info import P4Info
    mod, t, _ = base
    t.info = P4Info.from_file(os.path.join(REPO, "p4", "p4info", "bmv2", "p4info.txt"))
    t.sw = ReadBackTables(t.info)
    l2, lpm, drop = mod.IG + ".forwarding.l2_exact", mod.IG + ".forwarding.routing_v4", mod.IG + ".forwarding.drop"
    mac = "00:00:00:00:00:04"
    te = t.sw.table_entry(l2, {"eth_dst": mac}, drop)
    te.match[0].exact.value = bytes(6)[:5] + b"\x04"           # padded to 48 bits, as a server may return it
    t.sw.entries.append(te)
    t.sw.entries.append(t.sw.table_entry(lpm, {"ipv4_dst": ("10.0.66.0", 24)}, drop))
    assert t.entry_action(l2, {"eth_dst": mac}) == t.info.id("action", drop)
    assert t.entry_action(l2, {"eth_dst": "00:00:00:00:00:05"}) is None
    assert t.entry_action(lpm, {"ipv4_dst": ("10.0.66.0", 24)}) == t.info.id("action", drop)
    assert t.entry_action(lpm, {"ipv4_dst": ("10.0.66.0", 23)}) is None
