# SPDX-License-Identifier: Apache-2.0
"""RTT per flow from the handshake (first packet after the SYN, same direction, minus the SYN),
the controller-set default for flows first seen mid-connection, and interval roll-over.

Timing on tofino-model follows the model's clock, which runs close to wall-clock time
but not exactly: bounds are generous (a factor of 2), never exact values."""
import time

from ptf.testutils import group

import packets as K
from base_test import CcfairTest, IG

RTT, PKTS, DEADLINE = (IG + ".flow_tracker.flow_rtt", IG + ".flow_tracker.flow_pkts",
                       IG + ".flow_tracker.flow_deadline")
PENDING = 1 << 31


@group("rtt")
class HandshakeRtt(CcfairTest):
    """RTT = handshake ACK time − SYN time: two flows with 30 ms and 120 ms handshakes."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        rtts = {}
        for sport, gap_s in ((42000, 0.030), (42001, 0.120)):
            f = K.Flow(0, 1, sport)
            self.send(p1, f.syn())
            fid = self.new_flow_id()
            self.assertTrue(self.read_register(RTT, fid) & PENDING, "SYN time not pending after the SYN")
            self.send(p2, f.syn_ack())  # reverse direction: does not end the measurement
            time.sleep(gap_s)
            self.send(p1, f.ack())
            rtt = self.read_register(RTT, fid)
            self.assertFalse(rtt & PENDING, "RTT still pending after the handshake ACK")
            self.assertGreaterEqual(rtt, gap_s * 1e6 / 2, "RTT %d us for a %.0f ms handshake" % (rtt, gap_s * 1e3))
            self.assertLessEqual(rtt, gap_s * 1e6 * 2 + 20000, "RTT %d us for a %.0f ms handshake"
                                 % (rtt, gap_s * 1e3))
            rtts[gap_s] = rtt
        self.assertGreater(rtts[0.120], rtts[0.030])


@group("rtt")
class RttClampedToMinimum(CcfairTest):
    """A handshake faster than flow.min_rtt_us yields at least the minimum RTT."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        self.enable_digest("reclass_digest_t")
        f = K.Flow(0, 1, 42002)
        self.send(p1, f.syn())
        fid = self.new_flow_id()
        self.send(p1, f.ack())
        rtt = self.read_register(RTT, fid)
        self.assertFalse(rtt & PENDING)
        self.assertGreaterEqual(rtt, self.params["flow"]["min_rtt_us"])


@group("rtt")
class DefaultRttMidConnection(CcfairTest):
    """A flow first seen without a SYN gets the ingress port's default_rtt_us."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=30000)
        self.enable_digest("reclass_digest_t")
        self.send(p1, K.Flow(0, 1, 42003).data(500))
        fid = self.new_flow_id()
        self.assertEqual(self.read_register(RTT, fid), 30000)


@group("rtt")
class IntervalRollOver(CcfairTest):
    """Packets within one RTT count in one interval; the first packet one RTT later starts a
    new interval (counters reset, deadline moved on by at least one RTT)."""
    RTT_US = 200000

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=self.RTT_US)
        self.enable_digest("reclass_digest_t")
        f = K.Flow(0, 1, 42004)
        self.send(p1, f.data(200))
        fid = self.new_flow_id()
        for i in range(4):
            self.send(p1, f.data(200, seq=1 + 200 * (i + 1)))
        self.assertEqual(self.read_register(PKTS, fid), 5)
        d0 = self.read_register(DEADLINE, fid)
        time.sleep(self.RTT_US * 1.5e-6)
        self.send(p1, f.data(200, seq=2000))
        self.assertEqual(self.read_register(PKTS, fid), 1, "interval counters not restarted with the roll-over packet")
        moved = (self.read_register(DEADLINE, fid) - d0) % (1 << 32)
        self.assertGreaterEqual(moved, self.RTT_US, "deadline moved by %d us, RTT is %d us" % (moved, self.RTT_US))
