# SPDX-License-Identifier: Apache-2.0
"""Packets the ccfair tests send and expect: the shim header as a Scapy layer
(layout from docs/dataplane.md, ethertype and widths from params/ccfair.json)
and builders for TCP flows in both directions."""
import os
import sys

from scapy.fields import BitField, XShortField
from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Packet, Raw, bind_layers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from ccfair import params as P  # noqa: E402

_PARAMS = P.load()
SHIM_ETHERTYPE = P.int_value(_PARAMS["shim"]["ether_type"])
ETH_IPV4, ETH_ARP, ETH_LLDP, ETH_BDDP = 0x0800, 0x0806, 0x88CC, 0x8942


class CcfairShim(Packet):
    """pv | group | slot | ether_type of what follows (6 bytes)."""
    name = "ccfair"
    fields_desc = [
        BitField("pv", 0, _PARAMS["shim"]["pv_bits"]),
        BitField("group", 0, _PARAMS["shim"]["group_bits"]),
        BitField("slot", 0, 8),
        XShortField("ether_type", ETH_IPV4),
    ]


bind_layers(Ether, CcfairShim, type=SHIM_ETHERTYPE)
bind_layers(CcfairShim, IP, ether_type=ETH_IPV4)

HOST_MAC = ["00:00:00:00:00:%02x" % i for i in range(1, 17)]
HOST_IP = ["10.0.0.%d" % i for i in range(1, 17)]
ROUTER_MAC = "00:aa:00:00:00:01"


def pad(pkt, size):
    """`pkt` grown to `size` bytes of frame with a zero payload (no FCS)."""
    missing = size - len(pkt)
    return pkt / Raw(b"\x00" * missing) if missing > 0 else pkt


class Flow:
    """One TCP connection between host a and host b: packets in either direction."""

    def __init__(self, a, b, sport, dport=5001, ect=False):
        self.a, self.b, self.sport, self.dport = a, b, sport, dport
        self.tos = 0x02 if ect else 0x00  # ECT(0)

    def _pkt(self, fwd, flags, size, seq=0, ack=0):
        src, dst = (self.a, self.b) if fwd else (self.b, self.a)
        sp, dp = (self.sport, self.dport) if fwd else (self.dport, self.sport)
        p = (Ether(src=HOST_MAC[src], dst=HOST_MAC[dst]) /
             IP(src=HOST_IP[src], dst=HOST_IP[dst], tos=self.tos, ttl=64, id=0) /
             TCP(sport=sp, dport=dp, flags=flags, seq=seq, ack=ack, window=8192))
        return pad(p, size)

    def syn(self):
        return self._pkt(True, "S", 64)

    def syn_ack(self):
        return self._pkt(False, "SA", 64, ack=1)

    def ack(self):
        # padded to 64 bytes with payload: a data packet to the program (not a pure ACK)
        return self._pkt(True, "A", 64, seq=1, ack=1)

    def pure_ack(self, fwd=True, ack=1, options=0):
        """An ACK without payload, `options` TCP NOPs, as the program's pure_ack table sees one:
        the frame's padding to the 60-byte minimum lies outside the IPv4 total length (pad()
        would add payload)."""
        src, dst = (self.a, self.b) if fwd else (self.b, self.a)
        sp, dp = (self.sport, self.dport) if fwd else (self.dport, self.sport)
        p = (Ether(src=HOST_MAC[src], dst=HOST_MAC[dst]) /
             IP(src=HOST_IP[src], dst=HOST_IP[dst], tos=self.tos, ttl=64, id=0) /
             TCP(sport=sp, dport=dp, flags="A", seq=1, ack=ack, window=8192, options=[("NOP", None)] * options))
        return Ether(bytes(p) + b"\x00" * max(0, 60 - len(p)))

    def data(self, size=1000, seq=1):
        return self._pkt(True, "A", size, seq=seq, ack=1)

    def fin(self, fwd=True, seq=1):
        """FIN+ACK in either direction (the program closes the flow's slot on FIN or RST)."""
        return self._pkt(fwd, "FA", 64, seq=seq, ack=1)

    def rst(self, fwd=True, seq=1):
        return self._pkt(fwd, "R", 64, seq=seq)

    def rev_ack(self, ack=1):
        return self._pkt(False, "A", 64, seq=1, ack=ack)


def udp(a, b, size=200, sport=4000, dport=4001, tos=0):
    return pad(Ether(src=HOST_MAC[a], dst=HOST_MAC[b]) /
               IP(src=HOST_IP[a], dst=HOST_IP[b], tos=tos, ttl=64, id=0) / UDP(sport=sport, dport=dport), size)


def icmp(a, b):
    return pad(Ether(src=HOST_MAC[a], dst=HOST_MAC[b]) / IP(src=HOST_IP[a], dst=HOST_IP[b], ttl=64, id=0) / ICMP(), 64)


def lldp(a):
    return pad(Ether(src=HOST_MAC[a], dst="01:80:c2:00:00:0e", type=ETH_LLDP), 64)


def arp_request(a, b):
    return pad(Ether(src=HOST_MAC[a], dst="ff:ff:ff:ff:ff:ff") /
               ARP(op=1, hwsrc=HOST_MAC[a], psrc=HOST_IP[a], pdst=HOST_IP[b]), 64)


def with_shim(pkt, pv, group, slot=0):
    """`pkt` (Ether/IP...) with a ccfair shim between Ethernet and IP."""
    eth = pkt[Ether]
    return Ether(src=eth.src, dst=eth.dst, type=SHIM_ETHERTYPE) / CcfairShim(
        pv=pv, group=group, slot=slot, ether_type=eth.type) / eth.payload


def without_shim(pkt):
    eth = pkt[Ether]
    if not pkt.haslayer(CcfairShim):
        return pkt
    shim = pkt[CcfairShim]
    return Ether(src=eth.src, dst=eth.dst, type=shim.ether_type) / shim.payload
