# SPDX-License-Identifier: Apache-2.0
"""Flow tracking: one slot per connection for both directions, collisions counted,
untrackable traffic in the default group (ant)."""
import logging
import time

from ptf.testutils import group

import contract as C
import flowhash
import packets as K
from base_test import CcfairTest, IG, EG, param

ENTER, PKTS = IG + ".update.pg_flow_enter", EG + ".telemetry.pg_pkts"
UNTRACKED = IG + ".flow_tracker.untracked"
SEQ_LO, SEQ_HI = IG + ".flow_tracker.flow_seq_lo", IG + ".flow_tracker.flow_seq_hi"
RETX = IG + ".flow_tracker.flow_retx"
FAMILY, IGNORE, SS = EG + ".classifier.flow_family", EG + ".classifier.flow_ignore", EG + ".classifier.flow_ss"
RATE, RATE_S, EG_SIG = EG + ".classifier.flow_rate", EG + ".classifier.flow_rate_s", EG + ".classifier.flow_eg_sig"


@group("flow")
class NewTcpFlowIsMouse(CcfairTest):
    """A SYN creates a flow in group mouse: its slot (computed from the 5-tuple) holds its
    signature and the group word "valid, port not stored yet, mouse", and pg_flow_enter counts
    one flow into (egress port, mouse). A new flow sends no digest (only group updates do)."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        f = K.Flow(0, 1, 41000)
        self.clear_slot(f)
        e0 = self.flows_entered(p2)
        self.send(p1, f.syn())
        self.expect(f.syn(), p2)
        fid = self.new_flow_id(f)
        v = self.read_register(IG + ".flow_tracker.flow_group", fid)
        self.assertEqual(v, (3 << 14) | self.group_id("mouse"), "group word 0x%04x" % v)
        self.assertEqual(self.flows_entered(p2) - e0, 1)
        mask = self.info.register_size(IG + ".flow_tracker.flow_sig") - 1
        got, batch = [], self.reclass(0.5)
        while batch:  # every digest list within the wait; earlier tests' queues may still drain
            got += batch
            batch = self.reclass(0.2)
        mine = [d for d in got if d["flow_id"] & mask == fid]
        self.assertEqual(mine, [], "a new flow sent a reclassification digest")


@group("flow")
class SymmetricFlowId(CcfairTest):
    """Data and ACKs of one connection share a slot: the reverse direction creates no flow
    and is counted in the same slot's interval. The ports' default RTT is 1 s, so the SYN's
    interval outlasts the reads between SYN and SYN-ACK however slow the target is."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=1000000)  # the SYN-ACK must not end the SYN's interval
        f = K.Flow(0, 1, 41001)
        self.send(p1, f.syn())
        self.expect(f.syn(), p2)
        fid = self.new_flow_id(f)
        before = self.read_register(IG + ".flow_tracker.flow_pkts", fid)
        sig = self.read_register(IG + ".flow_tracker.flow_sig", fid)[0]
        collisions = self.untracked(C.UNTRACKED_COLLISION)
        e0 = self.flows_entered(p1) + self.flows_entered(p2)
        self.send(p2, f.syn_ack())
        self.expect(f.syn_ack(), p1)
        self.assertEqual(self.flows_entered(p1) + self.flows_entered(p2), e0, "the SYN-ACK created a second flow")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), before + 1)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_sig", fid)[0], sig)
        self.assertEqual(self.untracked(C.UNTRACKED_COLLISION), collisions)


@group("flow")
class DistinctFlowsDistinctSlots(CcfairTest):
    """Two connections between the same hosts (different ports) are two flows, each in the
    slot its 5-tuple hashes to (ports chosen so the slots differ)."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        flows = [K.Flow(0, 1, 41010), K.Flow(0, 1, 41011)]
        self.assertNotEqual(self.flow_id(flows[0]), self.flow_id(flows[1]))
        for f in flows:
            self.clear_slot(f)
        collisions, e0 = self.untracked(C.UNTRACKED_COLLISION), self.flows_entered(p2)
        for f in flows:
            self.send(p1, f.syn())
            self.expect(f.syn(), p2)
        for f in flows:
            self.new_flow_id(f)
        self.assertEqual(self.flows_entered(p2) - e0, 2)
        self.assertEqual(self.untracked(C.UNTRACKED_COLLISION), collisions)


@group("flow")
class CollisionsCountedAndDefaultGroup(CcfairTest):
    """A flow whose slot is held by another live flow is counted as a collision, creates no
    flow and is sent in the default group (ant), and leaves the holder's RTT register alone
    (its SYN used to overwrite the holder's pending SYN time or sample); once the holder has
    been idle longer than the expiry, the slot is claimed again. The two flows are found
    offline: source ports whose 5-tuples hash to the same slot with different signatures."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        ant = self.group_id("ant")
        a, b = self._colliding_pair()
        self.send(p1, a.syn())
        self.expect(a.syn(), p2)
        fid = self.new_flow_id(a)
        c0, ant0, e0 = self.untracked(C.UNTRACKED_COLLISION), self.pg(PKTS, p2, ant)[0], self.flows_entered(p2)
        rtt0 = self.read_register(IG + ".flow_tracker.flow_rtt", fid)
        time.sleep(0.01)                 # the collider's SYN time differs from the holder's
        self.send(p1, b.syn())
        self.expect(b.syn(), p2)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_rtt", fid), rtt0,
                         "the colliding flow's SYN wrote the holder's RTT register")
        self.assertEqual(self.untracked(C.UNTRACKED_COLLISION) - c0, 1, "collision not counted")
        self.assertEqual(self.pg(PKTS, p2, ant)[0] - ant0, 1, "the colliding flow was not sent as ant")
        self.assertEqual(self.flows_entered(p2), e0, "the colliding flow was counted as a new flow")
        self.assertFalse(self.is_tracked(b), "the second flow took the slot")
        self.assertTrue(self.is_tracked(a), "the holder lost its slot")
        # expiry: idle_intervals_to_expire default RTTs (the program's EXPIRE_UNITS), plus margin
        f = self.params["flow"]
        time.sleep(f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1e-6 * 1.1 + 0.1)
        self.send(p1, b.syn())
        self.expect(b.syn(), p2)
        self.assertEqual(self.new_flow_id(b), fid, "the expired slot was not claimed")

    def _colliding_pair(self):
        # CRC is linear: tuples that differ in the source port alone never share a slot
        # (the low 16 bits of the CRC are a bijection of a 16-bit change), so vary both ports.
        seen = {}
        for dport in range(5000, 5400):
            for sport in range(40000, 40400):
                idx, sig = self.flow_slot(K.HOST_IP[0], K.HOST_IP[1], sport, dport)
                if idx in seen and seen[idx][1] != sig:
                    return seen[idx][0], K.Flow(0, 1, sport, dport=dport)
                seen.setdefault(idx, (K.Flow(0, 1, sport, dport=dport), sig))
        self.fail("no two of 160000 port pairs share a slot")


@group("flow")
class SignatureNeverMatchesAnEmptySlot(CcfairTest):
    """A flow whose CRC16 is 0 must not take a slot that holds signature 0 and looks busy: that is
    an empty slot ({0, 0}) during the clock's blind window after each wrap (algorithm.md §5.3).
    The signature has bit 15 forced to 1, so such a flow collides like any other, and when it
    claims a slot it stores a non-zero signature (issue 14, defect 11; the program before made
    it hit the slot and inherit its state). The busy empty slot is made by letting another flow
    of the same index claim it and then writing its signature to 0: the slot then reads exactly
    as an empty slot inside the window does (recently seen, signature 0)."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        zero, other = self._zero_and_same_slot()
        idx = self.clear_slot(zero)
        self.send(p1, other.syn())
        self.expect(other.syn(), p2)
        _, seen = self.read_register(IG + ".flow_tracker.flow_sig", idx)
        self.write_register(IG + ".flow_tracker.flow_sig", idx, [0, seen])
        c0 = self.untracked(C.UNTRACKED_COLLISION)
        pkt = zero.data(200)
        self.send(p1, pkt)
        self.expect(pkt, p2)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_sig", idx), [0, seen],
                         "the flow with CRC16 0 took the busy slot with signature 0")
        self.assertEqual(self.untracked(C.UNTRACKED_COLLISION) - c0, 1, "its packet was not a collision")
        # after the expiry it claims the slot with its own, non-zero signature
        f = self.params["flow"]
        time.sleep(f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1e-6 * 1.1 + 0.1)
        self.send(p1, zero.syn())
        self.expect(zero.syn(), p2)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_sig", idx)[0], 0x8000,
                         "the claimed slot's signature")

    def _zero_and_same_slot(self):
        """A flow of hosts 0 -> 1 whose CRC16 is 0, and another flow with the same slot index."""
        a, b = K.HOST_IP[0], K.HOST_IP[1]
        bits = self.index_bits()
        zero = next((K.Flow(0, 1, sp, dport=dp) for dp in range(5000, 5100) for sp in range(40000, 65536)
                     if flowhash.flow_crc16(a, b, sp, dp) == 0), None)
        self.assertIsNotNone(zero, "no port pair with CRC16 0")
        idx = flowhash.flow_index(a, b, zero.sport, zero.dport, bits)
        for dp in range(6000, 6400):
            for sp in range(40000, 40400):
                if flowhash.flow_index(a, b, sp, dp, bits) == idx:
                    return zero, K.Flow(0, 1, sp, dport=dp)
        self.fail("no flow of 160000 shares slot %d" % idx)


@group("flow")
class LostResetCaughtInEgress(CcfairTest):
    """A new flow whose first packet ingress claims the slot with and then drops (here: no L2
    entry for its destination MAC) never brings the reset of the slot's egress state (CLS_NEW)
    to egress. Egress keeps a signature byte per slot (flow_eg_sig: the 8 flow-hash bits above
    the index, algorithm.md defects 12 and 13), so the new flow's next packet finds the previous
    occupant's there and resets the state (runs as CLS_NEW); the program before let the new flow
    inherit it: the old flow's sticky family, loss-ignoring count, slow-start end and rate label.
    The old flow's history is written into the egress registers after its own first packet (as
    a long-lived, loss-based flow leaves them). A later packet of the new flow finds its own
    signature and keeps the state. The ports' default RTT is 1 s and no flow completes an RTT
    sample, so every packet after a claim falls inside the claim's interval (CLS_PKT); the new
    flow's packets follow each other well within the idle expiry (400 ms)."""

    UNKNOWN_MAC = "00:00:00:00:00:ee"
    ATTEMPTS = 3
    GAP_S = 0.3   # below the 400 ms idle expiry, with room for one packet's processing
    RTT_US = 1000000  # the ports' default RTT: the claim's interval outlasts the test
    END_AFTER_S = 0.0  # > 0: the next packet waits this long after the claim (past its deadline)
    maxDiff = None

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=self.RTT_US)
        reasons = []
        for attempt in range(self.ATTEMPTS):
            reason = self.attempt(p1, p2, *self._slot_pair(attempt))
            if reason is None:
                return
            reasons.append("attempt %d: %s" % (attempt + 1, reason))
            logging.info("LostResetCaughtInEgress: %s", reasons[-1])
        self.skip_visibly("the host was too slow for the idle expiry this test needs: " + "; ".join(reasons))

    def attempt(self, p1, p2, old, new):
        """None once every check passed; else why the host was too slow (a gap reached the idle
        expiry, so a packet claimed the slot anew and the check could not tell the programs apart)."""
        pkts = IG + ".flow_tracker.flow_pkts"
        idx = self.clear_slot(old)
        self.write_register(IG + ".flow_tracker.flow_rtt", idx, 0)  # no pending SYN time: no sample
        self.wait_claimable()
        pkt = old.data(200)
        self.send(p1, pkt)
        self.expect(pkt, p2)
        self.assertEqual(self.new_flow_id(old), idx)
        history = {FAMILY: 2, IGNORE: 5, SS: [10, 1], RATE_S: [400, 790], RATE: 400}
        for reg, v in history.items():
            self.write_register(reg, idx, v)
        f = self.params["flow"]
        time.sleep(f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1e-6 * 1.1 + 0.1)  # old expires
        lost = new.data(200)
        lost[K.Ether].dst = self.UNKNOWN_MAC
        t_lost = time.monotonic()
        self.send(p1, lost)
        self.expect_none(0.1)
        self.assertTrue(self.is_tracked(new), "the dropped packet did not claim the slot")
        self.assertEqual({reg: self.read_register(reg, idx) for reg in history}, history,
                         "test set-up: the dropped packet changed the egress state")
        pkt = new.data(200)
        if self.END_AFTER_S > 0:
            time.sleep(max(0.0, t_lost + self.END_AFTER_S - time.monotonic()))
        t_next = time.monotonic()
        if t_next - t_lost > self.GAP_S:
            return "the new flow's next packet came %.0f ms after its claim" % ((t_next - t_lost) * 1e3)
        self.send(p1, pkt)
        self.expect(pkt, p2)
        # 2 = the claim and this packet in one interval: it found the claimed slot (CLS_PKT); 1
        # would be a new claim (CLS_NEW), which resets the state on any program. Past the
        # deadline (END_AFTER_S) the packet ends the interval and restarts the count instead.
        if self.END_AFTER_S == 0 and self.read_register(pkts, idx) != 2:
            return "flow_pkts %d after the new flow's next packet, expected 2" % self.read_register(pkts, idx)
        reset = {FAMILY: 0, IGNORE: 0, SS: [1, 0], RATE_S: [0xFFFF, 0], RATE: 0}
        self.assertEqual({reg: self.read_register(reg, idx) for reg in history}, reset,
                         "the new flow's packet left the previous flow's egress state")
        self.assertEqual(self.read_register(EG_SIG, idx), self._eg_sig(new), "flow_eg_sig")
        if self.END_AFTER_S > 0:
            return None  # the interval end's restart puts the next packets in a new interval
        self.write_register(FAMILY, idx, 2)
        pkt = new.data(200)
        t_last = time.monotonic()
        if t_last - t_next > self.GAP_S:
            return "the new flow's third packet came %.0f ms after its second" % ((t_last - t_next) * 1e3)
        self.send(p1, pkt)
        self.expect(pkt, p2)
        self.assertEqual(self.read_register(pkts, idx), 3, "the third packet did not hit the slot's interval")
        self.assertEqual(self.read_register(FAMILY, idx), 2, "a packet of the slot's own flow reset its state")
        return None

    def _eg_sig(self, flow):
        return (flowhash.flow_hash(K.HOST_IP[flow.a], K.HOST_IP[flow.b], flow.sport, flow.dport)
                >> self.index_bits()) & 0xFF

    def _slot_pair(self, skip=0):
        """Two flows of hosts 0 -> 1 with one slot index and different signatures, ingress and
        egress; the skip-th such pair (a retry gets fresh slots)."""
        seen = {}
        for dport in range(5000, 5400):
            for sport in range(40000, 40400):
                flow = K.Flow(0, 1, sport, dport=dport)
                idx, sig = self.flow_slot(K.HOST_IP[0], K.HOST_IP[1], sport, dport)
                if idx in seen:
                    other, osig = seen[idx]
                    if osig != sig and self._eg_sig(other) != self._eg_sig(flow):
                        if skip == 0:
                            return other, flow
                        skip -= 1
                    continue
                seen[idx] = (flow, sig)
        self.fail("no two of 160000 port pairs share a slot with different signatures")



@group("flow")
class LostResetCaughtAtAnIntervalEnd(LostResetCaughtInEgress):
    """LostResetCaughtInEgress with the new flow's next packet past its claimed interval's
    deadline (ports' default RTT 100 ms, the packet 150 ms after the claim, before the 400 ms
    idle expiry): ingress ends the interval (CLS_END, the TNA program's eg_sig_end), egress finds
    the old flow's signature and runs it as CLS_NEW, so nothing is classified from the old
    state; the program before classified that end from it (its rate label the old one's)."""

    _groups = []  # its own list: @group would otherwise append to the inherited one
    RTT_US = 100000
    END_AFTER_S = 0.15

@group("flow")
class PureAcksNotCounted(CcfairTest):
    """Pure ACKs (ACK flag only, no payload, with or without TCP options) are not the flow's
    sending pattern: the interval's packet and byte counts (flow_pkts, flow_bytes) count data
    packets only, in both directions."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=1000000)  # one interval for the whole test
        f = K.Flow(0, 1, 41020)
        first = f.data(500)
        self.send(p1, first)  # mid-connection: a new flow and its first interval
        self.expect(first, p2)
        fid = self.new_flow_id(f)
        pkts0 = self.read_register(IG + ".flow_tracker.flow_pkts", fid)
        bytes0 = self.read_register(IG + ".flow_tracker.flow_bytes", fid)
        sent = [(p2, f.pure_ack(False, ack=501)), (p2, f.pure_ack(False, ack=501, options=4)),
                (p1, f.pure_ack(True, ack=501)),
                (p1, f.data(700))]
        for port, p in sent:
            self.send(port, p)
            self.recv_all(p1 if port == p2 else p2, 0.1)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid) - pkts0, 1,
                         "three pure ACKs and one data packet: only the data packet counts")
        data_bytes = K.Ether(bytes(sent[-1][1]))[K.IP].len
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_bytes", fid) - bytes0, data_bytes,
                         "three pure ACKs and one data packet: only the data packet's bytes count")


@group("flow")
class ReverseAckDoesNotEndInterval(CcfairTest):
    """Where both directions of a connection cross the switch, the receiver's pure ACKs share the
    flow's slot (symmetric flow id). A pure ACK after the interval deadline must not end the
    interval: it would close it on the ACK's egress port, queue and fair rate, and start the next
    with no data packet. The next data packet ends it. (Before INTERVAL_ACK it did: the deadline
    moved and flow_pkts restarted at 0.)"""
    RTT_US = 60000  # units; above the 50 ms interval floor, so 3 RTTs are well past the deadline

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=self.RTT_US)
        f = K.Flow(0, 1, 41040)
        self.clear_slot(f)
        first = f.data(500)
        self.send(p1, first)
        self.expect(first, p2)
        fid = self.new_flow_id(f)
        deadline0 = self.read_register(IG + ".flow_tracker.flow_deadline", fid)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), 1)
        time.sleep(3 * self.RTT_US * 1e-6)           # well past the interval deadline
        self.send(p2, f.pure_ack(False, ack=501))
        self.assertEqual(len(self.recv_all(p1, 0.2)), 1, "the reverse ACK was not forwarded")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_deadline", fid), deadline0,
                         "the reverse pure ACK ended the flow's interval")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), 1,
                         "the reverse pure ACK restarted the interval's packet count")
        nxt = f.data(500)
        self.send(p1, nxt)
        self.expect(nxt, p2)
        self.assertNotEqual(self.read_register(IG + ".flow_tracker.flow_deadline", fid), deadline0,
                            "the first data packet past the deadline did not end the interval")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), 1,
                         "the data packet that ends the interval starts the next one's count")


@group("flow")
class BackToBackPacketsStayOneFlow(CcfairTest):
    """A burst of one flow's packets (many in the same 1 ms tick of the last-seen clock) stays
    one flow: one flow entered, every packet in the interval's count. (A hit used to store
    now16 + 1, one unit ahead of the next packet of the same tick, whose modular age then
    wrapped to 0xFFFF and restarted the flow as new.)"""
    N = 30

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=1000000)  # one interval for the whole burst
        f = K.Flow(0, 1, 41030)
        self.clear_slot(f)
        e0 = self.flows_entered(p2)
        for pkt in [f.data(200) for _ in range(self.N)]:  # built first: back to back
            self.send(p1, pkt)
        self.assertEqual(len(self.recv_all(p2, 0.5)), self.N)
        fid = self.new_flow_id(f)
        self.assertEqual(self.flows_entered(p2) - e0, 1, "the burst was counted as several new flows")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), self.N)


@group("flow")
class RetransmissionsPerDirection(CcfairTest):
    """flow_seq_lo and flow_seq_hi hold, per slot, the highest seq of a direction's data segments
    (lo: direction 0, from the lower IP, between equal IPs the lower port; hi: direction 1; 0 =
    none yet); a data segment not above its direction's is a retransmission (bridged retx), which
    flow_retx lo records for the interval. Here the client (host 0, 10.0.0.1) is the lower IP:
    its direction is lo. Mid-connection, one interval (default RTT 1 s): client segments at seq 1
    and 947 claim the slot and raise lo to 947; server data at seq 1, far below it, raises hi to 1
    and is no retransmission (flow_retx lo 0); a client pure ACK (seq 1893) leaves flow_seq alone;
    the client's segment 947 sent again is a retransmission (flow_retx lo 1, flow_seq unchanged).
    Then the 5-tuple opens anew with client ISN 1000 and server ISN 7000, so that what a SYN
    stores differs from 0 and from what it clears: the SYN stores its own seq in its direction and
    clears the other, (lo, hi) = (1000, 0), flow_retx 0 (a SYN that cleared its own direction, or
    left the other, reads otherwise); the SYN-ACK stores 7000 and clears the client's: (0, 7000);
    the handshake's pure ACK (seq 1001, 250 ms later: the next interval lasts that RTT) touches
    neither. Client seq 1001 is then new (lo 1001, flow_retx lo 0), server seq 7001 above the
    SYN-ACK's 7000 new too (hi 7001), and client 1001 again a retransmission (flow_retx lo 1)."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=1000000)   # one interval for the mid-connection part
        f = K.Flow(0, 1, 41050)
        self.clear_slot(f)
        ip = lambda h: tuple(int(x) for x in K.HOST_IP[h].split("."))  # noqa: E731
        self.assertLess(ip(f.a), ip(f.b), "the client is meant to be the lower IP: direction 0, flow_seq_lo")
        fid = self.flow_id(f)

        def through(pkt, fwd=True):
            self.send(p1 if fwd else p2, pkt)
            self.expect(pkt, p2 if fwd else p1)

        def state():
            """(flow_seq (lo = client, hi = server), flow_retx [lo, hi])."""
            return (self.read_register(SEQ_LO, fid), self.read_register(SEQ_HI, fid)), self.read_register(RETX, fid)

        d1, d2 = f.data(1000), f.data(1000)
        through(d1)
        through(d2)
        self.new_flow_id(f)
        self.assertEqual(state(), ((947, 0), [0, 0]), "flow_seq (lo, hi) and flow_retx after client segments "
                         "1 and 947")
        through(f.data(200, fwd=False), fwd=False)
        self.assertEqual(state(), ((947, 1), [0, 0]), "after server data at seq 1: the server's direction "
                         "compares with its own sequence numbers")
        through(f.pure_ack())
        self.assertEqual(state(), ((947, 1), [0, 0]), "after a client pure ACK (seq %d)" % f.next_seq())
        again = f.data(1000, retx=True)
        self.assertEqual(again[K.TCP].seq, 947)
        through(again)
        self.assertEqual(state(), ((947, 1), [1, 0]), "after client segment 947 again: a retransmission")

        f = K.Flow(0, 1, 41050, isn=1000, rev_isn=7000)     # the same 5-tuple, a new connection
        syn_sent = time.time()
        through(f.syn())
        self.assertEqual(state(), ((1000, 0), [0, 0]), "after the SYN (ISN 1000): stores its seq in the "
                         "client's direction, clears the server's, restarts flow_retx")
        through(f.syn_ack(), fwd=False)
        self.assertEqual(state(), ((0, 7000), [0, 0]), "after the SYN-ACK (ISN 7000): stores its seq in the "
                         "server's direction, clears the client's")
        time.sleep(max(0.0, syn_sent + 0.25 - time.time()))
        hs = f.pure_ack(ack=7001)
        self.assertEqual(hs[K.TCP].seq, 1001)
        through(hs)   # completes the handshake sample: an interval of ~250 ms starts
        self.assertEqual(state(), ((0, 7000), [0, 0]), "after the handshake's pure ACK (seq 1001): unchanged")
        first = f.data(1000)
        self.assertEqual(first[K.TCP].seq, 1001)
        through(first)
        self.assertEqual(state(), ((1001, 7000), [0, 0]), "after client seq 1001: new")
        reply = f.data(200, fwd=False)
        self.assertEqual(reply[K.TCP].seq, 7001)
        through(reply, fwd=False)
        self.assertEqual(state(), ((1001, 7001), [0, 0]), "after server seq 7001: new, above the SYN-ACK's")
        through(f.data(1000, retx=True))
        self.assertEqual(state(), ((1001, 7001), [1, 0]), "after client seq 1001 again: a retransmission")


@group("flow")
class NonTcpIsUntrackedAnt(CcfairTest):
    """IPv4 that is not TCP is not tracked: counted in untracked[not TCP] and sent as ant."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        ant = self.group_id("ant")
        n0, a0, all0 = self.untracked(C.UNTRACKED_NOT_TCP), self.pg(PKTS, p2, ant)[0], self.pg_packets(PKTS, p2)
        for pkt in (K.udp(0, 1), K.icmp(0, 1), K.udp(0, 1, sport=53, dport=53)):
            self.send(p1, pkt)
            self.expect(pkt, p2)
        self.assertEqual(self.untracked(C.UNTRACKED_NOT_TCP) - n0, 3)
        self.assertEqual(self.pg(PKTS, p2, ant)[0] - a0, 3)
        self.assertEqual(self.pg_packets(PKTS, p2) - all0, 3, "non-TCP counted outside group ant")
