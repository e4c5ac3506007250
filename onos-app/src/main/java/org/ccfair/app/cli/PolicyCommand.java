/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.CcfairService;
import org.ccfair.app.PushStatus;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.PortPolicy;
import org.onosproject.cli.AbstractShellCommand;
import org.onosproject.cli.net.DeviceIdCompleter;

/**
 * Shows the compiled policy and push status.
 */
@Service
@Command(scope = "onos", name = "ccfair-policy",
        description = "Shows the compiled ccfair policy (and push status) of all devices, one device or one port")
public class PolicyCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "deviceId", description = "Device id")
    @Completion(DeviceIdCompleter.class)
    String deviceId = null;

    @Argument(index = 1, name = "port", description = "Port number")
    Long port = null;

    @Override
    protected void doExecute() {
        CcfairService s = get(CcfairService.class);
        boolean any = false;
        for (DevicePolicy d : s.policies().values()) {
            if (deviceId != null && !deviceId.equals(d.deviceId())) {
                continue;
            }
            any = true;
            PushStatus st = s.pushStatus().get(d.deviceId());
            print("%s: %s%s", d.deviceId(), st == null ? "not pushed yet" : st.state().name(),
                  st != null && st.lastError() != null ? " (" + st.attempts() + " failed attempts: "
                          + st.lastError() + ")" : "");
            for (PortPolicy p : d.ports()) {
                if (port == null || port == p.port()) {
                    CliSupport.portLines(s.params(), d, p, s.shareCorrection(d.deviceId(), p.port()))
                            .forEach(l -> print("%s", l));
                }
            }
        }
        if (!any && deviceId != null) {
            error("no policy for device '%s'", deviceId);
        }
    }
}
