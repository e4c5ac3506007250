/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import org.ccfair.app.CcfairParams;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Checks an intent against the limits of the data plane and of
 * params/ccfair.json. Every problem is reported with the field it concerns;
 * nothing is clamped or silently fixed.
 */
public final class IntentValidator {

    /** Allowed intent ids: safe in URLs, CLI arguments and log lines. */
    public static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    /** ONOS device ids: "scheme:rest", no '/' (the port separator). */
    public static final Pattern DEVICE_ID = Pattern.compile("[A-Za-z0-9]+:[^/\\s]+");
    /** Port ids: "deviceId/portNumber". */
    public static final Pattern PORT_ID = Pattern.compile("([A-Za-z0-9]+:[^/\\s]+)/([0-9]{1,10})");

    private final CcfairParams params;
    private final Set<String> families;

    /**
     * Creates a validator.
     *
     * @param params shared parameters (limits and family names)
     */
    public IntentValidator(CcfairParams params) {
        this.params = params;
        this.families = params.families();
    }

    /**
     * Lists every problem of an intent.
     *
     * @param in intent
     * @return messages, empty if the intent is valid
     */
    public List<String> problems(FairnessIntent in) {
        List<String> e = new ArrayList<>();
        if (in.id() == null || !ID.matcher(in.id()).matches()) {
            e.add("id: '" + in.id() + "' must match " + ID.pattern());
        }
        checkScope(in.scope(), e);
        if (in.objective() == FairnessIntent.Objective.PER_FLOW && !in.weights().isEmpty()) {
            e.add("weights: only allowed with objective 'weighted-groups' (per-flow gives every flow one share)");
        }
        if (in.objective() == FairnessIntent.Objective.WEIGHTED_GROUPS && in.weights().isEmpty()) {
            e.add("weights: objective 'weighted-groups' needs at least one family weight " + families);
        }
        double wMin = params.real("policy", "weight_min");
        double wMax = params.real("policy", "weight_max");
        for (Map.Entry<String, Double> w : in.weights().entrySet()) {
            if (!families.contains(w.getKey())) {
                e.add("weights." + w.getKey() + ": unknown family (known: " + families + ")");
            }
            double v = w.getValue();
            if (!(v >= wMin && v <= wMax)) {
                e.add("weights." + w.getKey() + ": " + v + " outside [" + wMin + ", " + wMax + "]");
            }
        }
        double shareMax = params.real("policy", "max_guaranteed_share");
        checkShare("min_ant_share", in.minAntShare(), shareMax, e);
        checkShare("min_mice_share", in.minMiceShare(), shareMax, e);
        if (in.minAntShare() + in.minMiceShare() > shareMax) {
            e.add("min_ant_share + min_mice_share: " + (in.minAntShare() + in.minMiceShare())
                          + " exceeds " + shareMax + " (long-lived flows need the rest)");
        }
        long dMin = params.integer("policy", "target_delay_min_us");
        long dMax = params.integer("policy", "target_delay_max_us");
        if (in.targetDelayUs() < dMin || in.targetDelayUs() > dMax) {
            e.add("target_delay_us: " + in.targetDelayUs() + " outside [" + dMin + ", " + dMax + "]");
        }
        long bMin = params.integer("cocoa", "min_limit_pkts");
        long bMax = params.integer("cocoa", "max_limit_pkts");
        if (in.bufferPolicy() == FairnessIntent.BufferPolicy.FIXED) {
            if (in.bufferLimitPkts() < bMin || in.bufferLimitPkts() > bMax) {
                e.add("buffer_limit_pkts: " + in.bufferLimitPkts() + " outside [" + bMin + ", " + bMax
                              + "] (required with buffer_policy 'fixed')");
            }
        } else if (in.bufferLimitPkts() != 0) {
            e.add("buffer_limit_pkts: only allowed with buffer_policy 'fixed' (adaptive limits follow Cocoa)");
        }
        long pMax = params.integer("policy", "max_priority");
        if (in.priority() < 0 || in.priority() > pMax) {
            e.add("priority: " + in.priority() + " outside [0, " + pMax + "]");
        }
        if (in.queueLayout() == null) {
            e.add("queue_layout: missing (allowed: 'shared', 'isolated')");
        }
        // policy.classifier_max: m_m must fit the 8-bit loss-ignoring count it is compared with.
        long cMax = params.integer("policy", "classifier_max");
        checkThreshold("classifier.m_m", in.mM(), cMax, e);
        return e;
    }

    /**
     * Throws if the intent has any problem.
     *
     * @param in intent
     * @return the same intent
     * @throws InvalidIntentException listing every problem
     */
    public FairnessIntent check(FairnessIntent in) {
        List<String> e = problems(in);
        if (!e.isEmpty()) {
            throw new InvalidIntentException(e);
        }
        return in;
    }

    private void checkScope(Scope s, List<String> e) {
        if (s == null) {
            e.add("scope: missing");
            return;
        }
        if (s.kind() == Scope.Kind.DEVICES && s.deviceIds().isEmpty()) {
            e.add("scope.devices: empty (use scope type 'fabric' for every device)");
        }
        if (s.kind() == Scope.Kind.PORTS && s.portIds().isEmpty()) {
            e.add("scope.ports: empty");
        }
        int i = 0;
        for (String d : s.deviceIds()) {
            if (!DEVICE_ID.matcher(d).matches()) {
                e.add("scope.devices[" + i + "]: '" + d + "' is not a device id like 'device:leaf1'");
            }
            i++;
        }
        i = 0;
        for (String p : s.portIds()) {
            if (!PORT_ID.matcher(p).matches()) {
                e.add("scope.ports[" + i + "]: '" + p + "' is not 'deviceId/port' like 'device:leaf1/3'");
            }
            i++;
        }
    }

    private static void checkShare(String field, double v, double max, List<String> e) {
        if (!(v >= 0 && v <= max)) {
            e.add(field + ": " + v + " outside [0, " + max + "]");
        }
    }

    private static void checkThreshold(String field, int v, long max, List<String> e) {
        if (v < 1 || v > max) {
            e.add(field + ": " + v + " outside [1, " + max + "]");
        }
    }
}
