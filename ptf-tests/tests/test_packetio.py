# SPDX-License-Identifier: Apache-2.0
"""Packet I/O: ACL punts (LLDP, BDDP, ARP) reach the controller as packet-ins with
their ingress port; packet-outs leave the named port unmodified, past the ACL."""
from ptf.testutils import group

import packets as K
from base_test import CcfairTest, IG

ACL = IG + ".acl.acl"
FULL16 = 0xFFFF


class _Punt(CcfairTest):
    """No runTest here: PTF collects every class that has one."""
    ether_type = None

    def pkt(self):
        raise NotImplementedError

    def check_punt(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.insert(ACL, {"eth_type": (self.ether_type, FULL16)}, IG + ".acl.punt_to_cpu", priority=100)
        pkt = self.pkt()
        self.send(p1, pkt)
        self.expect_packet_in(pkt, ingress_port=p1)
        self.expect_none()  # punted, not forwarded


@group("packetio")
class PuntWinsOverForwardingDrop(CcfairTest):
    """An ACL punt wins over forwarding, a forwarding drop included: an LLDP frame whose
    destination MAC has an l2_exact drop entry still reaches the controller (forwarding's
    drop_ctl used to survive the punt, so control traffic could be black-holed by a data
    entry). The drop entry keeps dropping what the ACL does not punt."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        pkt = K.lldp(0)
        self.insert(IG + ".forwarding.l2_exact", {"eth_dst": pkt[K.Ether].dst}, IG + ".forwarding.drop")
        self.insert(ACL, {"eth_type": (K.ETH_LLDP, FULL16)}, IG + ".acl.punt_to_cpu", priority=100)
        self.send(p1, pkt)
        self.expect_packet_in(pkt, ingress_port=p1)
        other = K.Ether(bytes(K.Ether(src=K.HOST_MAC[0], dst=pkt[K.Ether].dst, type=0x1234) / K.Raw(b"\x00" * 46)))
        self.send(p1, other)
        self.expect_none()


@group("packetio")
class LldpPunt(_Punt):
    """LLDP (0x88CC) is punted to the controller with its ingress port."""
    ether_type = K.ETH_LLDP

    def pkt(self):
        return K.lldp(0)

    def runTest(self):
        self.check_punt()


@group("packetio")
class BddpPunt(_Punt):
    """BDDP (0x8942) is punted to the controller."""
    ether_type = K.ETH_BDDP

    def pkt(self):
        return K.pad(K.Ether(src=K.HOST_MAC[0], dst="ff:ff:ff:ff:ff:ff", type=K.ETH_BDDP), 64)

    def runTest(self):
        self.check_punt()


@group("packetio")
class ArpPunt(_Punt):
    """ARP (0x0806) is punted to the controller even when L2 could forward it."""
    ether_type = K.ETH_ARP

    def pkt(self):
        return K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1]) /
                     K.ARP(op=1, hwsrc=K.HOST_MAC[0], psrc=K.HOST_IP[0], pdst=K.HOST_IP[1]), 64)

    def runTest(self):
        self.check_punt()


@group("packetio")
class CopyToCpu(CcfairTest):
    """copy_to_cpu sends a copy to the controller and forwards the original."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.insert(ACL, {"eth_type": (K.ETH_ARP, FULL16)}, IG + ".acl.copy_to_cpu", priority=100)
        pkt = K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1]) /
                    K.ARP(op=2, hwsrc=K.HOST_MAC[0], psrc=K.HOST_IP[0], pdst=K.HOST_IP[1]), 64)
        self.send(p1, pkt)
        self.expect_packet_in(pkt, ingress_port=p1)
        self.expect(pkt, p2)


@group("packetio")
class PacketOutEveryPort(CcfairTest):
    """A packet-out leaves exactly the port it names, byte for byte: the first frame out of each
    port is the packet-out to it, and nothing else comes out anywhere (one negative wait for
    all ports, not one per port)."""

    def runTest(self):
        pkts = {port: K.udp(0, 1, size=100, sport=5000 + port) for port in self.ports}
        for port, pkt in pkts.items():
            self.packet_out(pkt, egress_port=port)
        for port, pkt in pkts.items():
            # recv takes a port's frames in order without skipping any (expect would drop others)
            got = self.recv(port, timeout=2.0)
            self.assertIsNotNone(got, "the packet-out to port %d did not leave it" % port)
            self.assertEqual(bytes(got), bytes(pkt), "port %d: the first frame out is not its packet-out" % port)
        self.expect_none()


@group("packetio")
class PacketOutBypassesAclAndShim(CcfairTest):
    """Packet-outs skip the ACL, forwarding, AQM and the shim, even toward a fabric port."""

    def runTest(self):
        p3 = self.ports[2]
        self.fabric_port(p3)
        self.insert(ACL, {"eth_type": (K.ETH_IPV4, FULL16)}, IG + ".acl.drop", priority=100)
        pkt = K.Flow(0, 1, 40000).data(300)
        self.packet_out(pkt, egress_port=p3)
        self.expect(pkt, p3)


@group("packetio")
class AclDropWinsOverForwarding(CcfairTest):
    """An ACL drop stops a packet L2 would forward, and only the matching packets."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.insert(ACL, {"ip_proto": (17, 0xFF), "l4_dport": (9999, FULL16)}, IG + ".acl.drop", priority=100)
        self.send(p1, K.udp(0, 1, dport=9999))
        self.expect_none()
        ok = K.udp(0, 1, dport=9998)
        self.send(p1, ok)
        self.expect(ok, p2)
