/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Compiled policy of one device: the per-port policies and the TVF profiles
 * they reference (indexed by profile id; null ids are unused).
 */
public final class DevicePolicy {

    private final String deviceId;
    private final List<PortPolicy> ports;
    private final TvfProfile[] profiles;
    private final int numQueues;

    /**
     * Creates a device policy.
     *
     * @param deviceId device id
     * @param ports    port policies sorted by port number
     * @param profiles TVF profiles by id (owned by this object)
     * @param numQueues queues per port
     */
    public DevicePolicy(String deviceId, List<PortPolicy> ports, TvfProfile[] profiles, int numQueues) {
        this.numQueues = numQueues;
        this.deviceId = deviceId;
        this.ports = List.copyOf(ports);
        this.profiles = profiles;
    }

    /**
     * Device id.
     *
     * @return id
     */
    public String deviceId() {
        return deviceId;
    }

    /**
     * Port policies, sorted by port number.
     *
     * @return ports
     */
    public List<PortPolicy> ports() {
        return ports;
    }

    /**
     * Policy of one port.
     *
     * @param port port number
     * @return the port policy or null
     */
    public PortPolicy port(long port) {
        for (PortPolicy p : ports) {
            if (p.port() == port) {
                return p;
            }
        }
        return null;
    }

    /**
     * Number of TVF profile ids (used or not).
     *
     * @return size of the id space
     */
    public int profileSlots() {
        return profiles.length;
    }

    /**
     * TVF profile by id.
     *
     * @param id profile id
     * @return the profile, or null if the id is unused
     */
    public TvfProfile profile(int id) {
        return id >= 0 && id < profiles.length ? profiles[id] : null;
    }

    /**
     * Queues per port (queue ids are in [0, numQueues)).
     *
     * @return Q
     */
    public int numQueues() {
        return numQueues;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof DevicePolicy)) {
            return false;
        }
        DevicePolicy d = (DevicePolicy) o;
        return deviceId.equals(d.deviceId) && numQueues == d.numQueues
                && Arrays.equals(profiles, d.profiles) && ports.equals(d.ports);
    }

    @Override
    public int hashCode() {
        return Objects.hash(deviceId, ports, numQueues);
    }
}
