/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.CcfairService;
import org.ccfair.app.stats.GroupStats;
import org.onosproject.cli.AbstractShellCommand;
import org.onosproject.cli.net.DeviceIdCompleter;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shows live per-(port, group) statistics.
 */
@Service
@Command(scope = "onos", name = "ccfair-stats",
        description = "Shows live ccfair per-(port, group) statistics of a device")
public class StatsCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "deviceId", description = "Device id", required = true)
    @Completion(DeviceIdCompleter.class)
    String deviceId = null;

    @Argument(index = 1, name = "port", description = "Port number")
    Long port = null;

    @Override
    protected void doExecute() {
        CcfairService s = get(CcfairService.class);
        Map<Long, List<GroupStats>> st = new TreeMap<>(s.stats(deviceId));
        if (st.isEmpty()) {
            error("no statistics read from '%s' (not master, not a ccfair device, or not read yet)", deviceId);
            return;
        }
        print("%s:", deviceId);
        st.forEach((p, gs) -> {
            if (port == null || port.equals(p)) {
                CliSupport.statsLines(s.params(), p, gs).forEach(l -> print("%s", l));
            }
        });
    }
}
