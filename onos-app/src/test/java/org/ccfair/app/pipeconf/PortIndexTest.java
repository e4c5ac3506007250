/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.PolicyEngine;
import org.ccfair.app.compute.FabricView;
import org.ccfair.app.compute.PortRole;
import org.ccfair.app.compute.StatsIndex;
import org.ccfair.app.compute.StatsSnapshot;
import org.junit.Test;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

/**
 * A 2-leaf / 2-spine fabric whose ONOS port numbers are Stratum SDN ids
 * (not the device ports, which the app never sees), compiled and written
 * through ONOS's flow-rule service: every port's EgressPipe.port_cfg rule and
 * its IngressPipe.eg_port_idx rule carry the port's stats index, the same
 * index in both, dense per device and counted over every port of the device
 * (a disabled port keeps its index, and the others theirs).
 */
public class PortIndexTest {

    private static final CcfairParams P = CcfairParams.load();
    private static final ApplicationId APP = new DefaultApplicationId(7, "org.ccfair.app");

    // Leaf ports: hosts on 101, 102, uplinks to the spines on 131, 132; 120 is disabled
    // (not in the view) but still numbered. Spine ports 7 and 9 face the leaves.
    private static final Map<String, Map<Long, Integer>> EXPECTED = Map.of(
            "device:leaf1", Map.of(101L, 0, 102L, 1, 131L, 3, 132L, 4),
            "device:leaf2", Map.of(101L, 0, 102L, 1, 131L, 3, 132L, 4),
            "device:spine1", Map.of(7L, 0, 9L, 1),
            "device:spine2", Map.of(7L, 0, 9L, 1));

    private static FabricView fabric() {
        FabricView.Builder b = FabricView.builder();
        for (String leaf : List.of("device:leaf1", "device:leaf2")) {
            b.statsIndices(leaf, StatsIndex.assign(List.of(131L, 132L, 101L, 102L, 120L),
                                                   (int) P.integer("ports", "stats_indices")));
            b.port(leaf, 101, PortRole.EDGE, 25_000).port(leaf, 102, PortRole.EDGE, 25_000)
                    .port(leaf, 131, PortRole.FABRIC, 100_000).port(leaf, 132, PortRole.FABRIC, 100_000);
        }
        for (String spine : List.of("device:spine1", "device:spine2")) {
            b.port(spine, 7, PortRole.FABRIC, 100_000).port(spine, 9, PortRole.FABRIC, 100_000);
        }
        return b.build();
    }

    // Port -> stats index of one table's rules on a device, checking each rule's action.
    private static Map<Long, Integer> indices(FakeFlowRuleService flows, String dev, PiTableId table,
                                              PiActionId action, int params) throws Exception {
        Map<Long, Integer> out = new TreeMap<>();
        for (FlowEntry e : flows.getFlowEntries(DeviceId.deviceId(dev))) {
            if (!e.table().equals(table)) {
                continue;
            }
            PiCriterion c = (PiCriterion) e.selector().getCriterion(Criterion.Type.PROTOCOL_INDEPENDENT);
            long port = toLong(((PiExactFieldMatch) c.fieldMatch(HDR_EG_PORT).orElseThrow()).value());
            PiAction a = (PiAction) ((PiInstruction) e.treatment().allInstructions().get(0)).action();
            assertEquals(action, a.id());
            assertEquals(params, a.parameters().size());
            PiActionParam idx = a.parameters().stream().filter(x -> x.id().equals(STATS_IDX)).findFirst()
                    .orElseThrow(() -> new AssertionError("no stats_idx in " + a));
            assertEquals("stats_idx at its P4Info width", (STATS_IDX_BITWIDTH + 7) / 8, idx.value().size());
            out.put(port, (int) toLong(idx.value()));
        }
        return out;
    }

    private static long toLong(ImmutableByteSequence b) {
        long v = 0;
        for (byte x : b.asArray()) {
            v = (v << 8) | (x & 0xFF);
        }
        return v;
    }

    @Test
    public void leafSpinePolicyWritesTheSameIndexIntoBothPortTables() throws Exception {
        FakeFlowRuleService flows = new FakeFlowRuleService();
        PolicyEngine e = new PolicyEngine(P, new FlowRuleWriter(P, APP, flows, new FakeGroupService(),
                                                                d -> "tofino", 1000));
        e.run(fabric(), List.of(), StatsSnapshot.EMPTY, d -> true, 0);
        for (Map.Entry<String, Map<Long, Integer>> dev : EXPECTED.entrySet()) {
            String d = dev.getKey();
            assertNotNull(d, e.policies().get(d));
            assertEquals(d + " EgressPipe.port_cfg", new TreeMap<>(dev.getValue()),
                         indices(flows, d, EGRESS_PIPE_PORT_CFG_PORT_CFG, EGRESS_PIPE_PORT_CFG_SET_PORT_CFG, 8));
            assertEquals(d + " IngressPipe.eg_port_idx", new TreeMap<>(dev.getValue()),
                         indices(flows, d, INGRESS_PIPE_EG_PORT_IDX_EG_PORT_IDX,
                                 INGRESS_PIPE_EG_PORT_IDX_SET_STATS_IDX, 1));
            e.policies().get(d).ports().forEach(
                    p -> assertEquals(d + " port " + p.port(), (int) dev.getValue().get(p.port()), p.statsIndex()));
        }

        // The disabled port comes up: it gets its reserved index, no other port moves.
        FabricView.Builder b = FabricView.builder();
        fabric().deviceIds().forEach(d -> fabric().ports(d).forEach(
                p -> b.port(d, p.number(), p.role(), p.speedMbps())));
        b.statsIndices("device:leaf1", StatsIndex.assign(List.of(131L, 132L, 101L, 102L, 120L), 127));
        b.statsIndices("device:leaf2", StatsIndex.assign(List.of(131L, 132L, 101L, 102L, 120L), 127));
        b.port("device:leaf1", 120, PortRole.EDGE, 25_000);
        int stages = flows.stages.size();
        e.run(b.build(), List.of(), StatsSnapshot.EMPTY, d -> true, 1);
        Map<Long, Integer> leaf1 = new TreeMap<>(EXPECTED.get("device:leaf1"));
        leaf1.put(120L, 2);
        assertEquals(leaf1, indices(flows, "device:leaf1", INGRESS_PIPE_EG_PORT_IDX_EG_PORT_IDX,
                                    INGRESS_PIPE_EG_PORT_IDX_SET_STATS_IDX, 1));
        long rewritten = flows.stages.subList(stages, flows.stages.size()).stream().flatMap(List::stream)
                .filter(o -> o.rule().table().equals(INGRESS_PIPE_EG_PORT_IDX_EG_PORT_IDX)).count();
        assertEquals("only the new port's index is written", 1, rewritten);
    }
}
