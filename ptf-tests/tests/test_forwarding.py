# SPDX-License-Identifier: Apache-2.0
"""L2 bridging (l2_exact) and IPv4 routing (my_station + routing_v4)."""
from ptf.testutils import group

import packets as K
from base_test import CcfairTest, IG

FWD = IG + ".forwarding"


@group("l2")
class L2Unicast(CcfairTest):
    """A known destination MAC is bridged to its port, unmodified (edge to edge: no shim)."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        for pkt in (K.udp(0, 1), K.Flow(0, 1, 1234).data(500), K.icmp(0, 1)):
            self.send(p1, pkt)
            self.expect(pkt, p2)
        back = K.udp(1, 0)
        self.send(p2, back)
        self.expect(back, p1)
        self.expect_none()


@group("l2")
class L2MissDropped(CcfairTest):
    """A packet with no egress port (no l2 entry, not routed) is dropped."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.send(p1, K.udp(0, 5))  # host 5 has no entry
        self.expect_none()
        ok = K.udp(0, 1)  # the control: a known host is reached, so the switch does forward
        self.send(p1, ok)
        self.expect(ok, p2)


@group("l2")
class L2DropAction(CcfairTest):
    """l2_exact's drop action: the switch accepts the entry and reads it back with action drop,
    and host 3's packet, which the same entry with set_egress_port sent to port 2 just before,
    now leaves no port. That is all a packet can show: a packet with no egress port is dropped
    anyway, so drop and nop (or a miss) give the same outcome here, and an ACL punt wins over
    either (test_packetio.PuntWinsOverForwardingDrop)."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        match = {"eth_dst": K.HOST_MAC[3]}
        self.insert(FWD + ".l2_exact", match, FWD + ".set_egress_port", {"port": p2})
        pkt = K.udp(0, 3)
        self.send(p1, pkt)
        self.expect(pkt, p2)  # the control: with a port the entry forwards
        self.insert(FWD + ".l2_exact", match, FWD + ".drop", modify=True)
        self.assertEqual(self.entry_action(FWD + ".l2_exact", match), self.info.id("action", FWD + ".drop"),
                         "the l2_exact entry does not read back with action drop")
        self.send(p1, pkt)
        self.expect_none()  # not to port 2 (or any other): drop sets no port
        ok = K.udp(0, 1)
        self.send(p1, ok)
        self.expect(ok, p2)


class _Routed(CcfairTest):
    def route_setup(self, out_port):
        self.edge_port(self.ports[0])
        self.edge_port(out_port)
        self.insert(FWD + ".my_station", {"eth_dst": K.ROUTER_MAC}, FWD + ".set_routed")

    def routed_pkt(self, dst_ip, ttl=64):
        return K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.ROUTER_MAC) /
                     K.IP(src=K.HOST_IP[0], dst=dst_ip, ttl=ttl, id=0) / K.UDP(sport=7, dport=7), 100)

    def expected(self, pkt, smac, dmac):
        e = pkt.copy()
        e[K.Ether].src, e[K.Ether].dst = smac, dmac
        e[K.IP].ttl -= 1
        del e[K.IP].chksum
        return K.Ether(bytes(e))


@group("ipv4")
class Ipv4Route(_Routed):
    """my_station + routing_v4: MACs rewritten, TTL decremented, out of the next-hop port."""

    def runTest(self):
        p2 = self.ports[1]
        self.route_setup(p2)
        self.insert(FWD + ".routing_v4", {"ipv4_dst": ("10.0.9.0", 24)}, FWD + ".route",
                    {"port": p2, "smac": K.ROUTER_MAC, "dmac": K.HOST_MAC[9]})
        pkt = self.routed_pkt("10.0.9.9")
        self.send(self.ports[0], pkt)
        self.expect(self.expected(pkt, K.ROUTER_MAC, K.HOST_MAC[9]), p2)


@group("ipv4")
class Ipv4LongestPrefixWins(_Routed):
    """The longer prefix wins over the shorter one."""

    def runTest(self):
        p2, p3 = self.ports[1], self.ports[2]
        self.route_setup(p2)
        self.edge_port(p3)
        self.insert(FWD + ".routing_v4", {"ipv4_dst": ("10.0.0.0", 16)}, FWD + ".route",
                    {"port": p2, "smac": K.ROUTER_MAC, "dmac": K.HOST_MAC[2]})
        self.insert(FWD + ".routing_v4", {"ipv4_dst": ("10.0.7.0", 24)}, FWD + ".route",
                    {"port": p3, "smac": K.ROUTER_MAC, "dmac": K.HOST_MAC[7]})
        a, b = self.routed_pkt("10.0.7.1"), self.routed_pkt("10.0.8.1")
        self.send(self.ports[0], a)
        self.expect(self.expected(a, K.ROUTER_MAC, K.HOST_MAC[7]), p3)
        self.send(self.ports[0], b)
        self.expect(self.expected(b, K.ROUTER_MAC, K.HOST_MAC[2]), p2)


@group("ipv4")
class Ipv4TtlExpiredDropped(_Routed):
    """route drops a packet whose TTL is <= 1 instead of forwarding TTL 0."""

    def runTest(self):
        p2 = self.ports[1]
        self.route_setup(p2)
        self.insert(FWD + ".routing_v4", {"ipv4_dst": ("10.0.9.0", 24)}, FWD + ".route",
                    {"port": p2, "smac": K.ROUTER_MAC, "dmac": K.HOST_MAC[9]})
        self.send(self.ports[0], self.routed_pkt("10.0.9.9", ttl=1))
        self.expect_none()
        ok = self.routed_pkt("10.0.9.9", ttl=2)  # TTL 2 leaves with TTL 1
        self.send(self.ports[0], ok)
        self.expect(self.expected(ok, K.ROUTER_MAC, K.HOST_MAC[9]), p2)


@group("ipv4")
class Ipv4NotMyStationIsBridged(_Routed):
    """IPv4 to a MAC that is not my_station is bridged (L2), TTL untouched."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.route_setup(p2)
        self.insert(FWD + ".routing_v4", {"ipv4_dst": ("10.0.0.0", 8)}, FWD + ".route",
                    {"port": self.ports[2], "smac": K.ROUTER_MAC, "dmac": K.HOST_MAC[9]})
        self.l2(1, p2)
        pkt = K.udp(0, 1)
        self.send(p1, pkt)
        self.expect(pkt, p2)


@group("ipv4")
class Ipv4RouteDropAction(_Routed):
    """routing_v4's drop action: the switch accepts a /24 drop entry and reads it back with
    action drop, and a packet to that /24 leaves no port, although the /8 under it routes to
    port 2 (so the /24 entry won the lookup and did not forward). That is all a packet can
    show: a routed packet with no egress port is dropped anyway, so drop and nop give the same
    outcome here (see L2DropAction; the longest-prefix choice itself is Ipv4LongestPrefixWins)."""

    def runTest(self):
        p2 = self.ports[1]
        self.route_setup(p2)
        match = {"ipv4_dst": ("10.0.66.0", 24)}
        self.insert(FWD + ".routing_v4", match, FWD + ".drop")
        self.insert(FWD + ".routing_v4", {"ipv4_dst": ("10.0.0.0", 8)}, FWD + ".route",
                    {"port": p2, "smac": K.ROUTER_MAC, "dmac": K.HOST_MAC[9]})
        self.assertEqual(self.entry_action(FWD + ".routing_v4", match), self.info.id("action", FWD + ".drop"),
                         "the routing_v4 /24 entry does not read back with action drop")
        self.send(self.ports[0], self.routed_pkt("10.0.66.1"))
        self.expect_none()  # not to port 2 (the /8's port) or any other
        ok = self.routed_pkt("10.0.67.1")
        self.send(self.ports[0], ok)
        self.expect(self.expected(ok, K.ROUTER_MAC, K.HOST_MAC[9]), p2)
