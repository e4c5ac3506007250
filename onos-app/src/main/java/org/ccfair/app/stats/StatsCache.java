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
 * computation (active flows, and per-group rates from the last two readings)
 * and the REST/CLI statistics views.
 */
public final class StatsCache {

    private final Map<String, Map<Long, List<GroupStats>>> latest = new ConcurrentHashMap<>();
    private final Map<String, Map<Long, double[]>> sentKbps = new ConcurrentHashMap<>();
    private final Map<String, Long> readAt = new ConcurrentHashMap<>();

    /**
     * Replaces a device's statistics (read now).
     *
     * @param deviceId device id
     * @param stats    port to per-group statistics
     */
    public void update(String deviceId, Map<Long, List<GroupStats>> stats) {
        update(deviceId, stats, System.currentTimeMillis());
    }

    /**
     * Replaces a device's statistics read at a given time; the rate each group
     * forwarded since the previous reading is kept for the fair rate.
     *
     * @param deviceId device id
     * @param stats    port to per-group statistics
     * @param nowMs    time of the reading
     */
    public void update(String deviceId, Map<Long, List<GroupStats>> stats, long nowMs) {
        Map<Long, List<GroupStats>> before = latest.get(deviceId);
        Long then = readAt.get(deviceId);
        Map<Long, double[]> rates = new java.util.HashMap<>();
        if (before != null && then != null && nowMs > then) {
            stats.forEach((p, gs) -> {
                double[] r = sentKbps(before.get(p), gs, (nowMs - then) / 1000.0);
                if (r != null) {
                    rates.put(p, r);
                }
            });
        }
        latest.put(deviceId, Map.copyOf(stats));
        sentKbps.put(deviceId, Map.copyOf(rates));
        readAt.put(deviceId, nowMs);
    }

    // kbit/s each group forwarded between two readings (GroupStats.forwardedBitsSince,
    // as Cocoa's utilisation); null when a counter went backwards (pipeline
    // reloaded) or the port is new.
    private static double[] sentKbps(List<GroupStats> before, List<GroupStats> now, double seconds) {
        if (before == null || seconds <= 0) {
            return null;
        }
        int n = 0;
        for (GroupStats s : now) {
            n = Math.max(n, s.group() + 1);
        }
        double[] out = new double[n];
        java.util.Arrays.fill(out, -1.0);
        for (GroupStats a : now) {
            for (GroupStats b : before) {
                if (b.group() != a.group()) {
                    continue;
                }
                if (a.packets() < b.packets() || a.bytes() < b.bytes() || a.drops() < b.drops()) {
                    return null;
                }
                out[a.group()] = a.forwardedBitsSince(b) / seconds / 1000.0;
            }
        }
        return out;
    }

    /**
     * Forgets a device.
     *
     * @param deviceId device id
     */
    public void remove(String deviceId) {
        latest.remove(deviceId);
        sentKbps.remove(deviceId);
        readAt.remove(deviceId);
    }

    /**
     * A device's statistics.
     *
     * @param deviceId device id
     * @return port to per-group statistics (empty if never read)
     */
    public Map<Long, List<GroupStats>> device(String deviceId) {
        return latest.getOrDefault(deviceId, Map.of());
    }

    /**
     * Active flows of every port read so far, and the rates of the last two readings.
     *
     * @param numGroups groups
     * @return snapshot for the compiler
     */
    public StatsSnapshot snapshot(int numGroups) {
        StatsSnapshot.Builder b = StatsSnapshot.builder();
        latest.forEach((d, ports) -> ports.forEach((p, gs) -> {
            int[] flows = new int[numGroups];
            for (GroupStats s : gs) {
                if (s.group() < numGroups) {
                    flows[s.group()] = (int) Math.max(0, Math.min(Integer.MAX_VALUE, s.activeFlows()));
                }
            }
            b.port(d, p, flows);
            double[] r = sentKbps.getOrDefault(d, Map.of()).get(p);
            if (r != null) {
                double[] perGroup = new double[numGroups];
                java.util.Arrays.fill(perGroup, -1.0);
                System.arraycopy(r, 0, perGroup, 0, Math.min(r.length, numGroups));
                b.sent(d, p, perGroup);
            }
        }));
        return b.build();
    }
}
