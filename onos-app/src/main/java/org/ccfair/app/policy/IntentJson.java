/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import org.ccfair.app.CcfairParams;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The one JSON form of a {@link FairnessIntent}, shared by REST, CLI, netcfg
 * and the distributed store. Decoding is strict: unknown fields, wrong types
 * and out-of-range values are all reported at once, with the field name.
 */
public final class IntentJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> FIELDS = ImmutableSet.of(
            "id", "scope", "objective", "weights", "min_ant_share", "min_mice_share", "target_delay_us",
            "buffer_policy", "buffer_limit_pkts", "priority", "queue_layout", "classifier");
    private static final Set<String> SCOPE_FIELDS = ImmutableSet.of("type", "devices", "ports");
    private static final Set<String> CLASSIFIER_FIELDS = ImmutableSet.of("m_m");
    // Fields earlier releases accepted: a request that still sends one is refused with the reason,
    // not just "unknown", so a client written against the old API learns what to drop.
    private static final String AGGRESSIVENESS_REMOVED =
            "removed: the family is decided by the loss response, docs/algorithm.md D11";
    private static final Map<String, String> CLASSIFIER_REMOVED = ImmutableMap.of(
            "m_ld", AGGRESSIVENESS_REMOVED, "m_pl", AGGRESSIVENESS_REMOVED);

    private final CcfairParams params;
    private final IntentValidator validator;

    /**
     * Creates the codec.
     *
     * @param params shared parameters (defaults and limits)
     */
    public IntentJson(CcfairParams params) {
        this.params = params;
        this.validator = new IntentValidator(params);
    }

    /**
     * Encodes an intent; every field is written, defaults included, so the
     * stored form does not depend on the defaults of a later release.
     *
     * @param in intent
     * @return JSON object
     */
    public ObjectNode encode(FairnessIntent in) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("id", in.id());
        ObjectNode s = o.putObject("scope");
        s.put("type", in.scope().kind().name().toLowerCase());
        if (in.scope().kind() == Scope.Kind.DEVICES) {
            ArrayNode a = s.putArray("devices");
            in.scope().deviceIds().forEach(a::add);
        } else if (in.scope().kind() == Scope.Kind.PORTS) {
            ArrayNode a = s.putArray("ports");
            in.scope().portIds().forEach(a::add);
        }
        o.put("objective", in.objective().text());
        if (!in.weights().isEmpty()) {
            ObjectNode w = o.putObject("weights");
            in.weights().forEach(w::put);
        }
        o.put("min_ant_share", in.minAntShare());
        o.put("min_mice_share", in.minMiceShare());
        o.put("target_delay_us", in.targetDelayUs());
        o.put("buffer_policy", in.bufferPolicy().text());
        if (in.bufferPolicy() == FairnessIntent.BufferPolicy.FIXED) {
            o.put("buffer_limit_pkts", in.bufferLimitPkts());
        }
        o.put("priority", in.priority());
        o.put("queue_layout", in.queueLayout().text());
        ObjectNode c = o.putObject("classifier");
        c.put("m_m", in.mM());
        return o;
    }

    /**
     * Encodes an intent as a compact JSON string (the stored form).
     *
     * @param in intent
     * @return JSON text
     */
    public String toText(FairnessIntent in) {
        return encode(in).toString();
    }

    /**
     * Parses JSON text and validates it.
     *
     * @param text JSON text
     * @return the intent
     * @throws InvalidIntentException on malformed JSON or any invalid field
     */
    public FairnessIntent fromText(String text) {
        return decode(parse(text));
    }

    private static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new InvalidIntentException(List.of("body: not valid JSON (" + e.getOriginalMessage() + ")"));
        }
    }

    /**
     * Parses an intent read back from the store. A stored value written before
     * m_ld and m_pl were removed still carries them; they are dropped here (and
     * only here) so intents stored by an earlier release stay readable, while a
     * request naming them is still refused by {@link #decode(JsonNode)}.
     *
     * @param text stored JSON text
     * @return the intent
     * @throws InvalidIntentException on malformed JSON or any other invalid field
     */
    public FairnessIntent fromStored(String text) {
        JsonNode n = parse(text);
        JsonNode c = n == null ? null : n.get("classifier");
        if (c != null && c.isObject()) {
            ((ObjectNode) c).remove(CLASSIFIER_REMOVED.keySet());
        }
        return decode(n);
    }

    /**
     * Decodes and validates an intent.
     *
     * @param n JSON object
     * @return the intent
     * @throws InvalidIntentException listing every problem
     */
    public FairnessIntent decode(JsonNode n) {
        List<String> e = new ArrayList<>();
        if (n == null || !n.isObject()) {
            throw new InvalidIntentException(List.of("body: expected a JSON object, got "
                                                             + (n == null ? "nothing" : n.getNodeType())));
        }
        unknown(n, FIELDS, ImmutableMap.of(), "", e);
        FairnessIntent.Builder b = FairnessIntent.builder(params);
        JsonNode id = n.get("id");
        if (id == null) {
            e.add("id: missing");
        } else if (!id.isTextual()) {
            e.add("id: expected a string");
        } else {
            b.id(id.asText());
        }
        Scope scope = scope(n.get("scope"), e);
        if (scope != null) {
            b.scope(scope);
        }
        String obj = text(n, "objective", e);
        if (obj != null) {
            FairnessIntent.Objective o = FairnessIntent.Objective.fromText(obj);
            if (o == null) {
                e.add("objective: '" + obj + "' is not 'per-flow' or 'weighted-groups'");
            } else {
                b.objective(o);
            }
        }
        JsonNode w = n.get("weights");
        if (w != null) {
            if (!w.isObject()) {
                e.add("weights: expected an object {family: weight}");
            } else {
                Map<String, Double> ws = new TreeMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = w.fields(); it.hasNext();) {
                    Map.Entry<String, JsonNode> f = it.next();
                    if (!f.getValue().isNumber()) {
                        e.add("weights." + f.getKey() + ": expected a number");
                    } else {
                        ws.put(f.getKey(), f.getValue().asDouble());
                    }
                }
                b.weights(ws);
            }
        }
        Double d = number(n, "min_ant_share", e);
        if (d != null) {
            b.minAntShare(d);
        }
        d = number(n, "min_mice_share", e);
        if (d != null) {
            b.minMiceShare(d);
        }
        Long l = integer(n, "target_delay_us", e);
        if (l != null) {
            b.targetDelayUs(l);
        }
        String bp = text(n, "buffer_policy", e);
        if (bp != null) {
            FairnessIntent.BufferPolicy p = FairnessIntent.BufferPolicy.fromText(bp);
            if (p == null) {
                e.add("buffer_policy: '" + bp + "' is not 'adaptive' or 'fixed'");
            } else {
                b.bufferPolicy(p);
            }
        }
        l = integer(n, "buffer_limit_pkts", e);
        if (l != null) {
            b.bufferLimitPkts(clampInt(l));
        }
        l = integer(n, "priority", e);
        if (l != null) {
            b.priority(clampInt(l));
        }
        JsonNode ql = n.get("queue_layout");
        if (ql != null) {
            FairnessIntent.QueueLayout layout = ql.isTextual() ? FairnessIntent.QueueLayout.fromText(ql.asText())
                    : null;
            if (layout == null) {
                e.add("queue_layout: " + (ql.isTextual() ? "'" + ql.asText() + "'" : ql.toString())
                              + " is not 'shared' or 'isolated'");
            } else {
                b.queueLayout(layout);
            }
        }
        JsonNode c = n.get("classifier");
        if (c != null) {
            if (!c.isObject()) {
                e.add("classifier: expected an object {m_m}");
            } else {
                unknown(c, CLASSIFIER_FIELDS, CLASSIFIER_REMOVED, "classifier.", e);
                Long m = integer(c, "m_m", "classifier.", e);
                if (m != null) {
                    b.classifier(clampInt(m));
                }
            }
        }
        FairnessIntent in = b.build();
        if (e.isEmpty()) {
            e.addAll(validator.problems(in));
        }
        if (!e.isEmpty()) {
            throw new InvalidIntentException(e);
        }
        return in;
    }

    private Scope scope(JsonNode s, List<String> e) {
        if (s == null) {
            return Scope.fabric();
        }
        if (!s.isObject()) {
            e.add("scope: expected an object {type, devices | ports}");
            return null;
        }
        unknown(s, SCOPE_FIELDS, ImmutableMap.of(), "scope.", e);
        String type = text(s, "type", "scope.", e);
        if (type == null) {
            if (!s.has("type")) {
                e.add("scope.type: missing ('fabric', 'devices' or 'ports')");
            }
            return null;
        }
        switch (type) {
            case "fabric":
                if (s.has("devices") || s.has("ports")) {
                    e.add("scope: type 'fabric' takes no devices or ports");
                }
                return Scope.fabric();
            case "devices":
                if (s.has("ports")) {
                    e.add("scope.ports: not allowed with type 'devices'");
                }
                List<String> ds = strings(s, "devices", e);
                return ds == null ? null : Scope.devices(ds);
            case "ports":
                if (s.has("devices")) {
                    e.add("scope.devices: not allowed with type 'ports'");
                }
                List<String> ps = strings(s, "ports", e);
                return ps == null ? null : Scope.ports(ps);
            default:
                e.add("scope.type: '" + type + "' is not 'fabric', 'devices' or 'ports'");
                return null;
        }
    }

    private static List<String> strings(JsonNode s, String field, List<String> e) {
        JsonNode a = s.get(field);
        if (a == null) {
            e.add("scope." + field + ": missing");
            return null;
        }
        if (!a.isArray()) {
            e.add("scope." + field + ": expected an array of strings");
            return null;
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).isTextual()) {
                e.add("scope." + field + "[" + i + "]: expected a string");
            } else if (out.contains(a.get(i).asText())) {
                e.add("scope." + field + "[" + i + "]: '" + a.get(i).asText() + "' listed twice");
            } else {
                out.add(a.get(i).asText());
            }
        }
        return out;
    }

    private static void unknown(JsonNode n, Set<String> known, Map<String, String> removed, String prefix,
                                List<String> e) {
        for (Iterator<String> it = n.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (removed.containsKey(f)) {
                e.add(prefix + f + ": unknown field (" + removed.get(f) + ")");
            } else if (!known.contains(f)) {
                e.add(prefix + f + ": unknown field (known: " + String.join(", ", new TreeSet<>(known)) + ")");
            }
        }
    }

    private static String text(JsonNode n, String f, List<String> e) {
        return text(n, f, "", e);
    }

    private static String text(JsonNode n, String f, String prefix, List<String> e) {
        JsonNode v = n.get(f);
        if (v == null) {
            return null;
        }
        if (!v.isTextual()) {
            e.add(prefix + f + ": expected a string");
            return null;
        }
        return v.asText();
    }

    private static Double number(JsonNode n, String f, List<String> e) {
        JsonNode v = n.get(f);
        if (v == null) {
            return null;
        }
        if (!v.isNumber()) {
            e.add(f + ": expected a number");
            return null;
        }
        return v.asDouble();
    }

    private static Long integer(JsonNode n, String f, List<String> e) {
        return integer(n, f, "", e);
    }

    private static Long integer(JsonNode n, String f, String prefix, List<String> e) {
        JsonNode v = n.get(f);
        if (v == null) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            e.add(prefix + f + ": expected an integer");
            return null;
        }
        return v.asLong();
    }

    // Out-of-int-range values become an out-of-range value the validator reports with its bounds.
    private static int clampInt(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }
}
