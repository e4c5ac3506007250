# SPDX-License-Identifier: Apache-2.0
"""Classification (P4air, docs/dataplane.md "Egress" step 2): crafted per-interval packet
sequences make one flow look like each family, and the group the classifier stores in
flow_group is read after every interval.

Pacing: the handshake takes RTT_S, which the switch measures as the flow's RTT; burst i
(counts[i] data packets, built beforehand) starts SPACING RTTs after burst i−1, so its first
packet ends the interval burst i−1 opened. The first interval starts at the handshake's ACK,
which completes the RTT sample (the handshake is not an interval) and counts as a data packet
(Flow.ack() carries padding as payload), so it holds the ACK and the first burst. The group decided at
an interval's end is read once that packet has left the switch (the update that stores it is
a mirrored copy made by that packet's egress).

Thresholds are the egress port_cfg's: a test lowers the one it is about (m_m, ant_max_pkts,
fair_rate_bin) and sets the others to classifier_max (255), which switches them off, as the
controller may. The family (flow_family: back-offs after a loss, 0 and 1 delay-based, 2
loss-based) has no port threshold: a flow becomes loss-based at the second end of a long-lived
interval that had a retransmission and whose rate fell (docs/algorithm.md D11, D16). The tests
here leave port_cfg's family_forget at 0 (the default) but SawtoothOnIsolatedPortModelKeepsCountOnFall
(D20), which sets it and has no clean interval end, so the family stays 0, 1 or 2; with it on a
loss-based flow counts clean interval ends (2 + 4n) and forgets a back-off (D19: the
family-forget-* test vectors). Queue depth no longer plays a part, so every test here sends into
an unshaped port."""
import math
import time

from ptf.testutils import group

import packets as K
from base_test import CcfairTest, IG, EG

RTT_S = 0.2  # handshake; intervals are paced by the RTT the switch measures
SPACING = 1.25  # bursts per measured RTT: the next burst comes after the deadline, well before the 400 ms idle expiry
SIZE = 1000
IP_BYTES = SIZE - 14  # flow_bytes counts the IPv4 total length
UNIT_S = 1024e-9
OFF = 255  # classifier_max: a threshold the test is not about
DROPS = EG + ".telemetry.pg_drops"
IGNORE = EG + ".classifier.flow_ignore"  # the loss-ignoring count
RETX = IG + ".flow_tracker.flow_retx"    # lo: a retransmission in the running interval, hi: the run at the last end
FAMILY = EG + ".classifier.flow_family"  # back-offs: 0, 1 delay-based, 2 loss-based (define.p4 FLOW_FAMILY_*)


class _Classify(CcfairTest):
    """Helpers only (no runTest: PTF collects every class that has one)."""
    M_M = OFF

    def setup_path(self, out_port, **egress):
        """Host 0 on port 1, host 1 on `out_port`, both edge; egress port_cfg of `out_port` with
        this class's thresholds and `egress`."""
        self.in_port, self.out_port = self.ports[0], out_port
        default = int(RTT_S * 1.5 / UNIT_S)
        for p in {self.in_port, out_port}:
            self.edge_port(p, default)
        self.l2(1, out_port)
        self.l2(0, self.in_port)
        cfg = {"m_m": self.M_M}
        cfg.update(egress)
        self.egress_cfg(out_port, **cfg)

    def poll(self, fn, ok, timeout=1.0):
        end = time.time() + timeout
        while True:
            v = fn()
            if ok(v) or time.time() > end:
                return v
            time.sleep(0.005)

    def open_flow(self, flow):
        """Handshake of ~RTT_S; returns the flow id. Sets the pacing from the RTT the switch measured."""
        self.wait_claimable()
        t0 = time.time()
        self.send(self.in_port, flow.syn())
        self.poll(lambda: self.is_tracked(flow), bool)
        fid = self.new_flow_id(flow)
        time.sleep(max(0.0, t0 + RTT_S - time.time()))
        t_ack = time.time()
        self.send(self.in_port, flow.ack())
        rtt = self.poll(lambda: self.read_register(IG + ".flow_tracker.flow_rtt", fid), lambda v: not v >> 31)
        self.assertFalse(rtt >> 31, "handshake RTT not measured")
        self.pace(flow, fid, rtt, rtt * UNIT_S * SPACING,
                  max(rtt * UNIT_S, self.params["flow"]["min_interval_us"] * 1e-6), t_ack)
        return fid

    def pace(self, flow, fid, rtt, period_s, interval_s, t_open):
        """The state intervals() works on, for a flow whose handshake has just completed: bursts
        `period_s` apart, each to land within `interval_s` of the packet that opened its interval
        (the first: the handshake's ACK, sent at `t_open`)."""
        self.flow, self.fid, self.rtt = flow, fid, rtt
        self.period, self.interval_s, self.t_open = period_s, interval_s, t_open
        self.next_burst = self.last_sent = time.time()
        self.bursts, self.sent, self.got = 0, [], []
        self.done = []        # (group read after an interval, the one expected or None), every call

    def intervals(self, counts, expect, retx=()):
        """Send the bursts `counts` (new data segments); returns the group after each interval they
        ended (the first burst after open_flow ends none), waiting up to 0.15 s for the one `expect`
        says (a later change shows in the next read, or in the one `finish` makes). `retx[i]`
        retransmissions of burst i's last new segment follow it (none where `retx` ends): they
        count in the interval its first packet opened."""
        groups, want, retx = [], list(expect), list(retx)
        expect = list(want)
        idle = self.params["flow"]["idle_intervals_to_expire"] * self.params["flow"]["default_rtt_us"] * 1e-6
        for i, n in enumerate(counts):
            new = [self.flow.data(SIZE) for _ in range(n)]
            again = [self.flow.data(SIZE, retx=True) for _ in range(retx[i] if i < len(retx) else 0)]
            pkts = [bytes(p) for p in new + again]
            time.sleep(max(0.0, self.next_burst - time.time()))
            t = time.time()
            if t - self.last_sent >= idle - 0.04:   # the checks between bursts took the host that long
                # a wrong group read back makes settle() wait its longest: the intervals that ran on
                # time must have given the groups expected before this is the host's fault
                self.assert_done()
                self.skip_visibly("the host was too slow: the flow idled %.0f ms between bursts, near its %.0f ms "
                                  "expiry" % ((t - self.last_sent) * 1e3, idle * 1e3))
            for p in pkts:
                self.send(self.in_port, p)
            self.last_sent = time.time()
            # the burst may spill into the next interval (the first one: the ACK opened its interval)
            start, share = (self.t_open, 0.8) if self.bursts == 0 else (t, 0.6)
            if self.last_sent - start > share * self.interval_s:
                self.assert_done()
                self.skip_visibly("the host was too slow: a burst of %d packets went out %.0f ms after the "
                                  "packet that opened its interval, which lasts %.0f ms"
                                  % (len(pkts), (self.last_sent - start) * 1e3, self.interval_s * 1e3))
            self.next_burst = t + self.period
            first = new[0][K.TCP].seq
            self.sent += [p[K.TCP].seq for p in new]
            if self.bursts:
                exp = expect.pop(0) if expect else None
                groups.append(self.settle(first, exp))
                self.done.append((groups[-1], exp))
            self.bursts += 1
        return groups

    def receive(self, timeout, until=None):
        """Collect the flow's packets from the output port (TCP sequence numbers) until one with
        seq >= `until` came or `timeout` passed without a packet."""
        while True:
            p = self.recv(self.out_port, timeout)
            if p is None:
                return False
            if p.haslayer(K.TCP) and p[K.TCP].sport == self.flow.sport:
                self.got.append(p[K.TCP].seq)
                if until is not None and p[K.TCP].seq >= until:
                    return True

    def settle(self, first, expect):
        """The flow's group once the packet that ended an interval (seq `first`, or the next of its
        burst when it was dropped) has left, and the update it may have sent is given time to
        arrive: up to 0.15 s while the group is not `expect`."""
        self.receive(0.15, until=first)
        word = self.poll(lambda: self.read_register(IG + ".flow_tracker.flow_group", self.fid),
                         lambda w: w & 0x1F == expect, timeout=0.15)
        self.assertEqual(word >> 15, 1, "flow %d no longer tracked" % self.fid)
        return word & 0x1F

    def finish(self, last):
        """Collect every packet still on its way to the output port, check that the flow's group
        is still `last` (no late change), and return the data packets sent and not received
        (sequence numbers)."""
        self.receive(0.3)
        self.assertEqual(self.names([self.word()[2]]), self.names([last]), "group once every packet left")
        return sorted(set(self.sent) - set(self.got))

    def word(self):
        """(valid, port, group) of the flow's group word."""
        return self.flow_group(self.fid)

    def names(self, groups):
        rev = {self.group_id("ant"): "ant", self.group_id("mouse"): "mouse"}
        for fam in ("delay", "loss", "hybrid"):
            for sub in range(self.params["groups"]["k"]):
                rev[self.group_id(fam, sub)] = "%s%d" % (fam, sub)
        return [rev.get(g, str(g)) for g in groups]

    def assert_done(self):
        """Before a skip for a slow host: every interval that ended so far, in this and the earlier
        intervals() calls of the flow, gave the group the test expected (where it expects one)."""
        checked = [(g, w) for g, w in self.done if w is not None]
        self.assert_groups([g for g, _ in checked], [w for _, w in checked],
                           "the intervals before the host fell behind")

    def assert_groups(self, got, want, what):
        self.assertEqual(self.names(got), self.names(want), "groups after each interval (%s)" % what)

    def run_intervals(self, counts, want, what):
        """intervals(counts) with `want` the group expected after each interval they end."""
        self.assert_groups(self.intervals(counts, want), want, what)


@group("classify")
class AntFewPacketsPerInterval(_Classify):
    """The port's ant_max_pkts (4 here, not the default 2) bounds an ant: a flow with 4 data
    packets in every interval is an ant from its first interval end on; one with 5 stays a
    mouse (in slow start: never fewer packets than the interval before)."""
    ANT_MAX = 4

    def runTest(self):
        mouse, ant = self.group_id("mouse"), self.group_id("ant")
        self.setup_path(self.ports[1], ant_max_pkts=self.ANT_MAX)
        self.open_flow(K.Flow(0, 1, 43000))
        # intervals: ACK + 2, then 4, 3, 4 (the last burst ends the last interval)
        self.run_intervals([2, 4, 3, 4, 1], [ant] * 4, "<= ant_max_pkts packets each")
        self.assertEqual(self.word(), (1, self.stats_idx(self.out_port), ant))
        self.finish(ant)
        self.open_flow(K.Flow(0, 1, 43001))
        self.run_intervals([4, 5, 5, 1], [mouse] * 3, "ant_max_pkts + 1 packets each (ACK + 4 first)")
        self.finish(mouse)


@group("classify")
class SlowStartEndsByRateDrop(_Classify):
    """Data packets per interval 4, 8, 16, then 8: a mouse while they do not fall; the fall ends
    slow start and the flow becomes delay-based (family delay, RTT band 0: no rtt_band
    entries). Nothing is dropped: every packet comes out and pg_drops does not move."""

    def runTest(self):
        mouse, delay0 = self.group_id("mouse"), self.group_id("delay", 0)
        self.setup_path(self.ports[1])
        d0 = self.pg_packets(DROPS, self.out_port)
        self.open_flow(K.Flow(0, 1, 43002))
        self.run_intervals([2, 8, 16, 8, 1], [mouse, mouse, mouse, delay0], "4, 8, 16, 8 packets")
        self.assertEqual(self.finish(delay0), [], "packets lost (seq)")
        self.assertEqual(self.pg_packets(DROPS, self.out_port) - d0, 0)


@group("classify")
class LongLivedSparseIntervalKeepsGroup(_Classify):
    """A long-lived flow (slow start ended: delay-based) keeps its group through an interval with
    a single data packet (ant_max_pkts or fewer: many flows, a short RTT), and after it. Only a
    flow still in slow start becomes an ant; the rule used to apply to every flow, so long-lived
    flows flapped to ant and back at high flow counts (issue 14, defect 5)."""

    def runTest(self):
        mouse, delay0 = self.group_id("mouse"), self.group_id("delay", 0)
        self.setup_path(self.ports[1])
        self.open_flow(K.Flow(0, 1, 43050))
        self.run_intervals([2, 8, 16, 8, 1, 8, 1], [mouse, mouse, mouse, delay0, delay0, delay0],
                           "4, 8, 16, 8, then 1 and 8 packets")
        self.finish(delay0)


class _SlowStartByBdp(_Classify):
    """A mouse with 4, 4, then 8 packets per interval, the port's fair rate between the rates of
    4 and 8 packets per RTT (the switch's measured RTT; 8 packets is 19 units = ~5 rate bins
    above 4): the third interval reaches the fair BDP, which ends slow start (delay-based)."""
    SS_DROP = None

    def check_bdp_end(self):
        mouse, delay0 = self.group_id("mouse"), self.group_id("delay", 0)
        out = self.ports[1]
        self.setup_path(out)
        f = K.Flow(0, 1, 43003 + self.SS_DROP)
        self.open_flow(f)
        # the interval rate in 1/4 bins: log10(kbit/s / rate_min) * 4 * steps_per_decade
        t = self.params["tvf"]
        fine = lambda nbytes: 4 * t["steps_per_decade"] * math.log10(
            nbytes * 8 / (self.rtt * UNIT_S) / 1000 / t["rate_min_kbps"])
        fair_bin = int((fine(8 * IP_BYTES) - 3) // 4)  # 3..7 units below 8 packets, 12+ above 4
        self.assertGreater(fair_bin * 4, fine(4 * IP_BYTES) + 8)
        self.egress_cfg(out, modify=True, m_m=OFF, fair_rate_bin=fair_bin, ss_drop=self.SS_DROP)
        d0 = self.pg_packets(DROPS, out)
        self.run_intervals([2, 4, 8, 1], [mouse, mouse, delay0], "4, 4, 8 packets, fair rate bin %d" % fair_bin)
        lost = self.finish(delay0)
        self.assertEqual(self.pg_packets(DROPS, out) - d0, self.SS_DROP)
        ender = self.sent[-1]  # the first packet after the third interval
        self.assertEqual(lost, [ender] if self.SS_DROP else [], "packets lost (seq); the interval ender is %d" % ender)


@group("classify")
class SlowStartEndsAtFairBdpWithOneDrop(_SlowStartByBdp):
    """With ss_drop on, the mouse reaching its fair BDP becomes delay-based and loses exactly
    one packet on purpose: the one whose egress ended that interval (counted in pg_drops)."""
    SS_DROP = 1

    def runTest(self):
        self.check_bdp_end()


@group("classify")
class SlowStartEndsAtFairBdpNoDropWhenDisabled(_SlowStartByBdp):
    """With ss_drop off the mouse still becomes delay-based at its fair BDP, and every packet
    comes out."""
    SS_DROP = 0

    def runTest(self):
        self.check_bdp_end()


@group("classify")
class LongLivedFlowsStartDelayBased(_Classify):
    """P4air: long-lived flows start delay-based. A mouse retransmits in every interval of its
    slow start (the last new segment of each burst again after it: 4 (the ACK, 2 new, 1), 9, 17
    packets), and the interval that ends slow start (9 packets after 17: a rate fall) has one
    too, which is the back-off the loss-based rule counts (a fall in an interval with a
    retransmission, D11, D16) met at an end queued as a mouse. The flow leaves slow start
    delay-based, flow_family 0 after every end (read here: since D16 one counted back-off would
    be 1, still delay 0, so the group alone no longer shows it): a mouse's interval end clears the
    family, only ends queued as long-lived decide it (the queue-growth rule before it counted in slow start too: issue 14, defect 3).
    m_m is off: the loss-ignoring count's like rule is RetransmissionsInSlowStartNotCounted's."""

    def runTest(self):
        if self.params["classifier"]["fall_shift"] < 2:
            self.skip_visibly("written for classifier.fall_shift >= 2 (17 -> 9 packets a fall)")
        mouse, delay0 = self.group_id("mouse"), self.group_id("delay", 0)
        self.setup_path(self.ports[1])
        fid = self.open_flow(K.Flow(0, 1, 43060))
        new = [2, 8, 16, 8, 1]                      # the last burst only ends the fourth interval
        want = [mouse] * 3 + [delay0]
        groups, family = [], []
        for i, n in enumerate(new):
            groups += self.intervals([n], want[len(groups):len(groups) + 1], [1 if i < len(new) - 1 else 0])
            if i:                                   # burst i's first packet ended interval i
                family.append(self.read_register(FAMILY, fid))
        self.assert_groups(groups, want, "4, 9, 17, then 9 packets, a retransmission in each interval")
        self.finish(delay0)
        self.assertEqual(family, [0] * 4, "flow_family after each interval end")


class _LossIgnoring(_Classify):
    """Helpers for the loss-ignoring count (egress flow_ignore) beside the retransmission run
    (ingress flow_retx hi, the run at the last interval end). Slow start first: 3 (the ACK and 2), 8, 16, 8
    packets; the fall ends it (delay-based), and the ends of a mouse's intervals clear the count.
    Then the bursts under test, 1000-byte packets, one interval each."""

    def slow_start(self, sport, **egress):
        mouse = self.group_id("mouse")
        self.setup_path(self.ports[1], **egress)
        self.open_flow(K.Flow(0, 1, sport))
        self.run_intervals([2, 8, 16, 8], [mouse] * 3, "3, 8, 16 packets")

    def each_interval(self, new, retx, want, reg=None):
        """Bursts of new[i] new segments and retx[i] retransmissions of the last (one interval
        each; the first ends slow start's last, 8 packets), then one packet that ends the last
        interval: the group and register `reg` after each interval end; without `reg`, [run,
        count] = [flow_retx hi, flow_ignore]."""
        groups, regs = [], []
        for n, r in list(zip(new, retx)) + [(1, 0)]:
            groups += self.intervals([n], want[len(groups):len(groups) + 1], [r])
            regs.append(self.read_register(reg, self.fid) if reg else
                        [self.read_register(RETX, self.fid)[1], self.read_register(IGNORE, self.fid)])
        return groups, regs

    def runs(self, retx):
        """The run after each interval end: 0 at slow start's last (slow start here has no
        retransmission), then intervals in a row that had a retransmission."""
        out, run = [0], 0
        for r in retx:
            run = run + 1 if r else 0
            out.append(run)
        return out

    def sawtooth(self, sport, pairs, models, counts, **egress):
        """Slow start, then `pairs` times 28 and 18 packets and a last 28, each with a
        retransmission (27 or 17 new segments and one re-sent); the groups expected after the ends:
        delay 0 for four, loss 0 for three, then `models` times model-based; `counts` the
        [run, count] after every end."""
        delay0, loss0, model = self.group_id("delay", 0), self.group_id("loss", 0), self.group_id("hybrid", 1)
        c = self.params["classifier"]
        if c["retx_run"] != 3 or c["fall_shift"] < 2 or c["ignore_up"] != 2:
            self.skip_visibly("written for classifier.retx_run = 3, ignore_up = 2 and fall_shift >= 2 "
                              "(18 / 28 a fall)")
        self.slow_start(sport, **egress)
        new = [27, 17] * pairs + [27]
        want = [delay0] * 4 + [loss0] * 3 + [model] * models
        groups, ign = self.each_interval(new, [1] * len(new), want)
        self.assert_groups(groups, want, "slow start's last end, then %s packets, each with a retransmission%s"
                           % (", ".join(str(n + 1) for n in new), ", egress port_cfg %s" % egress if egress else ""))
        self.finish(model)
        self.assertEqual(ign, counts, "[run (flow_retx hi), count (flow_ignore)] after each interval end")


@group("classify")
class LossIgnoringMakesModelBased(_LossIgnoring):
    """A loss-ignoring interval is an interval end of a long-lived flow that retransmitted in
    classifier.retx_run (3) intervals in a row, ending with this one, and whose rate did not fall
    to 1 - 2^-classifier.fall_shift (x0.875) of the previous one: flow_ignore's count rises by
    classifier.ignore_up (2); the flow is model-based (hybrid 1) once the count reaches m_m (3
    here). After slow start, every interval holds 7 new segments and a retransmission of the last
    (8 packets: a flat rate): the run (flow_retx hi) is 1, 2, 3, 4 at the ends of these intervals,
    the count 0, 0, 2, 4, and the flow is delay-based until the fourth end, model-based exactly
    there. (The program before took BBR's up/down rate pattern for model-based evidence; a flat
    rate never was.)"""
    M_M = 3

    def runTest(self):
        delay0, model = self.group_id("delay", 0), self.group_id("hybrid", 1)
        run_len, up = self.params["classifier"]["retx_run"], self.params["classifier"]["ignore_up"]
        n = run_len - 1 + -(-self.M_M // up)           # retransmission intervals to a count >= m_m
        self.slow_start(43020)
        want = [delay0] * n + [model]
        groups, ign = self.each_interval([7] * n, [1] * n, want)
        self.assert_groups(groups, want, "slow start's last end, then %d intervals of 7 new segments and "
                           "a retransmission" % n)
        self.finish(model)
        runs = self.runs([1] * n)
        self.assertEqual(ign, [[r, up * max(0, r - run_len + 1)] for r in runs],
                         "[run (flow_retx hi), count (flow_ignore)] after each interval end")


@group("classify")
class SawtoothWithRetransmissionsCreepsUp(_LossIgnoring):
    """A flow that retransmits in every interval while its rate saws between 28 and 18 packets
    (27 or 17 new segments and a retransmission; 18 / 28 is a fall of 36 %, a fall for
    classifier.fall_shift 2 or more). Its run (flow_retx hi) grows 1..7; an interval whose rate
    fell is not loss-ignoring however long the run and takes one off the count (not below 0),
    each 28-packet interval from the third on adds classifier.ignore_up (2): the count goes 0, 0,
    2, 1, 3, 2, 4, up by one every two intervals (D15). The flow is loss-based (loss 0) from the
    end of its second 18-packet interval, the second fall in an interval with a retransmission
    (D11, D16, SecondLossBackoffMakesLossBased), and model-based (hybrid 1) where the count reaches m_m (4 here),
    at the seventh end: a flow that keeps losing in every interval is counted as ignoring its
    losses even though it backs off every other interval. (The program before D15 counted +1 and
    -1 and kept such a flow at 0, 1; the one before D10 counted this sawtooth as BwEst patterns,
    up then down, and made it model-based at the second.)"""
    M_M = 4

    def runTest(self):
        self.sawtooth(43021, 3, 1, [[0, 0], [1, 0], [2, 0], [3, 2], [4, 1], [5, 3], [6, 2], [7, 4]])


@group("classify")
class SawtoothOnIsolatedPortModelKeepsCountOnFall(_LossIgnoring):
    """SawtoothWithRetransmissionsCreepsUp's packets, two intervals longer, on a port with
    port_cfg family_forget = 1 (the controller sets it where the queue layout is isolated): there
    a flow queued model-based does not read the fall (D20: in its own queue BBR's rate falls with
    its probing and with the other queues' backlog), so its end with a run >= classifier.retx_run
    (3) adds ignore_up (2) whether the rate fell or not, while a flow queued in another group reads
    the fall as on any port. The count goes 0, 0, 0, 2, 1, 3, 2, 4 as there (the flow is delay- and
    then loss-based, D16, until the seventh end makes it model-based), then 6 at the eighth end (an
    18-packet interval, a fall, queued hybrid 1: kept model-based) and 8; on a port without
    family_forget 3 (loss 0 again) and 5."""
    M_M = 4

    def runTest(self):
        self.sawtooth(43029, 4, 3, [[0, 0], [1, 0], [2, 0], [3, 2], [4, 1], [5, 3], [6, 2], [7, 4], [8, 6], [9, 8]],
                      family_forget=1)


@group("classify")
class CleanIntervalsAndBackoffsTakeOneOff(_LossIgnoring):
    """The loss-ignoring count (D15) gains classifier.ignore_up (2) per loss-ignoring interval
    and loses one per interval end with a fall (a back-off) or without a retransmission. After
    slow start (8 packets), four intervals of 15 new segments and a retransmission (16 packets,
    flat): run 1, 2, 3, 4, count 0, 0, 2, 4 (m_m 5: delay-based); 16 new segments (no
    retransmission: 3); 7 new and a retransmission (8 packets, a fall in an interval with one:
    2; the flow's first back-off, flow_family 1, still delay 0, D16); 5 new (a fall without one:
    1). [run, count]
    (flow_retx hi, flow_ignore) after the ends: [0, 0], [1, 0], [2, 0], [3, 2], [4, 4], [0, 3],
    [1, 2], [0, 1]. The program before D15 added one per loss-ignoring interval and took one off
    only for a fall in an interval with a retransmission: [3, 1], [4, 2], [0, 2], [1, 1], [0, 1],
    so a flow that stopped losing kept its count (a Cubic or DCTCP flow counted model-based in
    its slow-start overshoot stayed so until its next back-off; docs/algorithm.md D15)."""
    M_M = 5

    def runTest(self):
        delay0 = self.group_id("delay", 0)
        c = self.params["classifier"]
        if c["retx_run"] != 3 or c["fall_shift"] < 2 or c["ignore_up"] != 2:
            self.skip_visibly("written for classifier.retx_run = 3, ignore_up = 2 and fall_shift >= 2 "
                              "(8 / 16 and 5 / 8 falls)")
        self.slow_start(43027)
        new, retx = [15, 15, 15, 15, 16, 7, 5], [1, 1, 1, 1, 0, 1, 0]
        want = [delay0] * 8
        groups, ign = self.each_interval(new, retx, want)
        self.assert_groups(groups, want, "slow start's last end, then 16, 16, 16, 16 packets with a "
                           "retransmission, 16 without, 8 with one, 5 without")
        self.finish(delay0)
        self.assertEqual(ign, [[0, 0], [1, 0], [2, 0], [3, 2], [4, 4], [0, 3], [1, 2], [0, 1]],
                         "[run (flow_retx hi), count (flow_ignore)] after each interval end")


@group("classify")
class ShortRetransmissionRunsNotCounted(_LossIgnoring):
    """Retransmissions in fewer than classifier.retx_run (3) intervals in a row make no
    loss-ignoring interval: with m_m = 1 (a single count makes the flow model-based), a flow at a
    flat 8 packets an interval after slow start (7 new segments and a retransmission, or 8 new)
    retransmits in 2 intervals, not in the next, in 2, not in the next: the run (flow_retx hi)
    goes 1, 2, 0, 1, 2, 0, the count stays 0 and the flow delay-based; then in 3 in a row:
    run 1, 2, 3, count classifier.ignore_up (2) at the third, and the flow is model-based exactly
    there."""
    M_M = 1

    def runTest(self):
        delay0, model = self.group_id("delay", 0), self.group_id("hybrid", 1)
        run_len, up = self.params["classifier"]["retx_run"], self.params["classifier"]["ignore_up"]
        self.slow_start(43022)
        retx = ([1] * (run_len - 1) + [0]) * 2 + [1] * run_len
        want = [delay0] * len(retx) + [model]
        groups, ign = self.each_interval([8 - r for r in retx], retx, want)
        self.assert_groups(groups, want, "slow start's last end, then 8 packets an interval, with a "
                           "retransmission in intervals %s" % retx)
        self.finish(model)
        runs = self.runs(retx)
        self.assertEqual(ign, [[r, 0] for r in runs[:-1]] + [[run_len, up]],
                         "[run (flow_retx hi), count (flow_ignore)] after each interval end")


@group("classify")
class RetransmissionsInSlowStartNotCounted(_LossIgnoring):
    """The loss-ignoring count starts only once the flow is long-lived, while its retransmission
    run counts from the start. With m_m = 1 (one count makes the flow model-based), a flow
    retransmits in every interval (a retransmission of the last new segment after each burst)
    through its slow start, 4 (the ACK, 2 new, 1), 5, 9, 17 packets, then 9 (the fall ends slow
    start) and 9, 9: the run (ingress flow_retx hi) is 1, 2, 3, 4, 5 at the ends of the intervals
    queued as mouse, past classifier.retx_run (3) from the third, yet every one of those ends
    clears flow_ignore (count 0) and the flow is a mouse, then delay-based at the
    fifth (the fall). The first end queued as long-lived (the sixth) sees the whole run, 6, no
    fall (9 packets after 9): count classifier.ignore_up (2), model-based (hybrid 1) exactly
    there; the seventh: run 7, count 4. (Counted as a mouse, the count would be 2, 4 at the third
    and fourth ends, and the
    flow would leave slow start model-based at the fifth.)"""
    M_M = 1

    def runTest(self):
        mouse, delay0, model = self.group_id("mouse"), self.group_id("delay", 0), self.group_id("hybrid", 1)
        if not 1 <= self.params["classifier"]["retx_run"] <= 5:
            self.skip_visibly("written for classifier.retx_run <= 5: a run a mouse reaches")
        self.setup_path(self.ports[1])
        self.open_flow(K.Flow(0, 1, 43023))
        new = [2, 4, 8, 16, 8, 8, 8, 1]             # the last burst only ends the seventh interval
        want = [mouse] * 4 + [delay0] + [model] * 2
        groups, ign, runs = [], [], []
        for i, n in enumerate(new):
            groups += self.intervals([n], want[len(groups):len(groups) + 1], [1 if i < len(new) - 1 else 0])
            if i:                                   # burst i's first packet ended interval i
                ign.append(self.read_register(IGNORE, self.fid))
                runs.append(self.read_register(RETX, self.fid)[1])
        self.assert_groups(groups, want, "4, 5, 9, 17, 9, 9, 9 packets, a retransmission in each interval")
        self.finish(model)
        self.assertEqual(runs, [1, 2, 3, 4, 5, 6, 7], "the retransmission run (flow_retx hi) after each interval end")
        up = self.params["classifier"]["ignore_up"]
        self.assertEqual(ign, [0] * 5 + [up, 2 * up], "flow_ignore (the count) after each interval end")


class _LossBackoff(_LossIgnoring):
    """The loss response (D11, D16): an interval end of a long-lived flow whose rate fell to x0.866
    or less of the previous interval's (classifier.fall_shift) in an interval with a
    retransmission (the flow backed off after a loss) adds one to flow_family, up to 2; the
    second makes it loss-based until it is a mouse again or restarts; any other end keeps the
    family. With no rtt_band entries (band 0) families 0 and 1 are delay 0, family 2 loss 0.
    Every test here backs off twice: on the program before D16 the first back-off already gave
    2 (loss 0). The program before D11 decided the family by queue growth (m_ld, m_pl intervals
    in a row whose maximum enqueue depth grew): these flows send into an unshaped port whose
    queue drains between bursts, where it never made a flow loss-based, so every test here,
    each of which ends loss-based, fails on it (run on BMv2 against it, at its default m_ld 4
    and m_pl 12: delay 0 at every end)."""

    def backoff(self, sport, new, retx, family):
        """Slow start, then bursts of new[i] new segments and retx[i] retransmissions (one interval
        each, then one packet that ends the last): flow_family after each interval end is
        `family`, and the group follows it."""
        if self.params["classifier"]["fall_shift"] < 2:
            self.skip_visibly("written for classifier.fall_shift >= 2 (16 -> 8 packets a fall)")
        g = {0: self.group_id("delay", 0), 1: self.group_id("delay", 0), 2: self.group_id("loss", 0)}
        want = [g[f] for f in family]
        self.slow_start(sport)
        groups, fam = self.each_interval(new, retx, want, reg=FAMILY)
        what = "slow start's last end, then %s packets, %s of them retransmissions" % (
            [n + r for n, r in zip(new, retx)], retx)
        self.assert_groups(groups, want, what)
        self.finish(want[-1])
        self.assertEqual(fam, family, "flow_family after each interval end (%s)" % what)


@group("classify")
class SecondLossBackoffMakesLossBased(_LossBackoff):
    """After slow start (its last interval of 8 packets ends it: delay 0) the flow sends 16
    packets (a rise), then 8 with a retransmission among them: the rate fell to half in an
    interval with a retransmission, the first back-off (flow_family 1, still delay 0; the
    program before D16 made it loss 0 here). 8 (flat) and 16 (a rise) keep it; 8 with a
    retransmission again is the second back-off: loss-based (flow_family 2, loss 0). The family
    is sticky: 8 packets (flat), 16 (a rise) and 8 again (a fall, without a retransmission)
    keep it loss-based. On the program before D11 (queue growth) the flow stayed delay 0
    (family 0) at every end here."""

    def runTest(self):
        self.backoff(43024, [16, 7, 8, 16, 7, 8, 16, 8], [0, 1, 0, 0, 1, 0, 0, 0], [0, 0, 1, 1, 1, 2, 2, 2, 2])


@group("classify")
class FallWithoutRetransmissionStaysDelay(_LossBackoff):
    """A rate fall alone is no loss response: after slow start, 16 packets, then 8 (a fall to half)
    without a retransmission keep the flow delay-based (flow_family 0, delay 0), and so does 16
    after it. The same fall with a retransmission (7 new segments and one again), twice, then
    makes it loss-based (flow_family 1, then 2, loss 0): the control that the falls here are
    seen as such; the program before D11 (queue growth) never made this flow loss-based, so the
    test fails there, and the program before D16 at the first of the two."""

    def runTest(self):
        self.backoff(43025, [16, 8, 16, 7, 16, 7], [0, 0, 0, 1, 0, 1], [0, 0, 0, 0, 1, 1, 2])


@group("classify")
class RetransmissionWithoutFallStaysDelay(_LossBackoff):
    """A retransmission alone is no loss response, nor a fall in the interval after one: after
    slow start, 16 packets with a retransmission (a rise), 16 with one (flat), then 8 without one
    (a fall, right after an interval with a retransmission) keep the flow delay-based
    (flow_family 0, delay 0): the fall and the retransmission must be in the same interval. 16
    (a rise), then 8 with a retransmission (a fall in an interval with one), twice, make it
    loss-based (flow_family 1, then 2, loss 0): the control, which fails on the program before
    D11 (queue growth), and before D16 at the first. The retransmission run (1, 2, 0, 0, 1, 0,
    1) stays below classifier.retx_run and m_m is off: no loss-ignoring count."""

    def runTest(self):
        self.backoff(43026, [15, 15, 8, 16, 7, 16, 7], [1, 1, 0, 0, 1, 0, 1], [0, 0, 0, 0, 0, 1, 1, 2])


@group("classify")
class RttBandSelectsSubgroup(_Classify):
    """rtt_band: with ranges [0, RTT/2] → band 0 and [RTT/2 + 1, 0xFFFFF] → band 1, a flow
    ending slow start (4, 8, 4 packets) is delay sub-group 1; when the controller swaps the
    ranges' bands, its next interval end makes it delay sub-group 0: the band is that of the
    range holding the flow's RTT."""

    def runTest(self):
        mouse, d0, d1 = self.group_id("mouse"), self.group_id("delay", 0), self.group_id("delay", 1)
        self.setup_path(self.ports[1])
        band, act = EG + ".classifier.rtt_band", EG + ".classifier.set_rtt_band"
        boundary = int(RTT_S / UNIT_S / 2)
        lo, hi = {"rtt_us": (0, boundary)}, {"rtt_us": (boundary + 1, 0xFFFFF)}
        self.insert(band, lo, act, {"band": 0}, priority=10)
        self.insert(band, hi, act, {"band": 1}, priority=10)
        self.open_flow(K.Flow(0, 1, 43030))
        self.assertGreater(self.rtt, boundary)
        what = "RTT %d units, boundary %d" % (self.rtt, boundary)
        self.run_intervals([2, 8, 4, 4], [mouse, mouse, d1], what)
        self.insert(band, lo, act, {"band": 1}, priority=10, modify=True)
        self.insert(band, hi, act, {"band": 0}, priority=10, modify=True)
        self.run_intervals([4, 1], [d0, d0], what + ", bands swapped")
        self.finish(d0)
