# SPDX-License-Identifier: Apache-2.0
"""Packet-value marking at the egress of the ingress edge: PV from the TVF of the flow's
group (egress port's TVF profile), carried in the shim toward fabric ports."""
import logging
import math
import time

from ptf.testutils import group

import packets as K
from base_test import CcfairTest, IG, EG


PV0 = 50000  # PvLabelIsTheAverageOfTwoIntervals: PV = PV0 + rate bin


def pv_of_group(g):
    return 1000 + 100 * g  # a constant, distinct PV per group


class _Marking(CcfairTest):
    def shim_of(self, port):
        pkt = self.recv(port, timeout=2.0)
        self.assertIsNotNone(pkt, "nothing left port %d" % port)
        self.assertTrue(pkt.haslayer(K.CcfairShim), "no shim toward fabric port %d: %r" % (port, pkt))
        return pkt[K.CcfairShim]


@group("marking")
class PvFromGroupTvf(_Marking):
    """Each group's TVF decides the PV: ant (UDP) and mouse (new TCP) get their own values."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        for g in (self.group_id("ant"), self.group_id("mouse")):
            self.tvf(g, lambda b, g=g: pv_of_group(g))
        self.send(p1, K.udp(0, 1))
        s = self.shim_of(p3)
        self.assertEqual((s.group, s.pv), (self.group_id("ant"), pv_of_group(self.group_id("ant"))))
        self.send(p1, K.Flow(0, 1, 44001).syn())
        s = self.shim_of(p3)
        self.assertEqual((s.group, s.pv), (self.group_id("mouse"), pv_of_group(self.group_id("mouse"))))


@group("marking")
class TvfProfileOfEgressPort(_Marking):
    """The egress port's tvf_profile selects which TVF table marks its traffic."""

    def runTest(self):
        p1, p3 = self.ports[0], self.ports[2]
        self.edge_port(p1)
        self.insert(IG + ".port_cfg.port_cfg", {"ig_port": p3}, IG + ".port_cfg.set_fabric_port")
        self.egress_cfg(p3, role=self.params["ports"]["role_fabric"], tvf_profile=1)
        self.l2(1, p3)
        ant = self.group_id("ant")
        self.tvf(ant, lambda b: 111, profile=0)
        self.tvf(ant, lambda b: 222, profile=1)
        self.send(p1, K.udp(0, 1))
        self.assertEqual(self.shim_of(p3).pv, 222)


@group("marking")
class NoTvfMeansPvMax(_Marking):
    """Before any TVF is written every packet gets pv_max (AQM inert)."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        self.send(p1, K.udp(0, 1))
        self.assertEqual(self.shim_of(p3).pv, self.params["tvf"]["pv_max"])


@group("marking")
class PvDrawnWithinTvfOfFlowRate(_Marking):
    """PV = TVF(u x rate): a new flow (rate 0) gets TVF(bin 0); a fast flow's PVs all come from
    the TVF's values, and some fall below TVF(bin 0) (the random position reaches its rate)."""

    def runTest(self):
        p1, p3 = self.edge_to_fabric()
        steps = self.params["tvf"]["rate_steps"]
        tvf = {b: 60000 - 300 * b for b in range(steps)}  # non-increasing, as the ONOS app writes them
        for g in range(2, 2 + 3 * self.params["groups"]["k"]):
            self.tvf(g, tvf.get)
        self.tvf(self.group_id("mouse"), tvf.get)
        self.tvf(self.group_id("ant"), tvf.get)
        f = K.Flow(0, 1, 44010)
        self.send(p1, f.data(1000))
        self.assertEqual(self.shim_of(p3).pv, tvf[0], "a flow with no rate yet is not at TVF(0)")
        pvs = []
        for burst in range(4):  # several intervals at full speed: the flow has a rate
            for i in range(30):
                self.send(p1, f.data(1000))
            pvs += [p[K.CcfairShim].pv for p in self.recv_all(p3, 0.3) if p.haslayer(K.CcfairShim)]
            self.sleep_interval()
        outside = sorted(set(pvs) - set(tvf.values()))
        self.assertFalse(outside, "PVs outside the TVF: %s" % outside)
        self.assertTrue(any(pv < tvf[0] for pv in pvs), "every PV was TVF(0): rate not used")

    def sleep_interval(self):
        time.sleep(self.params["flow"]["default_rtt_us"] * 1.2e-6)


@group("marking")
class PvLabelIsTheAverageOfTwoIntervals(_Marking):
    """The marker's rate label is the average of the flow's last two interval rates
    (classifier.rate_smooth_intervals 2), not the last interval's raw rate. A mid-connection flow
    (default RTT 220,000 units, 225 ms) sends a fast interval (30 x 1000 B), then a slow one (3 x 1000 B),
    then 21 packets, the first of which ends the slow interval. PVs come from a TVF that encodes
    the rate bin (PV = 50000 + bin, above any CTV here): PV = TVF(u x label) with u < 1, so every
    bin is at most the label's (label / 4), and most are close to it. The slow interval's packets
    carry the first interval's rate (the first interval end averages the rate with itself, so
    the label is not halved); the last 21 carry the average of the two rates, about 8 bins above
    the slow rate, which the raw label (the program before) never reaches. flow_rate_s then holds
    lo = the slow rate, which flow_rate (the raw rate the rate-fall test compares) holds too, and hi = the sum
    of the two. Each burst must fall in one interval and the gaps must stay below the
    idle expiry: flow_pkts after each burst (30, then 3 and 21: the first packet of each ends the
    interval before and counts in the new one) and the wall-clock gaps confirm it before the
    burst's values are checked; where a loaded host was too slow, the sequence is repeated with a
    new flow (up to ATTEMPTS times), and the test is skipped, with the reasons, if none fits."""
    RTT_UNITS = 220000  # 225 ms: a burst fits with a wide margin, the gaps (1.3 RTT) stay below the idle expiry
    UNIT_S = 1024e-9
    ATTEMPTS = 3

    def fine(self, nbytes):
        """The interval rate in 1/64 decade above tvf.rate_min_kbps (the log tables: +-2)."""
        t = self.params["tvf"]
        kbps = nbytes * 8.0 / (self.RTT_UNITS * self.UNIT_S) / 1000.0
        return max(0.0, 4 * t["steps_per_decade"] * math.log10(kbps / t["rate_min_kbps"]))

    def build(self, n):
        """n data packets, built before their burst (sending takes ~1 ms a packet, building more)."""
        return [bytes(self.flow.data(1000)) for _ in range(n)]

    def burst(self, p1, p3, n, at=0.0, wait=0.1):
        """n data packets, sent from wall-clock time `at` on; the rate bins of the PVs that came out
        within `wait` s (a burst the flow sends more after must not idle it into its expiry, 400 ms)."""
        pkts = self.build(n)
        time.sleep(max(0.0, at - time.time()))
        self.first_sent = time.time()
        for pkt in pkts:
            self.send(p1, pkt)
        self.last_sent = time.time()
        return [p[K.CcfairShim].pv - PV0 for p in self.recv_all(p3, wait) if p.haslayer(K.CcfairShim)]

    def too_slow(self, fid, n, what, gap_from=None):
        """Why the burst just sent did not land as planned (None if it did): flow_pkts is not `n`
        (the burst spanned an interval end, or its first packet came before the deadline), or it
        came more than the idle expiry less 40 ms after `gap_from` (the flow may have expired)."""
        f = self.params["flow"]
        idle = f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1e-6
        if gap_from is not None and self.first_sent - gap_from > idle - 0.04:
            return "%s came %.0f ms after the burst before (idle expiry %.0f ms)" % (
                what, (self.first_sent - gap_from) * 1e3, idle * 1e3)
        pkts = self.read_register(IG + ".flow_tracker.flow_pkts", fid)
        if pkts != n:
            return "flow_pkts %d after %s, expected %d (sent in %.0f ms; an interval is %.0f ms)" % (
                pkts, what, n, (self.last_sent - self.first_sent) * 1e3, self.RTT_UNITS * self.UNIT_S * 1e3)
        return None

    def runTest(self):
        p1, p3 = self.ports[0], self.ports[2]
        self.edge_port(p1, self.RTT_UNITS)
        self.fabric_port(p3)
        self.egress_cfg(p3, role=self.params["ports"]["role_fabric"], ss_drop=0)
        self.l2(1, p3)
        for g in range(2 + 3 * self.params["groups"]["k"]):
            self.tvf(g, lambda b: PV0 + b)
        self.aqm(p3, 0, 1 << 30)                               # target out of reach: the CTV only steps down
        self.write_register(EG + ".aqm.q_ctv", self.queue_index(p3, 0), 0)
        reasons = []
        for attempt in range(self.ATTEMPTS):
            reason = self.attempt(p1, p3, K.Flow(0, 1, 44020 + attempt))
            if reason is None:
                return
            reasons.append("attempt %d: %s" % (attempt + 1, reason))
            logging.info("PvLabelIsTheAverageOfTwoIntervals: %s", reasons[-1])
        self.skip_visibly("the host was too slow for the intervals this test needs: " + "; ".join(reasons))

    def attempt(self, p1, p3, flow):
        """The three bursts of `flow`; None once every check passed, else why the host was too slow."""
        rate, rate_s = EG + ".classifier.flow_rate", EG + ".classifier.flow_rate_s"
        rtt_s = self.RTT_UNITS * self.UNIT_S
        self.flow = flow
        fast, slow = self.fine(30 * 986), self.fine(3 * 986)
        self.wait_claimable()
        self.burst(p1, p3, 30)                                 # interval 1: fast
        t0 = self.first_sent
        fid = self.new_flow_id(self.flow)
        reason = self.too_slow(fid, 30, "the 30-packet burst")
        if reason:
            return reason
        prev = self.last_sent
        bins = self.burst(p1, p3, 3, at=t0 + 1.3 * rtt_s)      # ends interval 1; interval 2: slow
        t1 = self.first_sent
        reason = self.too_slow(fid, 3, "the 3-packet burst", prev)
        if reason:
            return reason
        prev = self.last_sent
        lr1 = self.read_register(rate, fid) & 0xFFFF
        self.assertLessEqual(abs(lr1 - fast), 2, "flow_rate %d after 30 x 986 bytes, expected %.1f" % (lr1, fast))
        self.assertEqual(len(bins), 3)
        self.assertLessEqual(max(bins), lr1 >> 2, "a PV above the first interval's rate bin: %s" % bins)
        self.assertGreater(max(bins), (lr1 >> 3) + 1, "the first interval end halved the label: %s" % bins)
        bins = self.burst(p1, p3, 21, at=t1 + 1.3 * rtt_s, wait=0.5)  # the first ends interval 2
        reason = self.too_slow(fid, 21, "the 21-packet burst", prev)
        if reason:
            return reason
        self.assertEqual(len(bins), 21)
        raw_top = int(slow + 2) >> 2
        label_top = int((fast + slow) / 2 + 2) >> 2
        self.assertGreater(label_top, raw_top + 4, "test set-up: the two intervals' rates are too close")
        self.assertGreater(max(bins), raw_top, "every PV at or below the last interval's rate bin %d (the "
                           "average's is about %d): the marker does not read the average: %s"
                           % (raw_top, label_top, bins))
        self.assertLessEqual(max(bins), label_top, "a PV above the average's bin %d: %s" % (label_top, bins))
        lo2, hi2 = self.read_register(rate_s, fid)
        raw = self.read_register(rate, fid) & 0xFFFF
        self.assertLessEqual(abs(lo2 - slow), 2, "flow_rate_s.lo %d after 3 x 986 bytes, expected %.1f" % (lo2, slow))
        self.assertEqual(raw, lo2, "flow_rate (raw, for the rate-fall test) is not the last interval's rate")
        self.assertEqual(hi2, lr1 + lo2, "flow_rate_s.hi is not the sum of the last two intervals' rates")
        self.assertLessEqual(max(bins), (hi2 >> 1) >> 2, "a PV above the label's bin: %s" % bins)
        return None
