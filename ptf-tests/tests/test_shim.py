# SPDX-License-Identifier: Apache-2.0
"""The ccfair shim: pushed at the ingress edge on IPv4, trusted and kept across fabric
ports, popped at the egress edge; what arrives on an edge port is never trusted."""
from ptf.testutils import group

import packets as K
from base_test import CcfairTest, EG

PKTS = EG + ".telemetry.pg_pkts"


@group("shim")
class PushAtIngressEdge(CcfairTest):
    """Edge -> fabric: Ethernet / shim(pv, group, slot, 0x0800) / the original IPv4 packet."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        self.tvf(self.group_id("ant"), lambda b: 777)
        pkt = K.udp(0, 1, size=300)
        self.send(p1, pkt)
        out = self.recv(p3, 2.0)
        self.assertIsNotNone(out)
        s = out[K.CcfairShim]
        self.assertEqual((s.pv, s.group, s.ether_type), (777, self.group_id("ant"), K.ETH_IPV4))
        self.assertLess(s.slot, self.params["queues"]["slots_per_group"])
        self.assertEqual(bytes(K.without_shim(out)), bytes(pkt))


@group("shim")
class NoShimOnNonIpv4(CcfairTest):
    """Non-IPv4 frames (ARP) cross toward a fabric port without a shim."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        pkt = K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1]) /
                    K.ARP(op=2, hwsrc=K.HOST_MAC[0], psrc=K.HOST_IP[0], pdst=K.HOST_IP[1]), 64)
        self.send(p1, pkt)
        self.expect(pkt, p3)


@group("shim")
class PopAtEgressEdge(CcfairTest):
    """Fabric -> edge: the shim is removed; its group (trusted on a fabric port) is the
    group the packet is counted and queued in."""

    def runTest(self):
        p1, p3 = self.ports[0], self.ports[2]
        self.fabric_port(p3)
        self.edge_port(p1)
        self.l2(0, p1)
        g = self.group_id("loss", 1)
        c0 = self.pg(PKTS, p1, g)[0]
        inner = K.Flow(1, 0, 45000).data(400)
        self.send(p3, K.with_shim(inner, pv=4321, group=g, slot=2))
        self.expect(inner, p1)
        self.assertEqual(self.pg(PKTS, p1, g)[0] - c0, 1)


@group("shim")
class TrustedAcrossFabric(CcfairTest):
    """Fabric -> fabric (a core switch): the shim passes unchanged, PV and group not re-marked."""

    def runTest(self):
        p3, p4 = self.ports[2], self.ports[3]
        self.fabric_port(p3)
        self.fabric_port(p4)
        self.l2(0, p4)
        self.tvf(self.group_id("hybrid", 1), lambda b: 5)  # would differ if the core re-marked
        g = self.group_id("hybrid", 1)
        c0 = self.pg(PKTS, p4, g)[0]
        pkt = K.with_shim(K.Flow(1, 0, 45001).data(400), pv=4321, group=g, slot=3)
        self.send(p3, pkt)
        self.expect(pkt, p4)
        self.assertEqual(self.pg(PKTS, p4, g)[0] - c0, 1)


@group("shim")
@group("badinput")
class ForgedShimOnEdgeNotTrusted(CcfairTest):
    """A shim arriving on an edge port is stripped: toward an edge port the packet leaves
    without it; toward a fabric port it carries this switch's own group and PV."""

    def runTest(self):
        p1, p2, p3 = self.ports[0], self.ports[1], self.ports[2]
        self.edge_port(p1)
        self.edge_port(p2)
        self.fabric_port(p3)
        self.l2(1, p2)
        self.l2(2, p3)
        ant = self.group_id("ant")
        self.tvf(ant, lambda b: 100)
        forged_group, forged_pv = self.group_id("hybrid", 1), 65535
        inner = K.udp(0, 1)
        self.send(p1, K.with_shim(inner, pv=forged_pv, group=forged_group))
        self.expect(inner, p2)
        inner3 = K.udp(0, 2)
        self.send(p1, K.with_shim(inner3, pv=forged_pv, group=forged_group))
        out = self.recv(p3, 2.0)
        self.assertIsNotNone(out, "nothing reached the fabric port")
        self.assertEqual(out[K.Ether].type, K.SHIM_ETHERTYPE)
        self.assertFalse(out[K.CcfairShim].payload.haslayer(K.CcfairShim), "forged shim kept under a new one")
        s = out[K.CcfairShim]
        self.assertEqual((s.group, s.pv), (ant, 100), "forged shim trusted on an edge port")
        self.assertEqual(bytes(K.without_shim(out)), bytes(inner3))
