# SPDX-License-Identifier: Apache-2.0
"""Telemetry: per (port, group) packets and bytes, active flows (enter − leave), per-queue
maximum delay, and the reclassification digest."""
import time

from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, IG, EG

PKTS, ENTER, LEAVE = EG + ".telemetry.pg_pkts", IG + ".update.pg_flow_enter", IG + ".update.pg_flow_leave"


@group("telemetry")
class PacketsAndBytesPerPortGroup(CcfairTest):
    """N UDP packets to a port add N packets and their bytes to (port, ant), nothing elsewhere."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        ant, n, size = self.group_id("ant"), 20, 300
        pk0, by0 = self.pg(PKTS, p2, ant)
        other0 = self.pg_packets(PKTS, p2) - pk0
        for i in range(n):
            self.send(p1, K.udp(0, 1, size=size, sport=8000 + i))
        self.recv_all(p2, 0.5)
        pk1, by1 = self.pg(PKTS, p2, ant)
        self.assertEqual(pk1 - pk0, n)
        self.assertGreaterEqual(by1 - by0, n * size)
        self.assertLessEqual(by1 - by0, n * (size + 64), "byte count far above the frames sent")
        self.assertEqual(self.pg_packets(PKTS, p2) - pk1, other0)


@group("telemetry")
class NewFlowEntersMouse(CcfairTest):
    """A new TCP flow counts one flow entering (port, mouse) and its packets under mouse."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        mouse = self.group_id("mouse")
        e0, k0 = self.pg(ENTER, p2, mouse)[0], self.pg(PKTS, p2, mouse)[0]
        f = K.Flow(0, 1, 47000)
        self.send(p1, f.syn())
        self.send(p1, f.ack())
        self.recv_all(p2, 0.3)
        self.assertEqual(self.pg(ENTER, p2, mouse)[0] - e0, 1)
        self.assertEqual(self.pg(PKTS, p2, mouse)[0] - k0, 2)


@group("telemetry")
class ReclassificationDigestAndActiveFlows(CcfairTest):
    """A mouse that sends 1 packet per interval becomes an ant: a digest (old mouse, new ant,
    egress port) and the active-flow counters move the flow from (port, mouse) to (port, ant)."""
    RTT_US = 100000

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=self.RTT_US)
        self.enable_digest("reclass_digest_t")
        mouse, ant = self.group_id("mouse"), self.group_id("ant")
        leave0, enter0 = self.pg(LEAVE, p2, mouse)[0], self.pg(ENTER, p2, ant)[0]
        f = K.Flow(0, 1, 47001)
        self.send(p1, f.syn())
        fid = self.new_flow_id()
        changes = []
        for i in range(4):
            time.sleep(self.RTT_US * 1.2e-6)
            self.send(p1, f.data(200, seq=1 + 200 * i))
            changes += [d for d in self.reclass(0.5) if d["flow_id"] == fid]
        self.recv_all(p2, 0.2)
        self.assertIn((mouse, ant), [(d["old_group"], d["new_group"]) for d in changes], changes)
        self.assertTrue(all(d["eg_port"] == self.dev_port(p2) for d in changes))
        self.assertEqual(self.pg(LEAVE, p2, mouse)[0] - leave0, 1)
        self.assertEqual(self.pg(ENTER, p2, ant)[0] - enter0, 1)


@group("telemetry")
class QueueMaxDelayResettable(CcfairTest):
    """q_max_delay is reset to 0 by the controller and rises again with a queue."""

    def runTest(self):
        p1, out = self.ports[0], self.shaped_port
        self.forward_pair(p1, out)
        q = C.queue_index(self.profile, self.dev_port(out), 0)
        self.write_register(EG + ".aqm.q_max_delay", q, 0)
        self.assertEqual(self.read_register(EG + ".aqm.q_max_delay", q), 0)
        for i in range(60):
            self.send(p1, K.udp(0, 1, size=1000, sport=8100 + i))
        self.recv_all(out, 0.5)
        self.assertGreater(self.read_register(EG + ".aqm.q_max_delay", q), 0,
                           "no queue built on the shaped port %d: tofino-model did not shape it" % out)
