/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.pipeconf.CcfairPipeliner;
import org.ccfair.app.pipeconf.FakeFlowRuleService;
import org.ccfair.app.pipeconf.FakeGroupService;
import org.ccfair.app.pipeconf.FlowRuleWriter;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.ccfair.app.stats.StatsSource;
import org.junit.Test;
import org.onlab.packet.MacAddress;
import org.onosproject.net.DefaultPort;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.group.Group;
import org.onosproject.net.link.LinkService;

import java.io.File;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertTrue;

/**
 * Exporter for the BMv2 testbed (testbed/, docs/testbed.md): the real app on the
 * testbed's one switch (testbed/topology.json: a sender host on one port, the
 * receiver on another, every port at the testbed's bottleneck rate), with the
 * statistics the switch would report once the scenario's n long-lived flows run
 * through the receiver's port (half in the loss group, half in the model-based
 * hybrid group, every group forwarding at least its share), written to
 * target/testbed/tb-&lt;n&gt;flows.json in ContractExportTest's form. The app's
 * default policy (per-flow objective, shared queue layout): no intent is added.
 * As in ContractExportTest, every value is read off what the app produced.
 */
public class TestbedExportTest {

    static final String DEV = "device:testbed";
    static final DeviceId D = DeviceId.deviceId(DEV);
    static final File TOPOLOGY = new File("../testbed/topology.json");
    static final int PORTS = 3;

    /** Statistics of n long-lived flows on one port; the byte counters grow by far more than the
     *  port's rate between readings, so no group counts as limited elsewhere. */
    static final class ScenarioStats implements StatsSource {
        final long port;
        final int flows;
        final int groups;
        long calls;

        ScenarioStats(long port, int flows, int groups) {
            this.port = port;
            this.flows = flows;
            this.groups = groups;
        }

        @Override
        public Map<Long, List<GroupStats>> read(String deviceId, Map<Long, Integer> ports) {
            calls++;
            List<GroupStats> gs = new ArrayList<>();
            int loss = (flows + 1) / 2;
            for (int g = 0; g < groups; g++) {
                long n = g == 4 ? loss : g == 7 ? flows - loss : 0;   // loss0 and hybrid1 (model-based)
                gs.add(new GroupStats(g, n, calls * 1_000_000_000L, calls * 1_000_000_000_000L, 0, 0));
            }
            return Map.of(port, gs);
        }

        @Override
        public Map<Long, List<QueueStats>> readQueues(String deviceId, Map<Long, Integer> p, int n) {
            return Map.of();
        }
    }

    private static LinkService noLinks() {
        return (LinkService) Proxy.newProxyInstance(
                LinkService.class.getClassLoader(), new Class<?>[]{LinkService.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getActiveLinks":
                        case "getLinks":
                            return List.of();
                        case "addListener":
                        case "removeListener":
                            return null;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    @Test
    public void exportTestbedPolicies() throws Exception {
        ObjectMapper om = new ObjectMapper();
        JsonNode topo = om.readTree(TOPOLOGY);
        long speed = topo.get("rate_mbps").asLong();
        assertTrue("rate_mbps must be a whole number of Mbit/s (ONOS port speeds are)",
                   speed > 0 && speed == topo.get("rate_mbps").asDouble());
        int rcvPort = topo.get("receiver").get("port").asInt();
        for (JsonNode n : topo.get("export_flow_counts")) {
            export(om, topo, speed, rcvPort, n.asInt());
        }
    }

    private void export(ObjectMapper om, JsonNode topo, long speed, int rcvPort, int nflows) throws Exception {
        Device dev = AppComponentTest.device(D);
        List<Port> ports = new ArrayList<>();
        for (int p = 1; p <= PORTS; p++) {
            ports.add(new DefaultPort(dev, PortNumber.portNumber(p), true, Port.Type.COPPER, speed));
        }
        AppComponent app = AppComponentTest.unactivated();
        app.deviceService = AppComponentTest.devices(dev, ports, new ArrayList<>());
        app.linkService = noLinks();
        app.activate();
        FakeFlowRuleService flows = new FakeFlowRuleService();
        FakeGroupService groups = new FakeGroupService();
        ScenarioStats stats = new ScenarioStats(rcvPort, nflows, app.params().numGroups());
        try {
            app.bind(new FlowRuleWriter(app.params(), app.appId(), flows, groups, d -> "tofino", 1000), stats);
            app.recomputeNow();
        } finally {
            app.deactivate();
        }
        assertTrue("the app read the scenario's statistics", stats.calls > 0);

        CcfairPipeliner pl = ContractExportTest.pipelinerWithPunts(D, flows);
        ObjectNode hosts = om.createObjectNode();
        for (String h : List.of("sender", "receiver")) {
            MacAddress mac = MacAddress.valueOf(topo.get(h).get("mac").asText());
            int port = topo.get(h).get("port").asInt();
            hosts.put(mac.toString(), port);
            pl.forward(ContractExportTest.fwd()
                               .withSelector(DefaultTrafficSelector.builder().matchEthDst(mac).build())
                               .withTreatment(DefaultTrafficTreatment.builder()
                                                      .setOutput(PortNumber.portNumber(port)).build()).add());
        }

        ObjectNode root = om.createObjectNode();
        root.put("_doc", "written by onos-app TestbedExportTest (make testbed); read by testbed/testbed.py");
        root.put("device", DEV);
        root.put("profile", "tofino");
        root.put("port_speed_mbps", speed);
        root.put("long_lived_flows", nflows);
        List<ObjectNode> rules = new ArrayList<>();
        for (FlowEntry e : flows.getFlowEntries(D)) {
            rules.add(ContractExportTest.rule(om, e));
        }
        rules.sort(Comparator.comparing(ObjectNode::toString));
        root.putArray("flow_rules").addAll(rules);
        ArrayNode gs = root.putArray("groups");
        for (Group g : groups.getGroups(D)) {
            gs.add(ContractExportTest.group(om, g));
        }
        // Stats indices as the app deals them (the i-th smallest port number gets i).
        ObjectNode perPort = root.putObject("counters").putObject("ports");
        for (int p = 1; p <= PORTS; p++) {
            perPort.putObject(Integer.toString(p)).put("stats_index", p - 1);
        }
        root.set("hosts", hosts);
        assertTrue("queue_map entries exported",
                   rules.stream().anyMatch(r -> r.get("table").asText().equals("IngressPipe.queueing.queue_map")));
        File out = new File("target/testbed/tb-" + nflows + "flows.json");
        out.getParentFile().mkdirs();
        om.writerWithDefaultPrettyPrinter().writeValue(out, root);
        System.out.println("TestbedExportTest: " + rules.size() + " flow rules, " + gs.size() + " clone groups -> "
                                   + out.getPath());
    }
}
