/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.CcfairService;
import org.onosproject.cli.AbstractShellCommand;

/**
 * Removes a fairness intent.
 */
@Service
@Command(scope = "onos", name = "ccfair-intent-remove", description = "Removes a ccfair fairness intent")
public class IntentRemoveCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "id", description = "Intent id", required = true)
    @Completion(IntentIdCompleter.class)
    String id = null;

    @Override
    protected void doExecute() {
        CcfairService s = get(CcfairService.class);
        if (s.removeIntent(id).isEmpty()) {
            error("no intent '%s'", id);
            return;
        }
        print("removed %s", id);
        s.recompute();
    }
}
