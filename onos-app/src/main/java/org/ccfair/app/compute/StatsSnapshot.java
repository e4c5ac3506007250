/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Active flows per (device, port, group), which the queue allocation and the
 * fair rate need (the fair rate does not use forwarded rates: docs/algorithm.md
 * D12), and what each group forwarded over the last reading window, which the
 * share correction needs (D13). Ports without data count as having no flows.
 * Each snapshot has its own round number, and each window the reading it ends
 * at, so a correction steps once per new reading: a snapshot that repeats a
 * window (a device whose read failed, or one this node no longer reads) does
 * not step it again.
 */
public final class StatsSnapshot {

    // before EMPTY: static fields initialise in order
    private static final AtomicLong ROUNDS = new AtomicLong();
    private static final AtomicLong READINGS = new AtomicLong();

    /** A snapshot with no data at all. */
    public static final StatsSnapshot EMPTY = new StatsSnapshot(Map.of(), Map.of());

    private final Map<String, Map<Long, int[]>> flows;
    private final Map<String, Map<Long, Window>> windows;
    private final long round;

    /** Bits each group forwarded, and packets the AQM signalled of it, over a window of some seconds. */
    public static final class Window {
        private final double[] bits;
        private final long[] signalled;
        private final long packets;
        private final double seconds;
        private final long reading;

        Window(double[] bits, long[] signalled, long packets, double seconds, long reading) {
            this.bits = bits;
            this.signalled = signalled;
            this.packets = packets;
            this.seconds = seconds;
            this.reading = reading;
        }

        /**
         * Packets the port forwarded in the window, every group (each also took
         * a frame's overhead on the wire, which the byte counters do not count).
         *
         * @return packets
         */
        public long packets() {
            return packets;
        }

        /**
         * The reading this window ends at ({@link #newReading}): two windows
         * with the same id hold the same counters.
         *
         * @return reading id
         */
        public long reading() {
            return reading;
        }

        /**
         * Packets dropped or ECN-marked per group in the window.
         *
         * @return packets indexed by group id (a copy)
         */
        public long[] signalled() {
            return signalled.clone();
        }

        /**
         * Forwarded bits per group.
         *
         * @return bits indexed by group id (a copy)
         */
        public double[] bits() {
            return bits.clone();
        }

        /**
         * Length of the window.
         *
         * @return seconds, &gt; 0
         */
        public double seconds() {
            return seconds;
        }
    }

    private StatsSnapshot(Map<String, Map<Long, int[]>> flows, Map<String, Map<Long, Window>> windows) {
        this.flows = flows;
        this.windows = windows;
        this.round = ROUNDS.incrementAndGet();
    }

    /**
     * This snapshot's round number, unique per snapshot built.
     *
     * @return round
     */
    public long round() {
        return round;
    }

    /**
     * A new reading id, unique in this JVM, for the windows of
     * {@link Builder#forwarded(String, long, double[], long[], double, long)}.
     *
     * @return id
     */
    public static long newReading() {
        return READINGS.incrementAndGet();
    }

    /**
     * What each group of one port forwarded over the last reading window.
     *
     * @param deviceId device id
     * @param port     port number
     * @return the window, or null before a port's second reading
     */
    public Window forwarded(String deviceId, long port) {
        Map<Long, Window> d = windows.get(deviceId);
        return d == null ? null : d.get(port);
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
        private final Map<String, Map<Long, Window>> windows = new HashMap<>();

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
         * Sets what each group of a port forwarded, and how many of its packets
         * the AQM dropped or marked, over a window.
         *
         * @param deviceId device id
         * @param port     port number
         * @param bits      forwarded bits indexed by group id (copied)
         * @param signalled packets dropped or marked, indexed by group id (copied)
         * @param seconds   the window, &gt; 0
         * @return this
         * @throws IllegalArgumentException if seconds is not positive or a count is negative
         */
        public Builder forwarded(String deviceId, long port, double[] bits, long[] signalled, double seconds) {
            return forwarded(deviceId, port, bits, signalled, 0, seconds, newReading());
        }

        /**
         * Sets what each group of a port forwarded, and how many of its packets
         * the AQM dropped or marked, over a window that ends at a given reading
         * (a window with the reading id of one the correction stepped on is not
         * stepped on again).
         *
         * @param deviceId  device id
         * @param port      port number
         * @param bits      forwarded bits indexed by group id (copied)
         * @param signalled packets dropped or marked, indexed by group id (copied)
         * @param packets   packets forwarded, every group (for the frame overhead)
         * @param seconds   the window, &gt; 0
         * @param reading   the reading the window ends at ({@link StatsSnapshot#newReading})
         * @return this
         * @throws IllegalArgumentException if seconds is not positive or a count is negative
         */
        public Builder forwarded(String deviceId, long port, double[] bits, long[] signalled, long packets,
                                 double seconds, long reading) {
            if (packets < 0) {
                throw new IllegalArgumentException("forwarded packets of " + deviceId + "/" + port
                                                           + " must be >= 0, got " + packets);
            }
            if (!(seconds > 0)) {
                throw new IllegalArgumentException("forwarded window of " + deviceId + "/" + port
                                                           + ": seconds must be > 0, got " + seconds);
            }
            for (double b : bits) {
                if (!(b >= 0)) {
                    throw new IllegalArgumentException("forwarded bits of " + deviceId + "/" + port
                                                               + " must be >= 0, got " + b);
                }
            }
            for (long n : signalled) {
                if (n < 0) {
                    throw new IllegalArgumentException("signalled packets of " + deviceId + "/" + port
                                                               + " must be >= 0, got " + n);
                }
            }
            windows.computeIfAbsent(deviceId, d -> new HashMap<>())
                    .put(port, new Window(bits.clone(), signalled.clone(), packets, seconds, reading));
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
            s.windows.forEach((d, m) -> windows.computeIfAbsent(d, x -> new HashMap<>()).putAll(m));
            return this;
        }

        /**
         * Builds the snapshot.
         *
         * @return snapshot
         */
        public StatsSnapshot build() {
            return new StatsSnapshot(flows, windows);
        }
    }
}
