/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import org.ccfair.app.compute.PolicyWrite;

import java.util.List;

/**
 * Applies ordered policy writes to one device. Implementations must apply
 * them in list order, stop at the first failure, and be idempotent (an
 * INSERT of an existing entry becomes a MODIFY, a DELETE of a missing entry
 * succeeds), because a retry after a partial failure replays the whole list.
 */
public interface DeviceWriter {

    /**
     * Writes to a device.
     *
     * @param deviceId device id
     * @param writes   ordered writes
     * @throws Exception on the first write that failed; earlier writes stay applied
     */
    void write(String deviceId, List<PolicyWrite> writes) throws Exception;

    /**
     * Writes to a device; {@code full} says the writes are a full push (every
     * entry of the target policy, as inserts) that replaces whatever the device
     * holds, so a writer that can see the installed state also removes entries
     * of the device that are not in the list (after all of them are written).
     * The default ignores {@code full}.
     *
     * @param deviceId device id
     * @param writes   ordered writes
     * @param full     whether this is a full push
     * @throws Exception on the first write that failed; earlier writes stay applied
     */
    default void write(String deviceId, List<PolicyWrite> writes, boolean full) throws Exception {
        write(deviceId, writes);
    }

    /**
     * How many of this app's policy entries the controller's store holds for
     * a device (entries being removed not counted), or -1 if the writer cannot
     * tell. The engine compares it with the size of the installed policy each
     * round and pushes everything again when they differ (the store lost or
     * gained entries behind the app's back, e.g. a purge on disconnection).
     *
     * @param deviceId device id
     * @return entry count, or -1
     */
    default long storedEntries(String deviceId) {
        return -1;
    }
}
