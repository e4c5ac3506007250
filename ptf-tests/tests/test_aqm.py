# SPDX-License-Identifier: Apache-2.0
"""Packet-value AQM on the shaped port's queue: the CTV rises while the queuing delay is above
the target and falls back when it is below; packets with PV < CTV are dropped, or CE-marked
when ECN-capable and the queue has ECN on; the Cocoa buffer limit drops at a full queue.

Congestion comes from bursts of a TCP flow whose group's TVF gives the maximum PV, so it is
never itself below the CTV; the packets under test are UDP (group ant) with PV 0."""
import json
import os
import time

from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, EG, P

CTV, MAX_DELAY, MIN_DEPTH = EG + ".aqm.q_ctv", EG + ".aqm.q_max_delay", EG + ".aqm.q_min_depth"
DROPS, MARKS, LIMIT_DROPS = EG + ".telemetry.pg_drops", EG + ".telemetry.pg_marks", EG + ".aqm.q_limit_drops"
HIST = EG + ".aqm.q_depth_hist"
QID = 0  # queue_map's default
BMV2_PPS = 200
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "model-configs", "fabric.json")) as _f:
    RUNNER_PPS = json.load(_f)["bmv2"]["shaped_rate_pps"]  # what ptf-tests/run gives the shaped port on BMv2


class _Aqm(CcfairTest):
    SPORT = None  # congest()'s flows: SPORT + rounds; a base of its own per test (10 apart), so no two tests share a slot

    def setup_congestion(self, target_delay_us=100, limit_cells=1 << 19, ecn=None, ctv_lo=0, ctv_hi=0xFFFF):
        p1, out = self.ports[0], self.shaped_port
        # What an earlier test left queued on this port comes out first, not among this test's
        # packets (BufferLimitDrops ends with packets queued: its egress drops most of them, and
        # its port falls quiet for its 0.2 s before the queue is empty).
        self.recv_all(out, 0.2)
        self.forward_pair(p1, out)
        self.aqm(out, QID, target_delay_us, limit_cells, ecn, ctv_lo, ctv_hi)
        self.tvf(self.group_id("mouse"), lambda b: self.params["tvf"]["pv_max"])
        self.tvf(self.group_id("ant"), lambda b: 0)
        self.qidx = self.queue_index(out, QID)
        if self.profile == "bmv2":
            # BMv2 forwards about as fast as PTF sends: serve the shaped queue slower than the
            # bursts arrive for this test, so a queue forms; the runner's rate comes back after.
            self.bmv2.set_queue_rate(out, BMV2_PPS)
            self.addCleanup(self.bmv2.set_queue_rate, out, RUNNER_PPS)
        return p1, out

    def burst(self, p1, flow, n, probes=(), seq0=1):
        """n data packets of `flow` back to back, with the `probes` packets among them."""
        probes = list(probes)
        every = max(1, n // (len(probes) + 1))
        for i in range(n):
            self.send(p1, flow.data(1000, seq=seq0 + 1000 * i))
            if probes and i % every == every - 1:
                self.send(p1, probes.pop())
        for p in probes:
            self.send(p1, p)

    def congest(self, p1, out, rounds=4, n=60, probes=()):
        assert self.SPORT is not None and rounds < 10, "a congesting test sets SPORT; rounds < 10"
        f = K.Flow(0, 1, self.SPORT + rounds)
        self.wait_claimable()  # a new flow, possibly seconds after setUp
        got = []
        for r in range(rounds):
            self.burst(p1, f, n, probes if r == rounds - 1 else (), seq0=1 + 1000 * n * r)
            got += self.recv_all(out, timeout=0.2)
        return got

    def ctv(self):
        return self.read_register(CTV, self.qidx)


@group("aqm")
class CtvRisesAboveTargetDelay(_Aqm):
    """A standing queue above the target delay drives the CTV up from 0."""
    SPORT = 46010

    def runTest(self):
        p1, out = self.setup_congestion()
        self.write_register(MAX_DELAY, self.qidx, 0)
        start = self.ctv()
        self.congest(p1, out)
        self.assertGreater(self.read_register(MAX_DELAY, self.qidx), 100,
                           "no queue built on the shaped port %d: tofino-model did not shape it" % out)
        self.assertGreater(self.ctv(), start)


@group("aqm")
class CtvStaysWithinItsRange(_Aqm):
    """The CTV steps up to the queue's ctv_hi and stops there; from below ctv_lo a
    step down lands on ctv_lo (aqm_cfg range, written by the controller)."""
    SPORT = 46020

    def runTest(self):
        step_up = self.params["aqm"]["ctv_step_up"]
        hi = 3 * step_up + step_up // 2            # not a multiple of the step
        p1, out = self.setup_congestion(ctv_lo=0, ctv_hi=hi)
        self.write_register(CTV, self.qidx, 0)
        self.congest(p1, out, rounds=8)             # far more periods than steps to hi
        self.assertEqual(self.ctv(), hi)
        lo = 1000
        self.aqm(out, QID, 1 << 30, ctv_lo=lo, ctv_hi=0xFFFF, modify=True)   # target out of reach: steps go down
        self.write_register(CTV, self.qidx, lo + 1)
        self.congest(p1, out, rounds=1)
        self.assertEqual(self.ctv(), lo)


@group("aqm")
class DropBelowCtv(_Aqm):
    """Once the CTV is above 0, PV-0 packets (ant) are dropped while max-PV packets pass."""
    SPORT = 46030

    def runTest(self):
        p1, out = self.setup_congestion(ecn=0)
        ant, mouse = self.group_id("ant"), self.group_id("mouse")
        self.congest(p1, out)
        self.assertGreater(self.ctv(), 0)
        d_ant, d_mouse = self.pg(DROPS, out, ant)[0], self.pg(DROPS, out, mouse)[0]
        probes = [K.udp(0, 1, sport=7000 + i) for i in range(10)]
        got = self.congest(p1, out, rounds=1, probes=probes)
        self.assertGreater(self.pg(DROPS, out, ant)[0] - d_ant, 0)
        self.assertEqual(self.pg(DROPS, out, mouse)[0] - d_mouse, 0, "max-PV packets were dropped by the AQM")
        self.assertLess(len([p for p in got if p.haslayer(K.UDP)]), len(probes))


@group("aqm")
class EveryPvDropOfATrackedFlow(_Aqm):
    """Every packet of a tracked TCP flow below the CTV is dropped, in every RTT interval: the PV
    rule has no per-flow allowance (the one-PV-drop-per-interval token, flow_aqm_once, is gone:
    with it only the first packet of each interval was dropped and the rest passed)."""

    def runTest(self):
        rtt_us, n = 200000, 6   # a long interval: each burst fits well inside it on tofino-model
        p1, out = self.ports[0], self.ports[1]
        self.forward_pair(p1, out, default_rtt_us=rtt_us)
        self.egress_cfg(out, ss_drop=0)
        hi = self.params["tvf"]["pv_max"]
        self.aqm(out, QID, 1 << 30, ecn=0, ctv_lo=hi, ctv_hi=hi)   # CTV pinned at the top
        self.write_register(CTV, self.queue_index(out, QID), hi)
        for g in range(P.num_groups(self.params)):
            self.tvf(g, lambda b: 0)                                # every PV is 0 < CTV
        f = K.Flow(0, 1, 46200)
        self.wait_claimable()
        self.send(p1, f.data(1000, seq=1))                          # claims the slot, opens interval 1
        self.recv_all(out, timeout=0.1)
        self.new_flow_id(f)
        d0, seq = self.pg_packets(DROPS, out), 1001
        for k in range(2):
            time.sleep(rtt_us * 1.5e-6)
            for i in range(n):
                self.send(p1, f.data(1000, seq=seq))
                seq += 1000
            got = [p for p in self.recv_all(out, timeout=0.1) if p.haslayer(K.TCP)]
            self.assertEqual(len(got), 0, "interval %d: %d of %d packets below the CTV passed, expected none"
                             % (k + 2, len(got), n))
        self.assertEqual(self.pg_packets(DROPS, out) - d0, 2 * n)


@group("aqm")
class EcnMarkInsteadOfDrop(_Aqm):
    """ECT(0) packets below the CTV on an ECN queue leave CE-marked instead of being dropped."""
    SPORT = 46040

    def runTest(self):
        p1, out = self.setup_congestion(ecn=1)
        ant = self.group_id("ant")
        self.congest(p1, out)
        self.assertGreater(self.ctv(), 0)
        m0, d0 = self.pg(MARKS, out, ant)[0], self.pg(DROPS, out, ant)[0]
        probes = [K.udp(0, 1, sport=7100 + i, tos=0x02) for i in range(10)]
        got = [p for p in self.congest(p1, out, rounds=1, probes=probes) if p.haslayer(K.UDP)]
        marked = [p for p in got if p[K.IP].tos & 0x3 == 0x3]
        self.assertGreater(len(marked), 0, "no CE mark on ECT packets below the CTV")
        self.assertEqual(self.pg(MARKS, out, ant)[0] - m0, len(marked))
        self.assertEqual(self.pg(DROPS, out, ant)[0] - d0, 0, "ECT packets dropped on an ECN queue")
        self.assertEqual(len(got), len(probes))


@group("aqm")
class EcnOffDropsEct(_Aqm):
    """With ECN off for the queue, ECT packets below the CTV are dropped, not marked."""
    SPORT = 46050

    def runTest(self):
        p1, out = self.setup_congestion(ecn=0)
        ant = self.group_id("ant")
        self.congest(p1, out)
        m0, d0 = self.pg(MARKS, out, ant)[0], self.pg(DROPS, out, ant)[0]
        probes = [K.udp(0, 1, sport=7200 + i, tos=0x02) for i in range(10)]
        self.congest(p1, out, rounds=1, probes=probes)
        self.assertEqual(self.pg(MARKS, out, ant)[0] - m0, 0)
        self.assertGreater(self.pg(DROPS, out, ant)[0] - d0, 0)


@group("aqm")
class CtvFallsBelowTarget(_Aqm):
    """After the congestion ends, packets that find no queue move the CTV back down. The target
    (5 ms) is above a software switch's own ingress-to-egress latency and far below the delay of
    the shaped port's full queue (64 packets at BMV2_PPS = 200 packets/s on BMv2, 0.32 s)."""
    SPORT = 46060

    def runTest(self):
        p1, out = self.setup_congestion(target_delay_us=5000)
        self.congest(p1, out)
        peak = self.ctv()
        self.assertGreater(peak, 0)
        time.sleep(0.5)  # the queue drains
        self.recv_all(out, 0.2)
        f = K.Flow(0, 1, 46100)
        self.wait_claimable()
        interval_s = self.params["aqm"]["ctv_update_interval_us"] * 1e-6
        for i in range(30):  # a trickle: one packet per 10 ms (a CTV period each), slower than the queue
            self.send(p1, f.data(100, seq=1 + 100 * i))
            time.sleep(max(2 * interval_s, 0.01))
        self.recv_all(out, 0.2)
        self.assertLess(self.ctv(), peak)


@group("aqm")
class BufferLimitDrops(_Aqm):
    """A queue limit of a few cells drops the excess of a burst and counts it per queue."""
    SPORT = 46070

    def runTest(self):
        p1, out = self.setup_congestion(target_delay_us=1 << 30, limit_cells=8)
        l0 = self.read_counter(LIMIT_DROPS, self.qidx)[0]
        d0 = self.pg_packets(DROPS, out)
        self.congest(p1, out, rounds=2)
        limit_drops = self.read_counter(LIMIT_DROPS, self.qidx)[0] - l0
        self.assertGreater(limit_drops, 0)
        self.assertGreaterEqual(self.pg_packets(DROPS, out) - d0, limit_drops)


@group("aqm")
@group("telemetry")
class QueueDepthHistogram(_Aqm):
    """q_depth_hist: every packet of the queue is counted once, in the bucket of
    the depth it found; a congested queue reaches buckets above 0 (what the
    ONOS app's Cocoa loop reads instead of q_min_depth)."""
    SPORT = 46080

    def runTest(self):
        p1, out = self.setup_congestion(target_delay_us=1 << 30)
        idx = [self.depth_hist_index(out, QID, b) for b in range(C.DEPTH_HIST_BUCKETS)]
        before = [self.read_counter(HIST, i)[0] for i in idx]
        got = self.congest(p1, out, rounds=1)
        grew = [self.read_counter(HIST, i)[0] - b for i, b in zip(idx, before)]
        # No AQM drop here (target and limit out of reach): what egress counted left the port.
        self.assertEqual(sum(grew), len(got))
        self.assertGreater(sum(grew[1:]), 0, "a congested queue never found a depth above bucket 0: %s" % grew)


@group("aqm")
@group("telemetry")
class QueueMinDepthResettable(_Aqm):
    """q_min_depth: reset to 0xFFFFFFFF by the controller, then the smallest depth seen."""
    SPORT = 46090

    def runTest(self):
        p1, out = self.setup_congestion(target_delay_us=1 << 30)
        self.write_register(MIN_DEPTH, self.qidx, 0xFFFFFFFF)
        self.assertEqual(self.read_register(MIN_DEPTH, self.qidx), 0xFFFFFFFF)
        self.congest(p1, out, rounds=1)
        self.assertLess(self.read_register(MIN_DEPTH, self.qidx), 0xFFFFFFFF)
