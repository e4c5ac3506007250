/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;

/**
 * Throughput-value functions over the data plane's logarithmic rate bins
 * (tvf.* in params/ccfair.json: bin i starts at rate_min * 10^(i / steps_per_decade)).
 *
 * <p>A curve is centred on a rate bin c (the port's fair rate): with
 * d = steps_per_decade and s a weight's shift,
 * PV(i) = clamp(floor(pv_max / 2) - trunc((i - c - s) * pv_max / (2 d)), 0, pv_max),
 * i.e. pv_max/2 at the centre falling pv_max/(2 d) per bin, saturating one
 * decade either side. This is the ns-3 model's TVF (eval/model/pipeline.cc,
 * Pipeline::SetFairRate; docs/eval-model.md tuning item 4): one CTV step
 * (aqm.ctv_step_up = 64 PV) is 1/32 of a bin, where a curve falling over all
 * 160 bins made it 1/6 of a bin and let the CTV cross a flow's PV range in one
 * RTT. A weight w shifts the curve right by s = d * log10(w) bins:
 * TVF_w(w * r) = TVF_1(r).</p>
 */
public final class Tvf {

    private final int steps;
    private final double stepsPerDecade;
    private final double rateMinKbps;
    private final int pvMax;

    /**
     * Creates the TVF generator from the shared parameters.
     *
     * @param params shared parameters
     */
    public Tvf(CcfairParams params) {
        this((int) params.integer("tvf", "rate_steps"), params.real("tvf", "steps_per_decade"),
             params.real("tvf", "rate_min_kbps"), (int) params.integer("tvf", "pv_max"));
    }

    Tvf(int steps, double stepsPerDecade, double rateMinKbps, int pvMax) {
        this.steps = steps;
        this.stepsPerDecade = stepsPerDecade;
        this.rateMinKbps = rateMinKbps;
        this.pvMax = pvMax;
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
     * A centred TVF.
     *
     * @param centreBin rate bin that gets pv_max / 2 (before the shift)
     * @param shift     weight shift in bins ({@link #shiftOf})
     * @return packet value per rate bin
     */
    public int[] curve(int centreBin, double shift) {
        int[] pv = new int[steps];
        int half = pvMax / 2;
        double slope = pvMax / (2 * stepsPerDecade);
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
