/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.HashMap;
import java.util.Map;

/**
 * Active flows per (device, port, group), which the queue allocation and the
 * fair rate need (the fair rate does not use forwarded rates: docs/algorithm.md
 * D12). Ports without data count as having no flows.
 */
public final class StatsSnapshot {

    /** A snapshot with no data at all. */
    public static final StatsSnapshot EMPTY = new StatsSnapshot(Map.of());

    private final Map<String, Map<Long, int[]>> flows;

    private StatsSnapshot(Map<String, Map<Long, int[]>> flows) {
        this.flows = flows;
    }

    /**
     * Active flows per group of one port.
     *
     * @param deviceId device id
     * @param port     port number
     * @return flows indexed by group id, or null when unknown
     */
    public int[] flows(String deviceId, long port) {
        Map<Long, int[]> d = flows.get(deviceId);
        return d == null ? null : d.get(port);
    }

    /**
     * A new builder.
     *
     * @return builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Builder. */
    public static final class Builder {
        private final Map<String, Map<Long, int[]>> flows = new HashMap<>();

        /**
         * Sets a port's active flows per group.
         *
         * @param deviceId device id
         * @param port     port number
         * @param perGroup flows indexed by group id (copied)
         * @return this
         */
        public Builder port(String deviceId, long port, int[] perGroup) {
            flows.computeIfAbsent(deviceId, d -> new HashMap<>()).put(port, perGroup.clone());
            return this;
        }

        /**
         * Starts from an existing snapshot.
         *
         * @param s snapshot
         * @return this
         */
        public Builder putAll(StatsSnapshot s) {
            s.flows.forEach((d, m) -> flows.computeIfAbsent(d, x -> new HashMap<>()).putAll(m));
            return this;
        }

        /**
         * Builds the snapshot.
         *
         * @return snapshot
         */
        public StatsSnapshot build() {
            return new StatsSnapshot(flows);
        }
    }
}
