/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;

/**
 * Throughput-value functions over the data plane's logarithmic rate bins
 * (tvf.* in params/ccfair.json: bin i starts at rate_min * 10^(i / steps_per_decade)).
 *
 * <p>The base function falls linearly in log(rate) from pv_max at bin 0 to
 * pv_max / steps at the last bin, so it is strictly decreasing and never 0
 * (PV 0 would be dropped by any CTV). A weight w shifts it right by
 * steps_per_decade * log10(w) bins: TVF_w(w * r) = TVF_1(r). Under one
 * congestion threshold every flow then keeps the rate where its TVF meets
 * the threshold, i.e. rates proportional to weight, summing to the capacity
 * the AQM drives the threshold to.</p>
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
     * The TVF for one weight.
     *
     * @param weight relative weight (1 = base function)
     * @return packet value per rate bin
     */
    public int[] curve(double weight) {
        double shift = stepsPerDecade * Math.log10(weight);
        int[] pv = new int[steps];
        for (int i = 0; i < steps; i++) {
            pv[i] = base(i - shift);
        }
        return pv;
    }

    private int base(double x) {
        double v = pvMax * (steps - x) / steps;
        return (int) Math.max(1, Math.min(pvMax, Math.round(v)));
    }
}
