/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.compute.StatsIndex;
import org.ccfair.app.pipeconf.CcfairPipeliner;
import org.ccfair.app.pipeconf.CounterCells;
import org.ccfair.app.pipeconf.FakeFlowRuleService;
import org.ccfair.app.pipeconf.FakeGroupService;
import org.ccfair.app.pipeconf.FlowRuleWriter;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.ccfair.app.stats.StatsSource;
import org.junit.Test;
import org.onlab.osgi.ServiceDirectory;
import org.onlab.packet.Ethernet;
import org.onlab.packet.MacAddress;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.ConnectPoint;
import org.onosproject.net.DefaultLink;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Link;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.behaviour.PipelinerContext;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.flowobjective.DefaultForwardingObjective;
import org.onosproject.net.flowobjective.ForwardingObjective;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.link.LinkService;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiCounterCellId;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.onosproject.net.pi.runtime.PiLpmFieldMatch;
import org.onosproject.net.pi.runtime.PiOptionalFieldMatch;
import org.onosproject.net.pi.runtime.PiRangeFieldMatch;
import org.onosproject.net.pi.runtime.PiTernaryFieldMatch;
import org.onosproject.net.provider.ProviderId;

import java.io.File;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Exporter for the P4Runtime contract check (ptf-tests/contract/, docs/onos-app.md
 * "Contract test on BMv2"): runs the real app (AppComponent with FlowRuleWriter,
 * CcfairPipeliner, CounterCells) on one device of a small fabric and writes what
 * it hands to ONOS, as ONOS holds it, into target/contract/leaf1.json: the flow
 * rules of ONOS's flow-rule store (table, PiCriterion field matches and PiAction
 * parameters as the hex bytes the app put in them, flow-rule priority), the
 * CLONE groups of the group store, and the counter cells the app reads. Nothing
 * here computes an entry: every value is read off what the app produced.
 * ONOS's own translation (PiFlowRuleTranslatorImpl, the P4Runtime codecs) is
 * not in the ONOS jars the build has, so the runner applies it.
 */
public class ContractExportTest {

    static final String DEV = "device:leaf1";
    static final DeviceId D = DeviceId.deviceId(DEV);
    /** Ports of the exported leaf: 1 toward a spine (fabric), 2..6 hosts (edge); BMv2 has ports 1..8. */
    static final int PORTS = 6;
    /** Host MACs the pipeliner forwards to (fwd's objectives), on ports 2 and 3: the runner's traffic. */
    static final Map<Integer, MacAddress> HOSTS = Map.of(2, MacAddress.valueOf("00:00:0a:00:00:02"),
                                                         3, MacAddress.valueOf("00:00:0a:00:00:03"));
    static final File OUT = new File("target/contract/leaf1.json");

    private static String hex(ImmutableByteSequence b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b.asArray()) {
            s.append(String.format("%02x", x & 0xff));
        }
        return s.toString();
    }

    // One active link: leaf1/1 to a spine, so port 1 is a fabric port.
    private static LinkService links() {
        Link l = DefaultLink.builder().providerId(new ProviderId("test", "ccfair"))
                .src(new ConnectPoint(D, PortNumber.portNumber(1)))
                .dst(new ConnectPoint(DeviceId.deviceId("device:spine1"), PortNumber.portNumber(1)))
                .type(Link.Type.DIRECT).state(Link.State.ACTIVE).build();
        return (LinkService) Proxy.newProxyInstance(
                LinkService.class.getClassLoader(), new Class<?>[]{LinkService.class}, (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "getActiveLinks":
                        case "getLinks":
                            return List.of(l);
                        case "addListener":
                        case "removeListener":
                            return null;
                        default:
                            throw new UnsupportedOperationException(m.getName());
                    }
                });
    }

    /** What the app asked its statistics source for: the same arguments P4RuntimeBinding gets. */
    static final class RecordingStats implements StatsSource {
        Map<Long, Integer> ports;
        int numQueues = -1;

        @Override
        public Map<Long, List<GroupStats>> read(String deviceId, Map<Long, Integer> p) {
            ports = new TreeMap<>(p);
            return Map.of();
        }

        @Override
        public Map<Long, List<QueueStats>> readQueues(String deviceId, Map<Long, Integer> p, int n) {
            numQueues = n;
            return Map.of();
        }
    }

    private static ObjectNode match(ObjectMapper om, PiFieldMatch m) {
        ObjectNode o = om.createObjectNode();
        o.put("field", m.fieldId().id());
        o.put("kind", m.type().name());
        switch (m.type()) {
            case EXACT:
                o.put("value", hex(((PiExactFieldMatch) m).value()));
                break;
            case TERNARY:
                o.put("value", hex(((PiTernaryFieldMatch) m).value()));
                o.put("mask", hex(((PiTernaryFieldMatch) m).mask()));
                break;
            case LPM:
                o.put("value", hex(((PiLpmFieldMatch) m).value()));
                o.put("prefix_len", ((PiLpmFieldMatch) m).prefixLength());
                break;
            case RANGE:
                o.put("low", hex(((PiRangeFieldMatch) m).lowValue()));
                o.put("high", hex(((PiRangeFieldMatch) m).highValue()));
                break;
            case OPTIONAL:
                o.put("value", hex(((PiOptionalFieldMatch) m).value()));
                break;
            default:
                throw new IllegalStateException("match kind " + m.type() + " of " + m.fieldId());
        }
        return o;
    }

    static ObjectNode rule(ObjectMapper om, FlowRule r) {
        ObjectNode o = om.createObjectNode();
        o.put("table", r.table().toString());
        o.put("priority", r.priority());
        ArrayNode ms = o.putArray("match");
        PiCriterion c = (PiCriterion) r.selector().getCriterion(Criterion.Type.PROTOCOL_INDEPENDENT);
        assertEquals("a ccfair rule selects by PiCriterion only: " + r, 1, r.selector().criteria().size());
        c.fieldMatches().stream().sorted(Comparator.comparing(m -> m.fieldId().id()))
                .forEach(m -> ms.add(match(om, m)));
        List<Instruction> ins = r.treatment().allInstructions();
        assertEquals("one PiInstruction: " + r, 1, ins.size());
        PiAction a = (PiAction) ((PiInstruction) ins.get(0)).action();
        ObjectNode act = o.putObject("action");
        act.put("name", a.id().id());
        ArrayNode ps = act.putArray("params");
        for (PiActionParam p : a.parameters()) {
            ObjectNode po = ps.addObject();
            po.put("name", p.id().id());
            po.put("value", hex(p.value()));
        }
        return o;
    }

    static ObjectNode group(ObjectMapper om, Group g) {
        ObjectNode o = om.createObjectNode();
        o.put("id", g.id().id());
        o.put("type", g.type().name());
        o.put("key", new String(g.appCookie().key()));
        ArrayNode bs = o.putArray("buckets");
        for (GroupBucket b : g.buckets().buckets()) {
            ObjectNode bo = bs.addObject();
            ArrayNode outs = bo.putArray("outputs");
            for (Instruction i : b.treatment().allInstructions()) {
                if (i instanceof Instructions.OutputInstruction) {
                    outs.add(((Instructions.OutputInstruction) i).port().toLong());
                } else if (i instanceof Instructions.TruncateInstruction) {
                    bo.put("truncate", ((Instructions.TruncateInstruction) i).maxLen());
                } else {
                    bo.putArray("other").add(i.toString());
                }
            }
        }
        return o;
    }

    /** The pipeliner of device `d` writing into `flows`, with discovery's punts (LLDP, BSN, ARP). */
    static CcfairPipeliner pipelinerWithPunts(DeviceId d, FlowRuleService flows) {
        CcfairPipeliner pl = new CcfairPipeliner();
        ServiceDirectory dir = (ServiceDirectory) Proxy.newProxyInstance(
                ServiceDirectory.class.getClassLoader(), new Class<?>[]{ServiceDirectory.class},
                (proxy, m, args) -> FlowRuleService.class.equals(args[0]) ? flows : null);
        pl.init(d, (PipelinerContext) Proxy.newProxyInstance(
                PipelinerContext.class.getClassLoader(), new Class<?>[]{PipelinerContext.class},
                (proxy, m, args) -> "directory".equals(m.getName()) ? dir : null));
        for (short et : new short[]{Ethernet.TYPE_LLDP, Ethernet.TYPE_BSN, Ethernet.TYPE_ARP}) {
            pl.forward(fwd().withPriority(40000).withSelector(DefaultTrafficSelector.builder().matchEthType(et).build())
                               .withTreatment(DefaultTrafficTreatment.builder().punt().build()).add());
        }
        return pl;
    }

    static ForwardingObjective.Builder fwd() {
        return DefaultForwardingObjective.builder().fromApp(new DefaultApplicationId(9, "org.onosproject.fwd"))
                .withPriority(10).withFlag(ForwardingObjective.Flag.VERSATILE).makePermanent();
    }

    @Test
    public void exportLeafPolicyForTheBmv2ContractCheck() throws Exception {
        Device dev = AppComponentTest.device(D);
        List<Port> ports = new ArrayList<>();
        for (int p = 1; p <= PORTS; p++) {
            ports.add(AppComponentTest.port(dev, p, true));
        }
        AppComponent app = AppComponentTest.unactivated();
        app.deviceService = AppComponentTest.devices(dev, ports, new ArrayList<>());
        app.linkService = links();
        app.activate();
        FakeFlowRuleService flows = new FakeFlowRuleService();
        FakeGroupService groups = new FakeGroupService();
        RecordingStats stats = new RecordingStats();
        try {
            // Bind first: a round before bind() does nothing (no writer to push through), so the rounds
            // below need it. No round runs in the background (ManualRounds: the intent's store event
            // only queues one, which this test never runs); the test runs its rounds itself.
            app.bind(new FlowRuleWriter(app.params(), app.appId(), flows, groups, d -> "tofino", 1000), stats);
            // A weighted-groups intent on one host port beside the default per-flow policy: two TVF
            // profiles, and both queue layouts (the default shared, isolated on port 4).
            assertTrue(app.addIntent(app.intentJson().fromText(
                    "{\"id\":\"contract\",\"scope\":{\"type\":\"ports\",\"ports\":[\"" + DEV + "/4\"]},"
                            + "\"objective\":\"weighted-groups\",\"weights\":{\"delay\":2,\"loss\":1,\"hybrid\":1},"
                            + "\"queue_layout\":\"isolated\",\"target_delay_us\":2000,\"priority\":100}")));
            app.recomputeNow();
            app.recomputeNow(); // a second round: the queue reads happen once the stats source has answered
        } finally {
            app.deactivate();
        }

        // ONOS's own apps through the pipeliner: discovery punts and fwd's L2 forwarding to two hosts.
        CcfairPipeliner pl = pipelinerWithPunts(D, flows);
        HOSTS.forEach((port, mac) -> pl.forward(
                fwd().withSelector(DefaultTrafficSelector.builder().matchEthDst(mac).build())
                        .withTreatment(DefaultTrafficTreatment.builder().setOutput(PortNumber.portNumber(port)).build())
                        .add()));

        ObjectMapper om = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = om.createObjectNode();
        root.put("_doc", "written by onos-app ContractExportTest (mvn verify); read by ptf-tests/contract/check.py");
        root.put("device", DEV);
        root.put("profile", "tofino");
        root.put("groups_per_port", app.params().numGroups());
        List<ObjectNode> rules = new ArrayList<>();
        Set<String> tables = new TreeSet<>();
        Map<Short, String> appNames = Map.of(app.appId().id(), app.appId().name(), (short) 9, "org.onosproject.fwd");
        for (FlowEntry e : flows.getFlowEntries(D)) {
            ObjectNode r = rule(om, e);
            r.put("app", appNames.getOrDefault(e.appId(), Short.toString(e.appId())));
            rules.add(r);
            tables.add(e.table().toString());
        }
        rules.sort(Comparator.comparing(ObjectNode::toString));
        root.putArray("flow_rules").addAll(rules);
        ArrayNode gs = root.putArray("groups");
        for (Group g : groups.getGroups(D)) {
            gs.add(group(om, g));
        }

        // Counter cells: the per-(port, group) counters are read whole and used at pgCell(index, group)
        // (CounterCells.groupStats); the per-queue cells are the ones CounterCells.queueCells asks for.
        assertTrue("the app read statistics", stats.ports != null && !stats.ports.isEmpty());
        assertTrue("the app read queue counters", stats.numQueues > 0);
        ObjectNode counters = root.putObject("counters");
        counters.put("num_queues", stats.numQueues);
        ArrayNode whole = counters.putArray("read_whole");
        for (PiCounterId c : CounterCells.PG_COUNTERS) {
            whole.add(c.id());
        }
        ObjectNode perPort = counters.putObject("ports");
        CounterCells layout = new CounterCells("tofino");
        stats.ports.forEach((port, idx) -> {
            ObjectNode po = perPort.putObject(Long.toString(port));
            po.put("stats_index", idx);
            ArrayNode pg = po.putArray("pg_cells");
            for (int g = 0; g < app.params().numGroups(); g++) {
                pg.add(StatsIndex.pgCell(idx, g));
            }
            Map<String, List<Long>> byCounter = new LinkedHashMap<>();
            for (PiCounterCellId c : layout.queueCells(Map.of(port, idx), stats.numQueues)) {
                byCounter.computeIfAbsent(c.counterId().id(), k -> new ArrayList<>()).add(c.index());
            }
            ObjectNode q = po.putObject("queue_cells");
            byCounter.forEach((name, cells) -> {
                ArrayNode a = q.putArray(name);
                cells.forEach(a::add);
            });
        });
        Map<String, Integer> hosts = new HashMap<>();
        HOSTS.forEach((p, mac) -> hosts.put(mac.toString(), p));
        ObjectNode h = root.putObject("hosts");
        new TreeMap<>(hosts).forEach(h::put);

        // What a policy push must hold, so an app that writes less cannot pass by exporting less.
        for (String t : List.of("IngressPipe.port_cfg.port_cfg", "IngressPipe.eg_port_idx.eg_port_idx",
                                "IngressPipe.queueing.queue_map", "EgressPipe.port_cfg.port_cfg",
                                "EgressPipe.classifier.rtt_band", "EgressPipe.marker.tvf", "EgressPipe.aqm.aqm_cfg",
                                "IngressPipe.acl.acl", "IngressPipe.forwarding.l2_exact")) {
            assertTrue("no entry of " + t + " exported", tables.contains(t));
        }
        assertFalse("clone sessions exported", gs.isEmpty());
        OUT.getParentFile().mkdirs();
        om.writeValue(OUT, root);
        System.out.println("ContractExportTest: " + rules.size() + " flow rules, " + gs.size() + " clone groups, "
                                   + stats.ports.size() + " ports' counter cells -> " + OUT.getPath());
    }
}
