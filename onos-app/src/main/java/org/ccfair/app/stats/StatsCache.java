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
 * computation (active flows) and the REST/CLI statistics views. It keeps no
 * per-group rates: the fair rate no longer uses them (docs/algorithm.md D12).
 */
public final class StatsCache {

    private final Map<String, Map<Long, List<GroupStats>>> latest = new ConcurrentHashMap<>();

    /**
     * Replaces a device's statistics.
     *
     * @param deviceId device id
     * @param stats    port to per-group statistics
     */
    public void update(String deviceId, Map<Long, List<GroupStats>> stats) {
        latest.put(deviceId, Map.copyOf(stats));
    }

    /**
     * Forgets a device.
     *
     * @param deviceId device id
     */
    public void remove(String deviceId) {
        latest.remove(deviceId);
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
     * Active flows of every port read so far.
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
        }));
        return b.build();
    }
}
