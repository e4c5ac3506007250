/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.stats;

import org.ccfair.app.compute.StatsSnapshot;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Latest statistics per device, as last read; feeds both the policy
 * computation (active flows; what each group forwarded over the last window
 * of at least a minimum length, for the share correction, docs/algorithm.md
 * D13) and the REST/CLI statistics views.
 */
public final class StatsCache {

    private final Map<String, Device> devices = new ConcurrentHashMap<>();
    private volatile long minWindowMs;

    // One device's latest reading, the reading its next window starts at, and its last
    // completed window (a window is stepped on once, however many snapshots repeat it).
    private static final class Device {
        final Reading latest;
        final Reading windowStart;
        final Reading windowFrom;
        final Reading windowTo;

        Device(Reading latest, Reading windowStart, Reading windowFrom, Reading windowTo) {
            this.latest = latest;
            this.windowStart = windowStart;
            this.windowFrom = windowFrom;
            this.windowTo = windowTo;
        }
    }

    private static final class Reading {
        final Map<Long, List<GroupStats>> stats;
        final long atMs;
        // StatsSnapshot.newReading(): the window ending here carries it
        final long id = StatsSnapshot.newReading();

        Reading(Map<Long, List<GroupStats>> stats, long atMs) {
            this.stats = stats;
            this.atMs = atMs;
        }
    }

    /** A cache whose every pair of timed readings makes a window. */
    public StatsCache() {
        this(0);
    }

    /**
     * A cache whose windows last at least minWindowMs: a reading sooner than
     * that after the window's start (an event-triggered round) updates the
     * active flows but leaves the window open, so the share correction steps
     * on windows of about a round, as the ns-3 model's does.
     *
     * @param minWindowMs shortest window (ms, &gt;= 0)
     */
    public StatsCache(long minWindowMs) {
        setMinWindowMs(minWindowMs);
    }

    /**
     * Sets the shortest window (the app keeps it at half its round period).
     *
     * @param ms shortest window (ms, &gt;= 0)
     */
    public void setMinWindowMs(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("minWindowMs must be >= 0, got " + ms);
        }
        this.minWindowMs = ms;
    }

    /**
     * Replaces a device's statistics, read now, untimed: no forwarded window
     * (and the next timed reading starts a new one).
     *
     * @param deviceId device id
     * @param stats    port to per-group statistics
     */
    public void update(String deviceId, Map<Long, List<GroupStats>> stats) {
        devices.put(deviceId, new Device(new Reading(Map.copyOf(stats), -1), null, null, null));
    }

    /**
     * Replaces a device's statistics read at a time. Once the time since the
     * open window's start reaches the minimum window, the window closes here
     * (the snapshot's forwarded window) and the next one starts here.
     *
     * @param deviceId device id
     * @param stats    port to per-group statistics
     * @param atMs     when they were read (ms, &gt;= 0, of a monotonic clock)
     */
    public void update(String deviceId, Map<Long, List<GroupStats>> stats, long atMs) {
        Reading r = new Reading(Map.copyOf(stats), atMs);
        Device prev = devices.get(deviceId);
        Reading start = prev == null ? null : prev.windowStart;
        if (start == null || atMs < start.atMs) {
            devices.put(deviceId, new Device(r, r, null, null)); // first timed reading, or the clock went back
        } else if (atMs - start.atMs >= Math.max(1, minWindowMs)) {
            devices.put(deviceId, new Device(r, r, start, r));
        } else {
            devices.put(deviceId, new Device(r, start, prev.windowFrom, prev.windowTo));
        }
    }

    /**
     * Forgets a device.
     *
     * @param deviceId device id
     */
    public void remove(String deviceId) {
        devices.remove(deviceId);
    }

    /**
     * A device's statistics.
     *
     * @param deviceId device id
     * @return port to per-group statistics (empty if never read)
     */
    public Map<Long, List<GroupStats>> device(String deviceId) {
        Device d = devices.get(deviceId);
        return d == null ? Map.of() : d.latest.stats;
    }

    /**
     * Active flows of every port as last read, and what each group forwarded
     * (and how many of its packets were dropped or marked) over the device's
     * last completed window.
     *
     * @param numGroups groups
     * @return snapshot for the compiler
     */
    public StatsSnapshot snapshot(int numGroups) {
        StatsSnapshot.Builder b = StatsSnapshot.builder();
        devices.forEach((d, dev) -> {
            dev.latest.stats.forEach((p, gs) -> {
                int[] flows = new int[numGroups];
                for (GroupStats s : gs) {
                    if (s.group() < numGroups) {
                        flows[s.group()] = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s.activeFlows()));
                    }
                }
                b.port(d, p, flows);
            });
            if (dev.windowTo != null) {
                dev.windowTo.stats.forEach((p, gs) -> window(b, d, p, gs, dev.windowFrom, dev.windowTo, numGroups));
            }
        });
        return b.build();
    }

    private static void window(StatsSnapshot.Builder b, String d, long p, List<GroupStats> gs, Reading from,
                               Reading to, int numGroups) {
        List<GroupStats> old = from.stats.get(p);
        if (old == null) {
            return;
        }
        double[] bits = new double[numGroups];
        long[] signalled = new long[numGroups];
        long packets = 0;
        for (GroupStats s : gs) {
            for (GroupStats o : old) {
                if (o.group() == s.group() && s.group() < numGroups) {
                    bits[s.group()] = s.forwardedBitsSince(o);
                    // a counter that went back (reset, wrap) counts as nothing
                    signalled[s.group()] = Math.max(0, s.drops() - o.drops())
                            + Math.max(0, s.marks() - o.marks());
                    packets += Math.max(0, Math.max(0, s.packets() - o.packets())
                            - Math.max(0, s.drops() - o.drops()));
                }
            }
        }
        b.forwarded(d, p, bits, signalled, packets, (to.atMs - from.atMs) / 1000.0, to.id);
    }
}
