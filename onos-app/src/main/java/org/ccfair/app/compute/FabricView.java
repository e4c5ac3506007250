/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The fabric as the computation sees it: devices, their ports, each port's
 * role and speed. Built from ONOS's device, link and edge-port services by the
 * app, or directly by tests and the benchmark; immutable once built.
 */
public final class FabricView {

    /** One port of a device. */
    public static final class Port {
        private final long number;
        private final PortRole role;
        private final long speedMbps;
        private final int statsIndex;

        /**
         * Creates a port.
         *
         * @param number     port number
         * @param role       edge or fabric
         * @param speedMbps  port speed
         * @param statsIndex stats index ({@link StatsIndex}), or -1 for none
         */
        public Port(long number, PortRole role, long speedMbps, int statsIndex) {
            this.number = number;
            this.role = role;
            this.speedMbps = speedMbps;
            this.statsIndex = statsIndex;
        }

        /**
         * Port number.
         *
         * @return number
         */
        public long number() {
            return number;
        }

        /**
         * Port role.
         *
         * @return role
         */
        public PortRole role() {
            return role;
        }

        /**
         * Port speed.
         *
         * @return Mbit/s
         */
        public long speedMbps() {
            return speedMbps;
        }

        /**
         * Stats index of the port: the index of its cells in the data plane's
         * per-port counters and registers ({@link StatsIndex}).
         *
         * @return index, or -1 if the port has none (it is left unconfigured)
         */
        public int statsIndex() {
            return statsIndex;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Port)) {
                return false;
            }
            Port p = (Port) o;
            return number == p.number && role == p.role && speedMbps == p.speedMbps && statsIndex == p.statsIndex;
        }

        @Override
        public int hashCode() {
            return Objects.hash(number, role, speedMbps, statsIndex);
        }
    }

    private final SortedMap<String, List<Port>> devices;

    private FabricView(SortedMap<String, List<Port>> devices) {
        this.devices = devices;
    }

    /**
     * Device ids, sorted.
     *
     * @return ids
     */
    public Iterable<String> deviceIds() {
        return devices.keySet();
    }

    /**
     * Ports of a device, sorted by number.
     *
     * @param deviceId device id
     * @return ports (empty if unknown)
     */
    public List<Port> ports(String deviceId) {
        List<Port> p = devices.get(deviceId);
        return p == null ? List.of() : p;
    }

    /**
     * Whether the device is part of the view.
     *
     * @param deviceId device id
     * @return true if known
     */
    public boolean contains(String deviceId) {
        return devices.containsKey(deviceId);
    }

    /**
     * Number of devices.
     *
     * @return count
     */
    public int size() {
        return devices.size();
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
        private final Map<String, List<Port>> devices = new TreeMap<>();
        private final Map<String, Map<Long, Integer>> indices = new TreeMap<>();

        /**
         * Adds a device with no ports (yet).
         *
         * @param deviceId device id
         * @return this
         */
        public Builder device(String deviceId) {
            devices.computeIfAbsent(deviceId, d -> new ArrayList<>());
            return this;
        }

        /**
         * Adds a port.
         *
         * @param deviceId  device id
         * @param number    port number
         * @param role      role
         * @param speedMbps speed
         * @return this
         */
        public Builder port(String deviceId, long number, PortRole role, long speedMbps) {
            devices.computeIfAbsent(deviceId, d -> new ArrayList<>()).add(new Port(number, role, speedMbps, -1));
            return this;
        }

        /**
         * Sets the stats indices of a device's ports ({@link StatsIndex#assign}
         * over all its ports). Without it, a device's ports get the indices
         * {@link StatsIndex#assign} gives the ports added to the view.
         *
         * @param deviceId device id
         * @param index    port number to stats index; ports absent from it get none
         * @return this
         */
        public Builder statsIndices(String deviceId, Map<Long, Integer> index) {
            indices.put(deviceId, Map.copyOf(index));
            return this;
        }

        /**
         * Builds the view.
         *
         * @return view
         */
        public FabricView build() {
            ImmutableSortedMap.Builder<String, List<Port>> b = ImmutableSortedMap.naturalOrder();
            devices.forEach((d, ps) -> {
                Map<Long, Integer> index = indices.get(d);
                if (index == null) {
                    List<Long> numbers = new ArrayList<>();
                    ps.forEach(p -> numbers.add(p.number()));
                    index = StatsIndex.assign(numbers, Integer.MAX_VALUE);
                }
                List<Port> sorted = new ArrayList<>(ps.size());
                for (Port p : ps) {
                    sorted.add(new Port(p.number(), p.role(), p.speedMbps(), index.getOrDefault(p.number(), -1)));
                }
                sorted.sort((a, c) -> Long.compare(a.number(), c.number()));
                b.put(d, ImmutableList.copyOf(sorted));
            });
            return new FabricView(b.build());
        }
    }
}
