/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.policy.FairnessIntent;
import org.ccfair.app.policy.Scope;
import org.junit.Test;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

/**
 * Compilation of small fabrics.
 */
public class PolicyCompilerTest {

    private static final CcfairParams P = CcfairParams.load();
    private final PolicyCompiler c = new PolicyCompiler(P);
    private final int q = (int) P.integer("queues", "per_port");
    private final int slots = (int) P.integer("queues", "slots_per_group");
    private final int g = P.numGroups();

    private static int sum(PortPolicy p) {
        int s = 0;
        for (int i = 0; i < p.groups(); i++) {
            s += p.queues(i);
        }
        return s;
    }

    @Test
    public void leafSpineRolesAndDefaults() {
        FabricView f = Fabrics.leafSpine(2, 2, 4);
        SortedMap<String, DevicePolicy> out = c.compile(f, List.of(), StatsSnapshot.EMPTY, Map.of());
        assertEquals(4, out.size());
        DevicePolicy leaf = out.get(Fabrics.leaf(1));
        assertEquals(6, leaf.ports().size());
        assertEquals(PortRole.FABRIC, leaf.port(1).role());
        assertEquals(PortRole.FABRIC, leaf.port(2).role());
        assertEquals(PortRole.EDGE, leaf.port(3).role());
        for (DevicePolicy d : out.values()) {
            for (PortPolicy p : d.ports()) {
                assertEquals(PolicyCompiler.DEFAULT_INTENT_ID, p.intentId());
                assertEquals(P.integer("aqm", "target_delay_us"), p.targetDelayUs());
                assertEquals(P.integer("classifier", "m_m"), p.mM());
                assertEquals(P.integer("cocoa", "initial_limit_pkts"), p.bufferLimitPkts());
                // No long-lived flow: the link speed's bin, 16 log10(kbps / 10): 100 Gbit/s
                // fabric ports 112, 25 Gbit/s edge ports floor(102.4) = 102 (D7).
                assertEquals(p.role() == PortRole.EDGE ? 102 : 112, p.fairRateBin());
                assertTrue(sum(p) <= q);
                for (int i = 0; i < g; i++) {
                    assertTrue("every group needs a queue", p.queues(i) >= 1 && p.queues(i) <= slots);
                }
            }
        }
    }

    private static FairnessIntent isolated(String id) {
        return FairnessIntent.builder(P).id(id).queueLayout(FairnessIntent.QueueLayout.ISOLATED).build();
    }

    private static final long[] DWRR = P.integers("queues", "dwrr_weights");

    // DWRR weight of a group's queue (every slot of it: one queue per group in the isolated layout)
    private long weightOf(QueueSplit s, int group) {
        for (int slot = 1; slot < slots; slot++) {
            assertEquals("group " + group + ": one queue", s.queueOf(group, 0, q), s.queueOf(group, slot, q));
        }
        return DWRR[s.queueOf(group, 0, q)];
    }

    /**
     * The isolated layout (D18): one queue per long-lived group, after the ants'
     * and mice', whose TM weight follows the group's active flows.
     */
    @Test
    public void isolatedQueueWeightsFollowActiveFlows() {
        FairnessIntent in = isolated("iso");
        int loss0 = P.groupId("loss", 0);
        int delay0 = P.groupId("delay", 0);
        int[] flows = new int[g];
        flows[loss0] = 30;
        flows[delay0] = 10;
        int[] a = c.allocateQueues(in);
        for (int i = 0; i < g; i++) {
            assertEquals("one queue per group", 1, a[i]);
        }
        QueueSplit s = c.queueSplit(in, flows);
        assertEquals("30 : 10 flows on weights 3 : 1", 3 * weightOf(s, delay0), weightOf(s, loss0));
        java.util.Set<Integer> used = new java.util.TreeSet<>();
        for (int i = 0; i < g; i++) {
            assertTrue("each group its own queue", used.add(s.queueOf(i, 0, q)));
        }
        assertEquals("ants first", 0, s.queueOf((int) P.integer("groups", "ant"), 0, q));
        assertEquals("then mice", 1, s.queueOf((int) P.integer("groups", "mouse"), 0, q));
        // Every long-lived group active, one with three times the flows: its queue weighs
        // more than any other's.
        int[] even = new int[g];
        for (int i = 2; i < g; i++) {
            even[i] = 1;
        }
        even[loss0] = 3;
        QueueSplit e = c.queueSplit(in, even);
        for (int i = 2; i < g; i++) {
            if (i != loss0) {
                assertTrue("more flows, heavier queue: group " + i, weightOf(e, loss0) > weightOf(e, i));
            }
        }
        // Six groups of equal demand: six queues of one weight.
        java.util.Arrays.fill(even, 2, g, 5);
        QueueSplit eq = c.queueSplit(in, even);
        for (int i = 2; i < g; i++) {
            assertEquals("equal demand, equal weight: group " + i, weightOf(eq, 2), weightOf(eq, i));
        }
        // Guarantees for ants and mice.
        FairnessIntent gold = isolated("g").toBuilder(P).minAntShare(0.25).minMiceShare(0.125).build();
        int[] b = c.allocateQueues(gold);
        assertEquals(4, b[(int) P.integer("groups", "ant")]);
        assertEquals(2, b[(int) P.integer("groups", "mouse")]);
        QueueSplit sg = c.queueSplit(gold, flows);
        for (int i = 2; i < g; i++) {
            assertTrue("long-lived groups after the 6 guaranteed queues", sg.queueOf(i, 0, q) >= 6);
        }
    }

    @Test
    public void badDwrrWeightsAreRefused() {
        com.fasterxml.jackson.databind.node.ObjectNode tree = (com.fasterxml.jackson.databind.node.ObjectNode) P.tree();
        com.fasterxml.jackson.databind.node.ObjectNode queues =
                (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("queues");
        queues.putArray("dwrr_weights").add(1).add(2);
        try {
            new PolicyCompiler(CcfairParams.fromTree(tree));
            org.junit.Assert.fail("two weights for 16 queues accepted");
        } catch (IllegalArgumentException ex) {
            assertEquals("queues.dwrr_weights lists 2 weights, queues.per_port is 16", ex.getMessage());
        }
        com.fasterxml.jackson.databind.node.ArrayNode w = queues.putArray("dwrr_weights");
        for (int i = 0; i < q; i++) {
            w.add(i == 3 ? 0 : 1);
        }
        try {
            new PolicyCompiler(CcfairParams.fromTree(tree));
            org.junit.Assert.fail("weight 0 accepted");
        } catch (IllegalArgumentException ex) {
            assertEquals("queues.dwrr_weights[3] = 0 outside the TM's 1..1023", ex.getMessage());
        }
    }

    /**
     * The default layout: every long-lived group's slots on one queue after the
     * ants' and mice' queues, whatever the flows; the ants' and mice'
     * guarantees keep their queue counts; the rest of the port's queues stay unused.
     */
    @Test
    public void sharedLayoutPutsEveryLongLivedGroupInOneQueue() {
        assertEquals(FairnessIntent.QueueLayout.SHARED, c.defaultIntent().queueLayout());
        int[] flows = new int[g];
        flows[P.groupId("loss", 0)] = 30;
        flows[P.groupId("delay", 0)] = 10;
        int ant = (int) P.integer("groups", "ant");
        int mouse = (int) P.integer("groups", "mouse");
        QueueSplit s = c.queueSplit(c.defaultIntent(), flows);
        java.util.Set<Integer> used = new java.util.TreeSet<>();
        for (int i = 0; i < g; i++) {
            assertEquals(1, s.queues(i));
            for (int slot = 0; slot < slots; slot++) {
                used.add(s.queueOf(i, slot, q));
                if (i != ant && i != mouse) {
                    assertEquals("group " + i + " slot " + slot, 2, s.queueOf(i, slot, q));
                }
            }
        }
        assertEquals("ants 0, mice 1, long-lived 2", java.util.Set.of(0, 1, 2), used);
        FairnessIntent gold = FairnessIntent.builder(P).id("g").minAntShare(0.25).minMiceShare(0.125).build();
        QueueSplit sg = c.queueSplit(gold, flows);
        assertEquals(4, sg.queues(ant));
        assertEquals(2, sg.queues(mouse));
        assertEquals(List.of(0, 1, 2, 3), List.of(sg.queueOf(ant, 0, q), sg.queueOf(ant, 1, q),
                                                  sg.queueOf(ant, 2, q), sg.queueOf(ant, 3, q)));
        assertEquals(5, sg.queueOf(mouse, 1, q));
        assertEquals("the common queue follows the guarantees", 6, sg.queueOf(P.groupId("hybrid", 1), 3, q));
        // Fewer queues than groups: the shared layout still needs only 3.
        assertEquals(2, new PolicyCompiler(withQueues(4)).queueSplit(c.defaultIntent(), flows)
                .queueOf(P.groupId("loss", 1), 0, 4));
    }

    private static CcfairParams withQueues(int n) {
        com.fasterxml.jackson.databind.node.ObjectNode tree = (com.fasterxml.jackson.databind.node.ObjectNode) P.tree();
        com.fasterxml.jackson.databind.node.ObjectNode queues =
                (com.fasterxml.jackson.databind.node.ObjectNode) tree.get("queues");
        queues.put("per_port", n);
        com.fasterxml.jackson.databind.node.ArrayNode w = queues.putArray("dwrr_weights");
        for (int i = 0; i < n; i++) {
            w.add(1);
        }
        return CcfairParams.fromTree(tree);
    }

    /** A port's queue layout follows its governing intent, and switching it rewrites the queue map. */
    @Test
    public void layoutFollowsTheGoverningIntent() {
        FabricView f = FabricView.builder().port("device:s1", 1, PortRole.EDGE, 10_000)
                .port("device:s1", 2, PortRole.EDGE, 10_000).build();
        FairnessIntent iso = isolated("iso").toBuilder(P).scope(Scope.ports(List.of("device:s1/2"))).build();
        int[] flows = new int[g];
        flows[P.groupId("loss", 0)] = 3;
        flows[P.groupId("hybrid", 1)] = 1;
        StatsSnapshot st = StatsSnapshot.builder().port("device:s1", 1, flows).port("device:s1", 2, flows).build();
        DevicePolicy d = c.compile(f, List.of(iso), st, Map.of()).get("device:s1");
        assertEquals(FairnessIntent.QueueLayout.SHARED, d.port(1).queueLayout());
        assertEquals(FairnessIntent.QueueLayout.ISOLATED, d.port(2).queueLayout());
        int loss0 = P.groupId("loss", 0);
        int hybrid1 = P.groupId("hybrid", 1);
        assertEquals(d.port(1).queueOf(loss0, 0, q), d.port(1).queueOf(hybrid1, 0, q));
        assertNotEquals(d.port(2).queueOf(loss0, 0, q), d.port(2).queueOf(hybrid1, 0, q));
        assertNotEquals("same flows, different layouts: different policies", d.port(1).split(), d.port(2).split());
        List<PolicyWrite> ws = new PolicyDelta(P).between(d, c.compile(f, List.of(), st, Map.of("device:s1", d))
                .get("device:s1"));
        assertTrue("port 2 becomes shared: its queue map is rewritten", ws.stream().anyMatch(
                w -> w.table() == PolicyTable.QUEUE_MAP && w.key(0) == 2 && w.key(1) == loss0 && w.value()[0] == 2));
        assertTrue("port 1 is untouched", ws.stream().noneMatch(w -> w.table() != PolicyTable.TVF && w.key(0) == 1));
    }

    /**
     * Weighted fair rate: a flow of group g counts weight[g] times; every
     * weight 1 gives the unweighted rate.
     */
    @Test
    public void weightedFairRateIsTheRateOfAWeightOneFlow() {
        int loss0 = P.groupId("loss", 0);
        int hybrid1 = P.groupId("hybrid", 1);
        int[] flows = new int[g];
        flows[loss0] = 1;
        flows[hybrid1] = 1;
        double[] w = new double[g];
        java.util.Arrays.fill(w, 1.0);
        assertEquals(c.fairKbps(20, flows), c.fairKbps(20, flows, w), 0);
        w[loss0] = 3;
        assertEquals(20000.0 / 4, c.fairKbps(20, flows, w), 1e-9);
        // A lone flow of weight 0.5: its due (half the unit rate) is the whole port.
        int[] one = new int[g];
        one[loss0] = 1;
        w[loss0] = 0.5;
        assertEquals(40000.0, c.fairKbps(20, one, w), 1e-9);
        // No long-lived flow, or no speed: none.
        assertEquals(0.0, c.fairKbps(20, new int[g], w), 0);
        assertEquals(0.0, c.fairKbps(0, one, w), 0);
    }

    /**
     * No max-min step (docs/algorithm.md D12): port speed / long-lived flows,
     * ants and mice not counted, whatever each flow forwarded.
     */
    @Test
    public void fairRateIsSpeedOverLongLivedFlows() {
        int[] flows = new int[g];
        flows[P.groupId("loss", 0)] = 1;
        flows[P.groupId("hybrid", 1)] = 1;
        flows[P.groupId("delay", 0)] = 1;
        flows[(int) P.integer("groups", "ant")] = 5;
        flows[(int) P.integer("groups", "mouse")] = 7;
        assertEquals(20000.0 / 3, c.fairKbps(20, flows), 1e-9);
        assertEquals(0.0, c.fairKbps(20, null), 0);
    }

    @Test
    public void ctvRangeFollowsTheOwningGroupsTvfAroundTheFairRate() {
        FabricView f = Fabrics.leafSpine(1, 1, 2);
        String leaf = Fabrics.leaf(1);
        int loss0 = P.groupId("loss", 0);
        int[] flows = new int[g];
        flows[loss0] = 10;
        StatsSnapshot st = StatsSnapshot.builder().port(leaf, 3, flows).build();
        DevicePolicy d = c.compile(f, List.of(), st, Map.of()).get(leaf);
        PortPolicy p = d.port(3);
        TvfProfile tvf = d.profile(p.tvfProfileId());
        // The fair rate of one of the 10 flows, unshifted, as a rate bin.
        int fair = new Tvf(P).binOf(f.ports(leaf).stream().filter(x -> x.number() == 3).findFirst().get()
                                            .speedMbps() * 1000.0 / 10);
        int last = tvf.bins() - 1;
        int loss0Queue = p.queueOf(loss0, 0, q);
        Tvf scale = new Tvf(P);
        assertEquals("the fabric's one scale (D22)", P.integer("tvf", "pv_max") / 2,
                     tvf.pv(loss0, scale.binOf(P.real("tvf", "centre_kbps"))));
        assertEquals(tvf.pv(loss0, Math.min(last, fair + (int) P.integer("aqm", "ctv_floor_bins"))),
                     p.ctvLoOf(loss0Queue));
        assertEquals(tvf.pv(loss0, Math.min(last, fair + (int) P.integer("aqm", "ctv_ceiling_bins"))),
                     p.ctvHiOf(loss0Queue));
        for (int i = 0; i < q; i++) {
            assertTrue("queue " + i + ": floor above ceiling", p.ctvLoOf(i) <= p.ctvHiOf(i));
            assertTrue("the ceiling keeps the fair share itself", p.ctvHiOf(i) < 0xFFFF);
        }
        // A port without long-lived flows of its own: the same curves, the range at the link's
        // bin. Its leaf's other port counts the 10 flows, which do not come from the fabric:
        // they do not move its strict edge (D22 counts the other devices' flows only).
        PortPolicy idle = d.port(2);
        TvfProfile idleTvf = d.profile(idle.tvfProfileId());
        assertSame("one profile for both ports", tvf, idleTvf);
        int link = scale.binOf(25_000 * 1000.0);
        for (int i = 0; i < q; i++) {
            assertEquals(idleTvf.pv(loss0, link + (int) P.integer("aqm", "ctv_floor_bins")), idle.ctvLoOf(i));
            assertEquals(idleTvf.pv(loss0, link + (int) P.integer("aqm", "ctv_ceiling_bins")), idle.ctvHiOf(i));
        }
    }

    /**
     * D22 in a leaf-spine fabric (2 leaves, 1 spine, 2 hosts a leaf, 25 Gbit/s): leaf 1's host
     * port 3 counts 10 loss0 flows (they leave through it: it is their egress port, so these are
     * traffic between leaf 1's hosts, or its uplink's in the other direction). The spine's
     * ports, which count none, and leaf 2's host ports read their strict edge at 25 Gbit/s /
     * the 10 flows the other devices count; leaf 1's uplinks and leaf 1's host ports do not
     * (they carry flows leaf 1 itself counts).
     */
    @Test
    public void portsThatReceiveFromTheFabricReadTheirStrictEdgeAtTheFabricsShare() {
        FabricView f = Fabrics.leafSpine(2, 1, 2);
        int loss0 = P.groupId("loss", 0);
        int[] flows = new int[g];
        flows[loss0] = 10;
        StatsSnapshot st = StatsSnapshot.builder().port(Fabrics.leaf(1), 3, flows).build();
        Map<String, DevicePolicy> all = c.compile(f, List.of(), st, Map.of());
        Tvf scale = new Tvf(P);
        int ceil = (int) P.integer("aqm", "ctv_ceiling_bins");
        for (String dev : f.deviceIds()) {
            for (FabricView.Port fp : f.ports(dev)) {
                PortPolicy pp = all.get(dev).port(fp.number());
                TvfProfile tvf = all.get(dev).profile(pp.tvfProfileId());
                boolean own = dev.equals(Fabrics.leaf(1)) && fp.number() == 3;
                boolean fromFabric = !dev.equals(Fabrics.leaf(1)) && (fp.role() == PortRole.EDGE
                        || f.ports(dev).stream().noneMatch(x -> x.role() == PortRole.EDGE));
                double kbps = fp.speedMbps() * 1000.0 / (own || fromFabric ? 10 : 1);
                int lq = pp.queueOf(loss0, 0, q);
                assertEquals(dev + "/" + fp.number() + (fromFabric ? " (from the fabric)" : ""),
                             tvf.pv(loss0, scale.binOf(kbps) + ceil), pp.ctvHiOf(lq));
            }
        }
    }

    /**
     * The tvf table (P4Info size 8192) holds groups x rate_steps entries per
     * profile: with K = 4 (14 groups) that is 8192 / (14 x 160) = 3 profiles,
     * fewer than tvf.profiles = 4. Four weight sets on one switch cannot fit:
     * refused with an error naming the table, never written past its size; three fit.
     */
    @Test
    public void profilesNeverOverflowTheTvfTable() {
        com.fasterxml.jackson.databind.node.ObjectNode tree =
                (com.fasterxml.jackson.databind.node.ObjectNode) P.tree();
        ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("groups")).put("k", 4);
        CcfairParams p4 = CcfairParams.fromTree(tree);
        PolicyCompiler c4 = new PolicyCompiler(p4);
        FabricView.Builder fb = FabricView.builder();
        List<FairnessIntent> intents = new java.util.ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            fb.port("device:s1", i, PortRole.EDGE, 10_000);
            intents.add(FairnessIntent.builder(p4).id("w" + i).objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                                .weights(Map.of("loss", (double) i))
                                .scope(Scope.ports(List.of("device:s1/" + i))).build());
        }
        FabricView f = fb.build();
        try {
            c4.compile(f, intents, StatsSnapshot.EMPTY, Map.of());
            org.junit.Assert.fail("four profiles of 14 x 160 entries do not fit 8192");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("tvf table") && e.getMessage().contains("device:s1"));
        }
        // Ports 1-3 only (a port no intent covers would need the default intent's profile).
        FabricView f3 = FabricView.builder().port("device:s1", 1, PortRole.EDGE, 10_000)
                .port("device:s1", 2, PortRole.EDGE, 10_000).port("device:s1", 3, PortRole.EDGE, 10_000).build();
        DevicePolicy d = c4.compile(f3, intents.subList(0, 3), StatsSnapshot.EMPTY, Map.of()).get("device:s1");
        assertEquals(3, d.profileSlots());
    }

    @Test
    public void weightedGroupsGetMoreQueuesAndHigherValues() {
        FairnessIntent w = FairnessIntent.builder(P).id("w").objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(Map.of("hybrid", 3.0)).build();
        int[] flows = new int[g];
        for (int i = 2; i < g; i++) {
            flows[i] = 1;
        }
        FairnessIntent wi = w.toBuilder(P).queueLayout(FairnessIntent.QueueLayout.ISOLATED).build();
        int hybrid0 = P.groupId("hybrid", 0);
        int loss0 = P.groupId("loss", 0);
        assertEquals("hybrid 3 : loss 1, one flow each: queue weights 3 : 1",
                     3 * weightOf(c.queueSplit(wi, flows), loss0), weightOf(c.queueSplit(wi, flows), hybrid0));
        assertEquals("per-flow ignores weights", weightOf(c.queueSplit(isolated("iso"), flows), loss0),
                     weightOf(c.queueSplit(isolated("iso"), flows), hybrid0));
        assertEquals("the plan is per intent, not left over from the last call",
                     3 * weightOf(c.queueSplit(wi, flows), loss0), weightOf(c.queueSplit(wi, flows), hybrid0));
        int mid = 80;
        TvfProfile tp = c.profile(w);
        TvfProfile base = c.profile(c.defaultIntent());
        assertNotEquals(tp, base);
        assertSame("profiles are interned", tp, c.profile(w.toBuilder(P).id("w2").build()));
        assertTrue(tp.pv(P.groupId("hybrid", 1), mid) > tp.pv(P.groupId("loss", 1), mid));
        assertEquals(base.pv(P.groupId("loss", 1), mid), tp.pv(P.groupId("loss", 1), mid));
    }

    /**
     * D14: every model-based group's curve sits tvf.model_shift_bins (-1) below the others in a
     * per-flow intent, so its PV at bin b is the others' at b + 1. With K = 4 the model-based
     * flows of higher RTT bands are in hybrid 2 and 3 (gen_tables.py), shifted too; hybrid 0
     * (loss-delay) is not.
     */
    @Test
    public void modelBasedCurvesOneBinLowerForEveryK() {
        for (int k : new int[] {2, 4}) {
            com.fasterxml.jackson.databind.node.ObjectNode tree =
                    (com.fasterxml.jackson.databind.node.ObjectNode) P.tree();
            ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("groups")).put("k", k);
            CcfairParams pk = CcfairParams.fromTree(tree);
            assertEquals(-1, pk.integer("tvf", "model_shift_bins"));
            PolicyCompiler ck = new PolicyCompiler(pk);
            int mid = 80;
            TvfProfile t = ck.profile(ck.defaultIntent());
            int loss = pk.groupId("loss", 0);
            for (int sub = 0; sub < k; sub++) {
                int g = pk.groupId("hybrid", sub);
                for (int b = mid - 3; b <= mid + 3; b++) {
                    assertEquals("K=" + k + " hybrid" + sub + " bin " + b,
                                 t.pv(loss, sub == 0 ? b : b + 1), t.pv(g, b));
                }
            }
        }
    }

    @Test
    public void singleSwitchFairRate() {
        FabricView f = FabricView.builder().port("device:s1", 1, PortRole.EDGE, 10_000)
                .port("device:s1", 2, PortRole.EDGE, 10_000).build();
        int[] flows = new int[g];
        flows[P.groupId("loss", 0)] = 10;
        flows[0] = 100; // ants are not long-lived
        StatsSnapshot s = StatsSnapshot.builder().port("device:s1", 2, flows).build();
        DevicePolicy d = c.compile(f, List.of(), s, Map.of()).get("device:s1");
        // port 1 has no long-lived flow: the link's bin, 16 * log10(10^7 / 10) = 96, not 255
        assertEquals(96, d.port(1).fairRateBin());
        // 10 Gbit/s / 10 flows = 1 Gbit/s = 10^6 kbit/s; bin = 16 * log10(10^6 / 10) = 80.
        assertEquals(80, d.port(2).fairRateBin());
    }

    @Test
    public void overlappingScopesHighestPriorityWins() {
        FabricView f = Fabrics.leafSpine(2, 2, 2);
        FairnessIntent fabric = FairnessIntent.builder(P).id("all").priority(10).targetDelayUs(1000).build();
        FairnessIntent leaf1 = FairnessIntent.builder(P).id("leaf1").priority(20).targetDelayUs(2000)
                .scope(Scope.devices(List.of(Fabrics.leaf(1)))).build();
        FairnessIntent port = FairnessIntent.builder(P).id("port").priority(30).targetDelayUs(3000)
                .scope(Scope.ports(List.of(Fabrics.leaf(1) + "/3"))).classifier(3).build();
        FairnessIntent tie = FairnessIntent.builder(P).id("zz-tie").priority(30).targetDelayUs(4000)
                .scope(Scope.ports(List.of(Fabrics.leaf(1) + "/3"))).build();
        Map<String, DevicePolicy> out = c.compile(f, List.of(tie, fabric, port, leaf1), StatsSnapshot.EMPTY,
                                                  Map.of());
        DevicePolicy l1 = out.get(Fabrics.leaf(1));
        assertEquals("port", l1.port(3).intentId());
        assertEquals(3000, l1.port(3).targetDelayUs());
        assertEquals(3, l1.port(3).mM());
        assertEquals("leaf1", l1.port(4).intentId());
        assertEquals(P.integer("classifier", "m_m"), l1.port(4).mM());
        assertEquals("all", out.get(Fabrics.leaf(2)).port(3).intentId());
        assertEquals("all", out.get(Fabrics.spine(1)).port(1).intentId());
    }

    @Test
    public void profileIdsStableAndMakeBeforeBreak() {
        FabricView f = FabricView.builder().port("device:s1", 1, PortRole.EDGE, 10_000).build();
        DevicePolicy first = c.compile(f, List.of(), StatsSnapshot.EMPTY, Map.of()).get("device:s1");
        assertEquals(0, first.port(1).tvfProfileId());
        DevicePolicy again = c.compile(f, List.of(), StatsSnapshot.EMPTY, Map.of("device:s1", first))
                .get("device:s1");
        assertEquals(first, again);
        FairnessIntent w = FairnessIntent.builder(P).id("w").objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(Map.of("loss", 0.5)).build();
        DevicePolicy moved = c.compile(f, List.of(w), StatsSnapshot.EMPTY, Map.of("device:s1", first))
                .get("device:s1");
        assertNotEquals("a changed profile goes to a fresh id", 0, moved.port(1).tvfProfileId());
        assertNotSame(first.profile(0), moved.profile(moved.port(1).tvfProfileId()));
    }

    /**
     * Six ports with distinct fair bins share one profile (every curve is on
     * the fabric's scale, D22); each reads its CTV range at its own fair bin.
     * 10 Gbit/s ports with 100, 10, 4, 3, 2, 1 loss0 flows: fair bins
     * floor(16 log10(10^6 / n)) = 64, 80, 86, 88, 91, 96. One switch with no
     * fabric port is the whole fabric: every strict edge at the port's own bin.
     */
    @Test
    public void portsWithDistinctFairBinsShareOneProfile() {
        int loss0 = P.groupId("loss", 0);
        int[] n = {100, 10, 4, 3, 2, 1};
        int[] bin = {64, 80, 86, 88, 91, 96};
        FabricView.Builder fb = FabricView.builder();
        StatsSnapshot.Builder sb = StatsSnapshot.builder();
        for (int i = 0; i < n.length; i++) {
            fb.port("device:s1", i + 1, PortRole.EDGE, 10_000);
            int[] flows = new int[g];
            flows[loss0] = n[i];
            sb.port("device:s1", i + 1, flows);
        }
        DevicePolicy d = c.compile(fb.build(), List.of(), sb.build(), Map.of()).get("device:s1");
        TvfProfile tvf = d.profile(d.port(1).tvfProfileId());
        for (int i = 0; i < n.length; i++) {
            PortPolicy p = d.port(i + 1);
            assertEquals(d.port(1).tvfProfileId(), p.tvfProfileId());
            int lq = p.queueOf(loss0, 0, q);
            assertEquals("port " + (i + 1), tvf.pv(loss0, bin[i] + 2), p.ctvLoOf(lq));
            assertEquals("port " + (i + 1), tvf.pv(loss0, bin[i]), p.ctvHiOf(lq));
        }
        // PV(i) = 32767 - (i - 64) x 512: PV(66) = 31743, PV(98) = 15359, PV(96) = 16383
        assertEquals(31743, d.port(1).ctvLoOf(d.port(1).queueOf(loss0, 0, q)));
        assertEquals(15359, d.port(6).ctvLoOf(d.port(6).queueOf(loss0, 0, q)));
        assertEquals(16383, d.port(6).ctvHiOf(d.port(6).queueOf(loss0, 0, q)));
    }

    // One edge port "device:s1"/1 of a speed, under an intent (null: the default), with flows.
    private static PortPolicy onePort(PolicyCompiler pc, long speedMbps, FairnessIntent in, int[] flows) {
        FabricView f = FabricView.builder().port("device:s1", 1, PortRole.EDGE, speedMbps).build();
        StatsSnapshot s = StatsSnapshot.builder().port("device:s1", 1, flows).build();
        return pc.compile(f, in == null ? List.of() : List.of(in), s, Map.of()).get("device:s1").port(1);
    }

    private int[] flows(Object... groupAndCount) {
        int[] n = new int[g];
        for (int i = 0; i < groupAndCount.length; i += 2) {
            String[] fs = ((String) groupAndCount[i]).split(":");
            n[P.groupId(fs[0], Integer.parseInt(fs[1]))] = (Integer) groupAndCount[i + 1];
        }
        return n;
    }

    private static long targetOf(PortPolicy p, int group) {
        return p.targetDelayUsOf(p.queueOf(group, 0, (int) P.integer("queues", "per_port")));
    }

    /**
     * D19: in the isolated layout each delay group's queue, with flows or not,
     * is held to queues.delay_target_pkts (6) packets of its weighted fair
     * rate; every other queue keeps the intent's target, and the port's
     * loss-based flows forget back-offs (family_forget). The shared layout
     * (default) keeps the intent's target everywhere and never forgets.
     */
    @Test
    public void isolatedDelayQueuesAreHeldToKPacketsOfTheirRate() {
        int delay0 = P.groupId("delay", 0);
        int delay1 = P.groupId("delay", 1);
        int loss0 = P.groupId("loss", 0);
        assertEquals(6, P.integer("queues", "delay_target_pkts"));
        // 8 + 8 flows at 50 Mbit/s: 3.125 Mbit/s each, 6 x 12000 bit / 3.125e6 bit/s = 23.04 ms.
        int[] n = flows("delay:0", 8, "loss:0", 8);
        PortPolicy iso = onePort(c, 50, isolated("iso"), n);
        assertTrue(iso.familyForget());
        assertEquals(5000, iso.targetDelayUs());
        assertEquals(23040, targetOf(iso, delay0));
        assertEquals("a delay group without flows: the same rate", 23040, targetOf(iso, delay1));
        java.util.Set<Integer> delayQueues = java.util.Set.of(iso.queueOf(delay0, 0, q), iso.queueOf(delay1, 0, q));
        for (int qi = 0; qi < q; qi++) {
            if (!delayQueues.contains(qi)) {
                assertEquals("queue " + qi, 5000, iso.targetDelayUsOf(qi));
            }
        }
        assertEquals(5000, targetOf(iso, loss0));
        PortPolicy shared = onePort(c, 50, null, n);
        assertTrue(!shared.familyForget());
        for (int qi = 0; qi < q; qi++) {
            assertEquals("shared queue " + qi, 5000, shared.targetDelayUsOf(qi));
        }
        // Weighted-groups, delay 2 : loss 1: the weighted unit rate 50e6 / (8 x 2 + 8) times delay's
        // weight 2 = 4.1667 Mbit/s, 17280 us.
        FairnessIntent w = isolated("w").toBuilder(P).objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(Map.of("delay", 2.0)).build();
        assertEquals(17280, targetOf(onePort(c, 50, w, n), delay0));
        // At 20 Mbit/s the same is 43200 us in reals and 43199.99999999999 in the model's double
        // operations (k x 1500.0 x 8.0 / f x 1e6): the app truncates the same double.
        assertEquals(43199, targetOf(onePort(c, 20, w, n), delay0));
    }

    /**
     * D21: with adaptive buffers, in the isolated layout, Cocoa keeps each queue
     * that only delay groups use at queues.delay_target_pkts (6) packets a flow;
     * the loss group's queue, the shared layout and a fixed buffer have no floor.
     */
    @Test
    public void isolatedDelayQueuesKeepKPacketsAFlowOfCocoasLimit() {
        int delay0 = P.groupId("delay", 0);
        int delay1 = P.groupId("delay", 1);
        int loss0 = P.groupId("loss", 0);
        int initial = (int) P.integer("cocoa", "initial_limit_pkts");
        PolicyCompiler pc = new PolicyCompiler(P);
        pc.setCocoa(new Cocoa(P));
        int[] n = flows("delay:0", 20, "delay:1", 3, "loss:0", 8);
        PortPolicy iso = onePort(pc, 50, isolated("iso"), n);
        assertEquals(120, iso.limitOf(iso.queueOf(delay0, 0, q)));
        assertEquals("18 below the initial limit: the initial limit",
                     initial, iso.limitOf(iso.queueOf(delay1, 0, q)));
        assertEquals(initial, iso.limitOf(iso.queueOf(loss0, 0, q)));
        PortPolicy shared = onePort(pc, 50, null, n);
        for (int qi = 0; qi < q; qi++) {
            assertEquals("shared queue " + qi, initial, shared.limitOf(qi));
        }
        FairnessIntent fixedBuffer = isolated("fixed").toBuilder(P)
                .bufferPolicy(FairnessIntent.BufferPolicy.FIXED).bufferLimitPkts(40).build();
        PortPolicy fixed = onePort(pc, 50, fixedBuffer, n);
        assertEquals("a fixed buffer is the operator's", 40, fixed.limitOf(fixed.queueOf(delay0, 0, q)));
        // Fewer queues (5): delay0 shares hybrid1's queue, so no floor there; delay1 has its own.
        PolicyCompiler c5 = new PolicyCompiler(withQueues(5));
        c5.setCocoa(new Cocoa(withQueues(5)));
        PortPolicy p5 = onePort(c5, 20, isolated("iso"), flows("delay:0", 30, "delay:1", 30));
        assertEquals(initial, p5.limitOf(p5.queueOf(delay0, 0, 5)));
        assertEquals(180, p5.limitOf(p5.queueOf(delay1, 0, 5)));
    }

    /** D19's bounds: never below the intent's target, at most 100 ms unless the intent's target is more. */
    @Test
    public void delayQueueTargetIsBetweenThePortTargetAndTheCap() {
        int delay0 = P.groupId("delay", 0);
        // One delay flow at 20 Mbit/s: 3600 us, below 5000: the port's target wins.
        PortPolicy one = onePort(c, 20, isolated("iso"), flows("delay:0", 1));
        assertEquals(5000, targetOf(one, delay0));
        // ... but not below a lower intent target.
        assertEquals(3600, targetOf(onePort(c, 20, isolated("iso").toBuilder(P).targetDelayUs(900).build(),
                                            flows("delay:0", 1)), delay0));
        // 20 flows at 10 Mbit/s: 144000 us, capped at 100000 ...
        int[] many = flows("delay:0", 10, "delay:1", 10);
        assertEquals(100_000, targetOf(onePort(c, 10, isolated("iso"), many), delay0));
        // ... unless the intent's own target is above the cap.
        assertEquals(200_000, targetOf(onePort(c, 10, isolated("iso").toBuilder(P).targetDelayUs(200_000).build(),
                                               many), delay0));
        // No long-lived flow (only ants and mice): no fair rate, the port's target everywhere.
        PortPolicy none = onePort(c, 20, isolated("iso"), flows());
        for (int qi = 0; qi < q; qi++) {
            assertEquals(5000, none.targetDelayUsOf(qi));
        }
    }

    /**
     * Fewer queues than groups (ids wrap): a delay group's queue that any
     * group that is not delay-based also uses keeps the port's target.
     */
    @Test
    public void aDelayQueueSharedWithAnotherFamilyKeepsThePortTarget() {
        PolicyCompiler c5 = new PolicyCompiler(withQueues(5));
        int delay0 = P.groupId("delay", 0);
        int delay1 = P.groupId("delay", 1);
        int hybrid1 = P.groupId("hybrid", 1);
        PortPolicy p = onePort(c5, 20, isolated("iso"), flows("delay:0", 2, "delay:1", 2));
        assertEquals("delay0 and hybrid1 share a queue", p.queueOf(delay0, 0, 5), p.queueOf(hybrid1, 0, 5));
        assertEquals(5000, p.targetDelayUsOf(p.queueOf(delay0, 0, 5)));
        // delay1 alone on its queue: 20e6 / 4 = 5 Mbit/s, 14400 us.
        assertEquals(14400, p.targetDelayUsOf(p.queueOf(delay1, 0, 5)));
        // 3 queues: every long-lived group wraps onto the ants' or the mice's queue, which
        // keep the port's target (short flows' latency) although delay groups use them.
        PolicyCompiler c3 = new PolicyCompiler(withQueues(3));
        PortPolicy p3 = onePort(c3, 20, isolated("iso"), flows("delay:0", 2, "delay:1", 2));
        for (int qi = 0; qi < 3; qi++) {
            assertEquals("queue " + qi, 5000, p3.targetDelayUsOf(qi));
        }
    }

    @Test
    public void fewerQueuesThanGroupsWrap() {
        PortPolicy p = new PortPolicy(1, PortRole.EDGE, "x", new int[]{1, 1, 1, 1}, 0, 255, 4, 5000, true, 100);
        assertEquals(1, p.queueOf(3, 0, 2));
        assertEquals(0, p.queueOf(2, 3, 2));
    }
}
