/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.CcfairService;
import org.onosproject.cli.AbstractShellCommand;

/**
 * Lists fairness intents.
 */
@Service
@Command(scope = "onos", name = "ccfair-intents", description = "Lists ccfair fairness intents")
public class IntentsListCommand extends AbstractShellCommand {
    @Override
    protected void doExecute() {
        CcfairService s = get(CcfairService.class);
        if (outputJson()) {
            ArrayNode a = mapper().createArrayNode();
            s.intents().forEach(i -> a.add(s.intentJson().encode(i)));
            print("%s", a.toString());
            return;
        }
        s.intents().forEach(i -> print("%s", CliSupport.intentLine(i)));
    }
}
