# SPDX-License-Identifier: Apache-2.0
"""Bad input: truncated or malformed TCP, IP options, fragments and non-IP traffic must not
create or corrupt flow state and must not stop forwarding. IPv4 whose TCP header is not
complete is forwarded unchanged as untracked traffic (ant, counted in untracked[not TCP]);
IPv4 with options is handled as non-IP (bridged unchanged, no shim, not counted).
(The forged-shim case is ForgedShimOnEdgeNotTrusted in test_shim.py.)"""
from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, EG, IG, P

PKTS = EG + ".telemetry.pg_pkts"


class _Bad(CcfairTest):
    def check_untracked(self, bad, good):
        """`bad` creates no flow, is counted as untracked (not TCP), leaves unchanged as an ant,
        and forwarding goes on (a SYN of `good`, a K.Flow of the test's own: no two tests share a flow)."""
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        ant = self.group_id("ant")
        a0, e0, n0 = self.pg(PKTS, p2, ant)[0], self.flows_entered(p2), self.untracked(C.UNTRACKED_NOT_TCP)
        self.send(p1, bad)
        out = self.recv_all(p2, 1.0)
        self.assertEqual(len(out), 1, "%d copies forwarded" % len(out))
        self.assertEqual(bytes(out[0]), bytes(bad), "malformed packet forwarded modified")
        self.assertEqual(self.flows_entered(p2), e0, "a malformed packet created a flow")
        self.assertEqual(self.untracked(C.UNTRACKED_NOT_TCP) - n0, 1, "not counted as untracked (not TCP)")
        self.assertEqual(self.pg(PKTS, p2, ant)[0] - a0, 1, "forwarded, but not as untracked (ant)")
        syn = good.syn()
        self.send(p1, syn)
        self.expect(syn, p2)


def tcp_bytes(flow_pkt, tcp_len):
    """An IPv4/TCP frame whose IP total length covers only `tcp_len` bytes of TCP header."""
    p = flow_pkt.copy()
    p[K.IP].len = 20 + tcp_len
    raw = bytes(p[K.Ether])[:14 + 20 + tcp_len]
    return K.pad(K.Ether(raw), 64)


@group("badinput")
class TruncatedTcp(_Bad):
    """IPv4 says TCP but carries 8 bytes of TCP header (ports and sequence only)."""

    def runTest(self):
        self.check_untracked(tcp_bytes(K.Flow(0, 1, 49000).syn(), 8), K.Flow(0, 1, 48990))


@group("badinput")
class TcpDataOffsetTooSmall(_Bad):
    """A TCP header whose data offset is 2 words (< 5) is malformed."""

    def runTest(self):
        p = K.Flow(0, 1, 49001).syn()
        p[K.TCP].dataofs = 2
        self.check_untracked(K.Ether(bytes(p)), K.Flow(0, 1, 48991))


@group("badinput")
class NonFirstFragment(_Bad):
    """A non-first fragment of a TCP datagram has no TCP header: never tracked."""

    def runTest(self):
        p = K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1]) /
                  K.IP(src=K.HOST_IP[0], dst=K.HOST_IP[1], proto=6, frag=100, flags=0, id=7) /
                  K.Raw(b"\x11" * 40), 100)
        self.check_untracked(p, K.Flow(0, 1, 48992))


@group("badinput")
class FirstFragmentForwarded(CcfairTest):
    """A first fragment (MF set, offset 0) carries a real TCP header: whether it is tracked is
    the program's choice, but it leaves unchanged and forwarding goes on."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        p = K.Flow(0, 1, 49002).syn()
        p[K.IP].flags = "MF"
        p[K.IP].id = 8
        p = K.Ether(bytes(p))
        self.send(p1, p)
        self.expect(p, p2)
        good = K.udp(0, 1)
        self.send(p1, good)
        self.expect(good, p2)


@group("badinput")
class IpOptionsForwarded(CcfairTest):
    """IPv4 with options (IHL 6) is handled as non-IP: forwarded unchanged (its checksum, which
    covers the options, untouched), not tracked, not counted as untracked, and no shim toward a
    fabric port."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        p3 = self.ports[2]
        self.fabric_port(p3)
        self.insert(IG + ".forwarding.l2_exact", {"eth_dst": K.HOST_MAC[2]}, IG + ".forwarding.set_egress_port",
                    {"port": p3})
        for dst, out in ((1, p2), (2, p3)):
            pkt = K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[dst]) /
                        K.IP(src=K.HOST_IP[0], dst=K.HOST_IP[dst], ttl=64, id=0,
                             options=[K.IPOption(b"\x01\x01\x01\x00")]) /
                        K.TCP(sport=49003, dport=80, flags="S"), 80)
            pkt = K.Ether(bytes(pkt))
            u0 = self.untracked(C.UNTRACKED_COLLISION) + self.untracked(C.UNTRACKED_NOT_TCP)
            e0 = self.flows_entered(out)
            self.send(p1, pkt)
            self.expect(pkt, out)
            self.assertEqual(self.untracked(C.UNTRACKED_COLLISION) + self.untracked(C.UNTRACKED_NOT_TCP), u0)
            self.assertEqual(self.flows_entered(out), e0, "an IPv4 packet with options created a flow")


@group("badinput")
class NonIpCarriesNoShim(CcfairTest):
    """A non-IP frame bridged toward a fabric port gets no shim and is not counted as a flow."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        pkt = K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1], type=0x88B7) / K.Raw(b"\x00" * 20), 64)
        self.send(p1, pkt)
        self.expect(pkt, p3)


@group("badinput")
class ShimWithUnknownInnerTypeOnEdge(CcfairTest):
    """A forged shim from a host over a payload that is not plain IPv4 (another ethertype, or
    IPv4 with options, which the program handles as non-IP) is removed at the edge: toward a
    fabric port the packet leaves as the host's payload alone, never with the forged shim that
    the next switch would trust (group, slot, PV 65535). Toward an edge port egress pops any
    shim anyway, so the fabric port is what tells."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        p3 = self.ports[2]
        self.fabric_port(p3)
        self.l2(2, p3)

        def forged(dst, inner_type, payload):
            return K.Ether(bytes(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[dst], type=K.SHIM_ETHERTYPE) /
                                 K.CcfairShim(pv=65535, group=7, slot=1, ether_type=inner_type) / payload))

        raw = K.Raw(b"\x42" * 50)
        opts = K.IP(src=K.HOST_IP[0], dst=K.HOST_IP[2], ttl=64, id=0,
                    options=[K.IPOption(b"\x01\x01\x01\x00")]) / K.TCP(sport=49013, dport=80, flags="A") / \
            K.Raw(b"\x00" * 20)
        for inner_type, payload in ((0x1234, raw), (0x0800, opts)):
            self.send(p1, forged(2, inner_type, payload))
            plain = K.Ether(bytes(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[2], type=inner_type) / payload))
            self.expect(plain, p3)
            self.send(p1, forged(1, inner_type, payload))
            for p in self.recv_all(p2, 0.5):
                self.assertFalse(p.haslayer(K.CcfairShim), "forged shim forwarded to an edge port")
        ok = K.udp(0, 1)
        self.send(p1, ok)
        self.expect(ok, p2)


@group("badinput")
class UpdateFrameFromWireIgnored(CcfairTest):
    """A group-update frame (ethertype update.ether_type) arriving on a front-panel port is
    dropped and changes nothing: the flow whose slot it names keeps its group word, and no flow
    enters or leaves any (port, group). Only the switch's own recirculated updates count."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        f = K.Flow(0, 1, 49010)
        self.send(p1, f.syn())
        self.expect(f.syn(), p2)
        fid = self.new_flow_id(f)
        word = self.read_register(IG + ".flow_tracker.flow_group", fid)
        loss = self.group_id("loss", 0)
        fg = (2 << 14) | (self.stats_idx(p2) << 5) | loss  # what egress would send for a move to loss
        upd = K.pad(K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1], type=P.int_value(self.params["update"]["ether_type"]))
                    / K.Raw(fid.to_bytes(4, "big") + fg.to_bytes(2, "big") + bytes([loss, 0])), 64)
        e0, l0 = self.flows_entered(p2, loss), self.pg(IG + ".update.pg_flow_leave", p2, self.group_id("mouse"))[0]
        for port in (p1, p2):
            self.send(port, upd)
        self.expect_none()
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_group", fid), word,
                         "an update from the wire changed the flow's group word")
        self.assertEqual(self.flows_entered(p2, loss), e0)
        self.assertEqual(self.pg(IG + ".update.pg_flow_leave", p2, self.group_id("mouse"))[0], l0)
