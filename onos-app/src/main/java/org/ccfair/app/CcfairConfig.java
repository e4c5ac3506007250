/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.fasterxml.jackson.databind.JsonNode;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.ccfair.app.policy.InvalidIntentException;
import org.onosproject.core.ApplicationId;
import org.onosproject.net.config.Config;
import org.onosproject.net.config.InvalidFieldException;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Declarative intents: netcfg subject "apps", key "ccfair":
 * <pre>{"apps": {"org.ccfair.app": {"ccfair": {"intents": [ {...}, ... ], "recompute_period_ms": 1000,
 *     "stats_indices": {"device:leaf1": {"1": 0, "2": 1}}}}}}</pre>
 * Each intent has the JSON form of the REST API. {@code stats_indices} fixes
 * the port stats indices of the devices it names (port number to index, each
 * in 0..ports.stats_indices-1, distinct per device; ports of such a device it
 * does not list get none and stay unconfigured); other devices get
 * {@link org.ccfair.app.compute.StatsIndex#assign}. An invalid element makes
 * the whole config invalid (ONOS then rejects it) and nothing is applied.
 */
public class CcfairConfig extends Config<ApplicationId> {

    /** netcfg key. */
    public static final String KEY = "ccfair";
    private static final String INTENTS = "intents";
    private static final String PERIOD = "recompute_period_ms";
    private static final String INDICES = "stats_indices";
    /** Smallest recomputation period accepted, ms. */
    public static final long MIN_PERIOD_MS = 100;

    private IntentJson json;

    /**
     * Sets the codec used to parse and validate intents.
     *
     * @param codec intent codec
     * @return this
     */
    public CcfairConfig codec(IntentJson codec) {
        this.json = codec;
        return this;
    }

    /**
     * Validates the config.
     *
     * @return true if valid
     * @throws InvalidFieldException naming every problem (ONOS shows it to the operator)
     */
    @Override
    public boolean isValid() {
        hasOnlyFields(INTENTS, PERIOD, INDICES);
        List<String> p = problems();
        if (!p.isEmpty()) {
            throw new InvalidFieldException(INTENTS, String.join("; ", p));
        }
        return true;
    }

    /**
     * Every problem of the config, each naming the element.
     *
     * @return messages (empty if valid)
     */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        JsonNode period = object.get(PERIOD);
        if (period != null && (!period.isIntegralNumber() || period.asLong() < MIN_PERIOD_MS)) {
            out.add(PERIOD + ": " + period + " is not an integer >= " + MIN_PERIOD_MS);
        }
        indexProblems(out);
        JsonNode a = object.has(INTENTS) ? object.path(INTENTS) : object.arrayNode();
        if (!a.isArray()) {
            out.add("intents: expected an array of intents");
            return out;
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < a.size(); i++) {
            try {
                FairnessIntent in = codec().decode(a.get(i));
                if (!ids.add(in.id())) {
                    out.add("intents[" + i + "]: id '" + in.id() + "' listed twice");
                }
            } catch (InvalidIntentException e) {
                for (String m : e.errors()) {
                    out.add("intents[" + i + "]." + m);
                }
            }
        }
        return out;
    }

    /**
     * The intents of the config.
     *
     * @return intents
     * @throws InvalidIntentException if any element is invalid
     */
    public List<FairnessIntent> intents() {
        List<String> p = problems();
        if (!p.isEmpty()) {
            throw new InvalidIntentException(p);
        }
        List<FairnessIntent> out = new ArrayList<>();
        object.path(INTENTS).forEach(n -> out.add(codec().decode(n)));
        return out;
    }

    /**
     * Recomputation period, if the config sets one.
     *
     * @return period in ms, or -1 for the params/ccfair.json default
     */
    public long recomputePeriodMs() {
        JsonNode n = object.get(PERIOD);
        return n != null && n.isIntegralNumber() && n.asLong() >= MIN_PERIOD_MS ? n.asLong() : -1;
    }

    private void indexProblems(List<String> out) {
        JsonNode idx = object.get(INDICES);
        if (idx == null) {
            return;
        }
        if (!idx.isObject()) {
            out.add(INDICES + ": expected an object of devices");
            return;
        }
        long count = CcfairParams.load().integer("ports", "stats_indices");
        idx.fields().forEachRemaining(dev -> {
            String where = INDICES + "." + dev.getKey();
            if (!dev.getValue().isObject()) {
                out.add(where + ": expected an object of port number to index");
                return;
            }
            Set<Long> used = new HashSet<>();
            dev.getValue().fields().forEachRemaining(e -> {
                long port;
                try {
                    port = Long.parseLong(e.getKey());
                } catch (NumberFormatException x) {
                    port = -1;
                }
                JsonNode v = e.getValue();
                if (port < 0) {
                    out.add(where + ": '" + e.getKey() + "' is not a port number");
                } else if (!v.isIntegralNumber() || v.asLong() < 0 || v.asLong() >= count) {
                    out.add(where + "." + e.getKey() + ": " + v + " is not an index in 0.." + (count - 1));
                } else if (!used.add(v.asLong())) {
                    out.add(where + "." + e.getKey() + ": index " + v + " given twice");
                }
            });
        });
    }

    /**
     * Stats indices the config fixes, per device.
     *
     * @return device id to (port number to index); empty if none or invalid
     */
    public Map<String, Map<Long, Integer>> statsIndices() {
        Map<String, Map<Long, Integer>> out = new HashMap<>();
        if (!problems().isEmpty() || !object.has(INDICES)) {
            return out;
        }
        object.path(INDICES).fields().forEachRemaining(dev -> {
            Map<Long, Integer> m = new HashMap<>();
            dev.getValue().fields().forEachRemaining(e -> m.put(Long.parseLong(e.getKey()), e.getValue().asInt()));
            out.put(dev.getKey(), Map.copyOf(m));
        });
        return out;
    }

    private IntentJson codec() {
        if (json == null) {
            json = new IntentJson(CcfairParams.load());
        }
        return json;
    }
}
