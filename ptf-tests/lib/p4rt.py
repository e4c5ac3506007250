# SPDX-License-Identifier: Apache-2.0
"""A small P4Runtime 1.4 client for the PTF tests (and the runner's pipeline push).

Values are encoded to canonical byte strings from their P4Info bit widths, so
no test ever packs bytes by hand. Everything is looked up by name through
``p4info.P4Info``; an unknown name fails with the list of names that exist.
"""
import hashlib
import ipaddress
import queue
import threading
import time

import grpc
from p4.v1 import p4runtime_pb2, p4runtime_pb2_grpc

from p4info import P4InfoError


class EncodeError(ValueError):
    """A value does not fit the bit width the P4Info gives it."""


class WriteError(RuntimeError):
    """A Write the switch refused; the message has each failed update's code and reason."""


def write_error(req, err):
    """WriteError from the RpcError of Write `req`: P4Runtime puts the per-update errors in the
    status details (the gRPC message itself is often empty, as on BMv2)."""
    from google.rpc import code_pb2, status_pb2
    parts = []
    for key, value in (err.trailing_metadata() or ()):
        if key != "grpc-status-details-bin":
            continue
        st = status_pb2.Status.FromString(value)
        for i, any_ in enumerate(st.details):
            pe = p4runtime_pb2.Error()
            if any_.Unpack(pe) and pe.canonical_code != code_pb2.OK and i < len(req.updates):
                u = req.updates[i]
                parts.append("%s %s: %s: %s" % (p4runtime_pb2.Update.Type.Name(u.type), u.entity.WhichOneof("entity"),
                                                code_pb2.Code.Name(pe.canonical_code), pe.message or "(no message)"))
    return WriteError("Write refused (%s%s)%s" % (err.code().name, ": " + err.details() if err.details() else "",
                                                  ": " + "; ".join(parts) if parts else ""))


def to_int(value):
    """int from an int, a MAC ('aa:bb:..'), an IPv4/IPv6 address string, or big-endian bytes."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, (bytes, bytearray)):
        return int.from_bytes(value, "big")
    if isinstance(value, str):
        s = value.strip()
        if s.count(":") == 5 and all(len(p) <= 2 for p in s.split(":")):
            return int(s.replace(":", ""), 16)
        try:
            return int(ipaddress.ip_address(s))
        except ValueError:
            pass
        if s.lower().startswith("0x"):
            return int(s, 16)
        return int(s)
    raise EncodeError("cannot encode %r (%s)" % (value, type(value).__name__))


def encode(value, bitwidth, what="value"):
    """Canonical P4Runtime byte string (no leading zero bytes, at least one byte)."""
    n = to_int(value)
    if n < 0:
        raise EncodeError("%s %r is negative" % (what, value))
    if n >> bitwidth:
        raise EncodeError("%s %r does not fit in %d bits" % (what, value, bitwidth))
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def decode(data):
    return int.from_bytes(data, "big")


def prefix_mask(prefix_len, bitwidth):
    return ((1 << prefix_len) - 1) << (bitwidth - prefix_len) if prefix_len else 0


def pipeline_cookie(device_config, info):
    """Cookie of a pipeline (device config + P4Info): whoever pushes it first (BMv2 runner set-up
    or the first test) and every later test compute the same one, so nobody pushes it twice
    (a second push would reset the switch's state, clone sessions included)."""
    return int.from_bytes(hashlib.sha256(device_config + info.msg.SerializeToString()).digest()[:8], "big")


class Client:
    """One P4Runtime connection: primary arbitration, writes, reads, stream messages."""

    def __init__(self, info, grpc_addr, device_id=1, election_id=(0, 1), timeout=10):
        self.info = info
        self.device_id = device_id
        self.election_id = election_id
        self.channel = grpc.insecure_channel(grpc_addr)
        grpc.channel_ready_future(self.channel).result(timeout=timeout)
        self.stub = p4runtime_pb2_grpc.P4RuntimeStub(self.channel)
        self._out = queue.Queue()
        self._in = {"packet": queue.Queue(), "digest": queue.Queue(), "arbitration": queue.Queue(),
                    "idle_timeout_notification": queue.Queue(), "error": queue.Queue(),
                    "other": queue.Queue()}
        self._stream = self.stub.StreamChannel(iter(self._out.get, None))
        self._reader = threading.Thread(target=self._read_stream, daemon=True)
        self._reader.start()
        self._arbitrate(timeout)

    # -- stream ------------------------------------------------------------
    def _read_stream(self):
        try:
            for msg in self._stream:
                self._in[msg.WhichOneof("update")].put(msg)
        except grpc.RpcError:
            pass  # channel closed at tear-down

    def _arbitrate(self, timeout):
        req = p4runtime_pb2.StreamMessageRequest()
        req.arbitration.device_id = self.device_id
        req.arbitration.election_id.high, req.arbitration.election_id.low = self.election_id
        self._out.put(req)
        try:
            rep = self._in["arbitration"].get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError("no arbitration reply from the P4Runtime server in %d s" % timeout)
        if rep.arbitration.status.code != 0:
            raise RuntimeError("not primary for device %d: %s"
                               % (self.device_id, rep.arbitration.status.message))

    def close(self):
        self._out.put(None)
        self.channel.close()

    # -- pipeline ------------------------------------------------------------
    def set_pipeline(self, device_config, cookie=0):
        req = p4runtime_pb2.SetForwardingPipelineConfigRequest()
        req.device_id = self.device_id
        req.election_id.high, req.election_id.low = self.election_id
        req.action = p4runtime_pb2.SetForwardingPipelineConfigRequest.VERIFY_AND_COMMIT
        req.config.p4info.CopyFrom(self.info.msg)
        req.config.p4_device_config = device_config
        req.config.cookie.cookie = cookie
        self.stub.SetForwardingPipelineConfig(req)

    def get_pipeline_cookie(self):
        """Cookie of the pipeline on the device, or None when it has none yet."""
        req = p4runtime_pb2.GetForwardingPipelineConfigRequest(
            device_id=self.device_id,
            response_type=p4runtime_pb2.GetForwardingPipelineConfigRequest.COOKIE_ONLY)
        try:
            return self.stub.GetForwardingPipelineConfig(req).config.cookie.cookie
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.FAILED_PRECONDITION:  # no pipeline set
                return None
            raise

    # -- builders -------------------------------------------------------------
    def table_entry(self, table, match=None, action=None, params=None, priority=0):
        """TableEntry from names: match {field: value | (value, prefix) | (value, mask) | (lo, hi)}."""
        te = p4runtime_pb2.TableEntry()
        t = self.info.get("table", table)
        te.table_id = t.preamble.id
        for fname, v in (match or {}).items():
            mf = self.info.match_field(table, fname)
            m = te.match.add()
            m.field_id = mf.id
            kind = mf.match_type
            what = "%s.%s" % (t.preamble.name, mf.name)
            if kind == mf.EXACT:
                m.exact.value = encode(v, mf.bitwidth, what)
            elif kind == mf.LPM:
                val, plen = v
                mask = prefix_mask(plen, mf.bitwidth)
                m.lpm.value = encode(to_int(val) & mask, mf.bitwidth, what)
                m.lpm.prefix_len = plen
            elif kind == mf.TERNARY:
                val, mask = v
                m.ternary.value = encode(to_int(val) & to_int(mask), mf.bitwidth, what)
                m.ternary.mask = encode(mask, mf.bitwidth, what + " mask")
            elif kind == mf.RANGE:
                lo, hi = v
                m.range.low = encode(lo, mf.bitwidth, what + " low")
                m.range.high = encode(hi, mf.bitwidth, what + " high")
            elif kind == mf.OPTIONAL:
                m.optional.value = encode(v, mf.bitwidth, what)
            else:
                raise P4InfoError("unsupported match kind on %s" % what)
        if action is not None:
            self._fill_action(te.action.action, action, params or {})
        if priority:
            te.priority = priority
        return te

    def _fill_action(self, msg, action, params):
        a = self.info.get("action", action)
        msg.action_id = a.preamble.id
        declared = {p.name for p in a.params}
        unknown = set(params) - declared
        if unknown:
            raise P4InfoError("action %s has no parameter(s) %s (has: %s)" % (
                a.preamble.name, ", ".join(sorted(unknown)), ", ".join(sorted(declared)) or "none"))
        for p in a.params:
            if p.name not in params:
                raise P4InfoError("action %s: parameter %r not given" % (a.preamble.name, p.name))
            ap = msg.params.add()
            ap.param_id = p.id
            ap.value = encode(params[p.name], p.bitwidth, "%s(%s)" % (a.preamble.name, p.name))

    # -- writes -------------------------------------------------------------------
    def write(self, entities, update_type="INSERT"):
        req = p4runtime_pb2.WriteRequest()
        req.device_id = self.device_id
        req.election_id.high, req.election_id.low = self.election_id
        for ent in entities:
            u = req.updates.add()
            u.type = p4runtime_pb2.Update.Type.Value(update_type)
            field = {p4runtime_pb2.TableEntry: "table_entry",
                     p4runtime_pb2.RegisterEntry: "register_entry",
                     p4runtime_pb2.CounterEntry: "counter_entry",
                     p4runtime_pb2.DigestEntry: "digest_entry",
                     p4runtime_pb2.PacketReplicationEngineEntry: "packet_replication_engine_entry"}[type(ent)]
            getattr(u.entity, field).CopyFrom(ent)
        try:
            self.stub.Write(req)
        except grpc.RpcError as e:
            raise write_error(req, e) from None

    def insert(self, table, match=None, action=None, params=None, priority=0, modify=False):
        te = self.table_entry(table, match, action, params, priority)
        self.write([te], "MODIFY" if modify else "INSERT")
        return te

    def set_default(self, table, action, params=None):
        te = self.table_entry(table, action=action, params=params)
        te.is_default_action = True
        self.write([te], "MODIFY")
        return te

    def delete(self, entries):
        if entries:
            self.write(entries, "DELETE")

    # -- reads --------------------------------------------------------------------
    def read(self, entity):
        req = p4runtime_pb2.ReadRequest(device_id=self.device_id)
        req.entities.add().CopyFrom(entity)
        for rep in self.stub.Read(req):
            for e in rep.entities:
                yield e

    def read_table(self, table):
        ent = p4runtime_pb2.Entity()
        ent.table_entry.table_id = self.info.id("table", table)
        return [e.table_entry for e in self.read(ent)]

    def read_register(self, name, index):
        ent = p4runtime_pb2.Entity()
        ent.register_entry.register_id = self.info.id("register", name)
        ent.register_entry.index.index = index
        for e in self.read(ent):
            return _p4data_value(e.register_entry.data)
        raise RuntimeError("register %s[%d]: empty read" % (name, index))

    def write_register(self, name, index, value):
        re_ = p4runtime_pb2.RegisterEntry()
        re_.register_id = self.info.id("register", name)
        re_.index.index = index
        re_.data.bitstring = encode(value, self.info.register_width(name), "register " + name)
        self.write([re_], "MODIFY")

    def read_counter(self, name, index):
        """(packets, bytes) of counter `name` at `index`."""
        ent = p4runtime_pb2.Entity()
        ent.counter_entry.counter_id = self.info.id("counter", name)
        ent.counter_entry.index.index = index
        for e in self.read(ent):
            d = e.counter_entry.data
            return d.packet_count, d.byte_count
        raise RuntimeError("counter %s[%d]: empty read" % (name, index))

    # -- packet replication engine ---------------------------------------------------
    def read_clone_session(self, session_id):
        """The CloneSessionEntry of `session_id` on the device, or None."""
        ent = p4runtime_pb2.Entity()
        ent.packet_replication_engine_entry.clone_session_entry.session_id = session_id
        try:
            for e in self.read(ent):
                return e.packet_replication_engine_entry.clone_session_entry
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise
        return None

    def write_clone_session(self, session_id, replicas, packet_length_bytes=0):
        """Create or replace clone session `session_id`: replicas [(egress_port, instance)],
        copies truncated to packet_length_bytes (0: whole packet)."""
        pre = p4runtime_pb2.PacketReplicationEngineEntry()
        cs = pre.clone_session_entry
        cs.session_id = session_id
        for port, instance in replicas:
            cs.replicas.add(egress_port=port, instance=instance)
        cs.packet_length_bytes = packet_length_bytes
        self.write([pre], "MODIFY" if self.read_clone_session(session_id) is not None else "INSERT")
        return pre

    def enable_digest(self, name, max_timeout_ns=0, max_list_size=1, ack_timeout_ns=1000000):
        de = p4runtime_pb2.DigestEntry()
        de.digest_id = self.info.id("digest", name)
        de.config.max_timeout_ns = max_timeout_ns
        de.config.max_list_size = max_list_size
        de.config.ack_timeout_ns = ack_timeout_ns
        self.write([de], "INSERT")
        return de

    # -- packet I/O and digests -------------------------------------------------------
    def packet_out(self, payload, **metadata):
        """Send `payload` with packet_out controller-header fields given by name."""
        req = p4runtime_pb2.StreamMessageRequest()
        req.packet.payload = bytes(payload)
        for fname, fid, width in self.info.controller_header("packet_out"):
            if fname.startswith("_") and fname not in metadata:
                metadata[fname] = 0  # padding
            if fname not in metadata:
                raise P4InfoError("packet_out field %r not given (fields: %s)" % (
                    fname, ", ".join(f for f, _, _ in self.info.controller_header("packet_out"))))
            md = req.packet.metadata.add()
            md.metadata_id = fid
            md.value = encode(metadata.pop(fname), width, "packet_out." + fname)
        if metadata:
            raise P4InfoError("packet_out has no field(s) %s" % ", ".join(sorted(metadata)))
        self._out.put(req)

    def packet_in(self, timeout=2.0):
        """(payload bytes, {field: int}) of the next packet-in, or None after `timeout`."""
        try:
            msg = self._in["packet"].get(timeout=timeout)
        except queue.Empty:
            return None
        names = {fid: fname for fname, fid, _ in self.info.controller_header("packet_in")}
        return msg.packet.payload, {names[m.metadata_id]: decode(m.value) for m in msg.packet.metadata}

    def drain_packet_in(self):
        n = 0
        while not self._in["packet"].empty():
            self._in["packet"].get_nowait()
            n += 1
        return n

    def drain_digests(self):
        """Acknowledge and drop every digest list received so far; returns how many."""
        n = 0
        while not self._in["digest"].empty():
            d = self._in["digest"].get_nowait().digest
            ack = p4runtime_pb2.StreamMessageRequest()
            ack.digest_ack.digest_id = d.digest_id
            ack.digest_ack.list_id = d.list_id
            self._out.put(ack)
            n += 1
        return n

    def digest(self, name, timeout=2.0):
        """[{field: int}] of the next DigestList of `name` (acknowledged), or None."""
        did = self.info.id("digest", name)
        fields = [f for f, _ in self.info.digest_fields(name)]
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                return None
            try:
                msg = self._in["digest"].get(timeout=left)
            except queue.Empty:
                return None
            d = msg.digest
            if d.digest_id != did:
                continue
            ack = p4runtime_pb2.StreamMessageRequest()
            ack.digest_ack.digest_id = d.digest_id
            ack.digest_ack.list_id = d.list_id
            self._out.put(ack)
            out = []
            for data in d.data:
                members = data.struct.members if data.WhichOneof("data") == "struct" else [data]
                out.append({f: _p4data_value(m) for f, m in zip(fields, members)})
            return out


def _p4data_value(data):
    kind = data.WhichOneof("data")
    if kind == "bitstring":
        return decode(data.bitstring)
    if kind in ("struct", "tuple"):
        return [_p4data_value(m) for m in getattr(data, kind).members]
    raise RuntimeError("unsupported P4Data %r" % kind)
