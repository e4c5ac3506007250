# SPDX-License-Identifier: Apache-2.0
"""Classification (P4air): crafted per-interval packet sequences make one flow look like
each family. Intervals are paced by the flow's RTT as the switch measured it from the
handshake; the thresholds (m_ld, m_pl, m_m) are lowered through the egress port_cfg so a
test takes seconds, as the controller may do. Aggressiveness needs queue build-up: those
flows leave through the port the chassis config shapes to 10 Mbit/s, and the test first
checks that the model really built a queue there (q_max_delay > 0)."""
import time

from ptf.testutils import group

import contract as C
import packets as K
from base_test import CcfairTest, IG, EG

RTT_S = 0.1
SIZE = 1000
DROPS = EG + ".telemetry.pg_drops"


class _Classify(CcfairTest):
    """Helpers only (no runTest: PTF collects every class that has one)."""
    M_LD, M_PL, M_M = 2, 3, 2

    def setup_path(self, out_port, **egress):
        p1 = self.ports[0]
        self.edge_port(p1)
        if out_port != p1:
            self.edge_port(out_port)
        self.l2(1, out_port)
        self.l2(0, p1)
        cfg = {"m_ld": self.M_LD, "m_pl": self.M_PL, "m_m": self.M_M}
        cfg.update(egress)
        self.egress_cfg(out_port, **cfg)
        self.enable_digest("reclass_digest_t")
        return p1

    def open_flow(self, in_port, flow):
        """Handshake with an RTT of ~RTT_S; returns (flow id, RTT in us as the switch measured it)."""
        self.send(in_port, flow.syn())
        fid = self.new_flow_id()
        time.sleep(RTT_S)
        self.send(in_port, flow.ack())
        rtt = self.read_register(IG + ".flow_tracker.flow_rtt", fid)
        self.assertFalse(rtt >> 31, "handshake RTT not measured")
        return fid, rtt

    def groups_of(self, fid, timeout=1.0):
        """New groups of flow `fid` reported by digests so far, in order."""
        seen = []
        while True:
            ds = self.reclass(timeout)
            if not ds:
                return seen
            seen += [d["new_group"] for d in ds if d["flow_id"] == fid]

    def final_group(self, fid):
        time.sleep(0.1)  # a group change reaches flow_group through a mirrored update packet
        valid, _port, grp = self.flow_group(fid)
        self.assertEqual(valid, 1, "flow %d no longer tracked" % fid)
        return grp


@group("classify")
class AntFewPacketsPerInterval(_Classify):
    """A TCP flow with at most ant_max_pkts packets per interval is an ant."""

    def runTest(self):
        out = self.ports[1]
        p1 = self.setup_path(out)
        f = K.Flow(0, 1, 43000)
        fid, rtt = self.open_flow(p1, f)
        self.drive(p1, f, [1, 1, 1, 1], rtt, SIZE, out)
        self.assertEqual(self.final_group(fid), self.group_id("ant"))


@group("classify")
class SlowStartEndsByRateDrop(_Classify):
    """Packets per interval 4, 8, 16 then 8: slow start ended by a rate drop, the mouse becomes
    delay-based (RTT band 0: no rtt_band entries), and no packet is dropped on purpose."""

    def runTest(self):
        out = self.ports[1]
        p1 = self.setup_path(out)
        f = K.Flow(0, 1, 43001)
        fid, rtt = self.open_flow(p1, f)
        mouse = self.group_id("mouse")
        d0 = self.pg_packets(DROPS, out)
        seq = self.drive(p1, f, [4, 8, 16, 1], rtt, SIZE, out)
        self.assertEqual(self.final_group(fid), mouse, "left slow start while the rate was doubling")
        self.drive(p1, f, [7, 1], rtt, SIZE, out, seq=seq)  # the open interval: 1 + 7 = 8 < 16
        self.assertEqual(self.final_group(fid), self.group_id("delay", 0))
        self.assertIn(self.group_id("delay", 0), self.groups_of(fid))
        self.assertEqual(self.pg_packets(DROPS, out) - d0, 0)


class _SlowStartByBdp(_Classify):
    SS_DROP = None

    def check_bdp_end(self):
        out = self.ports[1]
        # ~320 kbit/s (4 x 1000 B per 100 ms) is rate bin ~24: a fair rate bin of 20 is reached
        p1 = self.setup_path(out, fair_rate_bin=20, ss_drop=self.SS_DROP)
        f = K.Flow(0, 1, 43002 + self.SS_DROP)
        fid, rtt = self.open_flow(p1, f)
        self.recv_all(out, timeout=0.2)
        d0 = self.pg_packets(DROPS, out)
        counts = [4, 4, 4, 1]
        self.drive(p1, f, counts, rtt, SIZE)
        sent = sum(counts)
        got = len([p for p in self.recv_all(out, timeout=1.0) if p.haslayer(K.TCP)])
        self.assertEqual(self.final_group(fid), self.group_id("delay", 0))
        self.assertEqual(self.pg_packets(DROPS, out) - d0, self.SS_DROP)
        self.assertEqual(got, sent - self.SS_DROP)


@group("classify")
class SlowStartEndsAtFairBdpWithOneDrop(_SlowStartByBdp):
    """A mouse reaching its fair BDP (rate bin >= fair_rate_bin) becomes delay-based and loses
    exactly one packet on purpose (ss_drop on)."""
    SS_DROP = 1

    def runTest(self):
        self.check_bdp_end()


@group("classify")
class SlowStartEndsAtFairBdpNoDropWhenDisabled(_SlowStartByBdp):
    """With ss_drop off the mouse still becomes delay-based at its fair BDP, with no drop."""
    SS_DROP = 0

    def runTest(self):
        self.check_bdp_end()


@group("classify")
class GrowingDepthMakesLossDelayThenLoss(_Classify):
    """Into the shaped port, bursts growing every interval raise the flow's max enqueue depth
    each interval: after m_ld intervals it is loss-delay (hybrid 0), after m_pl purely loss."""

    def runTest(self):
        out = self.shaped_port
        p1 = self.setup_path(out)
        self.write_register(EG + ".aqm.q_max_delay", self._q(out), 0)
        f = K.Flow(0, 1, 43010)
        fid, rtt = self.open_flow(p1, f)
        seq = self.drive(p1, f, [4, 8, 4, 1], rtt, SIZE, out)
        self.assertEqual(self.final_group(fid), self.group_id("delay", 0))
        self.drive(p1, f, [9, 20, 30, 40, 50, 60, 1], rtt, SIZE, out, seq=seq)
        self.assertGreater(self.read_register(EG + ".aqm.q_max_delay", self._q(out)), 0,
                           "no queue built on the shaped port %d: tofino-model did not shape it" % out)
        seq = self.groups_of(fid)
        hyb0, loss0 = self.group_id("hybrid", 0), self.group_id("loss", 0)
        self.assertIn(hyb0, seq, "never loss-delay: digests %s" % seq)
        self.assertIn(loss0, seq, "never purely loss: digests %s" % seq)
        self.assertLess(seq.index(hyb0), seq.index(loss0))
        self.assertEqual(self.final_group(fid), loss0)

    def _q(self, port):
        return C.queue_index(self.profile, self.dev_port(port), 0)


@group("classify")
class SteadyDepthStaysDelay(_Classify):
    """The same burst every interval (no depth growth) keeps a long-lived flow delay-based."""

    def runTest(self):
        out = self.shaped_port
        p1 = self.setup_path(out)
        f = K.Flow(0, 1, 43011)
        fid, rtt = self.open_flow(p1, f)
        self.drive(p1, f, [4, 8, 4] + [20] * 6 + [1], rtt, SIZE, out)
        self.assertEqual(self.final_group(fid), self.group_id("delay", 0))


@group("classify")
class BwEstPatternsMakeModelBased(_Classify):
    """BBR-like probing: rate up >= 1.125x then down <= 0.75x, m_m times, with no queue:
    the flow becomes model-based (hybrid 1)."""
    M_M = 3

    def runTest(self):
        out = self.ports[1]
        p1 = self.setup_path(out)
        f = K.Flow(0, 1, 43020)
        fid, rtt = self.open_flow(p1, f)
        # data packets per interval 4 8 4 | 8 5 8 5 8 5: at least three up-then-down patterns after
        # slow start, whether or not the slow-start peak (8 -> 4) counts as one
        self.drive(p1, f, [4, 8, 4, 8, 5, 8, 5, 8, 5, 1], rtt, SIZE, out)
        self.assertEqual(self.final_group(fid), self.group_id("hybrid", 1))


@group("classify")
class RttBandSelectsSubgroup(_Classify):
    """With an RTT boundary below the flow's RTT, a delay-based flow lands in sub-group 1."""

    def runTest(self):
        out = self.ports[1]
        p1 = self.setup_path(out)
        band = EG + ".classifier.rtt_band"
        boundary = int(RTT_S * 1e6 * 0.5)
        self.insert(band, {"rtt_us": (0, boundary)}, EG + ".classifier.set_rtt_band", {"band": 0}, priority=10)
        self.insert(band, {"rtt_us": (boundary + 1, 0xFFFFFFFF)}, EG + ".classifier.set_rtt_band", {"band": 1},
                    priority=10)
        f = K.Flow(0, 1, 43030)
        fid, rtt = self.open_flow(p1, f)
        self.assertGreater(rtt, boundary)
        self.drive(p1, f, [4, 8, 4, 1], rtt, SIZE, out)
        self.assertEqual(self.final_group(fid), self.group_id("delay", 1))
