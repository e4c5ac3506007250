#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A stand-in for stratum_bfrt in a fake SDE, for checking ptf-tests/run end to end where no
tofino-model exists: it accepts Stratum's command line, serves P4Runtime (arbitration, pipeline
push, writes) and sends every packet-out onto the model end of the port's veth pair, so the
packet I/O test PacketOutEveryPort can pass through the real runner, PTF and base class.
It forwards nothing else and reads every register and counter as 0: every other test fails
against it, at its first expectation on the switch; a test that *errors* instead (an exception
in the test code before any expectation) points at a bug in the test."""
import os
import socket
import sys
import json
from concurrent import futures

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "lib"), os.path.join(HERE, "..", "checks")]

import grpc  # noqa: E402
from p4.v1 import p4runtime_pb2_grpc  # noqa: E402

from test_ptf_p4rt_client import FakeSwitch  # noqa: E402


class _Default(dict):
    """Registers and counters nobody wrote read as zero."""

    def __init__(self, zero):
        super().__init__()
        self.zero = zero

    def __missing__(self, key):
        return self.zero


class LoopingSwitch(FakeSwitch):
    def __init__(self, model_iface):
        super().__init__()
        self.model_iface = model_iface  # P4Runtime port -> interface the model would own
        self.socks = {}
        self.registers = _Default(0)
        self.counters = _Default((0, 0))

    def packet_out(self, req):
        md = {m.metadata_id: int.from_bytes(m.value, "big") for m in req.packet.metadata}
        hdr = next(h for h in self.config.p4info.controller_packet_metadata if h.preamble.name == "packet_out")
        port = md[next(m.id for m in hdr.metadata if m.name == "egress_port")]
        s = self.socks.get(port)
        if s is None:
            s = self.socks[port] = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind((self.model_iface[port], 0))
        s.send(req.packet.payload)


def main(argv):
    flags = dict(a.lstrip("-").split("=", 1) for a in argv if "=" in a)
    cfg_dir = os.path.dirname(flags["chassis_config_file"])
    with open(os.path.join(cfg_dir, "tofino-model-ports.json")) as f:
        veths = {"veth%d" % v["veth2"]: "veth%d" % v["veth1"] for v in json.load(f)["PortToVeth"]}
    with open(os.path.join(cfg_dir, "port_map.json")) as f:
        model_iface = {e["p4_port"]: veths[e["iface_name"]] for e in json.load(f)}
    fake = LoopingSwitch(model_iface)
    received_put = fake.received.put

    def on_stream(req):
        if req.HasField("packet"):
            fake.packet_out(req)
        received_put(req)
    fake.received.put = on_stream
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    p4runtime_pb2_grpc.add_P4RuntimeServicer_to_server(fake, server)
    server.add_insecure_port(flags["external_stratum_urls"])
    server.start()
    print("fake agent serving %s, ports %s" % (flags["external_stratum_urls"], model_iface), flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main(sys.argv[1:])
