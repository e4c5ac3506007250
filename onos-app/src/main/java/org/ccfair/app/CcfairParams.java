/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableSet;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Read-only view of params/ccfair.json, bundled into the app as a resource.
 * The same file feeds the P4 program and the ns-3 model, so defaults here
 * can never drift from the data plane's.
 */
public final class CcfairParams {

    /** Classpath location of the bundled parameter file. */
    public static final String RESOURCE = "/ccfair/ccfair.json";

    private final JsonNode root;

    private CcfairParams(JsonNode root) {
        this.root = root;
    }

    /**
     * Loads the bundled parameters.
     *
     * @return the parameters
     */
    public static CcfairParams load() {
        try (InputStream in = CcfairParams.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("ccfair parameter file " + RESOURCE + " is not bundled");
            }
            return new CcfairParams(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + RESOURCE, e);
        }
    }

    /**
     * Parameters from an already parsed tree (tests and benchmarks that vary
     * one value, e.g. K; the app itself always uses {@link #load()}).
     *
     * @param root parsed params/ccfair.json
     * @return the parameters
     */
    public static CcfairParams fromTree(JsonNode root) {
        return new CcfairParams(root.deepCopy());
    }

    /**
     * The parameter tree (a copy).
     *
     * @return JSON tree
     */
    public JsonNode tree() {
        return root.deepCopy();
    }

    /**
     * Integer parameter section.key; "0x.." strings are parsed as hex.
     *
     * @param section top-level section, e.g. "classifier"
     * @param key     key inside the section, e.g. "m_m"
     * @return the value
     */
    public long integer(String section, String key) {
        return asInteger(node(section, key), section + "." + key);
    }

    /**
     * Integer parameter of a target profile, targets.profiles.profile.key.
     *
     * @param profile profile, e.g. "tofino"
     * @param key     key inside the profile, e.g. "pipes"
     * @return the value
     */
    public long profileInteger(String profile, String key) {
        String name = "targets.profiles." + profile + "." + key;
        JsonNode n = root.path("targets").path("profiles").path(profile).path(key);
        if (n.isMissingNode()) {
            throw new IllegalArgumentException("no parameter " + name);
        }
        return asInteger(n, name);
    }

    private static long asInteger(JsonNode n, String name) {
        if (n.isTextual() && n.asText().toLowerCase().startsWith("0x")) {
            return Long.parseLong(n.asText().substring(2), 16);
        }
        if (n.isBoolean()) {
            return n.asBoolean() ? 1 : 0;
        }
        if (!n.isIntegralNumber()) {
            throw new IllegalArgumentException(name + " is not an integer: " + n);
        }
        return n.asLong();
    }

    /**
     * Integer-array parameter section.key.
     *
     * @param section top-level section
     * @param key     key inside the section
     * @return the values
     */
    public long[] integers(String section, String key) {
        JsonNode n = node(section, key);
        if (!n.isArray()) {
            throw new IllegalArgumentException(section + "." + key + " is not an array: " + n);
        }
        long[] out = new long[n.size()];
        for (int i = 0; i < out.length; i++) {
            if (!n.get(i).isIntegralNumber()) {
                throw new IllegalArgumentException(section + "." + key + "[" + i + "] is not an integer");
            }
            out[i] = n.get(i).asLong();
        }
        return out;
    }

    /**
     * String parameter section.key.
     *
     * @param section top-level section
     * @param key     key inside the section
     * @return the value
     */
    public String text(String section, String key) {
        JsonNode n = node(section, key);
        if (!n.isTextual()) {
            throw new IllegalArgumentException(section + "." + key + " is not a string: " + n);
        }
        return n.asText();
    }

    /**
     * Floating-point parameter section.key.
     *
     * @param section top-level section
     * @param key     key inside the section
     * @return the value
     */
    public double real(String section, String key) {
        JsonNode n = node(section, key);
        if (!n.isNumber()) {
            throw new IllegalArgumentException(section + "." + key + " is not a number: " + n);
        }
        return n.asDouble();
    }

    /**
     * Number of sub-groups per family (compile-time K of the P4 program).
     *
     * @return K
     */
    public int k() {
        return (int) integer("groups", "k");
    }

    /**
     * Total number of groups: ants, mice and K sub-groups of each family.
     *
     * @return 2 + families * K
     */
    public int numGroups() {
        return 2 + root.path("groups").path("families").size() * k();
    }

    /**
     * Family names in group-layout order (delay, loss, hybrid).
     *
     * @return ordered family names
     */
    public ImmutableSet<String> families() {
        ImmutableSet.Builder<String> b = ImmutableSet.builder();
        root.path("groups").path("families").forEach(f -> b.add(f.asText()));
        return b.build();
    }

    /**
     * Name of a group id: "ant", "mouse" or "family.sub" (e.g. "loss.1").
     *
     * @param group group id
     * @return the name
     */
    public String groupName(int group) {
        if (group == integer("groups", "ant")) {
            return "ant";
        }
        if (group == integer("groups", "mouse")) {
            return "mouse";
        }
        if (group < 2 || group >= numGroups()) {
            throw new IllegalArgumentException("group " + group + " out of range [0, " + numGroups() + ")");
        }
        return root.path("groups").path("families").get((group - 2) / k()).asText() + "." + (group - 2) % k();
    }

    /**
     * Family of a group id, or null for ants and mice.
     *
     * @param group group id
     * @return family name or null
     */
    public String familyOf(int group) {
        if (group < 2 || group >= numGroups()) {
            return null;
        }
        return root.path("groups").path("families").get((group - 2) / k()).asText();
    }

    /**
     * Group id of a family's sub-group, laid out as in params/README.md.
     *
     * @param family "delay", "loss" or "hybrid"
     * @param sub    sub-group index in [0, K)
     * @return the group id
     */
    public int groupId(String family, int sub) {
        int i = indexIn("families", family, "family");
        if (sub < 0 || sub >= k()) {
            throw new IllegalArgumentException("sub-group " + sub + " out of range [0, " + k() + ")");
        }
        return 2 + i * k() + sub;
    }

    /**
     * Index of a hybrid kind (groups.hybrid_kinds: "loss_delay", "model"): the hybrid sub-group
     * of that kind, the first of the kind "model" and above it when K &gt; 2 (p4/gen_tables.py).
     *
     * @param kind the kind's name
     * @return its index
     */
    public int hybridKind(String kind) {
        return indexIn("hybrid_kinds", kind, "hybrid kind");
    }

    // Position of a name in the groups.<list> array.
    private int indexIn(String list, String name, String what) {
        JsonNode names = root.path("groups").path(list);
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).asText().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("unknown " + what + " '" + name + "'");
    }

    private JsonNode node(String section, String key) {
        JsonNode n = root.path(section).path(key);
        if (n.isMissingNode()) {
            throw new IllegalArgumentException("no parameter " + section + "." + key);
        }
        return n;
    }
}
