/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.policy.FairnessIntent;
import org.onosproject.cli.AbstractChoicesCompleter;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Completes queue layouts.
 */
@Service
public class QueueLayoutCompleter extends AbstractChoicesCompleter {
    @Override
    protected List<String> choices() {
        return Arrays.stream(FairnessIntent.QueueLayout.values()).map(FairnessIntent.QueueLayout::text)
                .collect(Collectors.toList());
    }
}
