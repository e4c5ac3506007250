/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.ccfair.app.CcfairParams;
import org.ccfair.app.PolicyEngine;
import org.ccfair.app.PushStatus;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.FabricView;
import org.ccfair.app.compute.PolicyDelta;
import org.ccfair.app.compute.PolicyTable;
import org.ccfair.app.compute.PolicyWrite;
import org.ccfair.app.compute.PortRole;
import org.ccfair.app.compute.StatsSnapshot;
import org.ccfair.app.policy.FairnessIntent;
import org.junit.Test;
import org.onlab.util.ImmutableByteSequence;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.DefaultApplicationId;
import org.onosproject.net.DeviceId;
import org.onosproject.net.PortNumber;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.PiCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.onosproject.net.flow.instructions.PiInstruction;
import org.onosproject.net.group.Group;
import org.onosproject.net.group.GroupBucket;
import org.onosproject.net.group.GroupDescription;
import org.onosproject.net.pi.model.PiActionId;
import org.onosproject.net.pi.model.PiActionParamId;
import org.onosproject.net.pi.model.PiMatchFieldId;
import org.onosproject.net.pi.model.PiMatchType;
import org.onosproject.net.pi.model.PiTableId;
import org.onosproject.net.pi.runtime.PiAction;
import org.onosproject.net.pi.runtime.PiActionParam;
import org.onosproject.net.pi.runtime.PiExactFieldMatch;
import org.onosproject.net.pi.runtime.PiFieldMatch;
import org.onosproject.net.pi.runtime.PiRangeFieldMatch;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * The write path through ONOS's services: flow rules and CLONE groups, ONOS's
 * reconciliation, reconnects and purges, and make-before-break stages.
 */
public class FlowRuleWriterTest {

    private static final CcfairParams P = CcfairParams.load();
    private static final ApplicationId APP = new DefaultApplicationId(7, "org.ccfair.app");
    private static final String DEV = "device:leaf1";
    private static final DeviceId D = DeviceId.deviceId(DEV);
    private static final long EDGE = P.integer("ports", "role_edge");
    private static final long FABRIC = P.integer("ports", "role_fabric");

    private final FakeFlowRuleService flows = new FakeFlowRuleService();
    private final FakeGroupService groups = new FakeGroupService();
    private final FlowRuleWriter writer = new FlowRuleWriter(P, APP, flows, groups, d -> "tofino", 1000);
    private final PolicyTranslator tr = new PolicyTranslator(P, "tofino");
    private final PolicyDelta delta = new PolicyDelta(P);

    // Ports of one leaf (port 1 a fabric port, the others edge ports).
    private static FabricView fabric(long... ports) {
        FabricView.Builder b = FabricView.builder();
        for (long p : ports) {
            b.port(DEV, p, p == 1 ? PortRole.FABRIC : PortRole.EDGE, 10_000);
        }
        return b.build();
    }

    private static PolicyWrite w(PolicyTable t, long[] key, long... value) {
        return new PolicyWrite(PolicyWrite.Op.INSERT, t, key, value);
    }

    private static PolicyWrite delete(PolicyWrite x) {
        return new PolicyWrite(PolicyWrite.Op.DELETE, x.table(), x.key(), new long[0]);
    }

    // Pipe count of a profile, read from params/ccfair.json directly (the writer's source of truth).
    private static int pipes(CcfairParams p, String profile) {
        return p.tree().path("targets").path("profiles").path(profile).path("pipes").asInt();
    }

    private static CcfairParams withPipes(JsonNode pipes) {
        ObjectNode t = (ObjectNode) P.tree();
        ((ObjectNode) t.path("targets").path("profiles").path("tofino")).set("pipes", pipes);
        return CcfairParams.fromTree(t);
    }

    private static ImmutableByteSequence bits(long v, int width) throws Exception {
        return ImmutableByteSequence.copyFrom(v).fit(width);
    }

    private FlowRule stored(PiTableId table) {
        List<FlowEntry> in = new ArrayList<>();
        flows.getFlowEntries(D).forEach(e -> {
            if (e.table().equals(table)) {
                in.add(e);
            }
        });
        assertEquals("one entry in " + table, 1, in.size());
        return in.get(0);
    }

    private static void exact(FlowRule r, PiMatchFieldId f, long v, int width) throws Exception {
        PiCriterion c = (PiCriterion) r.selector().getCriterion(Criterion.Type.PROTOCOL_INDEPENDENT);
        PiFieldMatch m = c.fieldMatch(f).orElseThrow(() -> new AssertionError("no field " + f));
        assertEquals(PiMatchType.EXACT, m.type());
        ImmutableByteSequence value = ((PiExactFieldMatch) m).value();
        assertEquals(f + " value", bits(v, width), value);
        assertEquals(f + " bytes for " + width + " bits", (width + 7) / 8, value.size());
    }

    private static PiAction action(FlowRule r, PiActionId id, int params) {
        List<Instruction> ins = r.treatment().allInstructions();
        assertEquals(1, ins.size());
        PiAction a = (PiAction) ((PiInstruction) ins.get(0)).action();
        assertEquals(id, a.id());
        assertEquals(params, a.parameters().size());
        return a;
    }

    private static void param(PiAction a, PiActionParamId p, long v, int width) throws Exception {
        PiActionParam ap = a.parameters().stream().filter(x -> x.id().equals(p)).findFirst()
                .orElseThrow(() -> new AssertionError("no parameter " + p));
        assertEquals(p + " value", bits(v, width), ap.value());
    }

    private static void owned(FlowRule r) {
        assertEquals(APP.id(), r.appId());
        assertTrue(r.isPermanent());
        assertEquals(D, r.deviceId());
    }

    private Set<List<Object>> expected(DevicePolicy p) {
        return delta.full(p).stream().map(x -> FakeFlowRuleService.content(tr.flowRule(D, APP, x)))
                .collect(Collectors.toSet());
    }

    private static DevicePolicy policy(PolicyEngine e) {
        return e.policies().get(DEV);
    }

    @Test
    public void everyWriteKindIsAFlowRuleOfTheRightTable() throws Exception {
        long cellsPerPkt = (P.integer("policy", "buffer_pkt_bytes") + 79) / 80;
        List<PolicyWrite> ws = List.of(
                w(PolicyTable.TVF, new long[]{3, 2, 17}, 200).inBatch(0),
                w(PolicyTable.RTT_BAND, new long[]{0, 19_999}, 0).inBatch(1),
                w(PolicyTable.AQM, new long[]{5, 4}, 1000, 100, 1, 12, 240).inBatch(2),
                w(PolicyTable.QUEUE_MAP, new long[]{5, 2, 3}, 7).inBatch(3),
                w(PolicyTable.EGRESS_PORT, new long[]{5}, FABRIC, 3, 40, 8, 9, 0, 1, 17).inBatch(4),
                w(PolicyTable.PORT_INDEX, new long[]{5}, 17).inBatch(4),
                w(PolicyTable.INGRESS_PORT, new long[]{5}, EDGE, 50_000).inBatch(5));
        writer.write(DEV, ws);
        assertEquals(7, flows.store.size());
        flows.store.values().forEach(FlowRuleWriterTest::owned);

        FlowRule tvf = stored(EGRESS_PIPE_MARKER_TVF);
        exact(tvf, HDR_TVF_PROFILE, 3, HDR_TVF_PROFILE_BITWIDTH);
        exact(tvf, HDR_GROUP, 2, HDR_GROUP_BITWIDTH);
        exact(tvf, HDR_RATE_BIN, 17, HDR_RATE_BIN_BITWIDTH);
        param(action(tvf, EGRESS_PIPE_MARKER_SET_PV, 1), PV, 200, PV_BITWIDTH);
        assertEquals("exact table", PolicyTranslator.EXACT_PRIORITY, tvf.priority());

        FlowRule rtt = stored(EGRESS_PIPE_CLASSIFIER_RTT_BAND);
        PiRangeFieldMatch range = (PiRangeFieldMatch) ((PiCriterion) rtt.selector()
                .getCriterion(Criterion.Type.PROTOCOL_INDEPENDENT)).fieldMatch(HDR_RTT_US).orElseThrow();
        assertEquals(bits(0, HDR_RTT_US_BITWIDTH), range.lowValue());
        assertEquals(bits(19_999, HDR_RTT_US_BITWIDTH), range.highValue());
        param(action(rtt, EGRESS_PIPE_CLASSIFIER_SET_RTT_BAND, 1), BAND, 0, BAND_BITWIDTH);
        assertEquals("range table: ONOS writes priority + 1", PolicyTranslator.RTT_BAND_PI_PRIORITY,
                     rtt.priority() + 1);

        FlowRule aqm = stored(EGRESS_PIPE_AQM_AQM_CFG);
        exact(aqm, HDR_EG_PORT, 5, HDR_EG_PORT_BITWIDTH);
        exact(aqm, HDR_QID, 4, HDR_QID_BITWIDTH);
        PiAction a = action(aqm, EGRESS_PIPE_AQM_SET_AQM, 5);
        param(a, TARGET_DELAY_US, 1000, TARGET_DELAY_US_BITWIDTH);
        param(a, LIMIT_CELLS, 100 * cellsPerPkt, LIMIT_CELLS_BITWIDTH);
        param(a, ECN, 1, ECN_BITWIDTH);
        param(a, CTV_LO, 12, CTV_LO_BITWIDTH);
        param(a, CTV_HI, 240, CTV_HI_BITWIDTH);

        FlowRule qm = stored(INGRESS_PIPE_QUEUEING_QUEUE_MAP);
        exact(qm, HDR_EG_PORT, 5, HDR_EG_PORT_BITWIDTH);
        exact(qm, HDR_GROUP, 2, HDR_GROUP_BITWIDTH);
        exact(qm, HDR_SLOT, 3, HDR_SLOT_BITWIDTH);
        param(action(qm, INGRESS_PIPE_QUEUEING_SET_QUEUE, 1), QID, 7, QID_BITWIDTH);

        FlowRule eg = stored(EGRESS_PIPE_PORT_CFG_PORT_CFG);
        exact(eg, HDR_EG_PORT, 5, HDR_EG_PORT_BITWIDTH);
        a = action(eg, EGRESS_PIPE_PORT_CFG_SET_PORT_CFG, 8);
        param(a, ROLE, FABRIC, ROLE_BITWIDTH);
        param(a, TVF_PROFILE, 3, TVF_PROFILE_BITWIDTH);
        param(a, FAIR_RATE_BIN, 40, FAIR_RATE_BIN_BITWIDTH);
        param(a, ANT_MAX_PKTS, 8, ANT_MAX_PKTS_BITWIDTH);
        param(a, M_M, 9, M_M_BITWIDTH);
        // ss_drop and family_forget differ, so a swap of the two shows (D19 put family_forget after ss_drop)
        param(a, SS_DROP, 0, SS_DROP_BITWIDTH);
        param(a, FAMILY_FORGET, 1, FAMILY_FORGET_BITWIDTH);
        param(a, STATS_IDX, 17, STATS_IDX_BITWIDTH);

        // The port's stats index for the ingress flow gauges, keyed by the egress port.
        FlowRule idx = stored(INGRESS_PIPE_EG_PORT_IDX_EG_PORT_IDX);
        exact(idx, HDR_EG_PORT, 5, HDR_EG_PORT_BITWIDTH);
        param(action(idx, INGRESS_PIPE_EG_PORT_IDX_SET_STATS_IDX, 1), STATS_IDX, 17, STATS_IDX_BITWIDTH);

        FlowRule ig = stored(INGRESS_PIPE_PORT_CFG_PORT_CFG);
        exact(ig, HDR_IG_PORT, 5, HDR_IG_PORT_BITWIDTH);
        param(action(ig, INGRESS_PIPE_PORT_CFG_SET_EDGE_PORT, 1), DEFAULT_RTT_US, 50_000, DEFAULT_RTT_US_BITWIDTH);

        // A MODIFY replaces the action of the same flow rule; a DELETE removes the stored entry.
        writer.write(DEV, List.of(new PolicyWrite(PolicyWrite.Op.MODIFY, PolicyTable.INGRESS_PORT, new long[]{5},
                                                  new long[]{FABRIC, 50_000})));
        assertEquals(7, flows.store.size());
        action(stored(INGRESS_PIPE_PORT_CFG_PORT_CFG), INGRESS_PIPE_PORT_CFG_SET_FABRIC_PORT, 0);
        writer.write(DEV, List.of(new PolicyWrite(PolicyWrite.Op.DELETE, PolicyTable.QUEUE_MAP, new long[]{5, 2, 3},
                                                  new long[0])));
        assertEquals(6, flows.store.size());
        int applies = flows.stagesPerApply.size();
        writer.write(DEV, List.of(new PolicyWrite(PolicyWrite.Op.DELETE, PolicyTable.QUEUE_MAP, new long[]{5, 2, 3},
                                                  new long[0])));
        assertEquals("deleting a missing entry writes nothing and succeeds", applies, flows.stagesPerApply.size());
    }

    @Test
    public void cloneSessionsAreCloneGroupsPerPipe() {
        // ONOS port numbers are Stratum SDN ids, which say nothing about pipes: the device gets a
        // session for every pipe it has, whatever ports the policy configures.
        int n = pipes(P, "tofino");
        assertTrue("params give tofino more than one pipe", n > 1 && n <= CloneSessions.MAX_PIPES);
        PolicyEngine e = new PolicyEngine(P, writer);
        e.run(fabric(1, 2, 3), List.of(), StatsSnapshot.EMPTY, d -> true, 0);
        CloneSessions cs = new CloneSessions(P);
        assertEquals(n, cs.pipes("tofino"));
        long base = P.integer("update", "mirror_session_base");
        int truncate = (int) P.integer("update", "truncate_bytes");
        List<Group> gs = new ArrayList<>();
        groups.getGroups(D, APP).forEach(gs::add);
        assertEquals("one session per pipe of the device", n, gs.size());
        for (int pipe = 0; pipe < n; pipe++) {
            Group g = groups.getGroup(D, CloneSessions.key(pipe));
            assertNotNull("session of pipe " + pipe, g);
            assertEquals(GroupDescription.Type.CLONE, g.type());
            assertEquals("group id = clone session id", base + pipe, g.id().id().longValue());
            assertEquals(APP, g.appId());
            assertEquals(1, g.buckets().buckets().size());
            GroupBucket b = g.buckets().buckets().get(0);
            assertEquals(GroupDescription.Type.CLONE, b.type());
            List<Instruction> ins = b.treatment().allInstructions();
            assertEquals(2, ins.size());
            long recirc = ((long) pipe << 7) | P.integer("update", "recirc_port_tofino");
            assertEquals(PortNumber.portNumber(recirc), ((Instructions.OutputInstruction) ins.get(0)).port());
            assertEquals(truncate, ((Instructions.TruncateInstruction) ins.get(1)).maxLen());
        }
        assertEquals(196, cs.recircPort("tofino", 1));
        assertEquals(P.integer("update", "recirc_port_tofino2") | 3 << 7, cs.recircPort("tofino2", 3));

        // A Tofino 2 device gets its profile's pipe count and recirculation ports.
        DeviceId d2 = DeviceId.deviceId("device:t2");
        FlowRuleWriter w2 = new FlowRuleWriter(P, APP, flows, groups, d -> "tofino2", 1000);
        w2.ensureCloneSessions(d2, "tofino2");
        List<Group> g2 = new ArrayList<>();
        groups.getGroups(d2, APP).forEach(g2::add);
        assertEquals(pipes(P, "tofino2"), g2.size());
        assertEquals(PortNumber.portNumber(P.integer("update", "recirc_port_tofino2")),
                     ((Instructions.OutputInstruction) groups.getGroup(d2, CloneSessions.key(0)).buckets().buckets()
                             .get(0).treatment().allInstructions().get(0)).port());

        int adds = groups.adds;
        e.resync(DEV);
        e.run(fabric(1, 2, 3), List.of(), StatsSnapshot.EMPTY, d -> true, 1);
        assertEquals("sessions in the store are not added again", adds, groups.adds);
        // A changed session (other buckets) is updated in place.
        GroupDescription wrong = new org.onosproject.net.group.DefaultGroupDescription(
                D, GroupDescription.Type.CLONE, cs.group(D, APP, "tofino", 1).buckets(), CloneSessions.key(0),
                cs.sessionId(0), APP);
        groups.groups.clear();
        groups.addGroup(wrong);
        writer.ensureCloneSessions(D, "tofino");
        assertEquals(cs.group(D, APP, "tofino", 0).buckets(), groups.getGroup(D, CloneSessions.key(0)).buckets());
    }

    @Test
    public void pipeCountFromParamsIsCheckedAndFollowed() {
        // Fewer pipes than sessions installed (params changed between app versions): the extra go.
        writer.ensureCloneSessions(D, "tofino");
        FlowRuleWriter two = new FlowRuleWriter(withPipes(IntNode.valueOf(2)), APP, flows, groups, d -> "tofino", 1000);
        two.ensureCloneSessions(D, "tofino");
        List<Group> gs = new ArrayList<>();
        groups.getGroups(D, APP).forEach(gs::add);
        assertEquals(2, gs.size());
        assertNotNull(groups.getGroup(D, CloneSessions.key(1)));
        assertNull(groups.getGroup(D, CloneSessions.key(2)));

        for (JsonNode bad : List.of(IntNode.valueOf(0), IntNode.valueOf(CloneSessions.MAX_PIPES + 1),
                                    TextNode.valueOf("four"))) {
            try {
                new CloneSessions(withPipes(bad));
                fail("pipes " + bad + " accepted");
            } catch (IllegalArgumentException ex) {
                assertTrue(ex.getMessage(), ex.getMessage().startsWith("targets.profiles.tofino.pipes"));
            }
        }
    }

    // Two TVF entries of device:leaf7 to which ONOS 2.7 gives one flow id (the app id and a 32-bit
    // murmur3 of device, selector, priority and table; found by searching the entries of a 64-port policy).
    private static final String DEV7 = "device:leaf7";
    private static final DeviceId D7 = DeviceId.deviceId(DEV7);
    private static final PolicyWrite TVF_A = w(PolicyTable.TVF, new long[]{1, 2, 138}, 100);
    private static final PolicyWrite TVF_B = w(PolicyTable.TVF, new long[]{3, 6, 2}, 200);

    private FlowRule colliding(PolicyWrite x) {
        FlowRule r = tr.flowRule(D7, APP, x);
        assertEquals("premise: ONOS gives both rules one flow id", tr.flowRule(D7, APP, TVF_A).id(), r.id());
        return r;
    }

    @Test
    public void flowIdCollisionDeleteRemovesTheRightRule() throws Exception {
        FlowRule a = colliding(TVF_A);
        FlowRule b = colliding(TVF_B);
        assertNotEquals(FakeFlowRuleService.key(a), FakeFlowRuleService.key(b));
        writer.write(DEV7, List.of(TVF_A.inBatch(0), TVF_B.inBatch(0)));
        assertEquals("ONOS's store holds both", 2, flows.storeContents(D7).size());
        assertEquals("the writer counts both", 2, writer.storedEntries(DEV7));
        writer.write(DEV7, List.of(delete(TVF_A)));
        assertEquals(Set.of(FakeFlowRuleService.content(b)), flows.storeContents(D7));
        assertEquals(Set.of(FakeFlowRuleService.content(b)), flows.deviceContents(D7));
        writer.write(DEV7, List.of(delete(TVF_B)));
        assertTrue(flows.storeContents(D7).isEmpty());
        assertTrue(flows.deviceContents(D7).isEmpty());
    }

    @Test
    public void flowIdCollisionDoesNotHideAStaleEntry() throws Exception {
        // a is left by an earlier policy; a full push of a policy that holds only b removes it.
        FlowRule a = colliding(TVF_A);
        FlowRule b = colliding(TVF_B);
        writer.write(DEV7, List.of(TVF_A));
        writer.write(DEV7, List.of(TVF_B), true);
        assertEquals(Set.of(FakeFlowRuleService.content(b)), flows.storeContents(D7));
        assertEquals(Set.of(FakeFlowRuleService.content(b)), flows.deviceContents(D7));
        assertEquals(1, writer.storedEntries(DEV7));
        assertFalse(flows.storeContents(D7).contains(FakeFlowRuleService.content(a)));
    }

    @Test
    public void reconciliationKeepsEveryAppEntry() {
        PolicyEngine e = new PolicyEngine(P, writer);
        FabricView f = fabric(1, 2, 3);
        e.run(f, List.of(), StatsSnapshot.EMPTY, d -> true, 0);
        DevicePolicy a = policy(e);
        // An entry written past ONOS (what P4RuntimeClient writes did): reconciliation deletes it.
        FlowRule foreign = tr.flowRule(D, APP, w(PolicyTable.TVF, new long[]{7, 0, 0}, 1));
        flows.writeBehindOnos(foreign);
        assertEquals(1, flows.reconcile());
        assertEquals("every app entry survives reconciliation", expected(a), flows.deviceContents(D));

        // A delta (only what changed) through FlowRuleService: after reconciliation the device
        // holds the whole new policy, not just the delta.
        FairnessIntent in = FairnessIntent.builder(P).id("x").targetDelayUs(700)
                .objective(FairnessIntent.Objective.WEIGHTED_GROUPS).build();
        int before = flows.stages.stream().mapToInt(List::size).sum();
        e.run(f, List.of(in), StatsSnapshot.EMPTY, d -> true, 1);
        DevicePolicy b = policy(e);
        int written = flows.stages.stream().mapToInt(List::size).sum() - before;
        assertTrue("a delta, not a full push", written > 0 && written < delta.entries(b));
        assertEquals(0, flows.reconcile());
        assertEquals(expected(b), flows.deviceContents(D));
        assertEquals(delta.entries(b), flows.deviceContents(D).size());
        assertEquals(PushStatus.State.IN_SYNC, e.status().get(DEV).state());
    }

    @Test
    public void reconnectPurgeAndStaleEntries() {
        PolicyEngine e = new PolicyEngine(P, writer);
        FabricView f = fabric(1, 2);
        e.run(f, List.of(), StatsSnapshot.EMPTY, d -> true, 0);
        DevicePolicy a = policy(e);
        long entries = delta.entries(a);

        // Reconnect of a switch that lost its tables: ONOS's store still has every rule, so its
        // reconciliation alone restores them ...
        flows.wipeDevice(D);
        flows.reconcile();
        assertEquals(expected(a), flows.deviceContents(D));
        // ... and the app's DEVICE_AVAILABILITY_CHANGED handling (resync) re-applies every rule too.
        flows.wipeDevice(D);
        int groupAdds = groups.adds;
        int from = flows.stages.size();
        e.resync(DEV);
        e.run(f, List.of(), StatsSnapshot.EMPTY, d -> true, 1);
        long readded = flows.stages.subList(from, flows.stages.size()).stream().flatMap(List::stream)
                .filter(o -> o.type() == FlowRuleOperation.Type.ADD).count();
        assertEquals("full push after the reconnect", entries, readded);
        assertEquals(expected(a), flows.deviceContents(D));
        assertEquals("clone sessions stay in ONOS's group store", groupAdds, groups.adds);

        // Purge on disconnection: the store lost the rules and groups, no event reached the app.
        flows.purge(D);
        groups.purgeGroupEntries(D);
        e.run(f, List.of(), StatsSnapshot.EMPTY, d -> true, 2);
        assertEquals("the engine sees the store's count and pushes everything", expected(a),
                     flows.storeContents(D));
        assertEquals(expected(a), flows.deviceContents(D));
        assertNotNull(groups.getGroup(D, CloneSessions.key(0)));

        // A stale app entry in the store (an earlier master's policy): a full push removes it last.
        FlowRule stale = tr.flowRule(D, APP, w(PolicyTable.TVF, new long[]{7, 0, 0}, 1));
        flows.addToStore(stale);
        flows.writeBehindOnos(stale);
        from = flows.stages.size();
        e.run(f, List.of(), StatsSnapshot.EMPTY, d -> true, 3);
        List<List<FlowRuleOperation>> pushed = flows.stages.subList(from, flows.stages.size());
        List<FlowRuleOperation> last = pushed.get(pushed.size() - 1);
        assertEquals(1, last.size());
        assertEquals(FlowRuleOperation.Type.REMOVE, last.get(0).type());
        assertEquals(stale.id(), last.get(0).rule().id());
        assertEquals(expected(a), flows.storeContents(D));
        assertEquals(expected(a), flows.deviceContents(D));
    }

    // Kind and tables of each stage, for the ordering checks.
    private static List<Set<String>> tablesOf(List<List<FlowRuleOperation>> stages) {
        List<Set<String>> out = new ArrayList<>();
        for (List<FlowRuleOperation> st : stages) {
            Set<String> t = new HashSet<>();
            st.forEach(o -> t.add(o.type() + " " + o.rule().table()));
            out.add(t);
        }
        return out;
    }

    private static int first(List<Set<String>> stages, String what) {
        for (int i = 0; i < stages.size(); i++) {
            if (stages.get(i).contains(what)) {
                return i;
            }
        }
        return -1;
    }

    @Test
    public void stagesKeepMakeBeforeBreakAndStopAtFirstFailure() {
        PolicyEngine e = new PolicyEngine(P, writer);
        e.run(fabric(1, 2, 3), List.of(), StatsSnapshot.EMPTY, d -> true, 0);
        assertTrue("one stage per apply (the next only after ONOS confirmed the previous)",
                   flows.stagesPerApply.stream().allMatch(n -> n == 1));
        assertEquals(List.of(Set.of("ADD " + EGRESS_PIPE_MARKER_TVF), Set.of("ADD " + EGRESS_PIPE_CLASSIFIER_RTT_BAND),
                             Set.of("ADD " + EGRESS_PIPE_AQM_AQM_CFG), Set.of("ADD " + INGRESS_PIPE_QUEUEING_QUEUE_MAP),
                             Set.of("ADD " + EGRESS_PIPE_PORT_CFG_PORT_CFG,
                                    "ADD " + INGRESS_PIPE_EG_PORT_IDX_EG_PORT_IDX),
                             Set.of("ADD " + INGRESS_PIPE_PORT_CFG_PORT_CFG)),
                     tablesOf(flows.stages));

        // Port 3 goes away and the policy changes: new TVF profile before the flip, deletes after it,
        // each kind of delete in its own stage, the old profile last.
        FairnessIntent in = FairnessIntent.builder(P).id("x").objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(java.util.Map.of("loss", 0.25, "delay", 4.0)).build();
        int from = flows.stages.size();
        e.run(fabric(1, 2), List.of(in), StatsSnapshot.EMPTY, d -> true, 1);
        List<Set<String>> t = tablesOf(flows.stages.subList(from, flows.stages.size()));
        assertTrue("one kind (ADD or REMOVE) per stage", t.stream().allMatch(
                st -> st.stream().map(x -> x.split(" ")[0]).distinct().count() == 1));
        int newProfile = first(t, "ADD " + EGRESS_PIPE_MARKER_TVF);
        int flip = first(t, "ADD " + EGRESS_PIPE_PORT_CFG_PORT_CFG);
        int delPort = first(t, "REMOVE " + EGRESS_PIPE_PORT_CFG_PORT_CFG);
        int delQueueMap = first(t, "REMOVE " + INGRESS_PIPE_QUEUEING_QUEUE_MAP);
        int delAqm = first(t, "REMOVE " + EGRESS_PIPE_AQM_AQM_CFG);
        int delTvf = first(t, "REMOVE " + EGRESS_PIPE_MARKER_TVF);
        assertTrue(t.toString(), newProfile >= 0 && newProfile < flip && flip < delPort && delPort < delQueueMap
                && delQueueMap < delAqm && delAqm < delTvf && delTvf == t.size() - 1);
        assertEquals(expected(policy(e)), flows.deviceContents(D));

        // A failed stage stops the push: nothing after it is submitted (no flip to a half-written profile).
        FairnessIntent in2 = FairnessIntent.builder(P).id("x").objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(java.util.Map.of("loss", 0.5, "delay", 2.0)).targetDelayUs(900).build();
        from = flows.stages.size();
        flows.failStage = from;
        e.run(fabric(1, 2), List.of(in2), StatsSnapshot.EMPTY, d -> true, 2);
        assertEquals("only the failed stage was submitted", from + 1, flows.stages.size());
        assertEquals(PushStatus.State.FAILED, e.status().get(DEV).state());
        flows.failStage = -1;
        e.run(fabric(1, 2), List.of(in2), StatsSnapshot.EMPTY, d -> true, 2 + P.integer("controller",
                                                                                          "retry_max_ms"));
        assertEquals(PushStatus.State.IN_SYNC, e.status().get(DEV).state());
        assertEquals(0, flows.reconcile());
        assertEquals(expected(policy(e)), flows.deviceContents(D));
    }

    @Test
    public void timeoutFailsThePush() {
        FakeFlowRuleService silent = new FakeFlowRuleService() {
            @Override
            public synchronized void apply(org.onosproject.net.flow.FlowRuleOperations ops) {
                stagesPerApply.add(ops.stages().size()); // never calls back
            }
        };
        FlowRuleWriter slow = new FlowRuleWriter(P, APP, silent, groups, d -> "tofino", 50);
        try {
            slow.write(DEV, List.of(w(PolicyTable.TVF, new long[]{0, 0, 0}, 1)));
            fail("no confirmation, no success");
        } catch (Exception ex) {
            assertTrue(ex.getMessage(), ex.getMessage().contains("not confirmed"));
        }
        assertFalse(silent.stagesPerApply.isEmpty());
    }
}
