/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The share correction (docs/algorithm.md D13): per port, a number of TVF bins
 * added to each long-lived group's curve shift, moved once per statistics
 * window (about a round, StatsCache) by how
 * far the group's forwarded rate per flow (per unit of weight) is from the
 * port's, so that a congestion control the PV law under- or over-serves (BBR
 * takes 1.35x Cubic's share in one queue; a weighted intent delivers 2.0 of an
 * asked 3.0) is brought to its share. The ns-3 model runs the same rule
 * (Pipeline::CorrectShares).
 *
 * <p>One step: every group without active flows goes to 0. When the port
 * forwarded less than controller.correction_min_util of its speed, every
 * correction is multiplied by controller.correction_release: the link has room,
 * and a group held below its share by a correction could use it. Otherwise
 * each group the AQM signalled in the window (a drop or an ECN mark) that also had
 * flows at the previous step (one that has just filled has no steady rate yet) moves
 * against its error, e = steps_per_decade x log10(x_g / x), x_g = its forwarded
 * bits / (flows x weight), x = the same over the groups taking part, by gain x e
 * (at most step_bins), within +-max_bins; the others' are multiplied by
 * correction_release (a group the AQM did not signal is held back by its own
 * demand or growth: a higher curve would not help it, an application-limited
 * group would take the whole positive correction, and a correction earned
 * while signalled must not outlive the signal); when no group takes part (or
 * those that do forwarded nothing), nothing moves this step, not even the
 * others' decay. Then the ones taking part are re-centred so that the
 * flow-weighted sum over every group with flows is 0: the correction moves
 * share between groups and never raises or lowers every curve against the
 * queue's CTV range. Applied in steps of correction_quantum_bins.</p>
 *
 * <p>Stepped by one {@link PolicyCompiler} (one round at a time); the policy
 * views read {@link #current} concurrently: each step is computed on a copy and
 * published whole (a volatile array), so a view sees one step's result (which
 * the round that computed it may still forget, or not have pushed yet).</p>
 */
public final class ShareCorrection {

    private final double gain;
    private final double stepBins;
    private final double maxBins;
    private final double minUtil;
    private final double release;
    private final double quantum;
    private final double frameOverheadBits;
    private final int stepsPerDecade;
    // concurrent: the REST and CLI views read it while a round steps it
    private final Map<String, Map<Long, State>> state = new ConcurrentHashMap<>();

    private static final class State {
        // replaced whole after each step (never changed in place), so that a view reads one
        // step's result
        volatile double[] corr;
        long round = -1;
        // the reading of the last window stepped on (StatsSnapshot.Window.reading)
        long reading = Long.MIN_VALUE;
        // each group's flows at the last step (a group without flows then takes no part)
        int[] prevFlows;

        State(int groups) {
            corr = new double[groups];
            prevFlows = new int[groups];
        }
    }

    /**
     * Creates the correction from controller.correction_* and tvf.steps_per_decade.
     *
     * @param params shared parameters
     */
    public ShareCorrection(CcfairParams params) {
        this.gain = params.real("controller", "correction_gain");
        this.stepBins = params.real("controller", "correction_step_bins");
        this.maxBins = params.real("controller", "correction_max_bins");
        this.minUtil = params.real("controller", "correction_min_util");
        this.release = params.real("controller", "correction_release");
        this.quantum = params.real("controller", "correction_quantum_bins");
        this.frameOverheadBits = 8.0 * params.integer("controller", "correction_frame_overhead_bytes");
        this.stepsPerDecade = (int) params.integer("tvf", "steps_per_decade");
        if (gain < 0 || stepBins < 0 || maxBins < 0 || release < 0 || release > 1 || quantum < 0
                || frameOverheadBits < 0) {
            throw new IllegalArgumentException("controller.correction_*: gain, step_bins, max_bins, quantum_bins and"
                                                       + " frame_overhead_bytes must be >= 0 and release in [0, 1]");
        }
    }

    /**
     * Steps a port's correction once for a snapshot round (a second call with
     * the same round only reads it) on a window it has not stepped on before
     * (a snapshot that repeats a device's last window, because its read failed
     * or this node no longer reads it, does not step it again), and returns it
     * as applied.
     *
     * @param deviceId  device id
     * @param port      port number
     * @param round     the statistics snapshot's round
     * @param flows     active flows per group, or null
     * @param window    what each group forwarded over the round's window, or null (no step)
     * @param speedMbps port speed
     * @param weight    per group its weight (0 for ants and mice: not long-lived)
     * @return the applied correction per group (bins), or null when every group's is 0
     */
    public double[] update(String deviceId, long port, long round, int[] flows, StatsSnapshot.Window window,
                           long speedMbps, double[] weight) {
        State s = state.computeIfAbsent(deviceId, d -> new ConcurrentHashMap<>())
                .computeIfAbsent(port, p -> new State(weight.length));
        if (s.round != round) {
            s.round = round;
            if (flows != null && window != null && speedMbps > 0 && window.reading() != s.reading) {
                s.reading = window.reading();
                // the utilisation gate counts each forwarded frame's overhead on the wire too
                double[] next = s.corr.clone();
                step(next, s.prevFlows, flows, window.bits(), window.signalled(),
                     window.packets() * frameOverheadBits, window.seconds(), speedMbps * 1e6, weight);
                s.corr = next;
                s.prevFlows = flows.clone();
            }
        }
        return applied(s.corr);
    }

    /**
     * A port's correction as applied now (without stepping it).
     *
     * @param deviceId device id
     * @param port     port number
     * @return per group, bins (0 for a port without state)
     */
    public double[] current(String deviceId, long port) {
        Map<Long, State> d = state.get(deviceId);
        State s = d == null ? null : d.get(port);
        if (s == null) {
            return new double[0];
        }
        double[] c = s.corr;
        double[] a = applied(c);
        return a == null ? new double[c.length] : a;
    }

    /**
     * Sets a port's correction (the state a controller case starts from).
     *
     * @param deviceId device id
     * @param port     port number
     * @param corr     per group, bins
     * @param prevFlows each group's flows at the previous step
     */
    public void set(String deviceId, long port, double[] corr, int[] prevFlows) {
        State s = state.computeIfAbsent(deviceId, d -> new ConcurrentHashMap<>())
                .computeIfAbsent(port, p -> new State(corr.length));
        double[] next = new double[s.corr.length];
        System.arraycopy(corr, 0, next, 0, Math.min(corr.length, next.length));
        s.corr = next;
        s.prevFlows = prevFlows.clone();
    }

    /**
     * Sets a port's correction back to 0 (its curves could not get a TVF
     * profile of their own). The rest of its state stays: the window it last
     * stepped on (a round that repeats it does not step it again) and each
     * group's flows then (the next window's groups with flows before take
     * part, as they would have).
     *
     * @param deviceId device id
     * @param port     port number
     */
    public void forget(String deviceId, long port) {
        Map<Long, State> d = state.get(deviceId);
        State s = d == null ? null : d.get(port);
        if (s != null) {
            s.corr = new double[s.corr.length];
        }
    }

    /**
     * Keeps the state of the given ports only.
     *
     * @param ports per device id still in the fabric, its port numbers
     */
    public void retain(Map<String, ? extends java.util.Set<Long>> ports) {
        state.keySet().retainAll(ports.keySet());
        state.forEach((d, m) -> m.keySet().retainAll(ports.get(d)));
    }

    /**
     * One step of the rule (class comment) on corr, in place.
     *
     * @param corr      per group, bins (in/out)
     * @param prevFlows active flows per group at the previous step
     * @param flows     active flows per group
     * @param bits      forwarded bits per group over the window
     * @param signalled packets dropped or marked per group over the window
     * @param wireBits  bits the port's frames took on the wire beyond the counted bytes
     *                  (utilisation gate only; 0 in the model and the controller cases)
     * @param seconds   the window
     * @param speedBps  port speed
     * @param weight    per group its weight; &gt; 0 marks a long-lived group
     */
    void step(double[] corr, int[] prevFlows, int[] flows, double[] bits, long[] signalled, double wireBits,
              double seconds, double speedBps, double[] weight) {
        int n = corr.length;
        double total = wireBits;
        for (int g = 0; g < n && g < bits.length; g++) {
            total += bits[g];
        }
        boolean[] part = new boolean[n];
        for (int g = 0; g < n; g++) {
            if (weight[g] <= 0 || flowsOf(flows, g) == 0) {
                corr[g] = 0; // not long-lived, or nothing to correct
            }
            // Only groups the AQM signalled in the window, with flows at the previous step too, take
            // part (one that has just filled has no steady rate yet); the others' decay.
            part[g] = weight[g] > 0 && flowsOf(flows, g) > 0 && flowsOf(prevFlows, g) > 0 && g < bits.length
                    && g < signalled.length && signalled[g] > 0;
        }
        if (gain <= 0 || seconds <= 0) {
            return;
        }
        if (total / (speedBps * seconds) < minUtil) {
            for (int g = 0; g < n; g++) {
                corr[g] *= release;
            }
            return;
        }
        double sf = 0;
        double sw = 0;
        for (int g = 0; g < n; g++) {
            if (part[g]) {
                sf += bits[g];
                sw += flowsOf(flows, g) * weight[g];
            }
        }
        if (sf <= 0 || sw <= 0) {
            return;
        }
        double ref = sf / sw;
        for (int g = 0; g < n; g++) {
            if (!part[g]) {
                corr[g] *= release; // not signalled: what it earned decays
                continue;
            }
            double x = Math.max(bits[g] / (flowsOf(flows, g) * weight[g]), ref / 1000.0);
            double err = stepsPerDecade * Math.log10(x / ref);
            double s = Math.max(-stepBins, Math.min(stepBins, gain * err));
            corr[g] = clamp(corr[g] - s);
        }
        // the signalled groups re-centred so that the flow-weighted sum over every
        // long-lived group with flows is 0
        double sumC = 0;
        double sumN = 0;
        for (int g = 0; g < n; g++) {
            if (weight[g] > 0 && flowsOf(flows, g) > 0) {
                sumC += flowsOf(flows, g) * corr[g];
            }
            if (part[g]) {
                sumN += flowsOf(flows, g);
            }
        }
        double mean = sumC / sumN;
        for (int g = 0; g < n; g++) {
            if (part[g]) {
                corr[g] = clamp(corr[g] - mean);
            }
        }
    }

    /**
     * A correction as applied: each group's in steps of correction_quantum_bins.
     *
     * @param corr per group, bins
     * @return the applied values, or null when all are 0
     */
    double[] applied(double[] corr) {
        double[] a = new double[corr.length];
        boolean any = false;
        for (int g = 0; g < corr.length; g++) {
            a[g] = quantum > 0 ? Math.floor(corr[g] / quantum + 0.5) * quantum : corr[g];
            any |= a[g] != 0;
        }
        return any ? a : null;
    }

    private double clamp(double v) {
        return Math.max(-maxBins, Math.min(maxBins, v));
    }

    private static int flowsOf(int[] flows, int g) {
        return flows == null || g >= flows.length ? 0 : Math.max(0, flows[g]);
    }
}
