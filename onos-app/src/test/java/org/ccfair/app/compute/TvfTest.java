/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.junit.Test;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * Properties of the throughput-value functions.
 */
public class TvfTest {

    private static final CcfairParams P = CcfairParams.load();
    private final Tvf tvf = new Tvf(P);
    private final double binRatio = Math.pow(10, 1 / P.real("tvf", "steps_per_decade"));

    private final int pvMax = (int) P.integer("tvf", "pv_max");
    private final int spd = (int) P.real("tvf", "steps_per_decade");

    @Test
    public void monotoneNonIncreasingAndInRange() {
        for (int centre : new int[]{0, 48, 80, 159}) {
            for (double w : new double[]{0.01, 0.3, 1, 2, 7.5, 100}) {
                int[] c = tvf.curve(centre, tvf.shiftOf(w));
                assertEquals(P.integer("tvf", "rate_steps"), c.length);
                for (int i = 0; i < c.length; i++) {
                    assertTrue("PV >= 0", c[i] >= 0);
                    assertTrue("PV <= pv_max", c[i] <= pvMax);
                    if (i > 0) {
                        assertTrue("w=" + w + " bin " + i, c[i] <= c[i - 1]);
                    }
                }
            }
        }
    }

    /**
     * The fabric's one scale (D22): pv_max / 2 at tvf.centre_kbps's bin whatever the port,
     * (pv_max + 1) / (2 d h) = 512 PV a bin, h = tvf.half_span_decades decades either side
     * to the ends (bin C - d h is pv_max itself).
     */
    @Test
    public void theFabricsScaleHalfSpanDecadesEitherSide() {
        int h = (int) P.real("tvf", "half_span_decades");
        int c = tvf.scaleBin();
        assertEquals(tvf.binOf(P.real("tvf", "centre_kbps")), c);
        int[] base = tvf.curve(0);
        assertEquals(pvMax / 2, base[c]);
        for (int i = c - spd * h + 1; i < c + spd * h; i++) {
            assertTrue("strictly decreasing within h decades of the centre", base[i] < base[i - 1]);
            assertEquals("(pv_max + 1) / (2 d h) per bin", (pvMax + 1) / (2 * spd * h), base[i - 1] - base[i]);
        }
        assertEquals(pvMax, base[c - spd * h]);
        assertEquals(0, base[c + spd * h]);
        int[] heavy = tvf.curve(tvf.shiftOf(10));
        for (int i = spd; i < base.length; i++) {
            assertEquals("weight 10 shifts by one decade", base[i - spd], heavy[i]);
        }
    }

    /** Rate a flow keeps under threshold ctv: the top of the last bin whose PV is at least ctv. */
    private double rateAt(int[] curve, int ctv) {
        int last = -1;
        for (int i = 0; i < curve.length && curve[i] >= ctv; i++) {
            last = i;
        }
        return last < 0 ? 0 : tvf.binStartKbps(last + 1);
    }

    /**
     * Weighted flows sharing one bottleneck under one CTV: find the largest
     * CTV at which the flows' rates no longer fit, i.e. the CTV the AQM settles
     * at, and check the shares fill the capacity and follow the weights, each
     * to within one rate bin (the data plane's quantisation).
     */
    @Test
    public void weightsRespectedAndSharesFillCapacity() {
        double[] weights = {1, 2, 4, 0.5};
        double capacity = 1_000_000; // kbit/s
        int centre = tvf.binOf(capacity / 7.5); // the rate of weight 1 when the shares fill the capacity
        int[][] curves = new int[weights.length][];
        for (int i = 0; i < weights.length; i++) {
            curves[i] = tvf.curve(centre, tvf.shiftOf(weights[i]));
        }
        int ctv = 1;
        for (int v = 1; v <= P.integer("tvf", "pv_max"); v++) {
            double total = 0;
            for (int[] c : curves) {
                total += rateAt(c, v);
            }
            if (total <= capacity) {
                ctv = v;
                break;
            }
        }
        double total = 0;
        double[] r = new double[weights.length];
        for (int i = 0; i < weights.length; i++) {
            r[i] = rateAt(curves[i], ctv);
            total += r[i];
        }
        assertTrue("shares fit: " + total, total <= capacity);
        assertTrue("shares fill the capacity to within a bin: " + total, total * binRatio * binRatio >= capacity);
        for (int i = 1; i < weights.length; i++) {
            double ratio = (r[i] / r[0]) / (weights[i] / weights[0]);
            assertTrue("flow " + i + " share vs weight ratio " + ratio,
                       ratio <= binRatio + 1e-9 && ratio >= 1 / binRatio - 1e-9);
        }
    }

    @Test
    public void binEdges() {
        assertEquals(0, tvf.binOf(P.real("tvf", "rate_min_kbps")));
        assertEquals(16, tvf.binOf(10 * P.real("tvf", "rate_min_kbps")));
        assertEquals(P.real("tvf", "rate_min_kbps") * 10, tvf.binStartKbps(16), 1e-6);
    }
}
