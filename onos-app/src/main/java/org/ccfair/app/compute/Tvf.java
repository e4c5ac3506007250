/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;

/**
 * Throughput-value functions over the data plane's logarithmic rate bins
 * (tvf.* in params/ccfair.json: bin i starts at rate_min * 10^(i / steps_per_decade)).
 *
 * <p>Every curve of the fabric is on one scale (docs/algorithm.md D22): with
 * d = steps_per_decade, h = half_span_decades, C = the bin of tvf.centre_kbps
 * and s a curve's shift,
 * PV(i) = clamp(floor(pv_max / 2) - trunc((i - C - s) * (pv_max + 1) / (2 d h)), 0, pv_max),
 * i.e. pv_max/2 at C falling (pv_max + 1)/(2 d h) per bin (512 with the
 * defaults, so that bin C - d h is pv_max itself), saturating h decades
 * either side. A PV that one switch's marker wrote thus means the same rate
 * at every switch its packet crosses, whose CTV range (read at its own
 * port's fair bin) it meets. The AQM's steps (aqm.ctv_step_up / _down) are 1/32 of a
 * bin's PV, as they were when each port centred its curves on its own fair bin
 * one decade either side. A weight w shifts the curve right by
 * s = d * log10(w) bins: TVF_w(w * r) = TVF_1(r).</p>
 */
public final class Tvf {

    private final int steps;
    private final double stepsPerDecade;
    private final double rateMinKbps;
    private final int pvMax;
    private final double halfSpanDecades;
    private final int scaleBin;

    /**
     * Creates the TVF generator from the shared parameters.
     *
     * @param params shared parameters
     */
    public Tvf(CcfairParams params) {
        this((int) params.integer("tvf", "rate_steps"), params.real("tvf", "steps_per_decade"),
             params.real("tvf", "rate_min_kbps"), (int) params.integer("tvf", "pv_max"),
             params.real("tvf", "half_span_decades"), params.real("tvf", "centre_kbps"));
    }

    Tvf(int steps, double stepsPerDecade, double rateMinKbps, int pvMax, double halfSpanDecades,
        double centreKbps) {
        this.steps = steps;
        this.stepsPerDecade = stepsPerDecade;
        this.rateMinKbps = rateMinKbps;
        this.pvMax = pvMax;
        this.halfSpanDecades = halfSpanDecades;
        this.scaleBin = binOf(centreKbps);
    }

    /**
     * The bin every curve of the fabric is centred on (tvf.centre_kbps's).
     *
     * @return bin index
     */
    public int scaleBin() {
        return scaleBin;
    }

    /**
     * Number of rate bins.
     *
     * @return bins
     */
    public int steps() {
        return steps;
    }

    /**
     * Lower edge of a rate bin.
     *
     * @param bin bin index (may be steps for the upper edge of the last bin)
     * @return kbit/s
     */
    public double binStartKbps(int bin) {
        return rateMinKbps * Math.pow(10, bin / stepsPerDecade);
    }

    /**
     * Rate bin of a rate (may be below 0 or above the last bin; callers clamp).
     *
     * @param kbps rate
     * @return bin index
     */
    public int binOf(double kbps) {
        return (int) Math.floor(stepsPerDecade * Math.log10(kbps / rateMinKbps) + 1e-9);
    }

    /**
     * Shift of a weight's curve: steps_per_decade * log10(weight) bins.
     *
     * @param weight relative weight (1 = no shift)
     * @return bins (real)
     */
    public double shiftOf(double weight) {
        return stepsPerDecade * Math.log10(weight);
    }

    /**
     * A curve of the fabric's scale ({@link #scaleBin}).
     *
     * @param shift weight (and other) shift in bins ({@link #shiftOf})
     * @return packet value per rate bin
     */
    public int[] curve(double shift) {
        return curve(scaleBin, shift);
    }

    /**
     * A curve of this slope centred on any bin (tests; the compiler uses {@link #curve(double)}).
     *
     * @param centreBin rate bin that gets pv_max / 2 (before the shift)
     * @param shift     weight shift in bins ({@link #shiftOf})
     * @return packet value per rate bin
     */
    public int[] curve(int centreBin, double shift) {
        int[] pv = new int[steps];
        int half = pvMax / 2;
        double slope = (pvMax + 1) / (2 * stepsPerDecade * halfSpanDecades);
        for (int i = 0; i < steps; i++) {
            double v = (i - centreBin - shift) * slope;
            // Truncate toward zero as the model's integer division does; the nudge
            // keeps float noise in log10(w) from moving an exact multiple across.
            long t = (long) (v + Math.copySign(1e-6, v));
            pv[i] = (int) Math.max(0, Math.min(pvMax, half - t));
        }
        return pv;
    }

    /**
     * Largest packet value.
     *
     * @return tvf.pv_max
     */
    public int pvMax() {
        return pvMax;
    }
}
