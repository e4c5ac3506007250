/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.policy;

import org.ccfair.app.CcfairParams;
import org.junit.Test;

import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Intent JSON: round trips, and every rejected field with its error text.
 */
public class IntentJsonTest {

    private static final CcfairParams P = CcfairParams.load();
    private final IntentJson json = new IntentJson(P);

    static String valid() {
        return "{\"id\":\"gold\",\"scope\":{\"type\":\"devices\",\"devices\":[\"device:leaf1\"]},"
                + "\"objective\":\"weighted-groups\",\"weights\":{\"loss\":2,\"delay\":1},"
                + "\"min_ant_share\":0.1,\"min_mice_share\":0.1,\"target_delay_us\":2000,"
                + "\"buffer_policy\":\"fixed\",\"buffer_limit_pkts\":500,\"priority\":300,"
                + "\"queue_layout\":\"isolated\","
                + "\"classifier\":{\"m_m\":5}}";
    }

    @Test
    public void roundTrips() {
        FairnessIntent a = json.fromText(valid());
        assertEquals("gold", a.id());
        assertEquals(2.0, a.weight("loss"), 0);
        assertEquals(1.0, a.weight("hybrid"), 0);
        assertEquals(FairnessIntent.QueueLayout.ISOLATED, a.queueLayout());
        assertEquals("isolated", json.encode(a).get("queue_layout").asText());
        assertEquals(a, json.fromText(json.toText(a)));
        FairnessIntent b = FairnessIntent.builder(P).id("p").scope(Scope.ports(List.of("device:s1/3", "device:s1/4")))
                .build();
        assertEquals(b, json.decode(json.encode(b)));
        FairnessIntent c = FairnessIntent.builder(P).id("f").build();
        assertEquals(c, json.fromText(json.toText(c)));
    }

    @Test
    public void minimalIntentGetsParamDefaults() {
        FairnessIntent a = json.fromText("{\"id\":\"x\"}");
        assertEquals(Scope.fabric(), a.scope());
        assertEquals(FairnessIntent.Objective.PER_FLOW, a.objective());
        assertEquals(P.integer("aqm", "target_delay_us"), a.targetDelayUs());
        assertEquals(P.integer("classifier", "m_m"), a.mM());
        assertEquals(FairnessIntent.BufferPolicy.ADAPTIVE, a.bufferPolicy());
        // Also what an intent stored before the field existed reads as.
        assertEquals(P.text("queues", "layout"), a.queueLayout().text());
        assertEquals(FairnessIntent.QueueLayout.SHARED, a.queueLayout());
    }

    @Test
    public void queueLayoutDefaultComesFromParams() {
        com.fasterxml.jackson.databind.node.ObjectNode tree = (com.fasterxml.jackson.databind.node.ObjectNode) P.tree();
        com.fasterxml.jackson.databind.node.ObjectNode queues =
                (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("queues");
        queues.put("layout", "isolated");
        assertEquals(FairnessIntent.QueueLayout.ISOLATED,
                     new IntentJson(CcfairParams.fromTree(tree)).fromText("{\"id\":\"x\"}").queueLayout());
        queues.put("layout", "fair");
        try {
            FairnessIntent.builder(CcfairParams.fromTree(tree));
            fail("accepted queues.layout 'fair'");
        } catch (IllegalArgumentException e) {
            assertEquals("queues.layout: 'fair' is not 'shared' or 'isolated'", e.getMessage());
        }
    }

    /** Each case: a replacement of one field in the valid intent, and the error it must produce. */
    private static final String[][] BAD = {
            {"\"id\":\"gold\"", "\"id\":\"bad id!\"", "id: 'bad id!' must match"},
            {"\"id\":\"gold\"", "\"id\":7", "id: expected a string"},
            {"\"id\":\"gold\",", "", "id: missing"},
            {"\"type\":\"devices\"", "\"type\":\"racks\"", "scope.type: 'racks' is not 'fabric', 'devices' or 'ports'"},
            {"\"devices\":[\"device:leaf1\"]", "\"devices\":[]", "scope.devices: empty"},
            {"\"devices\":[\"device:leaf1\"]", "\"devices\":[\"leaf1\"]",
                    "scope.devices[0]: 'leaf1' is not a device id"},
            {"\"devices\":[\"device:leaf1\"]", "\"devices\":[\"device:a\",\"device:a\"]",
                    "scope.devices[1]: 'device:a' listed twice"},
            {"\"devices\":[\"device:leaf1\"]", "\"devices\":\"device:leaf1\"", "scope.devices: expected an array"},
            {"\"type\":\"devices\",\"devices\":[\"device:leaf1\"]", "\"type\":\"ports\",\"ports\":[\"device:leaf1\"]",
                    "scope.ports[0]: 'device:leaf1' is not 'deviceId/port'"},
            {"\"type\":\"devices\",\"devices\":[\"device:leaf1\"]", "\"type\":\"fabric\",\"ports\":[\"device:l/1\"]",
                    "scope: type 'fabric' takes no devices or ports"},
            {"\"type\":\"devices\"", "\"type\":\"devices\",\"rack\":1", "scope.rack: unknown field"},
            {"\"objective\":\"weighted-groups\"", "\"objective\":\"max-min\"",
                    "objective: 'max-min' is not 'per-flow' or 'weighted-groups'"},
            {"\"objective\":\"weighted-groups\"", "\"objective\":\"per-flow\"",
                    "weights: only allowed with objective 'weighted-groups'"},
            {"\"weights\":{\"loss\":2,\"delay\":1}", "\"weights\":{}", "weights: objective 'weighted-groups' needs"},
            {"\"weights\":{\"loss\":2,\"delay\":1}", "\"weights\":{\"cubic\":2}", "weights.cubic: unknown family"},
            {"\"weights\":{\"loss\":2,\"delay\":1}", "\"weights\":{\"loss\":0}", "weights.loss: 0.0 outside"},
            {"\"weights\":{\"loss\":2,\"delay\":1}", "\"weights\":{\"loss\":\"2\"}", "weights.loss: expected a number"},
            {"\"min_ant_share\":0.1", "\"min_ant_share\":-0.1", "min_ant_share: -0.1 outside [0, 0.5]"},
            {"\"min_mice_share\":0.1", "\"min_mice_share\":0.45", "min_ant_share + min_mice_share: "},
            {"\"min_mice_share\":0.1", "\"min_mice_share\":\"a\"", "min_mice_share: expected a number"},
            {"\"target_delay_us\":2000", "\"target_delay_us\":5", "target_delay_us: 5 outside [50, 1000000]"},
            {"\"target_delay_us\":2000", "\"target_delay_us\":2.5", "target_delay_us: expected an integer"},
            {"\"buffer_policy\":\"fixed\"", "\"buffer_policy\":\"elastic\"",
                    "buffer_policy: 'elastic' is not 'adaptive' or 'fixed'"},
            {"\"buffer_limit_pkts\":500", "\"buffer_limit_pkts\":1", "buffer_limit_pkts: 1 outside [16, 25000]"},
            {"\"buffer_policy\":\"fixed\"", "\"buffer_policy\":\"adaptive\"",
                    "buffer_limit_pkts: only allowed with buffer_policy 'fixed'"},
            {"\"priority\":300", "\"priority\":70000", "priority: 70000 outside [0, 65535]"},
            {"\"queue_layout\":\"isolated\"", "\"queue_layout\":\"per-group\"",
                    "queue_layout: 'per-group' is not 'shared' or 'isolated'"},
            {"\"queue_layout\":\"isolated\"", "\"queue_layout\":2", "queue_layout: 2 is not 'shared' or 'isolated'"},
            {"\"queue_layout\":\"isolated\"", "\"queue_layout\":null",
                    "queue_layout: null is not 'shared' or 'isolated'"},
            {"\"m_m\":5", "\"m_m\":0", "classifier.m_m: 0 outside [1, 255]"},
            {"\"m_m\":5", "\"m_m\":\"5\"", "classifier.m_m: expected an integer"},
            {"\"m_m\":5", "\"m_ld\":3,\"m_m\":5", "classifier.m_ld: unknown field (removed: "},
            {"\"m_m\":5", "\"m_m\":5,\"m_pl\":10", "classifier.m_pl: unknown field (removed: "},
            {"\"m_m\":5", "\"m_m\":300", "classifier.m_m: 300 outside [1, 255]"},
            {"\"m_m\":5", "\"m_m\":5,\"m_x\":1", "classifier.m_x: unknown field"},
            {"\"priority\":300", "\"priority\":300,\"colour\":\"red\"", "colour: unknown field"},
    };

    @Test
    public void everyBadFieldIsNamed() {
        for (String[] c : BAD) {
            String text = valid().replace(c[0], c[1]);
            assertTrue("test case did not change the intent: " + c[0], !text.equals(valid()));
            try {
                json.fromText(text);
                fail("accepted: " + text);
            } catch (InvalidIntentException e) {
                assertTrue("expected '" + c[2] + "' in " + e.errors(),
                           e.errors().stream().anyMatch(m -> m.startsWith(c[2]) || m.contains(c[2])));
            }
        }
    }

    /**
     * The aggressiveness thresholds mLD and mPL are gone from the data plane: an intent that
     * still sets them is refused as a whole (not decoded with them ignored), each field named.
     */
    @Test
    public void removedClassifierFieldsAreRefused() {
        try {
            json.fromText(valid().replace("\"m_m\":5", "\"m_ld\":3,\"m_pl\":10,\"m_m\":5"));
            fail("accepted classifier.m_ld and m_pl");
        } catch (InvalidIntentException e) {
            String why = " unknown field (removed: the family is decided by the loss response, docs/algorithm.md D11)";
            assertEquals(List.of("classifier.m_ld:" + why, "classifier.m_pl:" + why), e.errors());
        }
        // Other unknown fields keep the list of the known ones.
        try {
            json.fromText(valid().replace("\"m_m\":5", "\"m_x\":1"));
            fail("accepted classifier.m_x");
        } catch (InvalidIntentException e) {
            assertEquals(List.of("classifier.m_x: unknown field (known: m_m)"), e.errors());
        }
    }

    /** A value the store holds from a release that still had m_ld and m_pl reads back without them. */
    @Test
    public void storedIntentOfAnEarlierReleaseStillReads() {
        String stored = json.toText(json.fromText(valid()))
                .replace("\"classifier\":{", "\"classifier\":{\"m_ld\":3,\"m_pl\":10,");
        assertTrue(stored, stored.contains("\"m_ld\":3"));
        FairnessIntent in = json.fromStored(stored);
        assertEquals(json.fromText(valid()), in);
        assertEquals(5, in.mM());
        assertTrue(json.toText(in), !json.toText(in).contains("m_ld") && !json.toText(in).contains("m_pl"));
        // Only those two are forgiven: anything else still fails.
        try {
            json.fromStored(stored.replace("\"m_ld\":3", "\"m_x\":3"));
            fail("accepted classifier.m_x from the store");
        } catch (InvalidIntentException e) {
            assertEquals(List.of("classifier.m_x: unknown field (known: m_m)"), e.errors());
        }
    }

    @Test
    public void allProblemsReportedAtOnce() {
        try {
            json.fromText("{\"id\":\"a\",\"priority\":-1,\"target_delay_us\":1,\"objective\":\"per-flow\","
                                  + "\"weights\":{\"loss\":3}}");
            fail("accepted");
        } catch (InvalidIntentException e) {
            assertEquals(e.errors().toString(), 3, e.errors().size());
            assertTrue(e.getMessage().startsWith("invalid fairness intent: "));
        }
    }

    @Test
    public void notJsonOrNotObject() {
        for (String t : new String[]{"{", "[1]", "3"}) {
            try {
                json.fromText(t);
                fail("accepted " + t);
            } catch (InvalidIntentException e) {
                assertTrue(e.getMessage(), e.errors().get(0).startsWith("body: "));
            }
        }
    }

    @Test
    public void validatorChecksBuiltIntents() {
        FairnessIntent in = FairnessIntent.builder(P).id("w").objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(Map.of("loss", 1000.0)).build();
        List<String> e = new IntentValidator(P).problems(in);
        assertEquals(List.of("weights.loss: 1000.0 outside [0.01, 100.0]"), e);
    }
}
