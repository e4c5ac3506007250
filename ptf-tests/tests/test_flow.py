# SPDX-License-Identifier: Apache-2.0
"""Flow tracking: one slot per connection for both directions, collisions counted,
untrackable traffic in the default group (ant)."""
from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, IG, EG

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
        sig = self.read_register(IG + ".flow_tracker.flow_sig", fid) >> 16
        collisions = self.untracked(C.UNTRACKED_COLLISION)
        self.send(p2, f.syn_ack())
        self.expect(f.syn_ack(), p1)
        self.assertFalse([d for d in self.reclass(1.0) if d["old_group"] == 0xFF],
                         "the SYN-ACK created a second flow")
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_pkts", fid), before + 1)
        self.assertEqual(self.read_register(IG + ".flow_tracker.flow_sig", fid) >> 16, sig)
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
    """Many one-packet flows: every flow is either tracked (enters a group) or counted as a
    slot collision and sent as ant. With 2,000 flows on 2^16 slots collisions are all but certain
    (expected ~30); the counts must add up exactly."""
    N = 2000

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        ant = self.group_id("ant")
        enter0 = self.pg_packets(ENTER, p2)
        coll0 = self.untracked(C.UNTRACKED_COLLISION)
        ant0 = self.pg(PKTS, p2, ant)[0]
        for i in range(self.N):
            self.send(p1, K.Flow(0, 1, 1024 + i, dport=80).syn())
            if i % 200 == 199:
                self.recv_all(p2, timeout=0.05)
        self.recv_all(p2, timeout=1.0)
        entered = self.pg_packets(ENTER, p2) - enter0
        collided = self.untracked(C.UNTRACKED_COLLISION) - coll0
        self.assertEqual(entered + collided, self.N, "tracked %d + collided %d != %d flows"
                         % (entered, collided, self.N))
        self.assertGreater(collided, 0, "no collision among %d flows in 2^16 slots" % self.N)
        self.assertEqual(self.pg(PKTS, p2, ant)[0] - ant0, collided,
                         "collided flows were not sent in the default group (ant)")


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
