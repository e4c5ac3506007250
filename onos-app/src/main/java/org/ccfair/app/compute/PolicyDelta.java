/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ordered writes that take a device from one policy to another.
 *
 * <p>Order (make before break; docs/onos-app.md, "Write ordering"): every
 * entry is written before anything refers to it, and removed only after
 * nothing refers to it, so a device stopped after any prefix of the list
 * runs a consistent mix of old and new policy, never a reference to a
 * missing entry:</p>
 * <ol>
 * <li>TVF entries of new or changed profile ids (nothing refers to a new id yet);</li>
 * <li>RTT bands (full push only; they come from params/ccfair.json);</li>
 * <li>AQM configuration of every queue of changed ports (before groups move into them);</li>
 * <li>queue-map slots (each slot write moves one slot atomically);</li>
 * <li>egress port configuration: role, TVF profile reference (the flip), fair rate, classifier
 * (with family_forget, 1 in the isolated layout), stats index; with it the ingress's stats index of
 * the port (PORT_INDEX, the same index);</li>
 * <li>ingress port configuration: role (edge ports start trusting nothing, fabric ports the shim);</li>
 * <li>deletes: ingress and egress port configuration and stats index of removed ports, then their queue-map
 * slots, then their AQM rows, then TVF entries of profile ids no port refers to any more.</li>
 * </ol>
 * <p>Consecutive writes with the same {@link PolicyWrite#batch()} are independent of each
 * other and may be sent in one P4Runtime WriteRequest; batches must be applied in order.</p>
 */
public final class PolicyDelta {

    private static final int PHASES = 10;
    private static final long RTT_MAX_US = 0xFFFFFFFFL;

    private final int slotsPerGroup;
    private final long roleEdge;
    private final long roleFabric;
    private final long defaultRttUs;
    private final long antMaxPkts;
    private final long ssDrop;
    private final long ecn;
    private final long[] rttBoundaries;

    /**
     * Creates the delta computer.
     *
     * @param params shared parameters (data-plane constants written with the policy)
     */
    public PolicyDelta(CcfairParams params) {
        slotsPerGroup = (int) params.integer("queues", "slots_per_group");
        roleEdge = params.integer("ports", "role_edge");
        roleFabric = params.integer("ports", "role_fabric");
        defaultRttUs = params.integer("flow", "default_rtt_us");
        antMaxPkts = params.integer("flow", "ant_max_pkts_per_interval");
        ssDrop = params.integer("classifier", "ss_proactive_drop");
        ecn = params.integer("aqm", "ecn");
        rttBoundaries = params.integers("policy", "rtt_band_boundaries_us");
    }

    /**
     * Writes for a full push (device tables empty, e.g. after a pipeline reset).
     *
     * @param policy target policy
     * @return ordered writes (inserts only)
     */
    public List<PolicyWrite> full(DevicePolicy policy) {
        return between(null, policy);
    }

    /**
     * Writes taking a device from one policy to another.
     *
     * @param from installed policy, or null if the device tables are empty
     * @param to   target policy
     * @return ordered writes; empty if nothing changed
     */
    public List<PolicyWrite> between(DevicePolicy from, DevicePolicy to) {
        List<List<PolicyWrite>> ph = new ArrayList<>(PHASES);
        for (int i = 0; i < PHASES; i++) {
            ph.add(new ArrayList<>());
        }
        int slots = Math.max(to.profileSlots(), from == null ? 0 : from.profileSlots());
        for (int id = 0; id < slots; id++) {
            TvfProfile a = from == null ? null : from.profile(id);
            TvfProfile b = to.profile(id);
            if (a == b || (a != null && a.equals(b))) {
                continue;
            }
            if (b != null) {
                tvf(ph.get(0), id, a, b);
            } else {
                for (int g = 0; g < a.groups(); g++) {
                    for (int bin = 0; bin < a.bins(); bin++) {
                        ph.get(9).add(delete(PolicyTable.TVF, id, g, bin));
                    }
                }
            }
        }
        if (from == null) {
            long lo = 0;
            for (int band = 0; band <= rttBoundaries.length; band++) {
                long hi = band < rttBoundaries.length ? rttBoundaries[band] - 1 : RTT_MAX_US;
                ph.get(1).add(new PolicyWrite(PolicyWrite.Op.INSERT, PolicyTable.RTT_BAND, new long[]{lo, hi},
                                              new long[]{band}));
                lo = hi + 1;
            }
        }
        List<PortPolicy> olds = from == null ? Collections.emptyList() : from.ports();
        Map<Long, PortPolicy> oldByPort = new HashMap<>(olds.size() * 2);
        for (PortPolicy p : olds) {
            oldByPort.put(p.port(), p);
        }
        for (PortPolicy p : to.ports()) {
            PortPolicy o = oldByPort.remove(p.port());
            if (!p.equals(o)) {
                port(ph, o, p, to.numQueues());
            }
        }
        List<PortPolicy> removed = new ArrayList<>(oldByPort.values());
        removed.sort((a, b) -> Long.compare(a.port(), b.port()));
        for (PortPolicy o : removed) {
            ph.get(6).add(delete(PolicyTable.INGRESS_PORT, o.port()));
            ph.get(6).add(delete(PolicyTable.EGRESS_PORT, o.port()));
            ph.get(6).add(delete(PolicyTable.PORT_INDEX, o.port()));
            for (int g = 0; g < o.groups(); g++) {
                for (int s = 0; s < slotsPerGroup; s++) {
                    ph.get(7).add(delete(PolicyTable.QUEUE_MAP, o.port(), g, s));
                }
            }
            for (int q = 0; q < from.numQueues(); q++) {
                ph.get(8).add(delete(PolicyTable.AQM, o.port(), q));
            }
        }
        // Each phase becomes one batch: its writes never refer to each other, so a
        // switch may apply a batch in any order (P4Runtime does not order a WriteRequest).
        List<PolicyWrite> out = new ArrayList<>();
        int batch = 0;
        for (List<PolicyWrite> l : ph) {
            if (l.isEmpty()) {
                continue;
            }
            for (PolicyWrite w : l) {
                out.add(w.inBatch(batch));
            }
            batch++;
        }
        return out;
    }

    /**
     * Number of table entries a device holds once it runs a policy: the size of
     * {@link #full} without building it (the engine compares it with what the
     * controller's store holds every round).
     *
     * @param policy policy
     * @return entries
     */
    public long entries(DevicePolicy policy) {
        long n = rttBoundaries.length + 1;
        for (int id = 0; id < policy.profileSlots(); id++) {
            TvfProfile p = policy.profile(id);
            if (p != null) {
                n += (long) p.groups() * p.bins();
            }
        }
        for (PortPolicy p : policy.ports()) {
            n += 3 + (long) p.groups() * slotsPerGroup + policy.numQueues();
        }
        return n;
    }

    private static PolicyWrite delete(PolicyTable t, long... key) {
        return new PolicyWrite(PolicyWrite.Op.DELETE, t, key, new long[0]);
    }

    private static PolicyWrite write(boolean insert, PolicyTable t, long[] key, long... value) {
        return new PolicyWrite(insert ? PolicyWrite.Op.INSERT : PolicyWrite.Op.MODIFY, t, key, value);
    }

    private static void tvf(List<PolicyWrite> out, int id, TvfProfile a, TvfProfile b) {
        for (int g = 0; g < b.groups(); g++) {
            for (int bin = 0; bin < b.bins(); bin++) {
                int v = b.pv(g, bin);
                if (a == null || a.pv(g, bin) != v) {
                    out.add(write(a == null, PolicyTable.TVF, new long[]{id, g, bin}, v));
                }
            }
        }
    }

    private long role(PortPolicy p) {
        return p.role() == PortRole.EDGE ? roleEdge : roleFabric;
    }

    // set_port_cfg's parameters in P4 order; family_forget (D19) is 1 only in the isolated layout.
    private long[] egress(PortPolicy p) {
        return new long[]{role(p), p.tvfProfileId(), p.fairRateBin(), antMaxPkts, p.mM(), ssDrop,
                          p.familyForget() ? 1 : 0, p.statsIndex()};
    }

    private long[] aqm(PortPolicy p, int q) {
        return new long[]{p.targetDelayUsOf(q), p.limitOf(q), ecn, p.ctvLoOf(q), p.ctvHiOf(q)};
    }

    private void port(List<List<PolicyWrite>> ph, PortPolicy o, PortPolicy p, int numQueues) {
        long n = p.port();
        if (p.statsIndex() < 0) {
            throw new IllegalArgumentException("port " + n + " has no stats index");
        }
        boolean insert = o == null;
        for (int q = 0; q < numQueues; q++) {
            long[] aqm = aqm(p, q);
            if (insert || !Arrays.equals(aqm(o, q), aqm)) {
                ph.get(2).add(write(insert, PolicyTable.AQM, new long[]{n, q}, aqm));
            }
        }
        for (int g = 0; g < p.groups(); g++) {
            for (int s = 0; s < slotsPerGroup; s++) {
                long queue = p.queueOf(g, s, numQueues);
                if (insert || o.queueOf(g, s, numQueues) != queue) {
                    ph.get(3).add(write(insert, PolicyTable.QUEUE_MAP, new long[]{n, g, s}, queue));
                }
            }
        }
        long[] eg = egress(p);
        if (insert || !Arrays.equals(egress(o), eg)) {
            ph.get(4).add(write(insert, PolicyTable.EGRESS_PORT, new long[]{n}, eg));
        }
        // Same step as the egress entry: nothing refers to either, and the
        // two indices of a port differ only between the two writes.
        if (insert || o.statsIndex() != p.statsIndex()) {
            ph.get(4).add(write(insert, PolicyTable.PORT_INDEX, new long[]{n}, p.statsIndex()));
        }
        if (insert || o.role() != p.role()) {
            ph.get(5).add(write(insert, PolicyTable.INGRESS_PORT, new long[]{n}, role(p), defaultRttUs));
        }
    }
}
