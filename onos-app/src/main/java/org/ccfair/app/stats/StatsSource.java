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
     * @param ports    port numbers
     * @return port number to per-group statistics (index = group id); ports that could not be read are absent
     * @throws Exception if the device cannot be read at all
     */
    Map<Long, List<GroupStats>> read(String deviceId, List<Long> ports) throws Exception;
}
