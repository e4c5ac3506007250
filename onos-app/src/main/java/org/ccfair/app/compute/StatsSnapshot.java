/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.HashMap;
import java.util.Map;

/**
 * Active flows per (device, port, group), which the queue allocation and the
 * fair rate need, and the rate each group forwarded since the previous
 * reading (for the fair rate's limited groups; unknown until two readings).
 * Ports without data count as having no flows.
 */
public final class StatsSnapshot {

    /** A snapshot with no data at all. */
    public static final StatsSnapshot EMPTY = new StatsSnapshot(Map.of(), Map.of());

    private final Map<String, Map<Long, int[]>> flows;
    private final Map<String, Map<Long, double[]>> sent;

    private StatsSnapshot(Map<String, Map<Long, int[]>> flows, Map<String, Map<Long, double[]>> sent) {
        this.flows = flows;
        this.sent = sent;
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
     * Rate each group of one port forwarded since the previous reading.
     *
     * @param deviceId device id
     * @param port     port number
     * @return kbit/s indexed by group id, or null when unknown
     */
    public double[] sentKbps(String deviceId, long port) {
        Map<Long, double[]> d = sent.get(deviceId);
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
        private final Map<String, Map<Long, double[]>> sent = new HashMap<>();

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
         * Sets the rate each group of a port forwarded since the previous reading.
         *
         * @param deviceId device id
         * @param port     port number
         * @param kbps     kbit/s indexed by group id (copied)
         * @return this
         */
        public Builder sent(String deviceId, long port, double[] kbps) {
            sent.computeIfAbsent(deviceId, d -> new HashMap<>()).put(port, kbps.clone());
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
            s.sent.forEach((d, m) -> sent.computeIfAbsent(d, x -> new HashMap<>()).putAll(m));
            return this;
        }

        /**
         * Builds the snapshot.
         *
         * @return snapshot
         */
        public StatsSnapshot build() {
            return new StatsSnapshot(flows, sent);
        }
    }
}
