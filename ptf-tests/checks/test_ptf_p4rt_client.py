# SPDX-License-Identifier: Apache-2.0
"""The P4Runtime client the PTF tests use, over real gRPC against a small in-process fake
server (no switch): arbitration, pipeline push and cookie, writes, register and counter
reads, clone sessions, refused writes with their per-update errors, packet-out / packet-in
with controller-header fields, digests and their acks."""
import collections
import queue
import threading
from concurrent import futures

import grpc
import pytest
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2
from google.rpc import code_pb2, status_pb2
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

import p4rt
from p4info import P4Info
from test_ptf_framework import P4INFO_TEXT


class _Status(collections.namedtuple("_Status", ("code", "details", "trailing_metadata")), grpc.Status):
    """What grpcio-status's rpc_status.to_status builds (that package is not in the venv)."""


class FakeSwitch(p4runtime_pb2_grpc.P4RuntimeServicer):
    """Just enough of a P4Runtime server to exercise the client; records what it receives."""

    def __init__(self):
        self.config = None
        self.writes = []
        self.refuse = None  # (code, message): the next Write fails as P4Runtime reports it
        self.clone_sessions = {}
        self.registers = {}
        self.counters = {}
        self.stream_out = queue.Queue()  # messages the switch sends to the controller
        self.received = queue.Queue()    # stream messages the controller sent (packet-outs, acks)

    def SetForwardingPipelineConfig(self, request, context):
        self.config = request.config
        return p4runtime_pb2.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        if self.config is None:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, "no pipeline")
        rep = p4runtime_pb2.GetForwardingPipelineConfigResponse()
        rep.config.cookie.CopyFrom(self.config.cookie)
        return rep

    def Write(self, request, context):
        if self.refuse:
            # P4Runtime: gRPC code UNKNOWN, one p4.v1.Error per update in the status details
            st = status_pb2.Status(code=code_pb2.UNKNOWN)
            for _ in request.updates:
                st.details.add().Pack(p4runtime_pb2.Error(canonical_code=self.refuse[0], message=self.refuse[1]))
            context.abort_with_status(_Status(grpc.StatusCode.UNKNOWN, "",
                                              (("grpc-status-details-bin", st.SerializeToString()),)))
        self.writes.extend(request.updates)
        for u in request.updates:
            if u.entity.HasField("packet_replication_engine_entry"):
                cs = u.entity.packet_replication_engine_entry.clone_session_entry
                self.clone_sessions[cs.session_id] = cs
        return p4runtime_pb2.WriteResponse()

    def Read(self, request, context):
        rep = p4runtime_pb2.ReadResponse()
        for ent in request.entities:
            e = rep.entities.add()
            if ent.HasField("register_entry"):
                e.register_entry.CopyFrom(ent.register_entry)
                v = self.registers[(ent.register_entry.register_id, ent.register_entry.index.index)]
                e.register_entry.data.bitstring = p4rt.encode(v, 64)
            elif ent.HasField("packet_replication_engine_entry"):
                sid = ent.packet_replication_engine_entry.clone_session_entry.session_id
                if sid not in self.clone_sessions:
                    del rep.entities[-1]
                    continue
                e.packet_replication_engine_entry.clone_session_entry.CopyFrom(self.clone_sessions[sid])
            elif ent.HasField("counter_entry"):
                e.counter_entry.CopyFrom(ent.counter_entry)
                pk, by = self.counters[(ent.counter_entry.counter_id, ent.counter_entry.index.index)]
                e.counter_entry.data.packet_count, e.counter_entry.data.byte_count = pk, by
        yield rep

    def StreamChannel(self, request_iterator, context):
        def pump():
            try:
                for req in request_iterator:
                    if req.HasField("arbitration"):
                        rep = p4runtime_pb2.StreamMessageResponse()
                        rep.arbitration.CopyFrom(req.arbitration)
                        self.stream_out.put(rep)
                    else:
                        self.received.put(req)
            except grpc.RpcError:
                pass  # the client went away
            self.stream_out.put(None)
        threading.Thread(target=pump, daemon=True).start()
        while True:
            msg = self.stream_out.get()
            if msg is None:
                return
            yield msg


@pytest.fixture
def switch():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    fake = FakeSwitch()
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    msg = p4info_pb2.P4Info()
    text_format.Merge(P4INFO_TEXT, msg)
    client = p4rt.Client(P4Info(msg), "127.0.0.1:%d" % port, device_id=1, timeout=5)
    yield fake, client
    client.close()
    server.stop(0)


def test_pipeline_push_and_cookie(switch):
    fake, c = switch
    assert c.get_pipeline_cookie() is None  # FAILED_PRECONDITION: nothing pushed yet
    c.set_pipeline(b"DEVCFG", cookie=42)
    assert fake.config.p4_device_config == b"DEVCFG"
    assert fake.config.p4info.tables[0].preamble.name == "Ingress.fwd.l2_exact"
    assert c.get_pipeline_cookie() == 42


def test_writes_reads_and_deletes(switch):
    fake, c = switch
    te = c.insert("l2_exact", {"dst_addr": "00:00:00:00:00:02"}, "set_egress_port", {"port": 3})
    c.write_register("ctv", 5, 77)
    c.delete([te])
    kinds = [(p4runtime_pb2.Update.Type.Name(u.type), u.entity.WhichOneof("entity")) for u in fake.writes]
    assert kinds == [("INSERT", "table_entry"), ("MODIFY", "register_entry"), ("DELETE", "table_entry")]
    assert fake.writes[1].entity.register_entry.data.bitstring == b"\x4d"
    fake.registers[(3001, 9)] = 1234
    fake.counters[(4001, 2)] = (5, 600)
    assert c.read_register("ctv", 9) == 1234
    assert c.read_counter("group_pkts", 2) == (5, 600)


def test_packet_out_and_in_with_controller_header(switch):
    fake, c = switch
    c.packet_out(b"\x01\x02", egress_port=7)
    out = fake.received.get(timeout=5)
    assert out.packet.payload == b"\x01\x02"
    assert [(m.metadata_id, m.value) for m in out.packet.metadata] == [(1, b"\x07")]
    with pytest.raises(p4rt.P4InfoError, match="has no field"):
        c.packet_out(b"", egress_port=1, bogus=2)
    pin = p4runtime_pb2.StreamMessageResponse()
    pin.packet.payload = b"abc"
    pin.packet.metadata.add(metadata_id=1, value=b"\x04")
    pin.packet.metadata.add(metadata_id=2, value=b"\x00")
    fake.stream_out.put(pin)
    assert c.packet_in(timeout=5) == (b"abc", {"ingress_port": 4, "_pad": 0})
    assert c.packet_in(timeout=0.1) is None


def test_digests_are_decoded_and_acknowledged(switch):
    fake, c = switch
    c.enable_digest("reclass_digest_t")
    assert fake.writes[-1].entity.digest_entry.digest_id == 5001
    for list_id in (1, 2):
        m = p4runtime_pb2.StreamMessageResponse()
        m.digest.digest_id, m.digest.list_id = 5001, list_id
        d = m.digest.data.add()
        d.struct.members.add(bitstring=b"\x00\x10")
        d.struct.members.add(bitstring=b"\x03")
        fake.stream_out.put(m)
    assert c.digest("reclass_digest_t", timeout=5) == [{"flow_id": 16, "new_group": 3}]
    ack = fake.received.get(timeout=5)
    assert (ack.digest_ack.digest_id, ack.digest_ack.list_id) == (5001, 1)
    for _ in range(100):  # the second list arrives on the client's reader thread
        if c.drain_digests() == 1:
            break
        threading.Event().wait(0.05)
    else:
        pytest.fail("the second digest list never arrived")
    assert fake.received.get(timeout=5).digest_ack.list_id == 2
    assert c.digest("reclass_digest_t", timeout=0.1) is None


def test_clone_sessions_are_created_then_modified(switch):
    fake, c = switch
    assert c.read_clone_session(1) is None
    c.write_clone_session(1, [(68, 0)], 64)
    c.write_clone_session(1, [(5, 1), (6, 1)])
    types = [p4runtime_pb2.Update.Type.Name(u.type) for u in fake.writes]
    assert types == ["INSERT", "MODIFY"]  # the second write finds the session and replaces it
    cs = c.read_clone_session(1)
    assert [(r.egress_port, r.instance) for r in cs.replicas] == [(5, 1), (6, 1)] and cs.packet_length_bytes == 0


def test_refused_writes_say_why(switch):
    fake, c = switch
    fake.refuse = (code_pb2.INVALID_ARGUMENT, "Clone session id out-of-range")
    with pytest.raises(p4rt.WriteError, match=r"Write refused \(UNKNOWN\): INSERT packet_replication_engine_entry: "
                                              r"INVALID_ARGUMENT: Clone session id out-of-range"):
        c.write_clone_session(0, [(68, 0)])
