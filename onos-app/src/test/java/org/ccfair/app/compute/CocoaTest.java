/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.junit.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

/**
 * The controller's Cocoa loop on synthetic counter readings: a 10 Gbit/s port,
 * one reading per second, queue 0 observed.
 */
public class CocoaTest {

    private static final CcfairParams P = CcfairParams.load();
    private static final String DEV = "device:leaf1";
    private static final long SPEED_MBPS = 10_000;
    private static final long CELL = P.integer("policy", "cell_bytes_tofino");
    private static final int INITIAL = (int) P.integer("cocoa", "initial_limit_pkts");
    private static final int MIN = (int) P.integer("cocoa", "min_limit_pkts");
    private static final int MAX = (int) P.integer("cocoa", "max_limit_pkts");
    private static final double MAX_INC = P.real("cocoa", "max_increase");
    private static final int BUCKETS = (int) P.integer("cocoa", "depth_hist_buckets");
    private static final long PKT = P.integer("policy", "buffer_pkt_bytes");

    private final Cocoa c = new Cocoa(P);

    /** Cumulative counters of one port and one of its queues (0 unless given), advanced a second at a time. */
    private final class Port {
        final int qid;
        long t = 1_000_000;
        long bytes;
        long pkts;
        long drops;
        long limitDrops;
        final long[] hist = new long[BUCKETS];

        Port() {
            this(0);
        }

        Port(int qid) {
            this.qid = qid;
        }

        /** One second: the link carried `util` of its capacity, the queue saw `bucket`, `full` limit drops. */
        void second(double util, int bucket, long full) {
            t += 1000;
            long b = (long) (util * SPEED_MBPS * 1e6 / 8);
            bytes += b;
            pkts += b / PKT;
            limitDrops += full;
            drops += full;
            if (bucket >= 0) {
                hist[bucket] += 1000;
            }
            List<GroupStats> gs = new ArrayList<>();
            gs.add(new GroupStats(0, 1, pkts + drops, bytes + drops * PKT, drops, 0));
            for (int g = 1; g < P.numGroups(); g++) {
                gs.add(new GroupStats(g, 0, 0, 0, 0, 0));
            }
            c.observe(DEV, 3, SPEED_MBPS, gs, List.of(new QueueStats(qid, limitDrops, hist, CELL)), INITIAL, t);
        }

        int limit() {
            return c.limits(DEV, 3, qid + 1, INITIAL)[qid];
        }
    }

    @Test
    public void noStateNoLimits() {
        assertNull(c.limits(DEV, 3, 4, INITIAL));
    }

    @Test
    public void fullQueueOnAnIdleLinkGrowsBoundedByMaxIncrease() {
        Port p = new Port();
        p.second(0.5, 2, 0);            // first reading: baseline only
        assertEquals(INITIAL, p.limit());
        p.second(0.8, 2, 10);           // full and 20 % idle: x 1/0.8
        assertEquals((int) Math.floor(INITIAL / 0.8), p.limit());
        int before = p.limit();
        p.second(0.2, 2, 10);           // 80 % idle would be x5: capped at max_increase
        assertEquals((int) Math.floor(before * MAX_INC), p.limit());
    }

    @Test
    public void fullQueueOnABusyLinkDoesNotGrow() {
        Port p = new Port();
        p.second(1.0, 4, 0);
        p.second(0.995, 4, 50);         // drops but the link was busy: the buffer is big enough
        assertEquals(INITIAL, p.limit());
    }

    @Test
    public void standingQueueShrinksByItsLowerBoundAtTheGuardInterval() {
        Port p = new Port();
        p.second(1.0, 3, 0);
        p.second(1.0, 3, 0);            // loss-free, never below bucket 3 for the first guard interval
        long standing = c.bucketLowCells(3) * CELL / PKT;
        assertTrue("the bucket bound is a real queue", standing > 0);
        assertEquals(INITIAL - standing, p.limit());
    }

    @Test
    public void queueThatDrainsDoesNotShrink() {
        Port p = new Port();
        p.second(0.9, 0, 0);
        p.second(0.9, 0, 0);            // bucket 0: it touched empty
        assertEquals(INITIAL, p.limit());
        p.second(0.1, -1, 0);           // no packet at all
        assertEquals(INITIAL, p.limit());
    }

    @Test
    public void limitsStayWithinBounds() {
        Port p = new Port();
        p.second(1.0, BUCKETS - 1, 0);
        for (int i = 0; i < 5; i++) {
            p.second(1.0, BUCKETS - 1, 0);   // huge standing queue every interval
        }
        assertEquals(MIN, p.limit());
        for (int i = 0; i < 40; i++) {
            p.second(0.3, 0, 5);              // full and idle, again and again
        }
        assertEquals(MAX, p.limit());
    }

    /**
     * D21: a floor (a delay group's own queue in the isolated layout) raises the
     * limit at once and stops the shrink of a standing queue there; without it
     * the same queue shrinks to cocoa.min_limit_pkts.
     */
    @Test
    public void aFloorRaisesTheLimitAndStopsTheShrink() {
        Port p = new Port();
        p.second(1.0, BUCKETS - 1, 0);
        int[] floors = {50, 0, 0, 0};
        int[] l = c.limits(DEV, 3, 4, INITIAL, floors);
        assertEquals(Math.max(INITIAL, 50), l[0]);
        assertEquals("no floor: as without", INITIAL, l[1]);
        for (int i = 0; i < 5; i++) {
            p.second(1.0, BUCKETS - 1, 0);   // huge standing queue every interval
        }
        assertEquals("the shrinks stop at the floor", 50, p.limit());
        int[] high = {INITIAL + 30, 0, 0, 0};
        assertEquals("a floor above the limit raises it", INITIAL + 30, c.limits(DEV, 3, 4, INITIAL, high)[0]);
        c.limits(DEV, 3, 4, INITIAL, null);   // the floor is gone (the group moved, or shared)
        p.second(1.0, BUCKETS - 1, 0);
        assertEquals(MIN, p.limit());
        assertEquals("capped at cocoa.max_limit_pkts", MAX, c.limits(DEV, 3, 4, INITIAL, new int[]{MAX + 1})[0]);
        assertArrayEquals("a port without state: the initial limit or the floor",
                          new int[]{INITIAL, INITIAL + 1, INITIAL, INITIAL},
                          c.limits(DEV, 9, 4, INITIAL, new int[]{0, INITIAL + 1}));
        assertNull(c.limits(DEV, 9, 4, INITIAL, null));
    }

    /**
     * D21's floor does not outlive the adaptive intent that set it: once a
     * fixed-buffer intent governs the port, the queue's Cocoa state shrinks
     * as any other (the compiler clears the floors of non-adaptive ports).
     */
    @Test
    public void aFixedBufferIntentClearsTheFloor() {
        FabricView f = FabricView.builder().port(DEV, 3, PortRole.EDGE, SPEED_MBPS).build();
        int[] flows = new int[P.numGroups()];
        int delay0 = P.groupId("delay", 0);
        flows[delay0] = 30;
        StatsSnapshot s = StatsSnapshot.builder().port(DEV, 3, flows).build();
        PolicyCompiler pc = new PolicyCompiler(P);
        pc.setCocoa(c);
        FairnessIntent adaptive = FairnessIntent.builder(P).id("iso")
                .queueLayout(FairnessIntent.QueueLayout.ISOLATED).build();
        int numQueues = (int) P.integer("queues", "per_port");
        int q = pc.compile(f, List.of(adaptive), s, Map.of()).get(DEV).port(3).queueOf(delay0, 0, numQueues);
        Port p = new Port(q);
        p.second(1.0, 2, 0);                                   // Cocoa has state for delay0's queue
        assertEquals(180, pc.compile(f, List.of(adaptive), s, Map.of()).get(DEV).port(3).limitOf(q));
        FairnessIntent fixed = adaptive.toBuilder(P).bufferPolicy(FairnessIntent.BufferPolicy.FIXED)
                .bufferLimitPkts(40).build();
        assertEquals(40, pc.compile(f, List.of(fixed), s, Map.of()).get(DEV).port(3).limitOf(q));
        for (int i = 0; i < 6; i++) {
            p.second(1.0, BUCKETS - 1, 0);                     // huge standing queue every interval
        }
        assertEquals("no floor left: the shrinks go on", MIN, p.limit());
    }

    @Test
    public void counterResetChangesNothing() {
        Port p = new Port();
        p.second(0.5, 2, 100);
        int before = p.limit();
        p.limitDrops = 0;                      // pipeline reloaded: counters back to 0
        p.second(0.5, 2, 0);
        assertEquals(before, p.limit());
    }

    @Test
    public void forgetStartsOver() {
        Port p = new Port();
        p.second(0.5, 2, 0);
        p.second(0.5, 2, 10);
        assertTrue(p.limit() > INITIAL);
        c.forget(DEV);
        assertNull(c.limits(DEV, 3, 4, INITIAL));
    }

    @Test
    public void compilerUsesCocoaLimitsForAdaptiveIntentsOnly() {
        PolicyCompiler pc = new PolicyCompiler(P);
        pc.setCocoa(c);
        Port p = new Port();
        p.second(0.5, 2, 0);
        p.second(0.5, 2, 10);
        int grown = p.limit();
        FabricView f = Fabrics.leafSpine(1, 1, 2);
        String leaf = Fabrics.leaf(1);
        DevicePolicy d = pc.compile(f, List.of(), StatsSnapshot.EMPTY, Map.of()).get(leaf);
        PortPolicy port3 = d.port(3);
        assertEquals(grown, port3.limitOf(0));
        assertEquals(INITIAL, port3.limitOf(1));      // queue 1 has no state yet
        assertEquals(INITIAL, d.port(2).limitOf(0));  // port 2 has no state at all
        // The delta carries the changed queue only.
        PolicyDelta delta = new PolicyDelta(P);
        DevicePolicy before = new PolicyCompiler(P).compile(f, List.of(), StatsSnapshot.EMPTY, Map.of()).get(leaf);
        long aqmWrites = delta.between(before, d).stream().filter(w -> w.table() == PolicyTable.AQM).count();
        assertEquals(1, aqmWrites);
        assertArrayEquals(new long[]{3, 0}, delta.between(before, d).stream()
                .filter(w -> w.table() == PolicyTable.AQM).findFirst().get().key());
    }
}
