/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.stats;

import java.util.List;
import java.util.Map;

/**
 * Reads live per-(port, group) statistics of a device.
 */
public interface StatsSource {

    /**
     * Reads the statistics of the given ports.
     *
     * @param deviceId device id
     * @param ports    port number to the port's stats index (where the data plane counts it)
     * @return port number to per-group statistics (index = group id); ports that could not be read are absent
     * @throws Exception if the device cannot be read at all
     */
    Map<Long, List<GroupStats>> read(String deviceId, Map<Long, Integer> ports) throws Exception;

    /**
     * Reads the per-queue counters the Cocoa loop needs (buffer-limit drops,
     * enqueue-depth histogram). A source without them returns nothing, and
     * adaptive buffers then keep their current limits.
     *
     * @param deviceId  device id
     * @param ports     port number to the port's stats index
     * @param numQueues queues per port
     * @return port number to per-queue statistics
     * @throws Exception if the device cannot be read at all
     */
    default Map<Long, List<QueueStats>> readQueues(String deviceId, Map<Long, Integer> ports, int numQueues)
            throws Exception {
        return Map.of();
    }
}
