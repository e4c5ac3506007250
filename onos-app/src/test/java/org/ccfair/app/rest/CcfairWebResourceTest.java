/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.collect.ImmutableList;
import org.ccfair.app.FakeCcfairService;
import org.ccfair.app.compute.Fabrics;
import org.ccfair.app.stats.GroupStats;
import org.glassfish.jersey.server.ResourceConfig;
import org.glassfish.jersey.test.JerseyTest;
import org.junit.After;
import org.junit.Test;

import javax.ws.rs.HttpMethod;
import javax.ws.rs.Path;
import javax.ws.rs.client.Entity;
import javax.ws.rs.core.Application;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

/**
 * REST resource in Jersey's in-memory test container, over a fake service
 * backed by ONOS's test store and the real computation.
 */
public class CcfairWebResourceTest extends JerseyTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private FakeCcfairService service;

    @Override
    protected Application configure() {
        service = new FakeCcfairService(Fabrics.leafSpine(2, 2, 2));
        CcfairWebResource.setServiceLocator(() -> service);
        return new ResourceConfig(CcfairWebResource.class);
    }

    @After
    public void clearLocator() {
        CcfairWebResource.setServiceLocator(null);
    }

    private static final String GOLD = "{\"id\":\"gold\",\"scope\":{\"type\":\"devices\",\"devices\":"
            + "[\"device:leaf1\"]},\"priority\":200,\"target_delay_us\":1500}";

    private static JsonNode json(Response r) throws Exception {
        return MAPPER.readTree(r.readEntity(String.class));
    }

    @Test
    public void intentCrud() throws Exception {
        Response r = target("intents").request().post(Entity.entity(GOLD, MediaType.APPLICATION_JSON));
        assertEquals(201, r.getStatus());
        assertTrue(r.getLocation().toString().endsWith("intents/gold"));
        assertEquals(409, target("intents").request().post(Entity.entity(GOLD, MediaType.APPLICATION_JSON))
                .getStatus());
        JsonNode all = json(target("intents").request().get());
        assertEquals("gold", all.get("intents").get(0).get("id").asText());
        assertEquals(1500, json(target("intents/gold").request().get()).get("target_delay_us").asInt());
        // The policy follows: leaf1's ports now run gold's target.
        JsonNode p = json(target("policy/device:leaf1/3").request().get());
        assertEquals("gold", p.get("intent").asText());
        assertEquals(1500, p.get("target_delay_us").asInt());
        assertEquals(200, target("intents/gold").request()
                .put(Entity.entity(GOLD.replace("1500", "1600"), MediaType.APPLICATION_JSON)).getStatus());
        assertEquals(1600, json(target("policy/device:leaf1").request().get()).get("ports").get(0)
                .get("target_delay_us").asInt());
        assertEquals(204, target("intents/gold").request().delete().getStatus());
        assertEquals(404, target("intents/gold").request().delete().getStatus());
        assertEquals(404, target("intents/gold").request().get().getStatus());
        assertTrue(service.written.get("device:leaf1") > 0);
    }

    @Test
    public void badIntentShowsErrorsAndStoresNothing() throws Exception {
        Response r = target("intents").request().post(Entity.entity(
                GOLD.replace("1500", "5").replace("\"priority\":200", "\"priority\":-3"),
                MediaType.APPLICATION_JSON));
        assertEquals(400, r.getStatus());
        JsonNode e = json(r).get("errors");
        assertEquals(2, e.size());
        assertEquals("target_delay_us: 5 outside [50, 1000000]", e.get(0).asText());
        assertEquals("priority: -3 outside [0, 65535]", e.get(1).asText());
        r = target("intents").request().post(Entity.entity(
                GOLD.replace("\"priority\":200", "\"queue_layout\":\"fair\",\"priority\":200"),
                MediaType.APPLICATION_JSON));
        assertEquals(400, r.getStatus());
        assertEquals("queue_layout: 'fair' is not 'shared' or 'isolated'", json(r).get("errors").get(0).asText());
        r = target("intents").request().post(Entity.entity("{not json", MediaType.APPLICATION_JSON));
        assertEquals(400, r.getStatus());
        assertTrue(json(r).get("errors").get(0).asText().startsWith("body: not valid JSON"));
        r = target("intents/other").request().put(Entity.entity(GOLD, MediaType.APPLICATION_JSON));
        assertEquals(400, r.getStatus());
        assertEquals("id: body id 'gold' differs from the path id 'other'", json(r).get("errors").get(0).asText());
        assertEquals(0, json(target("intents").request().get()).get("intents").size());
        assertTrue(service.intents().isEmpty());
    }

    /** mLD/mPL left the data plane: a request still sending one is refused and changes nothing. */
    @Test
    public void removedClassifierFieldIsRefusedAndChangesNothing() throws Exception {
        assertEquals(201, target("intents").request().post(Entity.entity(GOLD, MediaType.APPLICATION_JSON))
                .getStatus());
        String stored = json(target("intents/gold").request().get()).toString();
        String policy = json(target("policy/device:leaf1").request().get()).toString();
        int written = service.written.get("device:leaf1");
        String old = GOLD.replace("\"priority\":200", "\"priority\":200,\"classifier\":{\"m_ld\":3,\"m_m\":5}")
                .replace("1500", "1600");
        Response r = target("intents/gold").request().put(Entity.entity(old, MediaType.APPLICATION_JSON));
        assertEquals(400, r.getStatus());
        JsonNode e = json(r).get("errors");
        assertEquals(1, e.size());
        assertEquals("classifier.m_ld: unknown field (removed: the family is decided by the loss response, "
                             + "docs/algorithm.md D11)", e.get(0).asText());
        r = target("intents").request().post(Entity.entity(old.replace("gold", "silver"),
                                                           MediaType.APPLICATION_JSON));
        assertEquals(400, r.getStatus());
        assertTrue(json(r).get("errors").get(0).asText().startsWith("classifier.m_ld: unknown field (removed: "));
        assertEquals(stored, json(target("intents/gold").request().get()).toString());
        assertEquals(1, json(target("intents").request().get()).get("intents").size());
        assertEquals(policy, json(target("policy/device:leaf1").request().get()).toString());
        assertEquals(written, (int) service.written.get("device:leaf1"));
        // The policy view no longer reports the removed thresholds either.
        assertEquals(List.of("m_m"), ImmutableList.copyOf(
                json(target("policy/device:leaf1/3").request().get()).get("classifier").fieldNames()));
    }

    @Test
    public void policyStatsAndStatus() throws Exception {
        JsonNode all = json(target("policy").request().get());
        assertEquals(4, all.get("devices").size());
        JsonNode port = json(target("policy/device:leaf1/1").request().get());
        assertEquals("fabric", port.get("role").asText());
        assertEquals(service.params().integer("queues", "slots_per_group"),
                     port.get("groups").get("ant").get("slot_queues").size());
        assertEquals(404, target("policy/device:nope").request().get().getStatus());
        assertEquals(400, target("policy/device:leaf1/x").request().get().getStatus());
        assertEquals(404, target("stats/device:leaf1/3").request().get().getStatus());
        service.stats.put("device:leaf1", Map.of(3L, List.of(new GroupStats(0, 2, 10, 1000, 1, 0),
                                                             new GroupStats(4, 7, 99, 9900, 3, 5))));
        JsonNode st = json(target("stats/device:leaf1/3").request().get());
        assertEquals(7, st.get("groups").get("loss.0").get("active_flows").asInt());
        assertEquals(5, st.get("groups").get("loss.0").get("ecn_marks").asInt());
        assertEquals(1, json(target("stats/device:leaf1").request().get()).get("ports").size());
        JsonNode status = json(target("status").request().get());
        assertEquals("IN_SYNC", status.get("devices").get(0).get("state").asText());
    }

    /** Every resource method appears in the OpenAPI description, and nothing else does. */
    @Test
    public void openApiDescribesEveryCall() throws Exception {
        JsonNode spec = json(target("openapi.json").request().get());
        int described = 0;
        for (java.util.Iterator<JsonNode> it = spec.get("paths").elements(); it.hasNext();) {
            JsonNode ops = it.next();
            for (String verb : List.of("get", "put", "post", "delete")) {
                if (ops.has(verb)) {
                    described++;
                }
            }
        }
        int methods = 0;
        for (Method m : CcfairWebResource.class.getDeclaredMethods()) {
            Path path = m.getAnnotation(Path.class);
            String verb = null;
            for (Annotation a : m.getAnnotations()) {
                HttpMethod hm = a.annotationType().getAnnotation(HttpMethod.class);
                if (hm != null) {
                    verb = hm.value().toLowerCase();
                }
            }
            if (path == null || verb == null) {
                continue;
            }
            methods++;
            JsonNode op = spec.get("paths").path("/" + path.value()).path(verb);
            assertTrue("OpenAPI lacks " + verb + " /" + path.value(), !op.isMissingNode());
        }
        assertEquals(methods, described);
    }
}
