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
    public void timedReadingsGiveEachGroupsForwardedBits() {
        StatsCache c = new StatsCache();
        c.update("d", reading(3, 1000), 10_000);
        assertNull("one reading: no window yet", c.snapshot(8).forwarded("d", 7));
        // group 4: 2000 more packets of 1500 B, none dropped, over 2 s
        c.update("d", reading(3, 3000), 12_000);
        StatsSnapshot.Window w = c.snapshot(8).forwarded("d", 7);
        assertEquals(2.0, w.seconds(), 1e-12);
        assertEquals(8.0 * 1500 * 2000, w.bits()[4], 1e-6);
        assertEquals("group 0 sent nothing", 0.0, w.bits()[0], 0);
        assertEquals("no drop or mark in the window", 0, w.signalled()[4]);
        assertEquals("a snapshot without a new reading repeats the window's reading id", w.reading(),
                     c.snapshot(8).forwarded("d", 7).reading());
        c.update("d", reading(3, 4000), 13_000);
        assertTrue("a new reading, a new id", c.snapshot(8).forwarded("d", 7).reading() != w.reading());
        // an untimed reading has no window
        c.update("d", reading(3, 5000));
        assertNull(c.snapshot(8).forwarded("d", 7));
    }

    @Test
    public void aReadingSoonerThanTheMinimumWindowLeavesTheWindowOpen() {
        StatsCache c = new StatsCache(500);
        c.update("d", reading(3, 1000), 10_000);
        c.update("d", reading(3, 3000), 11_000);
        StatsSnapshot.Window w = c.snapshot(8).forwarded("d", 7);
        assertEquals(1.0, w.seconds(), 1e-12);
        // an event-triggered round 100 ms later: flows are the new reading's, the window the old one
        c.update("d", reading(4, 3200), 11_100);
        assertEquals(4, c.snapshot(8).flows("d", 7)[4]);
        assertEquals(w.reading(), c.snapshot(8).forwarded("d", 7).reading());
        // the next reading 600 ms after the window's start closes a window of 0.6 s from it
        c.update("d", reading(4, 4000), 11_600);
        StatsSnapshot.Window w2 = c.snapshot(8).forwarded("d", 7);
        assertEquals(0.6, w2.seconds(), 1e-12);
        assertEquals(8.0 * 1500 * 1000, w2.bits()[4], 1e-6);
        assertEquals("forwarded packets, every group", 1000, w2.packets());
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
