# SPDX-License-Identifier: Apache-2.0
"""Telemetry: per (port, group) packets and bytes, the flow gauges pg_flow_enter /
pg_flow_leave (active flows = enter − leave), the reclassification digest, and the per-queue
maximum delay the controller resets."""
import json
import os
import time

from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, IG, EG, P

PKTS, ENTER, LEAVE = EG + ".telemetry.pg_pkts", IG + ".update.pg_flow_enter", IG + ".update.pg_flow_leave"
MAX_DELAY = EG + ".aqm.q_max_delay"
HIST = EG + ".aqm.q_depth_hist"
UNIT_S = 1024e-9  # the data plane's time unit
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model-configs", "fabric.json")) as _f:
    RUNNER_PPS = json.load(_f)["bmv2"]["shaped_rate_pps"]  # what ptf-tests/run gives the shaped port on BMv2


@group("telemetry")
class PacketsAndBytesPerPortGroup(CcfairTest):
    """N UDP packets to a port add N packets and their bytes to (port, ant), nothing to the
    port's other groups."""
    OVERHEAD = 16  # bytes per packet a target may count beyond the frame sent (shim 6, FCS 4)

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        ant, n, size = self.group_id("ant"), 20, 300
        pk0, by0 = self.pg(PKTS, p2, ant)
        other0 = self.pg_packets(PKTS, p2) - pk0
        for i in range(n):
            self.send(p1, K.udp(0, 1, size=size, sport=8000 + i))
        self.assertEqual(len(self.recv_all(p2, 0.5)), n)
        pk1, by1 = self.pg(PKTS, p2, ant)
        self.assertEqual(pk1 - pk0, n)
        self.assertTrue(n * size <= by1 - by0 <= n * (size + self.OVERHEAD),
                        "%d bytes counted for %d frames of %d bytes" % (by1 - by0, n, size))
        self.assertEqual(self.pg_packets(PKTS, p2) - pk1, other0, "packets counted in another group")


@group("telemetry")
class NewFlowEntersMouse(CcfairTest):
    """A new TCP flow counts one flow entering (its egress port, mouse), and its packets under
    mouse; its next packet (a hit) counts no second entry, and no other group of the port
    counts one."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        mouse = self.group_id("mouse")
        e0, k0, all0 = self.flows_entered(p2), self.pg(PKTS, p2, mouse)[0], self.pg_packets(ENTER, p2)
        f = K.Flow(0, 1, 47000)
        self.clear_slot(f)
        self.wait_claimable()
        self.send(p1, f.syn())
        self.send(p1, f.ack())
        self.assertEqual(len(self.recv_all(p2, 0.3)), 2)
        self.assertEqual(self.flows_entered(p2) - e0, 1)
        self.assertEqual(self.pg_packets(ENTER, p2) - all0, 1, "an entry counted in a group other than mouse")
        self.assertEqual(self.pg(PKTS, p2, mouse)[0] - k0, 2)


@group("telemetry")
class ClosedFlowLeavesItsGroup(CcfairTest):
    """A FIN (or a RST) of a tracked flow counts it leaving its group at once and clears its
    group word (0), so the controller's active flows (enter - leave) drop with the close, not
    when the slot is reused (docs/algorithm.md D8). The other side's FIN and a late packet on
    the closed slot count nothing more; a RST closes a second flow the same way."""

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2)
        mouse = self.group_id("mouse")
        for n, close in enumerate(("fin", "rst")):
            f = K.Flow(0, 1, 47010 + n)
            self.clear_slot(f)
            self.wait_claimable()
            e0, l0 = self.pg(ENTER, p2, mouse)[0], self.pg(LEAVE, p2, mouse)[0]
            all_e0, all_l0 = self.pg_packets(ENTER, p2), self.pg_packets(LEAVE, p2)
            rev_e0, rev_l0 = self.pg_packets(ENTER, p1), self.pg_packets(LEAVE, p1)  # the reverse FIN's port
            self.send(p1, f.syn())
            self.send(p1, f.ack())
            self.recv_all(p2, 0.1)
            fid = self.new_flow_id(f)
            self.assertEqual(self.pg(ENTER, p2, mouse)[0] - e0, 1, "%s: the new flow did not enter" % close)
            self.assertNotEqual(self.read_register(IG + ".flow_tracker.flow_group", fid), 0)
            closer = f.fin() if close == "fin" else f.rst()
            self.send(p1, closer)
            self.recv_all(p2, 0.1)
            self.assertEqual(self.read_register(IG + ".flow_tracker.flow_group", fid), 0,
                             "%s: the group word was not cleared" % close)
            self.assertEqual(self.pg(LEAVE, p2, mouse)[0] - l0, 1, "%s: the flow did not leave (port, mouse)" % close)
            # the other side's FIN, a duplicate and a late data packet: no second leave, no entry
            self.send(p2, f.fin(fwd=False))
            self.send(p1, closer)
            self.send(p1, f.data(200))
            self.recv_all(p2, 0.1)
            self.recv_all(p1, 0.1)
            self.assertEqual(self.pg_packets(LEAVE, p2) - all_l0, 1, "%s: a second leave" % close)
            self.assertEqual(self.pg_packets(ENTER, p2) - all_e0, 1, "%s: an entry after the close" % close)
            self.assertEqual((self.pg_packets(ENTER, p1) - rev_e0, self.pg_packets(LEAVE, p1) - rev_l0), (0, 0),
                             "%s: the other side's FIN counted at its port" % close)
            self.assertEqual(self.read_register(IG + ".flow_tracker.flow_group", fid), 0)


@group("telemetry")
class StatsIndexDecidesTheCells(CcfairTest):
    """Two output ports configured with each other's stats index count into each other's cells
    (docs/dataplane.md, "Port stats index"): the index in the port configuration, not the port,
    decides where the egress counts packets (pg_pkts), where the ingress counts a new flow
    (pg_flow_enter, through IngressPipe.eg_port_idx) and which queue cells the AQM uses
    (q_depth_hist)."""

    def cells(self, idx):
        pkts = sum(self.read_counter(PKTS, C.pg_index(idx, g))[0] for g in range(self.groups))
        enter = self.read_counter(ENTER, C.pg_index(idx, self.group_id("mouse")))[0]
        hist = sum(self.read_counter(HIST, C.depth_hist_index(self.profile, idx, 0, b))[0]
                   for b in range(C.DEPTH_HIST_BUCKETS))
        return pkts, enter, hist

    def runTest(self):
        p1, p2, p3 = self.ports[0], self.ports[1], self.ports[2]
        a, b = self.default_stats_idx(p2), self.default_stats_idx(p3)
        self.groups = P.num_groups(self.params)
        self.edge_port(p1)
        self.edge_port(p2, stats_idx=b)  # swapped: p2 counts where p3 would, and p3 where p2 would
        self.edge_port(p3, stats_idx=a)
        self.l2(1, p2)
        self.l2(2, p3)
        a0, b0 = self.cells(a), self.cells(b)
        f = K.Flow(0, 1, 47100)
        self.clear_slot(f)
        self.wait_claimable()
        self.send(p1, f.syn())  # a new flow out of p2: one flow enters (p2's index, mouse)
        for i in range(3):
            self.send(p1, K.udp(0, 1, sport=8300 + i))
        for i in range(5):
            self.send(p1, K.udp(0, 2, sport=8400 + i))
        self.assertEqual(len(self.recv_all(p2, 0.3)), 4)
        self.assertEqual(len(self.recv_all(p3, 0.3)), 5)
        a1, b1 = self.cells(a), self.cells(b)
        moved = lambda x0, x1: tuple(v1 - v0 for v0, v1 in zip(x0, x1))  # noqa: E731
        self.assertEqual(moved(b0, b1), (4, 1, 4),
                         "index %d (given to port %d): (packets, flows entered, depth histogram)" % (b, p2))
        self.assertEqual(moved(a0, a1), (5, 0, 5),
                         "index %d (given to port %d): (packets, flows entered, depth histogram)" % (a, p3))
        self.assertEqual(self.stats_idx(p2), b)


@group("telemetry")
class ReclassificationDigestAndActiveFlows(CcfairTest):
    """A mouse whose first interval (from the packet completing the handshake sample, 0.1 s after
    the SYN) holds that one data packet (≤ ant_max_pkts) becomes an ant at the next packet: the
    group word stores the egress port's stats index, and the gauges move the flow from
    (port, mouse) to (port, ant). An interval of 5 packets (still in slow start) makes
    it a mouse again and the gauges move it back. Each change sends one digest {flow index,
    egress port's stats index, old group, new group}: mouse → ant, then ant → mouse."""
    RTT_US = 100000  # the port's default RTT: the SYN's interval
    SAMPLE_S = 0.1   # SYN to the packet that completes the RTT sample

    def gauges(self, port):
        """{group: (entries, leaves)} of (port, mouse) and (port, ant)."""
        return {g: (self.pg(ENTER, port, g)[0], self.pg(LEAVE, port, g)[0])
                for g in (self.group_id("mouse"), self.group_id("ant"))}

    def moved(self, g0, g1, grp):
        return g1[grp][0] - g0[grp][0], g1[grp][1] - g0[grp][1]

    def wait_group(self, fid, grp, timeout=1.0):
        """The flow_group word once its group is `grp` (the update is a mirrored packet), or the last read."""
        end = time.time() + timeout
        while True:
            word = self.read_register(IG + ".flow_tracker.flow_group", fid)
            if word & 0x1F == grp or time.time() > end:
                return word
            time.sleep(0.01)

    def runTest(self):
        p1, p2 = self.ports[0], self.ports[1]
        self.forward_pair(p1, p2, default_rtt_us=self.RTT_US)
        self.enable_digest("reclass_digest_t")
        mouse, ant, idx = self.group_id("mouse"), self.group_id("ant"), self.stats_idx(p2)
        g0 = self.gauges(p2)
        f = K.Flow(0, 1, 47001)
        self.wait_claimable()
        t_syn = time.time()
        self.send(p1, f.syn())
        self.recv_all(p2, 0.05)
        fid = self.new_flow_id(f)
        g1 = self.gauges(p2)
        self.assertEqual(self.moved(g0, g1, mouse), (1, 0), "the new flow did not enter (port, mouse)")
        time.sleep(max(0.0, t_syn + self.SAMPLE_S - time.time()))
        t_smp = time.time()
        self.send(p1, f.data(200))  # completes the RTT sample: the first interval starts with it
        self.recv_all(p2, 0.05)
        rtt_s = self.read_register(IG + ".flow_tracker.flow_rtt", fid) * UNIT_S
        self.assertLess(rtt_s, 1.0, "no RTT sample")
        time.sleep(max(0.0, t_smp + rtt_s * 1.3 - time.time()))
        t_end = time.time()
        self.send(p1, f.data(200))  # ends the first interval: 1 packet
        word = self.wait_group(fid, ant)
        self.assertEqual(word, (1 << 15) | (idx << 5) | ant,
                         "group word 0x%04x after the update, expected valid, stats index %d, ant" % (word, idx))
        g2 = self.gauges(p2)
        self.assertEqual(self.moved(g1, g2, mouse), (0, 1), "the flow did not leave (port, mouse)")
        self.assertEqual(self.moved(g1, g2, ant), (1, 0), "the flow did not enter (port, ant)")
        for i in range(4):  # the interval the data packet started: 5 packets
            self.send(p1, f.data(200))
        late = time.time() - t_end
        if late > 0.8 * rtt_s:   # the update, the reads or the sends took most of the interval
            self.skip_visibly("the host was too slow: the interval's other 4 packets were sent %.0f ms after the "
                              "one that opened it, its RTT is %.0f ms" % (late * 1e3, rtt_s * 1e3))
        time.sleep(max(0.0, t_end + rtt_s * 1.3 - time.time()))
        self.send(p1, f.data(200))
        word = self.wait_group(fid, mouse)
        self.assertEqual(word, (1 << 15) | (idx << 5) | mouse,
                         "group word 0x%04x, expected stats index %d, mouse" % (word, idx))
        g3 = self.gauges(p2)
        self.assertEqual(self.moved(g2, g3, ant), (0, 1), "the flow did not leave (port, ant)")
        self.assertEqual(self.moved(g2, g3, mouse), (1, 0), "the flow did not enter (port, mouse) again")
        self.recv_all(p2, 0.1)
        mask = self.info.register_size(IG + ".flow_tracker.flow_sig") - 1
        got = []
        for ds in iter(lambda: self.reclass(0.5), []):
            got += [(d["old_group"], d["new_group"], d["stats_idx"]) for d in ds if d["flow_id"] & mask == fid]
        self.assertEqual(got, [(mouse, ant, idx), (ant, mouse, idx)],
                         "reclassification digests of flow %d (old, new, stats index)" % fid)


@group("telemetry")
class QueueMaxDelayResettable(CcfairTest):
    """q_max_delay holds the largest queuing delay since the controller's last reset: reset to
    0 it reads 0; a burst into the shaped port raises it above 10 service times of the queue;
    reset again, one packet into the drained queue gives a small value, not the old maximum."""
    # BMv2: the shaped queue's rate for this test: 10 queued of a burst of 30 needs PTF to send faster
    # than BMV2_PPS / (1 - 10/30), 60/s (150/s at 100/s, close to what a busy CI host sends)
    BMV2_PPS = 40
    BURST = 30

    def runTest(self):
        p1, out = self.ports[0], self.shaped_port
        self.forward_pair(p1, out)
        pps = self.params_pps()
        q = self.queue_index(out, 0)
        self.write_register(MAX_DELAY, q, 0)
        self.assertEqual(self.read_register(MAX_DELAY, q), 0)
        burst = [bytes(K.udp(0, 1, size=1000, sport=8100 + i)) for i in range(self.BURST)]
        for pkt in burst:
            self.send(p1, pkt)
        self.assertEqual(len(self.recv_all(out, 0.5)), self.BURST, "the shaped queue dropped part of the burst")
        queued = self.read_register(MAX_DELAY, q)
        self.assertGreater(queued * UNIT_S, 10.0 / pps,
                           "q_max_delay %d units: no queue of 10 packets on the shaped port %d" % (queued, out))
        self.write_register(MAX_DELAY, q, 0)
        self.assertEqual(self.read_register(MAX_DELAY, q), 0)
        self.send(p1, burst[0])
        self.assertIsNotNone(self.recv(out, 1.0))
        single = self.read_register(MAX_DELAY, q)
        self.assertLess(single, queued / 4, "q_max_delay %d units after the reset and one packet into the "
                        "drained queue: the burst's maximum (%d) survived the reset" % (single, queued))

    def params_pps(self):
        """Service rate of the shaped queue in packets/s: on BMv2 lowered to BMV2_PPS for this test
        (restored when it ends); tofino-model's 10 Mbit/s is 1,250 of these 1,000-byte packets."""
        if self.profile != "bmv2":
            return RUNNER_PPS
        self.bmv2.set_queue_rate(self.shaped_port, self.BMV2_PPS)
        self.addCleanup(self.bmv2.set_queue_rate, self.shaped_port, RUNNER_PPS)
        return self.BMV2_PPS
