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
    """One TCP connection between host a and host b: packets in either direction.

    Each direction keeps its sender's next sequence number, as the program's flow_seq compares
    them: a data segment whose seq is not above the highest its direction sent is a
    retransmission to the switch (bridged retx: spared by the AQM, counted by the classifier).
    The SYN carries ISN `isn`, the SYN-ACK ISN `rev_isn` (both 0 unless given), so a direction's
    first segment after its SYN or SYN-ACK has seq ISN + 1, as has the first one of a flow first
    seen mid-connection; a SYN starts both directions anew (the reverse one at rev_isn + 1, also
    where no SYN-ACK follows: never at 0, the program's "none yet"). A segment built without
    `seq` takes its direction's next number and advances it by the TCP payload it carries (its
    padding: see pad()), a FIN by one more, a SYN by one only; one built with `seq` moves the next
    number on only if it ends beyond it. So a builder call is a new segment: build a packet once
    and send and expect that object. `data(size, retx=True)` repeats the seq of its direction's
    last new data segment: a retransmission. (An ISN of 2^32 - 1 would start the data at 0, the
    program's "none yet": not a value to test with by accident.)"""

    def __init__(self, a, b, sport, dport=5001, ect=False, isn=0, rev_isn=0):
        self.a, self.b, self.sport, self.dport = a, b, sport, dport
        self.tos = 0x02 if ect else 0x00  # ECT(0)
        self._isn = {True: isn & 0xFFFFFFFF, False: rev_isn & 0xFFFFFFFF}  # direction -> its ISN
        self._next = {d: (i + 1) & 0xFFFFFFFF for d, i in self._isn.items()}  # direction (fwd) -> next seq
        self._last = {True: None, False: None}  # direction -> seq of its last new data segment

    def next_seq(self, fwd=True):
        """The seq the next new segment of that direction gets."""
        return self._next[fwd]

    def last_seq(self, fwd=True):
        """The seq of that direction's last new data segment (what a retransmission carries), or None."""
        return self._last[fwd]

    def _seq(self, fwd, seq, retx):
        if retx:
            if seq is not None:
                raise ValueError("retx=True takes the previous data segment's seq: give no seq")
            if self._last[fwd] is None:
                raise ValueError("no data segment in this direction to retransmit")
            return self._last[fwd]
        return self._next[fwd] if seq is None else seq & 0xFFFFFFFF

    def _sent(self, fwd, p, retx=False):
        """Advance the direction's next seq past segment `p` (not for a retransmission)."""
        tcp = p[TCP]
        if retx:
            return p
        if "S" in tcp.flags:  # the ISN; its padding (pad()) is not the stream's
            payload, end = 0, tcp.seq + 1
        else:
            payload = len(bytes(tcp.payload))
            end = tcp.seq + payload + ("F" in tcp.flags)
        end &= 0xFFFFFFFF
        if 0 < (end - self._next[fwd]) & 0xFFFFFFFF < 1 << 31:  # ends beyond it (modulo 2^32): new data
            self._next[fwd] = end
            if payload:
                self._last[fwd] = tcp.seq
        return p

    def _pkt(self, fwd, flags, size, seq=None, ack=0, retx=False):
        src, dst = (self.a, self.b) if fwd else (self.b, self.a)
        sp, dp = (self.sport, self.dport) if fwd else (self.dport, self.sport)
        p = (Ether(src=HOST_MAC[src], dst=HOST_MAC[dst]) /
             IP(src=HOST_IP[src], dst=HOST_IP[dst], tos=self.tos, ttl=64, id=0) /
             TCP(sport=sp, dport=dp, flags=flags, seq=self._seq(fwd, seq, retx), ack=ack, window=8192))
        return self._sent(fwd, pad(p, size), retx)

    def syn(self):
        """A new connection: the SYN carries `isn`, nothing sent yet in either direction; the
        reverse direction's next data segment has seq rev_isn + 1 (syn_ack() carries rev_isn)."""
        self._next = {True: self._isn[True], False: (self._isn[False] + 1) & 0xFFFFFFFF}
        self._last = {True: None, False: None}
        return self._pkt(True, "S", 64)

    def syn_ack(self):
        """The SYN-ACK: ISN `rev_isn`, acknowledging the SYN (isn + 1)."""
        self._next[False], self._last[False] = self._isn[False], None
        return self._pkt(False, "SA", 64, ack=(self._isn[True] + 1) & 0xFFFFFFFF)

    def ack(self):
        # padded to 64 bytes with payload: a data packet to the program (not a pure ACK)
        return self._pkt(True, "A", 64, ack=(self._isn[False] + 1) & 0xFFFFFFFF)

    def pure_ack(self, fwd=True, ack=1, options=0):
        """An ACK without payload, `options` TCP NOPs, as the program's pure_ack table sees one:
        the frame's padding to the 60-byte minimum lies outside the IPv4 total length (pad()
        would add payload). It carries its direction's next seq and advances nothing."""
        src, dst = (self.a, self.b) if fwd else (self.b, self.a)
        sp, dp = (self.sport, self.dport) if fwd else (self.dport, self.sport)
        p = (Ether(src=HOST_MAC[src], dst=HOST_MAC[dst]) /
             IP(src=HOST_IP[src], dst=HOST_IP[dst], tos=self.tos, ttl=64, id=0) /
             TCP(sport=sp, dport=dp, flags="A", seq=self._next[fwd], ack=ack, window=8192,
                 options=[("NOP", None)] * options))
        return Ether(bytes(p) + b"\x00" * max(0, 60 - len(p)))

    def data(self, size=1000, seq=None, retx=False, fwd=True):
        """A data segment of `size` bytes of frame: the direction's next seq, or `seq`, or with
        retx=True the seq of its last new data segment (a retransmission; advances nothing)."""
        return self._pkt(fwd, "A", size, seq=seq, ack=1, retx=retx)

    def fin(self, fwd=True, seq=None):
        """FIN+ACK in either direction (the program closes the flow's slot on FIN or RST)."""
        return self._pkt(fwd, "FA", 64, seq=seq, ack=1)

    def rst(self, fwd=True, seq=None):
        return self._pkt(fwd, "R", 64, seq=seq)

    def rev_ack(self, ack=1):
        return self._pkt(False, "A", 64, ack=ack)


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
