/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.ccfair.app.CcfairService;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.InvalidIntentException;
import org.onosproject.cli.AbstractShellCommand;

import java.util.List;

/**
 * Adds (or with --replace, replaces) a fairness intent.
 */
@Service
@Command(scope = "onos", name = "ccfair-intent-add",
        description = "Adds a ccfair fairness intent (options, or one JSON argument as in the REST API)")
public class IntentAddCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "id", description = "Intent id, or the whole intent as JSON ('{...}')",
            required = true)
    @Completion(IntentIdCompleter.class)
    String id = null;

    @Option(name = "--devices", description = "Scope: comma-separated device ids (default: whole fabric)")
    String devices = null;

    @Option(name = "--ports", description = "Scope: comma-separated deviceId/port")
    String ports = null;

    @Option(name = "--objective", description = "per-flow (default) or weighted-groups")
    @Completion(ObjectiveCompleter.class)
    String objective = null;

    @Option(name = "--weight", description = "family=weight (delay, loss, hybrid); repeatable", multiValued = true)
    List<String> weights = null;

    @Option(name = "--min-ant-share", description = "Minimum queue share of ants")
    Double minAnt = null;

    @Option(name = "--min-mice-share", description = "Minimum queue share of mice")
    Double minMice = null;

    @Option(name = "--target-delay-us", description = "AQM target queuing delay")
    Long targetDelay = null;

    @Option(name = "--buffer", description = "adaptive (default) or fixed:PACKETS")
    String buffer = null;

    @Option(name = "--priority", description = "Priority where scopes overlap (highest wins)")
    Integer priority = null;

    @Option(name = "--classifier", description = "mM: the loss-ignoring count at which a flow is model-based")
    String classifier = null;

    @Option(name = "--queue-layout", description = "shared (default: queues.layout) or isolated")
    @Completion(QueueLayoutCompleter.class)
    String queueLayout = null;

    @Option(name = "--replace", description = "Replace an existing intent with the same id")
    boolean replace = false;

    @Override
    protected void doExecute() {
        CcfairService s = get(CcfairService.class);
        FairnessIntent in;
        try {
            in = id.trim().startsWith("{") ? s.intentJson().fromText(id)
                    : s.intentJson().decode(CliSupport.intentJson(id, devices, ports, objective, weights, minAnt,
                                                                  minMice, targetDelay, buffer, priority,
                                                                  classifier, queueLayout));
        } catch (InvalidIntentException e) {
            e.errors().forEach(m -> error("%s", m));
            error("nothing stored");
            return;
        } catch (IllegalArgumentException e) {
            error("%s", e.getMessage());
            error("nothing stored");
            return;
        }
        if (replace) {
            print("%s %s", s.putIntent(in).isPresent() ? "replaced" : "added", in.id());
        } else if (!s.addIntent(in)) {
            error("intent '%s' exists (use --replace); nothing stored", in.id());
            return;
        } else {
            print("added %s", in.id());
        }
        s.recompute();
    }
}
