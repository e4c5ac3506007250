/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import com.google.common.collect.ImmutableSortedSet;

import java.util.Collection;
import java.util.Objects;
import java.util.SortedSet;

/**
 * Where an intent applies: the whole fabric, a set of devices, or a set of
 * ports. Devices are ONOS device id strings ("device:leaf1"); ports are
 * "deviceId/portNumber" ("device:leaf1/3"), the form ONOS prints connect
 * points in. Kept as strings so the computation core needs no ONOS runtime.
 */
public final class Scope {

    /** Kind of scope. */
    public enum Kind {
        /** Every port of every device. */
        FABRIC,
        /** Every port of the listed devices. */
        DEVICES,
        /** Only the listed ports. */
        PORTS
    }

    private static final Scope FABRIC_SCOPE = new Scope(Kind.FABRIC, ImmutableSortedSet.of(), ImmutableSortedSet.of());

    private final Kind kind;
    private final ImmutableSortedSet<String> devices;
    private final ImmutableSortedSet<String> ports;

    private Scope(Kind kind, ImmutableSortedSet<String> devices, ImmutableSortedSet<String> ports) {
        this.kind = kind;
        this.devices = devices;
        this.ports = ports;
    }

    /**
     * Whole-fabric scope.
     *
     * @return the scope
     */
    public static Scope fabric() {
        return FABRIC_SCOPE;
    }

    /**
     * Scope over whole devices.
     *
     * @param devices device ids
     * @return the scope
     */
    public static Scope devices(Collection<String> devices) {
        return new Scope(Kind.DEVICES, ImmutableSortedSet.copyOf(devices), ImmutableSortedSet.of());
    }

    /**
     * Scope over single ports.
     *
     * @param ports "deviceId/port" strings
     * @return the scope
     */
    public static Scope ports(Collection<String> ports) {
        return new Scope(Kind.PORTS, ImmutableSortedSet.of(), ImmutableSortedSet.copyOf(ports));
    }

    /**
     * Kind of scope.
     *
     * @return kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * Devices of a DEVICES scope.
     *
     * @return sorted device ids (empty for other kinds)
     */
    public SortedSet<String> deviceIds() {
        return devices;
    }

    /**
     * Ports of a PORTS scope.
     *
     * @return sorted "deviceId/port" strings (empty for other kinds)
     */
    public SortedSet<String> portIds() {
        return ports;
    }

    /**
     * Whether the scope could cover some port of a device.
     *
     * @param deviceId device id
     * @return true if a port of the device may be covered
     */
    public boolean touchesDevice(String deviceId) {
        switch (kind) {
            case FABRIC:
                return true;
            case DEVICES:
                return devices.contains(deviceId);
            case PORTS:
                String prefix = deviceId + "/";
                String next = ports.ceiling(prefix);
                return next != null && next.startsWith(prefix);
            default:
                throw new IllegalStateException("unknown scope kind " + kind);
        }
    }

    /**
     * Whether the scope covers a port.
     *
     * @param deviceId device id
     * @param port     port number
     * @return true if covered
     */
    public boolean covers(String deviceId, long port) {
        switch (kind) {
            case FABRIC:
                return true;
            case DEVICES:
                return devices.contains(deviceId);
            case PORTS:
                return ports.contains(portId(deviceId, port));
            default:
                throw new IllegalStateException("unknown scope kind " + kind);
        }
    }

    /**
     * The canonical "deviceId/port" string of a port.
     *
     * @param deviceId device id
     * @param port     port number
     * @return the string
     */
    public static String portId(String deviceId, long port) {
        return deviceId + "/" + port;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Scope)) {
            return false;
        }
        Scope s = (Scope) o;
        return kind == s.kind && devices.equals(s.devices) && ports.equals(s.ports);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, devices, ports);
    }

    @Override
    public String toString() {
        switch (kind) {
            case DEVICES:
                return "devices" + devices;
            case PORTS:
                return "ports" + ports;
            default:
                return "fabric";
        }
    }
}
