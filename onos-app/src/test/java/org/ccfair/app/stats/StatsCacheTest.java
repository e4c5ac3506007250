/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.stats;

import org.ccfair.app.compute.StatsSnapshot;
import org.junit.Test;

import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

/**
 * Per-group rates from consecutive readings, for the fair rate.
 */
public class StatsCacheTest {

    private static Map<Long, List<GroupStats>> reading(long pkts, long bytes, long drops) {
        return Map.of(7L, List.of(new GroupStats(0, 0, 0, 0, 0, 0), new GroupStats(4, 3, pkts, bytes, drops, 0)));
    }

    @Test
    public void ratesNeedTwoReadingsAndCountOnlyWhatWasForwarded() {
        StatsCache c = new StatsCache();
        c.update("d", reading(1000, 1_000_000, 0), 10_000);
        StatsSnapshot s = c.snapshot(8);
        assertNull("one reading gives no rate", s.sentKbps("d", 7));
        assertArrayEquals(new int[]{0, 0, 0, 0, 3, 0, 0, 0}, s.flows("d", 7));
        // 2000 packets, 1.25 MB and 200 drops more in 2 s: 90 % of 10 Mbit/s forwarded.
        c.update("d", reading(3000, 2_250_000, 200), 12_000);
        double[] r = c.snapshot(8).sentKbps("d", 7);
        assertEquals(0.0, r[0], 1e-9);
        assertEquals(4500.0, r[4], 1e-9);
        assertEquals(-1.0, r[5], 1e-9);   // a group the switch did not report: unknown
        assertNull(c.snapshot(8).sentKbps("d", 8));
    }

    @Test
    public void aCounterResetGivesNoRate() {
        StatsCache c = new StatsCache();
        c.update("d", reading(3000, 2_250_000, 200), 10_000);
        c.update("d", reading(10, 15_000, 0), 11_000);
        assertNull(c.snapshot(8).sentKbps("d", 7));
        c.remove("d");
        assertNull(c.snapshot(8).flows("d", 7));
    }
}
