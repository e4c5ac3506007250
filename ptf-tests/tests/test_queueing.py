# SPDX-License-Identifier: Apache-2.0
"""Queue selection: queue_map sends a packet to the queue the controller gave its
(egress port, group, slot); the slot comes from the flow's signature (slot_mask bits).
The queue a packet used is seen in the per-queue depth histogram, which counts every
packet of a queue once."""
from ptf.testutils import group

import contract as C
import flowhash
import packets as K
from base_test import CcfairTest, EG, IG

HIST = EG + ".aqm.q_depth_hist"
QMAP, SET_QUEUE = IG + ".queueing.queue_map", IG + ".queueing.set_queue"


@group("queueing")
class QueueMapBySlot(CcfairTest):
    """A flow's packets land in the queue of (its egress port, its group, its slot): two
    entries for the same group but different slots, and the flow uses only its slot's queue;
    a flow of a group without an entry uses queue 0 (the default). The flow starts mid-connection
    (no SYN, so no RTT sample restarts its interval) and the ports' default RTT is 1 s: all five
    packets fall in its first interval, so no interval end can make the flow an ant (queue 0)
    halfway, however slow the target is."""
    Q_MINE, Q_OTHER = 3, 5

    def hist(self, port, qid):
        return sum(self.read_counter(HIST, self.depth_hist_index(port, qid, b))[0]
                   for b in range(C.DEPTH_HIST_BUCKETS))

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=1000000)  # one interval: the flow stays a mouse
        mouse, mask = self.group_id("mouse"), self.params["queues"]["slots_per_group"] - 1
        f = K.Flow(0, 1, 44000)
        slot = flowhash.flow_sig(K.HOST_IP[0], K.HOST_IP[1], f.sport, f.dport) & 0xFF & mask
        self.insert(QMAP, {"eg_port": p2, "group": mouse, "slot": slot}, SET_QUEUE, {"qid": self.Q_MINE})
        self.insert(QMAP, {"eg_port": p2, "group": mouse, "slot": (slot + 1) & mask}, SET_QUEUE,
                    {"qid": self.Q_OTHER})
        before = {q: self.hist(p2, q) for q in (0, self.Q_MINE, self.Q_OTHER)}
        self.clear_slot(f)  # a stale RTT word in its slot would pace it otherwise
        pkts = [f.data(300) for _ in range(5)]
        for p in pkts:
            self.send(p1, p)
            self.expect(p, p2)
        got = {q: self.hist(p2, q) - before[q] for q in before}
        self.assertEqual(got, {0: 0, self.Q_MINE: len(pkts), self.Q_OTHER: 0},
                         "packets per queue (slot %d): %s" % (slot, got))
        u0 = self.hist(p2, 0)
        self.send(p1, K.udp(0, 1))  # ant: no queue_map entry for it
        self.expect(K.udp(0, 1), p2)
        self.assertEqual(self.hist(p2, 0) - u0, 1, "an ant without a queue_map entry missed queue 0")
