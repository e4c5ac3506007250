/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.policy.FairnessIntent;
import org.junit.Test;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

/**
 * Delta computation and write ordering, checked against a simulated device.
 */
public class PolicyDeltaTest {

    private static final CcfairParams P = CcfairParams.load();
    private static final String D = "device:s1";
    private final PolicyCompiler c = new PolicyCompiler(P);
    private final PolicyDelta delta = new PolicyDelta(P);
    private final int g = P.numGroups();
    private final int bins = (int) P.integer("tvf", "rate_steps");
    private final int slots = (int) P.integer("queues", "slots_per_group");
    private final int q = (int) P.integer("queues", "per_port");

    /**
     * A device's tables: applies writes with P4Runtime semantics (insert of an
     * existing key, modify or delete of a missing key fail) and checks after
     * every write that nothing refers to a missing entry.
     */
    private final class SimDevice {
        final Map<String, long[]> rows = new HashMap<>();

        void apply(List<PolicyWrite> ws) {
            int i = 0;
            for (PolicyWrite w : ws) {
                String k = w.table() + Arrays.toString(w.key());
                boolean has = rows.containsKey(k);
                switch (w.op()) {
                    case INSERT:
                        assertFalse("write " + i + " inserts existing " + k, has);
                        rows.put(k, w.value());
                        break;
                    case MODIFY:
                        assertTrue("write " + i + " modifies missing " + k, has);
                        rows.put(k, w.value());
                        break;
                    case DELETE:
                        assertTrue("write " + i + " deletes missing " + k, has);
                        rows.remove(k);
                        break;
                    default:
                        fail();
                }
                checkReferences("after write " + i + " (" + w + ")");
                i++;
            }
        }

        void checkReferences(String when) {
            for (Map.Entry<String, long[]> e : rows.entrySet()) {
                String k = e.getKey();
                if (k.startsWith(PolicyTable.EGRESS_PORT.name())) {
                    long profile = e.getValue()[1];
                    for (int grp = 0; grp < g; grp++) {
                        for (int b = 0; b < bins; b += 37) {
                            assertNotNull(when + ": " + k + " refers to missing TVF " + profile,
                                          rows.get(PolicyTable.TVF + Arrays.toString(new long[]{profile, grp, b})));
                        }
                    }
                }
                if (k.startsWith(PolicyTable.QUEUE_MAP.name())) {
                    long port = Long.parseLong(k.substring(k.indexOf('[') + 1, k.indexOf(',')));
                    assertNotNull(when + ": " + k + " maps to a queue without AQM configuration",
                                  rows.get(PolicyTable.AQM + Arrays.toString(new long[]{port, e.getValue()[0]})));
                }
            }
        }
    }

    private FabricView fabric(int ports) {
        FabricView.Builder b = FabricView.builder();
        for (int p = 1; p <= ports; p++) {
            b.port(D, p, p == 1 ? PortRole.FABRIC : PortRole.EDGE, 10_000);
        }
        return b.build();
    }

    private DevicePolicy compile(FabricView f, List<FairnessIntent> in, StatsSnapshot s, DevicePolicy prev) {
        return c.compile(f, in, s, prev == null ? Map.of() : Map.of(D, prev)).get(D);
    }

    @Test
    public void fullPushWritesEverythingOnce() {
        DevicePolicy p = compile(fabric(4), List.of(), StatsSnapshot.EMPTY, null);
        List<PolicyWrite> ws = delta.full(p);
        int rttBands = P.integers("policy", "rtt_band_boundaries_us").length + 1;
        assertEquals(g * bins + rttBands + 4 * (q + g * slots + 3), ws.size());
        assertEquals("entries() counts what full() writes", ws.size(), delta.entries(p));
        assertTrue(ws.stream().allMatch(w -> w.op() == PolicyWrite.Op.INSERT));
        new SimDevice().apply(ws);
        assertTrue("no change, no writes", delta.between(p, compile(fabric(4), List.of(), StatsSnapshot.EMPTY, p))
                .isEmpty());
    }

    @Test
    public void onePortChangeTouchesOnlyThatPort() {
        FabricView f = fabric(8);
        DevicePolicy a = compile(f, List.of(), StatsSnapshot.EMPTY, null);
        int[] flows = new int[g];
        flows[P.groupId("loss", 0)] = 40;
        flows[P.groupId("delay", 1)] = 2;
        DevicePolicy b = compile(f, List.of(), StatsSnapshot.builder().port(D, 5, flows).build(), a);
        List<PolicyWrite> ws = delta.between(a, b);
        assertFalse(ws.isEmpty());
        // Its fair rate moved, but its curves are the fabric's one scale (D22): no TVF write,
        // every port keeps its profile, and only port 5's rows change (its port_cfg, queue
        // map and ranges; the other ports' strict edges count flows of other devices only).
        assertEquals(a.port(5).tvfProfileId(), b.port(5).tvfProfileId());
        assertEquals(a.port(1).tvfProfileId(), b.port(1).tvfProfileId());
        for (PolicyWrite w : ws) {
            assertTrue(w.toString(), w.table() != PolicyTable.TVF && w.op() == PolicyWrite.Op.MODIFY);
            assertTrue(w.toString(), w.key(0) == 5);
        }
        assertTrue("fair rate changes", ws.stream().anyMatch(w -> w.table() == PolicyTable.EGRESS_PORT));
        SimDevice dev = new SimDevice();
        dev.apply(delta.full(a));
        dev.apply(ws);
        SimDevice ref = new SimDevice();
        ref.apply(delta.full(b));
        assertEquals("delta lands on the same tables as a full push", keys(ref), keys(dev));
    }

    @Test
    public void statsIndexMovesRewriteBothPortTablesInOneStep() {
        DevicePolicy a = compile(fabric(4), List.of(), StatsSnapshot.EMPTY, null);
        assertEquals(List.of(0, 1, 2, 3), indices(a));
        // A port numbered below the others appears: theirs move up by one (StatsIndex).
        FabricView.Builder fb = FabricView.builder().port(D, 0, PortRole.EDGE, 10_000);
        fabric(4).ports(D).forEach(p -> fb.port(D, p.number(), p.role(), p.speedMbps()));
        DevicePolicy b = compile(fb.build(), List.of(), StatsSnapshot.EMPTY, a);
        assertEquals(List.of(0, 1, 2, 3, 4), indices(b));
        List<PolicyWrite> ws = delta.between(a, b);
        List<PolicyWrite> idx = new java.util.ArrayList<>();
        for (PolicyWrite w : ws) {
            if (w.table() == PolicyTable.PORT_INDEX || w.table() == PolicyTable.EGRESS_PORT) {
                idx.add(w);
            }
        }
        assertEquals("both tables for each of the 5 ports", 10, idx.size());
        assertEquals("in one step", 1, idx.stream().map(PolicyWrite::batch).distinct().count());
        SimDevice dev = new SimDevice();
        dev.apply(delta.full(a));
        dev.apply(ws);
        for (PortPolicy p : b.ports()) {
            long[] eg = dev.rows.get(PolicyTable.EGRESS_PORT + Arrays.toString(new long[]{p.port()}));
            long[] ig = dev.rows.get(PolicyTable.PORT_INDEX + Arrays.toString(new long[]{p.port()}));
            assertEquals("egress port_cfg stats_idx of port " + p.port(), p.statsIndex(), eg[eg.length - 1]);
            assertEquals("eg_port_idx of port " + p.port(), p.statsIndex(), ig[0]);
        }
    }

    private static List<Integer> indices(DevicePolicy p) {
        List<Integer> out = new java.util.ArrayList<>();
        p.ports().forEach(x -> out.add(x.statsIndex()));
        return out;
    }

    private static Map<String, List<Long>> keys(SimDevice d) {
        Map<String, List<Long>> m = new HashMap<>();
        d.rows.forEach((k, v) -> m.put(k, Arrays.stream(v).boxed().collect(java.util.stream.Collectors.toList())));
        return m;
    }

    @Test
    public void profileSwitchPortAddAndRemoveNeverDangle() {
        DevicePolicy a = compile(fabric(6), List.of(), StatsSnapshot.EMPTY, null);
        FairnessIntent w = FairnessIntent.builder(P).id("w").objective(FairnessIntent.Objective.WEIGHTED_GROUPS)
                .weights(Map.of("loss", 0.25, "delay", 4.0)).targetDelayUs(900).build();
        int[] flows = new int[g];
        Arrays.fill(flows, 3);
        FabricView f2 = FabricView.builder().port(D, 1, PortRole.FABRIC, 10_000).port(D, 2, PortRole.FABRIC, 10_000)
                .port(D, 4, PortRole.EDGE, 10_000).port(D, 9, PortRole.EDGE, 40_000).build();
        DevicePolicy b = compile(f2, List.of(w), StatsSnapshot.builder().port(D, 4, flows).build(), a);
        SimDevice dev = new SimDevice();
        dev.apply(delta.full(a));
        List<PolicyWrite> ws = delta.between(a, b);
        dev.apply(ws);
        assertTrue("old profile removed", ws.stream().anyMatch(x -> x.table() == PolicyTable.TVF
                && x.op() == PolicyWrite.Op.DELETE));
        SimDevice ref = new SimDevice();
        ref.apply(delta.full(b));
        assertEquals(keys(ref), keys(dev));
        assertEquals("entries() counts what a device holds after a delta", keys(dev).size(), delta.entries(b));
        // and back, applying every batch in reverse order: writes of one batch must not depend on each other
        List<PolicyWrite> back = delta.between(b, compile(fabric(6), List.of(), StatsSnapshot.EMPTY, b));
        dev.apply(reverseWithinBatches(back));
        SimDevice fresh = new SimDevice();
        fresh.apply(reverseWithinBatches(delta.full(b)));
    }

    /**
     * D19 in the writes: port_cfg family_forget (after ss_drop, before stats_idx)
     * is 1 on an isolated port and 0 on a shared one; aqm_cfg writes each
     * queue's own target, so a change of flows on an isolated port rewrites its
     * delay groups' queues, and switching a port's layout rewrites its port_cfg.
     */
    @Test
    public void familyForgetAndDelayQueueTargetsAreWritten() {
        FabricView f = FabricView.builder().port(D, 1, PortRole.EDGE, 50).port(D, 2, PortRole.EDGE, 50).build();
        FairnessIntent iso = FairnessIntent.builder(P).id("iso").queueLayout(FairnessIntent.QueueLayout.ISOLATED)
                .scope(org.ccfair.app.policy.Scope.ports(List.of(D + "/2"))).build();
        int[] flows = new int[g];
        flows[P.groupId("delay", 0)] = 8;
        flows[P.groupId("loss", 0)] = 8;
        StatsSnapshot s = StatsSnapshot.builder().port(D, 1, flows).port(D, 2, flows).build();
        DevicePolicy a = compile(f, List.of(iso), s, null);
        SimDevice dev = new SimDevice();
        dev.apply(delta.full(a));
        long[] shared = dev.rows.get(PolicyTable.EGRESS_PORT + "[1]");
        long[] isolated = dev.rows.get(PolicyTable.EGRESS_PORT + "[2]");
        assertEquals("role .. ss_drop, family_forget, stats_idx", 8, isolated.length);
        assertEquals("shared: no forgetting", 0, shared[6]);
        assertEquals("isolated: forgetting", 1, isolated[6]);
        assertEquals("ss_drop stays before it", P.integer("classifier", "ss_proactive_drop"), isolated[5]);
        assertEquals("stats_idx stays last", a.port(2).statsIndex(), isolated[7]);
        long delayQ = a.port(2).queueOf(P.groupId("delay", 0), 0, q);
        long lossQ = a.port(2).queueOf(P.groupId("loss", 0), 0, q);
        // 6 packets of 3.125 Mbit/s (50 / 16 flows): 23040 us; the loss group's queue the port's 5000.
        assertEquals(23040, dev.rows.get(PolicyTable.AQM + Arrays.toString(new long[]{2, delayQ}))[0]);
        assertEquals(5000, dev.rows.get(PolicyTable.AQM + Arrays.toString(new long[]{2, lossQ}))[0]);
        for (long qi = 0; qi < q; qi++) {
            assertEquals("shared port, queue " + qi, 5000,
                         dev.rows.get(PolicyTable.AQM + Arrays.toString(new long[]{1, qi}))[0]);
        }
        // Twice the flows on the isolated port: half the rate, so its delay queues (delay0's and
        // delay1's) get twice the target; the shared port's AQM rows are not touched.
        int[] more = flows.clone();
        more[P.groupId("delay", 0)] = 16;
        more[P.groupId("loss", 0)] = 16;
        DevicePolicy b = compile(f, List.of(iso), StatsSnapshot.builder().port(D, 1, flows).port(D, 2, more).build(),
                                 a);
        List<PolicyWrite> ws = delta.between(a, b);
        dev.apply(ws);
        long delayQb = b.port(2).queueOf(P.groupId("delay", 0), 0, q);
        assertEquals(46080, dev.rows.get(PolicyTable.AQM + Arrays.toString(new long[]{2, delayQb}))[0]);
        assertTrue(ws.stream().noneMatch(w -> w.table() == PolicyTable.AQM && w.key(0) == 1));
        // The isolated port goes back to the default (shared) intent: port_cfg rewritten with 0,
        // and every queue back to the port's target.
        DevicePolicy c2 = compile(f, List.of(), StatsSnapshot.builder().port(D, 1, flows).port(D, 2, more).build(), b);
        List<PolicyWrite> back = delta.between(b, c2);
        dev.apply(back);
        assertEquals(0, dev.rows.get(PolicyTable.EGRESS_PORT + "[2]")[6]);
        for (long qi = 0; qi < q; qi++) {
            assertEquals("port 2 shared again, queue " + qi, 5000,
                         dev.rows.get(PolicyTable.AQM + Arrays.toString(new long[]{2, qi}))[0]);
        }
    }

    private static List<PolicyWrite> reverseWithinBatches(List<PolicyWrite> ws) {
        List<PolicyWrite> out = new java.util.ArrayList<>();
        int i = 0;
        while (i < ws.size()) {
            int j = i;
            while (j < ws.size() && ws.get(j).batch() == ws.get(i).batch()) {
                j++;
            }
            if (i > 0) {
                assertTrue("batches ascend", ws.get(i).batch() > ws.get(i - 1).batch());
            }
            List<PolicyWrite> b = new java.util.ArrayList<>(ws.subList(i, j));
            java.util.Collections.reverse(b);
            out.addAll(b);
            i = j;
        }
        return out;
    }
}
