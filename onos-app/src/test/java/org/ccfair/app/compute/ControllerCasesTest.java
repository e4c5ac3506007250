/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.CcfairParams;
import org.ccfair.app.policy.FairnessIntent;
import org.junit.Test;

import java.io.File;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The app against testdata/controller/cases.json, the controller cases the
 * ns-3 model is held to as well (testdata/README.md, "Controller cases"): one
 * edge port per case, compiled as the app compiles a device, then its fair
 * rate, port_cfg fair_rate_bin, TVF profile, per-group CTV range and queue map
 * (in the case's queue layout), and port_cfg family_forget and the aqm_cfg
 * target of each queue as PolicyDelta writes them (D19), compared with the
 * hand-derived values. Every case is checked; failures are reported together.
 */
public class ControllerCasesTest {

    private static final File CASES = new File("../testdata/controller/cases.json");
    private static final String DEV = "device:case";
    // The rest of the fabric (a case's fabric_flows): another switch of the view.
    private static final String REST = "device:rest-of-fabric";

    @Test
    public void appMatchesEveryControllerCase() throws Exception {
        JsonNode root = new ObjectMapper().readTree(CASES);
        JsonNode cases = root.path("cases");
        assertTrue("no cases in " + CASES, cases.size() > 0);
        List<String> failures = new ArrayList<>();
        for (JsonNode c : cases) {
            check(c, failures);
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " mismatches:\n" + String.join("\n", failures));
        }
    }

    @Test
    public void aCaseWithSentRatesIsRefused() throws Exception {
        assertRefused("{\"name\": \"x\", \"link_mbps\": 20, \"flows\": {\"loss0\": 1}, \"sent_kbps\": {\"loss0\": 1}}",
                      "x: sent_kbps is no longer an input");
    }

    @Test
    public void anUnknownGroupInFabricFlowsIsRefused() throws Exception {
        assertRefused("{\"name\": \"x\", \"link_mbps\": 20, \"flows\": {\"loss0\": 1},"
                      + " \"fabric_flows\": {\"bogus\": 1}}", "x: unknown group 'bogus'");
    }

    // A case the reader must refuse with a message starting with (or holding) `message`.
    private void assertRefused(String json, String message) throws Exception {
        JsonNode c = new ObjectMapper().readTree(json);
        try {
            check(c, new ArrayList<>());
        } catch (AssertionError | IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(message));
            return;
        }
        fail("accepted: " + json);
    }

    private static void check(JsonNode c, List<String> failures) {
        String name = c.path("name").asText();
        assertFalse("case without a name", name.isEmpty());
        CcfairParams p = params(c.path("params"), name);
        PolicyCompiler compiler = new PolicyCompiler(p);
        compiler.setCocoa(new Cocoa(p));   // a first round: no Cocoa state, D21's floors only
        int groups = p.numGroups();
        Map<String, Integer> ids = new HashMap<>();
        for (int g = 0; g < groups; g++) {
            ids.put(p.groupName(g).replace(".", ""), g); // "loss.0" -> "loss0"
        }
        long speed = c.path("link_mbps").asLong();
        int[] flows = new int[groups];
        perGroup(c.path("flows"), ids, name, (g, v) -> flows[g] = v.asInt());
        // The fair rate has no forwarded-rate input (docs/algorithm.md D12): a case that
        // still gives one was written for the removed max-min step and would pass unread.
        assertFalse(name + ": sent_kbps is no longer an input (docs/algorithm.md D12); delete it",
                    c.has("sent_kbps"));
        List<FairnessIntent> intents = new ArrayList<>();
        if (c.has("weights") || c.has("queue_layout")) {
            FairnessIntent.Builder b = FairnessIntent.builder(p).id("case");
            if (c.has("weights")) {
                Map<String, Double> w = new HashMap<>();
                c.path("weights").fields().forEachRemaining(e -> w.put(e.getKey(), e.getValue().asDouble()));
                b.objective(FairnessIntent.Objective.WEIGHTED_GROUPS).weights(w);
            }
            if (c.has("queue_layout")) {
                FairnessIntent.QueueLayout layout = FairnessIntent.QueueLayout.fromText(
                        c.path("queue_layout").asText());
                if (layout == null) {
                    throw new IllegalArgumentException(name + ": queue_layout " + c.path("queue_layout")
                                                               + " is not 'shared' or 'isolated'");
                }
                b.queueLayout(layout);
            }
            intents.add(b.build());
        }
        FabricView.Builder fb = FabricView.builder().port(DEV, 1, PortRole.EDGE, speed);
        StatsSnapshot.Builder sb = StatsSnapshot.builder().port(DEV, 1, flows);
        if (c.has("fabric_flows")) {
            // D22: the long-lived flows the rest of the fabric counts, on another switch; the
            // case's port is then a leaf's host port (its switch has an uplink, port 2), which
            // receives from the fabric, so its strict edge counts them.
            int[] rest = new int[groups];
            perGroup(c.path("fabric_flows"), ids, name, (g, v) -> rest[g] = v.asInt());
            fb.port(DEV, 2, PortRole.FABRIC, speed).port(REST, 1, PortRole.FABRIC, speed);
            sb.port(REST, 1, rest);
        }
        FabricView fabric = fb.build();
        if (c.has("correction")) {
            // One round of the share correction (D13): its state before, what each group
            // forwarded over the window.
            JsonNode k = c.path("correction");
            for (String key : List.of("flows_before", "before", "forwarded_kbps", "signalled", "window_s")) {
                if (!k.has(key)) {
                    throw new IllegalArgumentException(name + ": correction." + key + " is missing");
                }
            }
            double window = k.path("window_s").asDouble();
            double[] before = new double[groups];
            double[] bits = new double[groups];
            long[] signalled = new long[groups];
            int[] flowsBefore = new int[groups];
            perGroup(k.path("flows_before"), ids, name, (g, v) -> flowsBefore[g] = v.asInt());
            perGroup(k.path("before"), ids, name, (g, v) -> before[g] = v.asDouble());
            perGroup(k.path("signalled"), ids, name, (g, v) -> signalled[g] = v.asLong());
            perGroup(k.path("forwarded_kbps"), ids, name, (g, v) -> bits[g] = v.asDouble() * 1e3 * window);
            compiler.correction().set(DEV, 1, before, flowsBefore);
            sb.forwarded(DEV, 1, bits, signalled, window);
        }
        DevicePolicy d = compiler.compile(fabric, intents, sb.build(), Map.of()).get(DEV);
        PortPolicy port = d.port(1);
        TvfProfile tvf = d.profile(port.tvfProfileId());
        JsonNode e = c.path("expect");
        double[] applied = compiler.correction().current(DEV, 1);
        Iterator<Map.Entry<String, JsonNode>> corr = e.path("correction_bins").fields();
        while (corr.hasNext()) {
            Map.Entry<String, JsonNode> g = corr.next();
            int gid = group(ids, g.getKey(), name);
            double got = gid < applied.length ? applied[gid] : 0.0;
            if (Math.abs(got - g.getValue().asDouble()) > 1e-9) {
                failures.add(name + ": correction of " + g.getKey() + " " + got + " bins, expected "
                                     + g.getValue().asDouble());
            }
        }

        double fair = compiler.fairKbps(speed, flows);
        double want = e.path("fair_kbps").asDouble();
        if (Math.abs(fair - want) > 1e-6 * Math.max(1, want)) {
            failures.add(name + ": fair_kbps " + fair + ", expected " + want);
        }
        expectEq(failures, name + ": port_cfg fair_rate_bin", e.path("fair_rate_bin").asInt(), port.fairRateBin());
        // The fabric's one scale (D22): the ants' curve (weight 1 in every objective) is
        // pv_max / 2 at the bin of tvf.centre_kbps, C = floor(d log10(centre_kbps / rate_min_kbps)),
        // whatever the port's fair rate. (centre_bin, where the port's CTV ranges are read, has
        // no read-out in the app: the expected ranges check it.)
        int scale = Math.min((int) p.integer("tvf", "rate_steps") - 1, (int) Math.floor(
                p.real("tvf", "steps_per_decade")
                        * Math.log10(p.real("tvf", "centre_kbps") / p.real("tvf", "rate_min_kbps")) + 1e-9));
        int half = (int) p.integer("tvf", "pv_max") / 2;
        expectEq(failures, name + ": ant PV at the fabric's centre bin " + scale, half,
                 tvf.pv(ids.get("ant"), scale));
        JsonNode bins = e.path("tvf_bins");
        Iterator<Map.Entry<String, JsonNode>> it = e.path("tvf").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> g = it.next();
            int gid = group(ids, g.getKey(), name);
            assertEquals(name + ": tvf." + g.getKey() + " length", bins.size(), g.getValue().size());
            for (int i = 0; i < bins.size(); i++) {
                int bin = bins.get(i).asInt();
                expectEq(failures, name + ": tvf " + g.getKey() + " bin " + bin, g.getValue().get(i).asInt(),
                         tvf.pv(gid, bin));
            }
        }
        int numQueues = compiler.numQueues();
        it = e.path("ctv").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> g = it.next();
            int q = port.queueOf(group(ids, g.getKey(), name), 0, numQueues);
            expectEq(failures, name + ": ctv lo of " + g.getKey() + " (queue " + q + ")",
                     g.getValue().get(0).asInt(), port.ctvLoOf(q));
            expectEq(failures, name + ": ctv hi of " + g.getKey() + " (queue " + q + ")",
                     g.getValue().get(1).asInt(), port.ctvHiOf(q));
        }
        it = e.path("queues").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> g = it.next();
            int gid = group(ids, g.getKey(), name);
            for (int s = 0; s < g.getValue().size(); s++) {
                expectEq(failures, name + ": queue of " + g.getKey() + " slot " + s, g.getValue().get(s).asInt(),
                         port.queueOf(gid, s, numQueues));
            }
        }
        checkWrites(c, p, d, port, ids, failures);
        if (e.has("queues_used")) {
            java.util.Set<Integer> used = new java.util.TreeSet<>();
            int slots = (int) p.integer("queues", "slots_per_group");
            for (int g = 0; g < groups; g++) {
                for (int s = 0; s < slots; s++) {
                    used.add(port.queueOf(g, s, numQueues));
                }
            }
            expectEq(failures, name + ": queues used " + used, e.path("queues_used").asInt(), used.size());
        }
    }

    // port_cfg family_forget and aqm_cfg target_delay_us as PolicyDelta writes them for the port (D19).
    private static void checkWrites(JsonNode c, CcfairParams p, DevicePolicy d, PortPolicy port,
                                    Map<String, Integer> ids, List<String> failures) {
        String name = c.path("name").asText();
        JsonNode e = c.path("expect");
        long[] egress = null;
        Map<Long, Long> target = new HashMap<>();
        for (PolicyWrite w : new PolicyDelta(p).full(d)) {
            if (w.table() == PolicyTable.EGRESS_PORT && w.key(0) == port.port()) {
                egress = w.value();
            } else if (w.table() == PolicyTable.AQM && w.key(0) == port.port()) {
                target.put(w.key(1), w.value(0));
            }
        }
        assertTrue(name + ": no port_cfg write", egress != null);
        if (!e.has("family_forget")) {
            failures.add(name + ": expect.family_forget (0 or 1) is missing");
        } else {
            // set_port_cfg(role, tvf_profile, fair_rate_bin, ant_max_pkts, m_m, ss_drop, family_forget, stats_idx)
            expectEq(failures, name + ": port_cfg family_forget", e.path("family_forget").asInt(), (int) egress[6]);
        }
        int numQueues = d.numQueues();
        checkPerQueue(e, "target_us", "aqm_cfg target_delay_us", port, ids, name, numQueues,
                      q -> target.getOrDefault((long) q, -1L), failures);
        // D21: the first policy's buffer limit per queue (aqm_cfg limit_cells / cells per packet).
        checkPerQueue(e, "limit_pkts", "limit", port, ids, name, numQueues, port::limitOf, failures);
    }

    // expect[key]: per listed group, the value of the queue its slot 0 maps to; expect[key_other]:
    // that of every other queue of the port.
    private static void checkPerQueue(JsonNode e, String key, String what, PortPolicy port,
                                      Map<String, Integer> ids, String name, int numQueues,
                                      java.util.function.IntToLongFunction got, List<String> failures) {
        java.util.Set<Integer> listed = new java.util.HashSet<>();
        Iterator<Map.Entry<String, JsonNode>> it = e.path(key).fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> g = it.next();
            int q = port.queueOf(group(ids, g.getKey(), name), 0, numQueues);
            listed.add(q);
            expectEq(failures, name + ": " + what + " of " + g.getKey() + " (queue " + q + ")",
                     g.getValue().asLong(), got.applyAsLong(q));
        }
        if (e.has(key + "_other")) {
            for (int q = 0; q < numQueues; q++) {
                if (!listed.contains(q)) {
                    expectEq(failures, name + ": " + what + " of queue " + q + " (" + key + "_other)",
                             e.path(key + "_other").asLong(), got.applyAsLong(q));
                }
            }
        }
    }

    // int values widen: one comparison for the int fields and the long ones (D19's targets).
    private static void expectEq(List<String> failures, String what, long want, long got) {
        if (want != got) {
            failures.add(what + ": " + got + ", expected " + want);
        }
    }

    private static int group(Map<String, Integer> ids, String name, String caseName) {
        Integer g = ids.get(name);
        if (g == null) {
            throw new IllegalArgumentException(caseName + ": unknown group '" + name + "' (known: " + ids.keySet()
                                                       + ")");
        }
        return g;
    }

    private interface GroupValue {
        void set(int group, JsonNode value);
    }

    private static void perGroup(JsonNode m, Map<String, Integer> ids, String caseName, GroupValue f) {
        m.fields().forEachRemaining(e -> f.set(group(ids, e.getKey(), caseName), e.getValue()));
    }

    // params/ccfair.json with the case's section.key overrides.
    private static CcfairParams params(JsonNode overrides, String caseName) {
        ObjectNode tree = ((ObjectNode) CcfairParams.load().tree()).deepCopy();
        overrides.fields().forEachRemaining(s -> {
            JsonNode section = tree.get(s.getKey());
            if (!(section instanceof ObjectNode)) {
                throw new IllegalArgumentException(caseName + ": no params section '" + s.getKey() + "'");
            }
            s.getValue().fields().forEachRemaining(kv -> {
                if (!section.has(kv.getKey())) {
                    throw new IllegalArgumentException(caseName + ": no parameter " + s.getKey() + "." + kv.getKey());
                }
                ((ObjectNode) section).set(kv.getKey(), kv.getValue());
            });
        });
        return CcfairParams.fromTree(tree);
    }
}
