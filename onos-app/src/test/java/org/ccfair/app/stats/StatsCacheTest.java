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
import static org.junit.Assert.assertTrue;

/**
 * Active flows per port from the latest reading, for the compiler.
 */
public class StatsCacheTest {

    private static Map<Long, List<GroupStats>> reading(long flows, long pkts) {
        return Map.of(7L, List.of(new GroupStats(0, 0, 0, 0, 0, 0), new GroupStats(4, flows, pkts, 1500 * pkts, 0, 0),
                                  new GroupStats(9, 2, 10, 15_000, 0, 0)));
    }

    @Test
    public void snapshotHoldsTheLatestActiveFlows() {
        StatsCache c = new StatsCache();
        assertNull("never read", c.snapshot(8).flows("d", 7));
        c.update("d", reading(3, 1000));
        StatsSnapshot s = c.snapshot(8);
        // Group 9 is beyond the 8 groups asked for: left out.
        assertArrayEquals(new int[]{0, 0, 0, 0, 3, 0, 0, 0}, s.flows("d", 7));
        assertNull("a port the switch did not report", s.flows("d", 8));
        c.update("d", reading(1, 3000));
        assertArrayEquals(new int[]{0, 0, 0, 0, 1, 0, 0, 0}, c.snapshot(8).flows("d", 7));
        assertEquals(3000, c.device("d").get(7L).get(1).packets());
        // A negative count (more flows left than entered were seen) reads as none.
        c.update("d", reading(-2, 3000));
        assertArrayEquals(new int[]{0, 0, 0, 0, 0, 0, 0, 0}, c.snapshot(8).flows("d", 7));
    }

    @Test
    public void removeForgetsTheDevice() {
        StatsCache c = new StatsCache();
        c.update("d", reading(3, 1000));
        c.update("e", reading(5, 1000));
        c.remove("d");
        assertNull(c.snapshot(8).flows("d", 7));
        assertTrue(c.device("d").isEmpty());
        assertEquals(5, c.snapshot(8).flows("e", 7)[4]);
    }
}
