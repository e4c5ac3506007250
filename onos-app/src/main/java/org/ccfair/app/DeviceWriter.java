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
}
