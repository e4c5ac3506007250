/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.CcfairService;
import org.onosproject.cli.AbstractChoicesCompleter;
import org.onosproject.cli.AbstractShellCommand;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Completes intent ids.
 */
@Service
public class IntentIdCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        return AbstractShellCommand.get(CcfairService.class).intents().stream()
                .map(i -> i.id()).collect(Collectors.toList());
    }
}
