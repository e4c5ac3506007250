/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.policy.FairnessIntent;
import org.junit.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The share correction's rule (docs/algorithm.md D13) and its place in the
 * compiler; the values a round gives are also held by the controller cases.
 */
public class ShareCorrectionTest {

    private static final CcfairParams P = CcfairParams.load();
    private final int groups = P.numGroups();
    private final int loss1 = P.groupId("loss", 1);
    private final int hyb1 = P.groupId("hybrid", 1);
    private final int delay0 = P.groupId("delay", 0);

    private double[] weights() {
        double[] w = new double[groups];
        for (int g = 0; g < groups; g++) {
            w[g] = P.familyOf(g) == null ? 0 : 1;
        }
        return w;
    }

    private int[] flows(int l, int h) {
        int[] f = new int[groups];
        f[loss1] = l;
        f[hyb1] = h;
        return f;
    }

    // a port's state after a round with these flows and no correction: its groups had flows
    // at the previous step, so they take part in the next
    private void primed(ShareCorrection s, String device, long port, int[] f) {
        s.set(device, port, new double[groups], f);
    }

    // a snapshot of port `port` of device "d" with one flow each in loss1 and hybrid1 and a new
    // window in which they forwarded 8 and 11.6 Mbit in 1 s (the step from 0: +-0.75 applied)
    private StatsSnapshot window(long port) {
        return StatsSnapshot.builder().port("d", port, flows(1, 1))
                .forwarded("d", port, bits(8e6, 11.6e6), sig(), 1).build();
    }

    // what compileDevice asks of a 20 Mbit/s port of device "d" seeing `f` in `snap`
    private double[] update(ShareCorrection s, StatsSnapshot snap, long port, int[] f) {
        return s.update("d", port, snap.round(), f, snap.forwarded("d", port), 20, weights());
    }

    // both groups dropped or marked 3 packets in the round
    private long[] sig() {
        return java.util.Arrays.stream(flows(3, 3)).asLongStream().toArray();
    }

    private double[] bits(double l, double h) {
        double[] b = new double[groups];
        b[loss1] = l;
        b[hyb1] = h;
        return b;
    }

    @Test
    public void aRoundStepsAtMostStepBinsAndStaysWithinMaxBins() {
        ShareCorrection s = new ShareCorrection(P);
        double step = P.real("controller", "correction_step_bins");
        double max = P.real("controller", "correction_max_bins");
        double[] c = new double[groups];
        // hybrid1 forwards ~2000 x loss1's (utilisation 0.98): errors of tens of bins, one
        // round moves each by step_bins; rounds go on until max_bins holds them
        for (int round = 1; round <= 4; round++) {
            s.step(c, flows(1, 1), flows(1, 1), bits(1e4, 19.5e6), sig(), 0, 1, 20e6, weights());
            assertEquals("round " + round, Math.min(max, round * step), c[loss1], 1e-12);
            assertEquals(-Math.min(max, round * step), c[hyb1], 1e-12);
        }
    }

    @Test
    public void recentredToAFlowWeightedMeanOfZero() {
        ShareCorrection s = new ShareCorrection(P);
        double[] c = new double[groups];
        s.step(c, flows(3, 1), flows(3, 1), bits(12e6, 7.6e6), sig(), 0, 1, 20e6, weights());
        assertEquals(0.0, 3 * c[loss1] + c[hyb1], 1e-12);
        assertTrue("the group above its per-flow share goes down", c[hyb1] < 0);
    }

    @Test
    public void groupsWithoutFlowsGoToZeroAndAnIdleLinkReleases() {
        ShareCorrection s = new ShareCorrection(P);
        double[] c = new double[groups];
        double r = P.real("controller", "correction_release");
        c[loss1] = 2;
        c[hyb1] = -2;
        c[delay0] = 1.5; // no flows left
        s.step(c, flows(1, 1), flows(1, 1), bits(5e6, 5e6), sig(), 0, 1, 20e6, weights()); // utilisation 0.5
        assertEquals(0.0, c[delay0], 0);
        assertEquals(2 * r, c[loss1], 1e-12);
        assertEquals(-2 * r, c[hyb1], 1e-12);
        // the window counts: 19.6 Mbit over 2 s of a 20 Mbit/s port is utilisation 0.49
        s.step(c, flows(1, 1), flows(1, 1), bits(9.8e6, 9.8e6), sig(), 0, 2, 20e6, weights());
        assertEquals(2 * r * r, c[loss1], 1e-12);
    }

    @Test
    public void aGroupTheAqmDidNotSignalDecaysAndTakesNoPart() {
        ShareCorrection s = new ShareCorrection(P);
        double[] c = new double[groups];
        c[delay0] = 0.25;
        int[] f = flows(1, 1);
        f[delay0] = 1; // application-limited: far below its share, never dropped or marked
        double[] b = bits(7e6, 11e6);
        b[delay0] = 1.6e6;
        s.step(c, f, f, b, sig(), 0, 1, 20e6, weights());
        assertEquals("decays", 0.25 * P.real("controller", "correction_release"), c[delay0], 1e-12);
        assertTrue("the signalled group below its share goes up", c[loss1] > 0);
        assertTrue(c[hyb1] < 0);
        assertEquals("flow-weighted sum over every group with flows", 0.0, c[delay0] + c[loss1] + c[hyb1], 1e-12);
    }

    @Test
    public void oneStepPerSnapshotRoundAndQuarterBinSteps() {
        ShareCorrection s = new ShareCorrection(P);
        StatsSnapshot snap = window(1);
        StatsSnapshot first = window(3);
        assertNull("a port's first window: no group had flows before, none takes part",
                   update(s, first, 3, flows(1, 1)));
        primed(s, "d", 1, flows(1, 1));
        double[] a = update(s, snap, 1, flows(1, 1));
        double[] b = update(s, snap, 1, flows(1, 1));
        assertEquals(0.75, a[loss1], 0);
        assertArrayEquals("the same round read twice steps once", a, b, 0);
        assertNull("no window, no step, nothing to apply",
                   s.update("d", 2, snap.round(), flows(1, 1), null, 20, weights()));
    }

    @Test
    public void aWindowRepeatedInALaterSnapshotIsNotSteppedAgain() {
        // A device whose read failed (or that this node no longer reads) keeps its last
        // window in the cache, so later snapshots repeat it: it must not step again.
        ShareCorrection s = new ShareCorrection(P);
        primed(s, "d", 1, flows(1, 1));
        long reading = StatsSnapshot.newReading();
        for (int round = 1; round <= 3; round++) {
            StatsSnapshot snap = StatsSnapshot.builder().port("d", 1, flows(1, 1))
                    .forwarded("d", 1, bits(8e6, 11.6e6), sig(), 0, 1, reading).build();
            double[] a = update(s, snap, 1, flows(1, 1));
            assertEquals("round " + round + " repeats the window of round 1", 0.75, a[loss1], 0);
        }
        // A new reading with the same rates steps again: 0.6455 + 0.7051 = 1.3506 and
        // -0.6455 - 0.5859 = -1.2314, re-centred by 0.0596: +-1.2910, applied +-1.25.
        StatsSnapshot snap = window(1);
        double[] a = update(s, snap, 1, flows(1, 1));
        assertEquals(1.25, a[loss1], 0);
        assertEquals(-1.25, a[hyb1], 0);
    }

    @Test
    public void theFlowsBeforeAreThoseOfTheLastWindowSteppedOn() {
        // Each step keeps the flows it saw; a round that does not step (an event-triggered
        // round repeating the window, a round without a window) leaves them, as the model's
        // ticks between two recompute periods leave m_corrPrevFlows.
        ShareCorrection s = new ShareCorrection(P);
        primed(s, "d", 1, flows(1, 0));
        StatsSnapshot w1 = window(1);
        assertNull("hybrid1 has just filled: loss1 alone takes part, its error is 0",
                   update(s, w1, 1, flows(1, 1)));
        // an event-triggered round that sees hybrid1 empty, on the same window: no step
        StatsSnapshot ev = StatsSnapshot.builder().putAll(w1).port("d", 1, flows(1, 0)).build();
        assertNull(update(s, ev, 1, flows(1, 0)));
        // and a round without a window (no step either)
        StatsSnapshot none = StatsSnapshot.builder().port("d", 1, flows(1, 0)).build();
        assertNull(update(s, none, 1, flows(1, 0)));
        // the next window: both had flows at the last step (w1), both take part (0.75, as in
        // oneStepPerSnapshotRoundAndQuarterBinSteps)
        StatsSnapshot w2 = window(1);
        double[] a = update(s, w2, 1, flows(1, 1));
        assertEquals(0.75, a[loss1], 0);
        assertEquals(-0.75, a[hyb1], 0);
    }

    @Test
    public void theUtilisationGateCountsEachForwardedFramesOverhead() {
        // 18.4 Mbit over 1 s of a 20 Mbit/s port is 0.92 < correction_min_util 0.93: released;
        // its 1600 frames took 24 B more each on the wire: 18.707 Mbit, 0.935, so it
        // steps: reference 9.2 Mbit/s, loss1 16 log10(7.6/9.2) = -1.3276 bins, hybrid1 +1.1142;
        // 0 - 0.5 x error: +0.6638, -0.5571; re-centred by 0.0534: +-0.6104, applied +-0.5
        assertEquals("the derivation assumes 24 B", 24, P.integer("controller", "correction_frame_overhead_bytes"));
        assertEquals("the derivation assumes 0.93", 0.93, P.real("controller", "correction_min_util"), 0);
        ShareCorrection s = new ShareCorrection(P);
        primed(s, "d", 1, flows(1, 1));
        primed(s, "d", 2, flows(1, 1));
        StatsSnapshot snap = StatsSnapshot.builder().port("d", 1, flows(1, 1)).port("d", 2, flows(1, 1))
                .forwarded("d", 1, bits(7.6e6, 10.8e6), sig(), 0, 1, StatsSnapshot.newReading())
                .forwarded("d", 2, bits(7.6e6, 10.8e6), sig(), 1600, 1, StatsSnapshot.newReading()).build();
        assertNull("without frames: released", update(s, snap, 1, flows(1, 1)));
        double[] a = update(s, snap, 2, flows(1, 1));
        assertEquals(0.5, a[loss1], 0);
        assertEquals(-0.5, a[hyb1], 0);
    }

    @Test
    public void aForgottenCorrectionRestartsFromZeroButKeepsItsWindowAndFlows() {
        ShareCorrection s = new ShareCorrection(P);
        primed(s, "d", 1, flows(1, 1));
        StatsSnapshot w1 = window(1);
        assertEquals(0.75, update(s, w1, 1, flows(1, 1))[loss1], 0);
        s.forget("d", 1);
        assertArrayEquals(new double[groups], s.current("d", 1), 0);
        // the next window steps from 0 with both groups taking part (they had flows at w1)
        StatsSnapshot w2 = window(1);
        assertEquals(0.75, update(s, w2, 1, flows(1, 1))[loss1], 0);
    }

    /**
     * Every curve is on the fabric's scale (docs/algorithm.md D22): uncorrected
     * ports share one profile whatever their fair rates, so the budget counts
     * curve sets only. Ports 1-3 at three fair rates and no window share the
     * per-flow profile; ports 4 and 5 each have a correction and a profile of
     * their own: 3 profiles of 4, nothing dropped. Each port's range is still
     * read at its own bin.
     */
    @Test
    public void uncorrectedPortsShareOneProfileWhateverTheirFairRates() {
        PolicyCompiler c = new PolicyCompiler(P);
        int budget = c.profileBudget();
        assertEquals("the derivation below assumes a budget of 4 profiles", 4, budget);
        FabricView.Builder fb = FabricView.builder();
        StatsSnapshot.Builder sb = StatsSnapshot.builder();
        int[][] f = {null, flows(2, 1), flows(3, 2), flows(1, 1), flows(1, 1), flows(1, 1)};
        for (int i = 1; i <= 5; i++) {
            fb.port("device:s1", i, PortRole.EDGE, 20);
            sb.port("device:s1", i, f[i]);
        }
        sb.forwarded("device:s1", 4, bits(9.2e6, 10.4e6), sig(), 1);
        sb.forwarded("device:s1", 5, bits(8e6, 11.6e6), sig(), 1);
        primed(c.correction(), "device:s1", 4, f[4]);
        primed(c.correction(), "device:s1", 5, f[5]);
        DevicePolicy d = c.compile(fb.build(), List.<FairnessIntent>of(), sb.build(), Map.of()).get("device:s1");
        Set<Integer> ids = new HashSet<>();
        for (int i = 1; i <= 5; i++) {
            ids.add(d.port(i).tvfProfileId());
        }
        assertEquals(3, ids.size());
        assertEquals(d.port(1).tvfProfileId(), d.port(2).tvfProfileId());
        assertEquals(d.port(1).tvfProfileId(), d.port(3).tvfProfileId());
        assertEquals("port 4 keeps its correction", 0.25, c.correction().current("device:s1", 4)[loss1], 0);
        assertEquals(0.75, c.correction().current("device:s1", 5)[loss1], 0);
    }

    /**
     * Corrected ports need curves of their own; with more than the device's TVF
     * profiles, the ports with the smallest corrections run uncorrected (and
     * restart from 0) so that the rest fit.
     */
    @Test
    public void correctedPortsBeyondTheProfileBudgetRunUncorrected() {
        PolicyCompiler c = new PolicyCompiler(P);
        int budget = c.profileBudget();
        assertEquals("the derivation below assumes a budget of 4 profiles", 4, budget);
        int ports = budget + 2;
        FabricView.Builder fb = FabricView.builder();
        StatsSnapshot.Builder sb = StatsSnapshot.builder();
        for (int i = 1; i <= ports; i++) {
            fb.port("device:s1", i, PortRole.EDGE, 20);
            sb.port("device:s1", i, flows(1, 1));
            // port i: loss1 forwards less the higher i, so the corrections grow with i
            sb.forwarded("device:s1", i, bits(9.8e6 - i * 0.6e6, 9.8e6 + i * 0.6e6), sig(), 1);
            primed(c.correction(), "device:s1", i, flows(1, 1));
        }
        DevicePolicy d = c.compile(fb.build(), List.<FairnessIntent>of(), sb.build(), Map.of()).get("device:s1");
        Set<Integer> ids = new HashSet<>();
        for (int i = 1; i <= ports; i++) {
            ids.add(d.port(i).tvfProfileId());
        }
        assertTrue(ids.size() + " profiles", ids.size() <= budget);
        // applied corrections by port: 0.25, 0.5, 0.75, 0.75, 1.0, 1.25 (ports 3 and 4 share
        // curves): 5 corrected curve sets; the smallest corrections (ports 1 and 2) were dropped,
        // they share the uncorrected curves, and 4 profiles remain
        assertArrayEquals(new double[groups], c.correction().current("device:s1", 1), 0);
        assertArrayEquals(new double[groups], c.correction().current("device:s1", 2), 0);
        assertEquals(d.port(1).tvfProfileId(), d.port(2).tvfProfileId());
        assertEquals(0.75, c.correction().current("device:s1", 3)[loss1], 0);
        assertEquals(d.port(3).tvfProfileId(), d.port(4).tvfProfileId());
        assertEquals(budget, ids.size());
        assertTrue("the largest correction is applied", c.correction().current("device:s1", ports)[loss1] > 0);
    }
}
