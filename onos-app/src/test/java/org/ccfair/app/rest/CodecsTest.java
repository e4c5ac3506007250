/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.CcfairParams;
import org.ccfair.app.FakeCcfairService;
import org.ccfair.app.PushStatus;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.Fabrics;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.IntentJson;
import org.ccfair.app.policy.InvalidIntentException;
import org.ccfair.app.policy.Scope;
import org.junit.Test;
import org.onosproject.codec.CodecContext;
import org.onosproject.codec.JsonCodec;

import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Codec round trips (ONOS JsonCodec of intents) and the policy/status views.
 */
public class CodecsTest {

    private static final CcfairParams P = CcfairParams.load();

    /** Minimal CodecContext: the codec under test only needs a mapper. */
    private static final class Ctx implements CodecContext {
        private final ObjectMapper mapper = new ObjectMapper();

        @Override
        public ObjectMapper mapper() {
            return mapper;
        }

        @Override
        public <T> JsonCodec<T> codec(Class<T> entityClass) {
            return null;
        }

        @Override
        public <T> T getService(Class<T> serviceClass) {
            return null;
        }
    }

    @Test
    public void intentCodecRoundTrips() {
        FairnessIntentCodec c = new FairnessIntentCodec(new IntentJson(P));
        Ctx ctx = new Ctx();
        List<FairnessIntent> intents = List.of(
                FairnessIntent.builder(P).id("a").build(),
                FairnessIntent.builder(P).id("b").scope(Scope.devices(List.of("device:x", "device:y")))
                        .objective(FairnessIntent.Objective.WEIGHTED_GROUPS).weights(Map.of("loss", 0.5))
                        .bufferPolicy(FairnessIntent.BufferPolicy.FIXED).bufferLimitPkts(64).priority(0)
                        .classifier(3).minAntShare(0).minMiceShare(0.25).targetDelayUs(50).build(),
                FairnessIntent.builder(P).id("c").scope(Scope.ports(List.of("device:x/1")))
                        .queueLayout(FairnessIntent.QueueLayout.ISOLATED).build());
        for (FairnessIntent in : intents) {
            ObjectNode n = c.encode(in, ctx);
            assertEquals(in, c.decode(n, ctx));
        }
        ObjectNode bad = c.encode(intents.get(0), ctx).put("priority", -1);
        try {
            c.decode(bad, ctx);
            fail("decoded an invalid intent");
        } catch (InvalidIntentException e) {
            assertEquals(List.of("priority: -1 outside [0, 65535]"), e.errors());
        }
    }

    @Test
    public void policyAndStatusViews() throws Exception {
        FakeCcfairService s = new FakeCcfairService(Fabrics.leafSpine(1, 1, 2));
        PolicyCodec pc = new PolicyCodec(P);
        DevicePolicy d = s.policies().get(Fabrics.leaf(1));
        JsonNode j = pc.device(d);
        assertTrue("no corrections asked, none shown",
                   j.get("ports").get(1).get("groups").get("ant").path("correction_bins").isMissingNode());
        // with the service's corrections: each group's, 0 where it has none
        int loss1 = P.groupId("loss", 1);
        JsonNode jc = new PolicyCodec(P, (dev, port) -> {
            double[] c = new double[P.numGroups()];
            c[loss1] = 0.5;
            return c;
        }).device(d);
        assertEquals(0.5, jc.get("ports").get(1).get("groups").get(P.groupName(loss1)).get("correction_bins")
                .asDouble(), 0);
        assertEquals(0.0, jc.get("ports").get(1).get("groups").get("ant").get("correction_bins").asDouble(), 0);
        assertEquals(Fabrics.leaf(1), j.get("device").asText());
        assertEquals(3, j.get("ports").size());
        // The default layout: ants 0, mice 1, every long-lived group on queue 2.
        JsonNode port = j.get("ports").get(1);
        assertEquals("shared", port.get("queue_layout").asText());
        java.util.Set<Integer> used = new java.util.TreeSet<>();
        for (JsonNode g : port.get("groups")) {
            g.get("slot_queues").forEach(x -> used.add(x.asInt()));
        }
        assertEquals(java.util.Set.of(0, 1, 2), used);
        assertEquals("[2,2,2,2]", port.get("groups").get("loss.0").get("slot_queues").toString());
        // The target each queue's aqm_cfg gets: the port's everywhere in the shared layout (D19).
        assertEquals(P.integer("queues", "per_port"), port.get("queue_target_delay_us").size());
        port.get("queue_target_delay_us").forEach(x -> assertEquals(port.get("target_delay_us").asLong(), x.asLong()));
        JsonNode st = pc.status("device:s", new PushStatus(PushStatus.State.FAILED, 12, 3, "boom", 99, 50));
        assertEquals("FAILED", st.get("state").asText());
        assertEquals("boom", st.get("last_error").asText());
        assertEquals(99, st.get("next_retry_ms").asLong());
        assertTrue(!pc.status("d", new PushStatus(PushStatus.State.IN_SYNC, 0, 0, null, 0, 1)).has("last_error"));
    }
}
