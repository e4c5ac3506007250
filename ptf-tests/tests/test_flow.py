# SPDX-License-Identifier: Apache-2.0
"""Flow tracking: one slot per connection for both directions, collisions counted,
untrackable traffic in the default group (ant)."""
import time

from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, IG, EG, param

ENTER, PKTS = IG + ".update.pg_flow_enter", EG + ".telemetry.pg_pkts"
UNTRACKED = IG + ".flow_tracker.untracked"


@group("flow")
class NewTcpFlowIsMouse(CcfairTest):
    """A SYN creates a flow in group mouse: digest (old 0xFF, new mouse) with the egress device port."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        f = K.Flow(0, 1, 41000)
        self.send(p1, f.syn())
        self.expect(f.syn(), p2)
        (d,) = [d for d in self.reclass() if d["old_group"] == 0xFF]
        self.assertEqual(d["new_group"], self.group_id("mouse"))
        self.assertEqual(d["eg_port"], self.dev_port(p2))
        valid, port, grp = self.flow_group(d["flow_id"])
        self.assertEqual((valid, port, grp), (1, self.dev_port(p2), self.group_id("mouse")))


@group("flow")
class SymmetricFlowId(CcfairTest):
    """Data and ACKs of one connection share a slot: the reverse direction creates no flow
    and is counted in the same slot's interval."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        f = K.Flow(0, 1, 41001)
        self.send(p1, f.syn())
        self.expect(f.syn(), p2)
        fid = self.new_flow_id()
        before = self.read_register(IG + ".flow_tracker.flow_pkts", fid)
        sig = self.read_register(IG + ".flow_tracker.flow_sig", fid)[0]
        collisions = self.untracked(C.UNTRACKED_COLLISION)
        self.send(p2, f.syn_ack())
        self.expect(f.syn_ack(), p1)
        self.assertFalse([d for d in self.reclass(1.0) if d["old_group"] == 0xFF],
                         "the SYN-ACK created a second flow")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), before + 1)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_sig", fid)[0], sig)
        self.assertEqual(self.untracked(C.UNTRACKED_COLLISION), collisions)


@group("flow")
class DistinctFlowsDistinctSlots(CcfairTest):
    """Two connections between the same hosts (different ports) are two flows."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        collisions = self.untracked(C.UNTRACKED_COLLISION)
        ids = []
        for sport in (41010, 41011):
            self.send(p1, K.Flow(0, 1, sport).syn())
            ids += [d["flow_id"] for d in self.reclass() if d["old_group"] == 0xFF]
        # either two slots, or the second landed on a taken slot and was counted as a collision
        self.assertTrue(len(set(ids)) == 2 or self.untracked(C.UNTRACKED_COLLISION) == collisions + 1,
                        "flows %s: neither two slots nor a counted collision" % ids)


@group("flow")
class CollisionsCountedAndDefaultGroup(CcfairTest):
    """A flow whose slot is held by another flow is counted as a collision and sent in the
    default group (ant). The slot of each of N one-SYN flows is learnt from its new-flow digest
    (a flow with no digest must have been counted as a collision instead); two flows that share
    a slot are then sent back to back once the table has expired: the second must collide.
    (With N = 1,500 flows on 2^16 slots a shared slot exists with probability > 0.999.)"""
    N = 1500

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        ant = self.group_id("ant")
        slots, collided = {}, 0
        for i in range(int(param("collision_flows", self.N))):
            sport = 20000 + i
            self.sw.drain_digests()
            c0 = self.untracked(C.UNTRACKED_COLLISION)
            self.send(p1, K.Flow(0, 1, sport, dport=80).syn())
            new = [d for d in self.reclass(1.0) if d["old_group"] == 0xFF]
            if new:
                slots[sport] = new[0]["flow_id"]
            else:
                self.assertEqual(self.untracked(C.UNTRACKED_COLLISION), c0 + 1,
                                 "flow %d: neither a new-flow digest nor a counted collision" % sport)
                collided += 1
            if i % 100 == 99:
                self.recv_all(p2, timeout=0.05)
        by_slot = {}
        for sport, slot in slots.items():
            by_slot.setdefault(slot, []).append(sport)
        pairs = [v[:2] for v in by_slot.values() if len(v) > 1]
        self.assertTrue(pairs, "no two of %d tracked flows share a slot (%d collided)" % (len(slots), collided))
        a, b = pairs[0]
        f = self.params["flow"]
        time.sleep(f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1e-6 + 0.3)  # every slot idle again
        self.recv_all(p2, timeout=0.05)
        self.send(p1, K.Flow(0, 1, a, dport=80).syn())
        self.assertEqual([d["flow_id"] for d in self.reclass(1.0) if d["old_group"] == 0xFF], [slots[a]],
                         "flow %d did not reclaim its slot %d" % (a, slots[a]))
        self.recv_all(p2, timeout=0.2)
        c0, ant0 = self.untracked(C.UNTRACKED_COLLISION), self.pg(PKTS, p2, ant)[0]
        second = K.Flow(0, 1, b, dport=80).syn()
        self.send(p1, second)
        self.expect(second, p2)
        self.assertFalse([d for d in self.reclass(1.0) if d["old_group"] == 0xFF], "the second flow took the slot")
        self.assertEqual(self.untracked(C.UNTRACKED_COLLISION), c0 + 1, "collision not counted")
        self.assertEqual(self.pg(PKTS, p2, ant)[0], ant0 + 1, "the colliding flow was not sent as ant")


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
