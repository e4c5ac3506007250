/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.pipeconf.P4InfoConstants;
import org.ccfair.app.policy.FairnessIntent;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Turns topology, intents and live statistics into a {@link DevicePolicy}
 * for every device (docs/architecture.md, "The controller loop").
 *
 * <ul>
 * <li>A port is governed by the highest-priority intent whose scope covers it
 * (ties: smallest id); ports no intent covers get the default intent, a
 * per-flow intent with every value from params/ccfair.json.</li>
 * <li>Queues: ants and mice get max(1, ceil(min_share * Q)) queues. With the
 * intent's queue layout "shared" (the default) every long-lived group maps to
 * one common queue, so the PV AQM, not the queue count, divides that queue's
 * share among the long-lived flows (3 queues used with the default shares).
 * With "isolated" every long-lived group gets one queue of its own, chosen among
 * the queues after the ants' and mice' by the DWRR weight the traffic manager
 * gives it at boot (queues.dwrr_weights, which the app cannot change): the
 * busy groups' queue weights follow their active flows (times their weights
 * for weighted-groups), so DWRR gives each flow about the same share whatever
 * group it is in ({@link #assign}, docs/algorithm.md D18).</li>
 * <li>TVFs: the fabric's one scale (docs/algorithm.md D22; see {@link Tvf}),
 * one curve for every group (per-flow) or each family's curve shifted by its
 * weight (weighted-groups), the model-based groups' tvf.model_shift_bins lower
 * in both (docs/algorithm.md D14). Each long-lived group's curve is also
 * shifted by the port's share correction ({@link ShareCorrection},
 * docs/algorithm.md D13), so a corrected port needs curves of its own. Ports
 * share a profile when their curves are equal. A device gets at most
 * {@link #profileBudget()} profiles: when its ports need more, the smallest
 * corrections are dropped first (see {@link #compileDevice}).</li>
 * <li>CTV range of a queue: the PVs of its group's curve at the port's fair
 * bin + the group's rounded shift (weight and share correction) + aqm.ctv_floor_bins (lowest CTV) and
 * + aqm.ctv_ceiling_bins (highest CTV), as the ns-3 model sets them; outside
 * the shared layout the model-based groups' at the bin of a weight-1 flow's
 * weighted share instead of the fair bin (docs/algorithm.md D20). The
 * shared layout's common queue takes the range of a weight-1 curve (the
 * ants'); with weighted-groups its port's ranges are then read at the rate
 * of a weight-1 flow ({@link #fairKbps(long, int[], double[])}), so
 * that the one threshold holds each flow at its weight times that rate. A
 * port that receives from fabric ports reads its strict edge no higher than
 * the fabric's share (D22, {@link #compileDevice}).</li>
 * <li>AQM target: the intent's for every queue, except in the isolated layout,
 * where each delay group's queue is held to queues.delay_target_pkts packets
 * of its flows' weighted fair rate, between the intent's target and 100 ms,
 * and its port's loss-based flows forget a back-off after
 * classifier.family_forget_intervals clean intervals (port_cfg family_forget;
 * {@link #delayTargets}, docs/algorithm.md D19).</li>
 * <li>Buffer limit: Cocoa's (adaptive) or the intent's; in the isolated layout
 * Cocoa keeps a delay group's own queue at queues.delay_target_pkts packets
 * a flow or more ({@link #delayFloors}, docs/algorithm.md D21).</li>
 * </ul>
 * Not thread-safe: one compiler per computing thread (it caches TVF profiles).
 */
public final class PolicyCompiler {

    /** Id reported for ports no intent covers; not a valid user intent id. */
    public static final String DEFAULT_INTENT_ID = "(default)";

    /** Fair rate bin of a port without a known speed (the data-plane default: never reached). */
    public static final int NO_FAIR_RATE_BIN = 255;

    /** Highest AQM target a delay group's queue gets from its fair rate (D19), microseconds. */
    public static final double DELAY_TARGET_MAX_US = 100_000.0;

    // Bits of the packet the delay target counts (a full-size packet, as the ns-3 model's 1500.0 * 8.0).
    private static final double DELAY_TARGET_PKT_BITS = 1500.0 * 8.0;

    private static final Comparator<FairnessIntent> PRECEDENCE =
            Comparator.comparingInt(FairnessIntent::priority).reversed().thenComparing(FairnessIntent::id);

    private final CcfairParams params;
    private final FairnessIntent defaultIntent;
    private final Tvf tvf;
    private final int numGroups;
    private final int numQueues;
    private final int ctvFloorBins;
    private final int ctvCeilingBins;
    private final int mouseGroup;
    private final int maxProfiles;
    private final int initialBuffer;
    private final int slotsPerGroup;
    private final int bdpShift;
    private final String[] familyOfGroup;
    private final boolean[] longLived;
    private final boolean[] delayGroup;
    private final int numLongLived;
    private final int delayTargetPkts;
    private final int ant;
    private final int mouse;
    // One TVF family per distinct objective + weights (+ share correction): its curves.
    private final Map<String, TvfFamily> families = new HashMap<>();
    private final ShareCorrection correction;
    // The model-based groups (hybrid kind "model" and the hybrid sub-groups above it, where
    // gen_tables.py puts model-based flows of higher RTT bands when K > 2) and their curves'
    // shift in bins (D14).
    private final int firstModelGroup;
    private final int lastModelGroup;
    private final long modelShift;
    private final int profileBudget;
    // Marks the families a compile uses (the compiler is single-threaded).
    private int stamp;
    // Per-intent values that do not depend on the port, computed once per intent object.
    private final Map<FairnessIntent, Plan> plans = new java.util.IdentityHashMap<>();
    private final int statsIndices;
    private volatile Cocoa cocoa;
    // ln of each queue's DWRR weight (queues.dwrr_weights), for assign.
    private final double[] lnDwrr;
    // Scratch space of assign (the compiler is single-threaded).
    private final double[] demand;
    private final int[] order;
    private final int[] at;
    private final boolean[] used;
    // Scratch of delayTargets and delayFloors: per queue, whether a group that is not delay-based uses it.
    private final boolean[] notDelayQueue;

    /** What an intent contributes to every port it governs. */
    private static final class Plan {
        final double[] weight;
        final int antQueues;
        final int miceQueues;
        final TvfFamily tvf;
        final int mM;
        final boolean adaptive;
        final int buffer;
        final boolean shared;
        // Shared layout with weights: the port's CTV range is read at the weighted unit rate.
        final boolean weightedShared;

        Plan(double[] weight, int antQueues, int miceQueues, TvfFamily tvf, int mM,
             boolean adaptive, int buffer, boolean shared, boolean weighted) {
            this.weight = weight;
            this.antQueues = antQueues;
            this.miceQueues = miceQueues;
            this.tvf = tvf;
            this.mM = mM;
            this.adaptive = adaptive;
            this.buffer = buffer;
            this.shared = shared;
            this.weightedShared = shared && weighted;
        }
    }

    /** The curves of one objective + weights: per group a shift, and their profile. */
    private static final class TvfFamily {
        final String key;
        final double[] shift;
        // a corrected family (D13) lives while a compile() uses it
        final boolean corrected;
        int usedStamp;
        final int[] binShift;
        TvfProfile profile;

        TvfFamily(String key, double[] shift, boolean corrected) {
            this.key = key;
            this.shift = shift;
            this.corrected = corrected;
            this.binShift = new int[shift.length];
            for (int g = 0; g < shift.length; g++) {
                binShift[g] = (int) Math.round(shift[g]);
            }
        }
    }

    /**
     * Creates a compiler.
     *
     * @param params shared parameters
     */
    public PolicyCompiler(CcfairParams params) {
        this.params = params;
        this.defaultIntent = FairnessIntent.builder(params).id(DEFAULT_INTENT_ID).build();
        this.tvf = new Tvf(params);
        this.numGroups = params.numGroups();
        this.numQueues = (int) params.integer("queues", "per_port");
        this.ctvFloorBins = (int) params.integer("aqm", "ctv_floor_bins");
        this.ctvCeilingBins = (int) params.integer("aqm", "ctv_ceiling_bins");
        this.mouseGroup = (int) params.integer("groups", "mouse");
        this.maxProfiles = (int) params.integer("tvf", "profiles");
        // The tvf table (size from the P4Info) holds groups x rate_steps entries per profile.
        this.profileBudget = Math.min(maxProfiles, P4InfoConstants.EGRESS_PIPE_MARKER_TVF_SIZE
                / (numGroups * (int) params.integer("tvf", "rate_steps")));
        if (profileBudget < 1) {
            throw new IllegalArgumentException("tvf table (" + P4InfoConstants.EGRESS_PIPE_MARKER_TVF_SIZE
                    + " entries) cannot hold one profile of " + numGroups + " groups x tvf.rate_steps="
                    + params.integer("tvf", "rate_steps") + " bins");
        }
        this.initialBuffer = (int) params.integer("cocoa", "initial_limit_pkts");
        this.slotsPerGroup = (int) params.integer("queues", "slots_per_group");
        this.bdpShift = (int) params.integer("classifier", "bdp_shift");
        this.statsIndices = (int) params.integer("ports", "stats_indices");
        this.ant = (int) params.integer("groups", "ant");
        this.mouse = (int) params.integer("groups", "mouse");
        this.correction = new ShareCorrection(params);
        this.firstModelGroup = params.groupId("hybrid", params.hybridKind("model"));
        this.lastModelGroup = params.groupId("hybrid", params.k() - 1);
        this.modelShift = params.integer("tvf", "model_shift_bins");
        long[] dwrr = params.integers("queues", "dwrr_weights");
        if (dwrr.length != numQueues) {
            throw new IllegalArgumentException("queues.dwrr_weights lists " + dwrr.length
                    + " weights, queues.per_port is " + numQueues);
        }
        this.lnDwrr = new double[numQueues];
        for (int i = 0; i < numQueues; i++) {
            if (dwrr[i] < 1 || dwrr[i] > 1023) {
                throw new IllegalArgumentException("queues.dwrr_weights[" + i + "] = " + dwrr[i]
                        + " outside the TM's 1..1023");
            }
            lnDwrr[i] = Math.log(dwrr[i]);
        }
        this.demand = new double[numGroups];
        this.order = new int[numGroups];
        this.at = new int[numGroups];
        this.used = new boolean[numQueues];
        this.notDelayQueue = new boolean[numQueues];
        this.familyOfGroup = new String[numGroups];
        this.longLived = new boolean[numGroups];
        this.delayGroup = new boolean[numGroups];
        int n = 0;
        for (int g = 0; g < numGroups; g++) {
            familyOfGroup[g] = params.familyOf(g);
            longLived[g] = familyOfGroup[g] != null;
            delayGroup[g] = "delay".equals(familyOfGroup[g]);
            n += longLived[g] ? 1 : 0;
        }
        this.numLongLived = n;
        this.delayTargetPkts = (int) params.integer("queues", "delay_target_pkts");
        if (delayTargetPkts < 1) {
            throw new IllegalArgumentException("queues.delay_target_pkts = " + delayTargetPkts + ", must be >= 1");
        }
    }

    /**
     * The intent that governs uncovered ports.
     *
     * @return default intent
     */
    public FairnessIntent defaultIntent() {
        return defaultIntent;
    }

    /**
     * Queues per port.
     *
     * @return Q
     */
    public int numQueues() {
        return numQueues;
    }

    /**
     * TVF profiles a device may use: tvf.profiles, or fewer if the P4 tvf table
     * cannot hold that many (TVF_TABLE_SIZE / (groups x tvf.rate_steps)).
     *
     * @return profiles
     */
    public int profileBudget() {
        return profileBudget;
    }

    /**
     * Uses a Cocoa loop's per-queue limits for ports whose intent asks for
     * adaptive buffers (without one they keep cocoa.initial_limit_pkts).
     *
     * @param c the loop, or null
     */
    public void setCocoa(Cocoa c) {
        this.cocoa = c;
    }

    /**
     * The per-port share correction (docs/algorithm.md D13) this compiler applies.
     *
     * @return the correction state
     */
    public ShareCorrection correction() {
        return correction;
    }

    /**
     * Initial buffer limit of adaptive queues (cocoa.initial_limit_pkts).
     *
     * @return packets
     */
    public int initialBuffer() {
        return initialBuffer;
    }

    /**
     * Compiles every device of the fabric.
     *
     * @param fabric   topology
     * @param intents  valid intents
     * @param stats    active flows
     * @param previous policies last compiled (for stable TVF profile ids), may be empty
     * @return device id to policy, sorted
     */
    public SortedMap<String, DevicePolicy> compile(FabricView fabric, Collection<FairnessIntent> intents,
                                                   StatsSnapshot stats, Map<String, DevicePolicy> previous) {
        List<FairnessIntent> sorted = sort(intents);
        plans.clear();
        int compileStart = stamp + 1;
        SortedMap<String, DevicePolicy> out = new TreeMap<>();
        List<FairnessIntent> touching = new ArrayList<>();
        // D22: the long-lived flows each device of the fabric counts (its ports in the view only)
        Map<String, int[]> perDevice = new HashMap<>();
        int[] all = new int[numGroups];
        for (String d : fabric.deviceIds()) {
            int[] n = new int[numGroups];
            for (FabricView.Port p : fabric.ports(d)) {
                int[] f = stats.flows(d, p.number());
                for (int g = 0; f != null && g < Math.min(numGroups, f.length); g++) {
                    n[g] += f[g];
                }
            }
            perDevice.put(d, n);
            for (int g = 0; g < numGroups; g++) {
                all[g] += n[g];
            }
        }
        for (String d : fabric.deviceIds()) {
            touching.clear();
            for (FairnessIntent in : sorted) {
                if (in.scope().touchesDevice(d)) {
                    touching.add(in);
                }
            }
            int[] others = all.clone();
            int[] own = perDevice.get(d);
            for (int g = 0; g < numGroups; g++) {
                others[g] -= own[g];
            }
            out.put(d, compileDevice(d, fabric.ports(d), touching, stats, previous.get(d), others));
        }
        // Corrected curves no port asked for this time are dropped (they change every round).
        families.values().removeIf(f -> f.corrected && f.usedStamp < compileStart);
        // Corrections of ports no longer in the fabric are forgotten (a port that comes back
        // starts from 0).
        Map<String, java.util.Set<Long>> live = new HashMap<>();
        for (String d : fabric.deviceIds()) {
            java.util.Set<Long> ps = new java.util.HashSet<>();
            fabric.ports(d).forEach(p -> ps.add(p.number()));
            live.put(d, ps);
        }
        correction.retain(live);
        return out;
    }

    /**
     * Sorts intents by precedence: priority descending, then id.
     *
     * @param intents intents
     * @return sorted copy
     */
    public static List<FairnessIntent> sort(Collection<FairnessIntent> intents) {
        List<FairnessIntent> s = new ArrayList<>(intents);
        s.sort(PRECEDENCE);
        return s;
    }

    /**
     * Compiles one device.
     *
     * <p>TVF profiles: every port's curves are on the fabric's one scale
     * ({@link Tvf}, docs/algorithm.md D22), so a port's profile is its intent's
     * curve set, shifted by its share correction. When the device needs more
     * distinct profiles than {@link #profileBudget()}, the ports with the
     * smallest corrections (sum of |bins|) run uncorrected, their correction
     * forgotten, until the rest fit. A port's CTV range is read at its own fair
     * bin (its {@link #centreBin}); the range's strict edge no higher than the
     * fabric's centre bin, speed / every long-lived flow the snapshot counts in
     * the fabric, since flows that arrive from fabric ports are counted only at
     * the edge switch that tracks them (D22). That applies to the ports that
     * receive traffic from fabric ports: every port of a switch without
     * edge ports (a spine), and the edge ports of a switch with fabric ports
     * (a leaf's host ports); the fabric's count there is the port's own
     * flows plus those the other devices count. A leaf's uplinks carry only
     * flows the leaf itself counts, and a switch without fabric ports is the
     * whole fabric: their strict edges stay at their own bins.</p>
     *
     * @param deviceId device id
     * @param ports    its ports
     * @param intents  intents that may cover it, in precedence order ({@link #sort})
     * @param stats    active flows
     * @param previous the device's previous policy, or null
     * @param others   long-lived flows per group the fabric's other devices count (D22), or null for none
     * @return the policy
     * @throws IllegalStateException if the device's intents need more distinct weight sets than profiles
     */
    public DevicePolicy compileDevice(String deviceId, List<FabricView.Port> ports, List<FairnessIntent> intents,
                                      StatsSnapshot stats, DevicePolicy previous, int[] others) {
        int n = ports.size();
        FairnessIntent[] governing = new FairnessIntent[n];
        int[][] flowsOf = new int[n][];
        int[] centre = new int[n];
        double[] fair = new double[n];
        TvfFamily[] famOf = new TvfFamily[n];
        double[] corrMagnitude = new double[n];
        boolean hasEdge = false;
        boolean hasFabric = false;
        for (FabricView.Port p : ports) {
            hasEdge |= p.role() == PortRole.EDGE;
            hasFabric |= p.role() == PortRole.FABRIC;
        }
        for (int i = 0; i < n; i++) {
            FabricView.Port p = ports.get(i);
            if (p.statsIndex() < 0 || p.statsIndex() >= statsIndices) {
                // No cells of its own (more ports than ports.stats_indices): left
                // unconfigured, its traffic counts in the unconfigured index's cells.
                continue;
            }
            FairnessIntent in = governing(intents, deviceId, p.number());
            governing[i] = in;
            Plan plan = plan(in);
            flowsOf[i] = stats.flows(deviceId, p.number());
            fair[i] = fairKbps(p.speedMbps(), flowsOf[i]);
            // One queue for flows of every weight: only the PV law can weigh them, so the
            // ranges are read at the rate of a weight-1 flow (fair[i] stays the port_cfg rate).
            centre[i] = centreBin(p.speedMbps(), rangeKbps(p.speedMbps(), flowsOf[i], plan));
            // The port's share correction (D13) shifts its curves: a family of its own.
            double[] corr = correction.update(deviceId, p.number(), stats.round(), flowsOf[i],
                                              stats.forwarded(deviceId, p.number()), p.speedMbps(), plan.weight);
            famOf[i] = corr == null ? plan.tvf : corrected(plan.tvf, corr);
            for (int g = 0; corr != null && g < corr.length; g++) {
                corrMagnitude[i] += Math.abs(corr[g]);
            }
        }
        // More distinct profiles (curve sets) than the budget: the ports with the smallest
        // corrections run uncorrected (their correction restarts from 0) until the rest fit.
        while (distinctProfiles(famOf) > profileBudget) {
            int least = -1;
            for (int i = 0; i < n; i++) {
                if (famOf[i] != null && famOf[i].corrected
                        && (least < 0 || corrMagnitude[i] < corrMagnitude[least])) {
                    least = i;
                }
            }
            if (least < 0) {
                throw new IllegalStateException(deviceId + " needs more than " + profileBudget
                        + " distinct TVF profiles (tvf.profiles=" + maxProfiles + ", tvf table "
                        + P4InfoConstants.EGRESS_PIPE_MARKER_TVF_SIZE
                        + " entries): too many intents with different weights");
            }
            famOf[least] = plan(governing[least]).tvf;
            correction.forget(deviceId, ports.get(least).number());
        }
        TvfProfile[] ids = new TvfProfile[profileBudget];
        List<PortPolicy> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            FairnessIntent in = governing[i];
            if (in == null) {
                continue;
            }
            FabricView.Port p = ports.get(i);
            Plan plan = plan(in);
            TvfFamily fam = famOf[i];
            TvfProfile profile = profileOf(fam);
            int profileId = profileId(profile, ids, previous, deviceId);
            Cocoa c = cocoa;
            QueueSplit queues = split(plan, flowsOf[i]);
            // Not shared (D21): Cocoa keeps a delay group's own queue at k packets a flow.
            int[] floors = plan.shared || !plan.adaptive ? null
                    : delayFloors(queues, p.speedMbps(), flowsOf[i], plan.weight);
            // Called for a fixed buffer too (floors null), so that a floor does not outlive
            // the adaptive intent that set it.
            int[] cocoaLimits = c != null ? c.limits(deviceId, p.number(), numQueues, plan.buffer, floors) : null;
            int[] limits = plan.adaptive ? cocoaLimits : null;
            // Not shared (D20): the model-based groups' ranges at a weight-1 flow's weighted share.
            int modelCentre = plan.shared ? centre[i] : unitCentreBin(p.speedMbps(), flowsOf[i], plan.weight);
            // D22: a port that receives from fabric ports reads its strict edge no higher than
            // the fabric's centre (as its own, of its flows and the other devices').
            int fabricDown = 0;
            if (others != null && (!hasEdge || (hasFabric && p.role() == PortRole.EDGE))) {
                int[] nf = others.clone();
                for (int g = 0; flowsOf[i] != null && g < Math.min(nf.length, flowsOf[i].length); g++) {
                    nf[g] += flowsOf[i][g];
                }
                double fabricRate = rangeKbps(p.speedMbps(), nf, plan);
                fabricDown = fabricRate > 0 ? Math.max(0, centre[i] - centreBin(p.speedMbps(), fabricRate)) : 0;
            }
            int[][] ctv = ctvRange(queues, profile, centre[i], modelCentre, fam.binShift, fabricDown);
            long[] targets = plan.shared ? null
                    : delayTargets(queues, p.speedMbps(), flowsOf[i], plan.weight, in.targetDelayUs());
            out.add(new PortPolicy(p.number(), p.role(), in.id(), queues, profileId,
                                   portFairBin(p.speedMbps(), fair[i]), plan.mM, in.targetDelayUs(),
                                   plan.adaptive, plan.buffer, limits, ctv[0], ctv[1], targets, p.statsIndex()));
        }
        return new DevicePolicy(deviceId, out, ids, numQueues);
    }

    /**
     * Rate bin a port's CTV ranges are read at: its fair rate's bin; without a fair
     * rate (no long-lived flow) the port speed's, as if one flow could take the
     * link (the ns-3 model's fair rate then); without a known speed the last bin.
     *
     * @param speedMbps port speed
     * @param fairKbps  {@link #fairKbps}, 0 for none
     * @return bin in 0..rate_steps-1
     */
    public int centreBin(long speedMbps, double fairKbps) {
        if (fairKbps > 0) {
            return bin(fairKbps, 0);
        }
        return speedMbps > 0 ? bin(speedMbps * 1000.0, 0) : tvf.steps() - 1;
    }

    /**
     * The rate a port's CTV ranges are read at, for these flows: the fair rate
     * (speed / long-lived flows), or in the weighted shared layout a weight-1
     * flow's share, speed / sum(flows x weight); 0 without a long-lived flow.
     * Both the port's own bin and the fabric's (D22) come from it.
     */
    private double rangeKbps(long speedMbps, int[] flows, Plan plan) {
        return plan.weightedShared ? fairKbps(speedMbps, flows, plan.weight) : fairKbps(speedMbps, flows);
    }

    /**
     * The {@link #centreBin} of a weight-1 flow's weighted share, speed / sum(flows x weight):
     * outside the shared layout, the bin a model-based group's CTV range is read at (D20).
     */
    private int unitCentreBin(long speedMbps, int[] flows, double[] weight) {
        return centreBin(speedMbps, fairKbps(speedMbps, flows, weight));
    }

    /**
     * CTV range of each queue, the ns-3 model's rule (Pipeline::ApplyPolicy):
     * on the TVF of the group that owns the queue, lowest CTV = its PV at bin
     * b + aqm.ctv_floor_bins and highest CTV = its PV at b + aqm.ctv_ceiling_bins - fabricDown,
     * b = the port's own centre bin + the group's shift (weight, D14, correction) rounded to whole
     * bins (bins clamped to the table). With the shift the AQM holds each group
     * at its weighted share: without it a heavy group's range would sit on its
     * curve's saturated top and every packet it sends would be below the CTV.
     * The shared layout's common queue: PV of the ants' (weight-1) curve at
     * b + the floor / ceiling, b the port's centre bin. The model-based groups
     * (hybrid kind model and above) read theirs at modelCentreBin instead, which
     * the caller sets, outside the shared layout, to the bin of a weight-1 flow's
     * weighted share (D20: BBR does not answer the drop rate, so only a range at
     * its share holds its queue; the others keep the leniency D19 needs).
     *
     * @param queues         the port's queue split
     * @param profile        the port's TVF profile
     * @param centreBin      the port's own {@link #centreBin}
     * @param modelCentreBin the bin the model-based groups' ranges are read at
     * @param binShift       per group, its curve's shift rounded to bins
     * @param fabricDown     bins the strict edge (highest CTV) is read below its own bin:
     *                       the port's centre above the fabric's (D22), else 0
     * @return {lowest CTV per queue, highest CTV per queue}
     */
    int[][] ctvRange(QueueSplit queues, TvfProfile profile, int centreBin, int modelCentreBin, int[] binShift,
                     int fabricDown) {
        int[] lo = new int[numQueues];
        int[] hi = new int[numQueues];
        // The range depends on the group only: look it up once per group, then
        // deal it over the group's queues as QueueSplit.queueOf does (a later
        // group wins a shared queue; unowned queues get the mouse group's).
        java.util.Arrays.fill(lo, ctvAt(profile, mouseGroup, centreBin + binShift[mouseGroup] + ctvFloorBins));
        java.util.Arrays.fill(hi, ctvAt(profile, mouseGroup,
                                        centreBin + binShift[mouseGroup] + ctvCeilingBins - fabricDown));
        for (int g = 0; g < numGroups; g++) {
            int nq = Math.min(slotsPerGroup, queues.queues(g));
            int b = (g >= firstModelGroup && g <= lastModelGroup ? modelCentreBin : centreBin) + binShift[g];
            int l = ctvAt(profile, g, b + ctvFloorBins);
            int h = ctvAt(profile, g, b + ctvCeilingBins - fabricDown);
            for (int j = 0; j < nq; j++) {
                int q = (queues.first(g) + j) % numQueues;
                lo[q] = l;
                hi[q] = h;
            }
        }
        if (queues.layout() == FairnessIntent.QueueLayout.SHARED) {
            // The common queue holds flows of every weight: its range is read on a
            // weight-1 curve (the ants'), so a flow of weight w is signalled above w
            // times the range's rate, CSFQ's weighted law. Per-flow: every curve but the
            // model-based ones (D14) is that one.
            for (int g = 0; g < numGroups; g++) {
                if (longLived[g]) {
                    int q = queues.first(g) % numQueues;
                    lo[q] = ctvAt(profile, ant, centreBin + ctvFloorBins);
                    hi[q] = ctvAt(profile, ant, centreBin + ctvCeilingBins - fabricDown);
                    break;
                }
            }
        }
        return new int[][]{lo, hi};
    }

    private static int ctvAt(TvfProfile profile, int group, int bin) {
        return profile.pv(group, Math.max(0, Math.min(profile.bins() - 1, bin)));
    }

    /**
     * Fair rate of one long-lived flow (port speed / long-lived flows, shifted
     * right by classifier.bdp_shift) as a rate bin; without a long-lived flow the
     * link speed's, and 255 ("never reached") only without a known speed.
     *
     * @param speedMbps port speed
     * @param flows     active flows per group, or null
     * @return rate bin
     */
    public int fairRateBin(long speedMbps, int[] flows) {
        return portFairBin(speedMbps, fairKbps(speedMbps, flows));
    }

    // port_cfg's fair_rate_bin: the fair rate's bin; without a long-lived flow the link's
    // (as the range's bin), so the slow-start BDP test and its one drop end a first flow's slow
    // start at the link's BDP instead of never (docs/algorithm.md D7); 255 without a speed.
    private int portFairBin(long speedMbps, double fairKbps) {
        if (fairKbps > 0) {
            return bin(fairKbps, bdpShift);
        }
        return speedMbps > 0 ? bin(speedMbps * 1000.0, bdpShift) : NO_FAIR_RATE_BIN;
    }

    /**
     * Fair rate of one long-lived flow: port speed / long-lived flows (ants and
     * mice not counted), whatever each flow forwarded. There is no max-min step
     * (docs/algorithm.md D12): leaving a family that forwarded less than its
     * share out of the division let a flow starved by another (e.g. Vegas held
     * down by BBR's standing queue) read as demand-limited and raise the fair
     * rate for the flow starving it (docs/algorithm.md defect 17), and work
     * conservation does not need it, since a PV drop needs a standing queue
     * (the PV gate). The ns-3 model computes the same (Pipeline::FairRate).
     *
     * @param speedMbps port speed
     * @param flows     active flows per group, or null
     * @return kbit/s, 0 without long-lived flows or speed
     */
    public double fairKbps(long speedMbps, int[] flows) {
        return fairKbps(speedMbps, flows, null);
    }

    /**
     * Weighted fair rate: the rate of a weight-1 flow when each long-lived
     * flow of group g counts weight[g] times (a flow of weight w is due w
     * times it), port speed / sum of flows x weight over the long-lived
     * groups; equals {@link #fairKbps(long, int[])} when every weight is 1.
     * It never exceeds speed / the smallest weight present (the sum is at
     * least that weight), and has no max-min step (docs/algorithm.md D12).
     *
     * @param speedMbps port speed
     * @param flows     active flows per group, or null
     * @param weight    per group its weight, or null for 1 everywhere
     * @return kbit/s of a weight-1 flow, 0 without long-lived flows or speed
     */
    public double fairKbps(long speedMbps, int[] flows, double[] weight) {
        double n = weightedFlows(flows, weight);
        if (n <= 0 || speedMbps <= 0) {
            return 0;
        }
        return speedMbps * 1000.0 / n;
    }

    // Sum of flows x weight over the long-lived groups, in group order (Pipeline::FairRate's sum).
    private double weightedFlows(int[] flows, double[] weight) {
        double n = 0;
        for (int g = 0; flows != null && g < flows.length && g < numGroups; g++) {
            if (familyOfGroup[g] != null && flows[g] > 0) {
                n += flows[g] * (weight == null ? 1.0 : weight[g]);
            }
        }
        return n;
    }

    /**
     * AQM target per queue of a port in the isolated layout (docs/algorithm.md
     * D19): the queue of each delay group g, with or without flows, gets
     * max(target, min(k x 1500 x 8 bit / f_g, 100 ms)) in whole microseconds, k =
     * queues.delay_target_pkts and f_g = the weighted fair rate
     * ({@link #fairKbps(long, int[], double[])}, in bit/s) x g's weight (1
     * under per-flow): a queue of delay-based flows alone stands at a few
     * segments per flow (Vegas' alpha..beta), which the port's target, sized
     * for loss-based flows, would drop into loss-based behaviour. A queue that
     * any other group also uses (ants, mice or another family; fewer queues
     * than groups: ids wrap) keeps the port's target, as does every other queue.
     * The ns-3 model's Pipeline::ApplyPolicy computes the same, in the same
     * double operations (speed in bit/s / sum of flows x weight, x weight, then
     * k x 1500.0 x 8.0 / f x 1e6, truncated), so both give the same integer.
     *
     * @param split     the port's queue split
     * @param speedMbps port speed
     * @param flows     active flows per group, or null
     * @param weight    per group its weight (the intent's plan)
     * @param targetUs  the port's target
     * @return target per queue id, or null when every queue has the port's target
     *         (no long-lived flow, no speed, or every delay queue's target is the port's)
     */
    long[] delayTargets(QueueSplit split, long speedMbps, int[] flows, double[] weight, long targetUs) {
        double n = weightedFlows(flows, weight);
        if (n <= 0 || speedMbps <= 0) {
            return null;
        }
        // bit/s as the model's FairRate(link_bps, n, 2, w): not fairKbps x 1000, which may
        // round differently in the last place and so floor to another integer.
        double unitBps = speedMbps * 1e6 / n;
        markNotDelayQueues(split);
        long[] t = null;
        for (int g = 0; g < numGroups; g++) {
            if (!delayGroup[g]) {
                continue;
            }
            long us = delayTargetUs(unitBps * weightOf(weight, g), targetUs);
            for (int s = 0; s < slotsPerGroup; s++) {
                int q = split.queueOf(g, s, numQueues);
                if (!notDelayQueue[q] && us != targetUs) {
                    if (t == null) {
                        t = new long[numQueues];
                        java.util.Arrays.fill(t, targetUs);
                    }
                    t[q] = us;
                }
            }
        }
        return t;
    }

    // notDelayQueue[q]: a group that is not delay-based uses queue q (one of its slots).
    private void markNotDelayQueues(QueueSplit split) {
        java.util.Arrays.fill(notDelayQueue, false);
        for (int g = 0; g < numGroups; g++) {
            if (!delayGroup[g]) {
                for (int s = 0; s < slotsPerGroup; s++) {
                    notDelayQueue[split.queueOf(g, s, numQueues)] = true;
                }
            }
        }
    }

    /**
     * Cocoa's lowest limit per queue of a port in the isolated layout
     * (docs/algorithm.md D21): a queue that only delay groups use keeps
     * queues.delay_target_pkts packets for each of its flows (a group's flows
     * counted on each of its slots' queues by slot share, rounded up), the
     * depth its D19 target lets stand: Cocoa takes a standing queue that never
     * drains for excess buffer, and a delay-based flow's alpha..beta segments are
     * such a queue. The ns-3 model's Pipeline::ApplyPolicy step 5 computes the same.
     *
     * @param split     the port's queue split
     * @param speedMbps port speed
     * @param flows     active flows per group, or null
     * @param weight    per group its weight (the intent's plan)
     * @return packets per queue id (0: no floor), or null when no queue has one
     *         (no long-lived flow, no speed, or no flow in a delay group's own queue)
     */
    int[] delayFloors(QueueSplit split, long speedMbps, int[] flows, double[] weight) {
        if (weightedFlows(flows, weight) <= 0 || speedMbps <= 0) {
            return null;
        }
        markNotDelayQueues(split);
        long[] slotFlows = new long[numQueues];
        for (int g = 0; g < numGroups && g < flows.length; g++) {
            if (!delayGroup[g] || flows[g] <= 0) {
                continue;
            }
            for (int s = 0; s < slotsPerGroup; s++) {
                int q = split.queueOf(g, s, numQueues);
                if (!notDelayQueue[q]) {
                    slotFlows[q] += flows[g];
                }
            }
        }
        int[] f = null;
        for (int q = 0; q < numQueues; q++) {
            if (slotFlows[q] > 0) {
                if (f == null) {
                    f = new int[numQueues];
                }
                f[q] = (int) Math.ceil((double) delayTargetPkts * slotFlows[q] / slotsPerGroup);
            }
        }
        return f;
    }

    /**
     * AQM target of a delay group's queue (D19): k packets at its rate, at
     * least the port's target and at most {@link #DELAY_TARGET_MAX_US}.
     *
     * @param groupBps the group's fair rate per flow, bit/s (> 0)
     * @param targetUs the port's target
     * @return microseconds
     */
    long delayTargetUs(double groupBps, long targetUs) {
        double us = delayTargetPkts * DELAY_TARGET_PKT_BITS / groupBps * 1e6;
        return (long) Math.max((double) targetUs, Math.min(us, DELAY_TARGET_MAX_US));
    }

    // Rate bin of kbps >> shift; NO_FAIR_RATE_BIN for 0 (callers pass the link's rate instead).
    private int bin(double kbps, int shift) {
        if (kbps <= 0) {
            return NO_FAIR_RATE_BIN;
        }
        int b = tvf.binOf(kbps / (1L << shift));
        return Math.max(0, Math.min(tvf.steps() - 1, b));
    }

    private FairnessIntent governing(List<FairnessIntent> intents, String deviceId, long port) {
        for (FairnessIntent in : intents) {
            if (in.scope().covers(deviceId, port)) {
                return in;
            }
        }
        return defaultIntent;
    }

    /**
     * Queues per group for one port: the ants' and mice' guarantees (given
     * back, the larger first, where they do not fit), 1 for every long-lived
     * group (shared: all the same queue; isolated: a queue each).
     *
     * @param in governing intent
     * @return queues per group
     */
    public int[] allocateQueues(FairnessIntent in) {
        return allocate(plan(in));
    }

    /**
     * How one port's queues are split among the groups under an intent.
     *
     * @param in    governing intent
     * @param flows active flows per group, or null if unknown
     * @return the split
     */
    public QueueSplit queueSplit(FairnessIntent in, int[] flows) {
        return split(plan(in), flows);
    }

    private QueueSplit split(Plan plan, int[] flows) {
        int[] q = allocate(plan);
        return plan.shared ? QueueSplit.shared(q, longLived) : assign(q, plan.weight, flows);
    }

    /**
     * The isolated layout's split (D18): ants and mice first, then each
     * long-lived group on the free queue whose DWRR weight makes the busy
     * groups' weights follow their demand, active flows x weight: of the
     * scales that put a busy group exactly on a queue's weight, the first
     * (busy groups by demand, then id; queues by id) with the smallest
     * largest error |ln(weight / (scale x demand))| when the busy groups, by
     * demand, each take the free queue nearest their target (lowest id on
     * ties). Groups without flows then, in id order, the free queue nearest a
     * one-flow group's target; without any flow known, every group as if it
     * had one. Fewer queues than groups: one after the other (ids wrap). The
     * ns-3 model's Pipeline::IsolatedFirst, term for term.
     */
    private QueueSplit assign(int[] q, double[] weight, int[] flows) {
        QueueSplit plain = QueueSplit.isolated(q);
        int free0 = q[ant] + q[mouse];
        if (free0 + numLongLived > numQueues) {
            return plain;
        }
        int busy = 0;
        for (int g = 0; g < numGroups; g++) {
            int n = flows == null || g >= flows.length ? 0 : Math.max(0, flows[g]);
            demand[g] = longLived[g] ? n * weightOf(weight, g) : 0.0;
            if (demand[g] > 0) {
                order[busy++] = g;
            }
        }
        if (busy == 0) {
            for (int g = 0; g < numGroups; g++) {
                if (longLived[g]) {
                    demand[g] = weightOf(weight, g);
                    order[busy++] = g;
                }
            }
        }
        // by demand, ties by id (insertion sort: stable, at most a few groups)
        for (int i = 1; i < busy; i++) {
            int g = order[i];
            int j = i - 1;
            while (j >= 0 && demand[order[j]] < demand[g]) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = g;
        }
        int[] best = null;
        double bestErr = 0;
        for (int i = 0; i < busy; i++) {
            for (int qi = free0; qi < numQueues; qi++) {
                if (qi > free0 && lnDwrr[qi] == lnDwrr[qi - 1]) {
                    continue; // the scale just tried: the same placement
                }
                double e = greedy(lnDwrr[qi] - Math.log(demand[order[i]]), busy, free0, weight);
                if (best == null || e < bestErr - 1e-12) {
                    bestErr = e;
                    best = at.clone();
                }
            }
        }
        int[] first = new int[numGroups];
        for (int g = 0; g < numGroups; g++) {
            first[g] = longLived[g] ? best[g] : plain.first(g);
        }
        return QueueSplit.isolated(q, first);
    }

    private static double weightOf(double[] weight, int g) {
        return weight[g] > 0 ? weight[g] : 1.0;
    }

    // Busy groups by demand, then the others by id, each on its nearest free queue at scale
    // exp(lnScale) (into at); the busy groups' largest error.
    private double greedy(double lnScale, int busy, int free0, double[] weight) {
        java.util.Arrays.fill(used, false);
        double worst = 0;
        for (int i = 0; i < busy; i++) {
            int g = order[i];
            double lnTarget = lnScale + Math.log(demand[g]);
            at[g] = nearest(lnTarget, free0);
            worst = Math.max(worst, Math.abs(lnDwrr[at[g]] - lnTarget));
        }
        for (int g = 0; g < numGroups; g++) {
            if (longLived[g] && !(demand[g] > 0)) {
                at[g] = nearest(lnScale + Math.log(weightOf(weight, g)), free0);
            }
        }
        return worst;
    }

    // The free queue nearest ln(target), lowest id on ties; marked used.
    private int nearest(double lnTarget, int free0) {
        int pick = -1;
        double err = 0;
        for (int qi = free0; qi < numQueues; qi++) {
            double e = Math.abs(lnDwrr[qi] - lnTarget);
            if (!used[qi] && (pick < 0 || e < err - 1e-12)) {
                pick = qi;
                err = e;
            }
        }
        used[pick] = true;
        return pick;
    }

    private Plan plan(FairnessIntent in) {
        Plan p = plans.get(in);
        if (p == null) {
            double[] w = new double[numGroups];
            boolean weighted = in.objective() == FairnessIntent.Objective.WEIGHTED_GROUPS;
            for (int g = 0; g < numGroups; g++) {
                w[g] = familyOfGroup[g] == null ? 0.0 : weighted ? in.weight(familyOfGroup[g]) : 1.0;
            }
            boolean adaptive = in.bufferPolicy() == FairnessIntent.BufferPolicy.ADAPTIVE;
            p = new Plan(w, Math.max(1, (int) Math.ceil(in.minAntShare() * numQueues - 1e-9)),
                         Math.max(1, (int) Math.ceil(in.minMiceShare() * numQueues - 1e-9)), family(in),
                         in.mM(), adaptive,
                         adaptive ? initialBuffer : in.bufferLimitPkts(),
                         in.queueLayout() == FairnessIntent.QueueLayout.SHARED, weighted);
            plans.put(in, p);
        }
        return p;
    }

    private int[] allocate(Plan plan) {
        int[] q = new int[numGroups];
        java.util.Arrays.fill(q, 1);
        if (!plan.shared && numQueues < numGroups) {
            return q; // fewer queues than groups: one slot each, queue ids wrap (QueueSplit.queueOf)
        }
        q[ant] = plan.antQueues;
        q[mouse] = plan.miceQueues;
        // Shared: the long-lived groups' ones are the same queue, so they count once.
        int rest = numQueues - (plan.shared ? q[ant] + q[mouse] + 1 : sum(q));
        // Guarantees that do not fit give back queues, mice first: long-lived groups keep one each.
        while (rest < 0 && (q[mouse] > 1 || q[ant] > 1)) {
            if (q[mouse] >= q[ant]) {
                q[mouse]--;
            } else {
                q[ant]--;
            }
            rest++;
        }
        return q; // the queues left stay unused
    }

    /**
     * The TVF profile of an intent: one curve per group, on the fabric's scale.
     *
     * @param in intent
     * @return interned profile
     */
    public TvfProfile profile(FairnessIntent in) {
        return profileOf(plan(in).tvf);
    }

    private TvfFamily family(FairnessIntent in) {
        boolean perFlow = in.objective() == FairnessIntent.Objective.PER_FLOW;
        String key = perFlow ? "per-flow" : "w" + in.weights();
        TvfFamily f = families.get(key);
        if (f == null) {
            double[] shift = new double[numGroups];
            for (int g = 0; g < numGroups; g++) {
                shift[g] = (familyOfGroup[g] == null || perFlow ? 0.0 : tvf.shiftOf(in.weight(familyOfGroup[g])))
                        + (g >= firstModelGroup && g <= lastModelGroup ? modelShift : 0);
            }
            f = new TvfFamily(key, shift, false);
            families.put(key, f);
        }
        return f;
    }

    // The curves of a base family with a port's share correction (bins) added to each shift.
    private TvfFamily corrected(TvfFamily base, double[] corr) {
        String key = base.key + " c" + java.util.Arrays.toString(corr);
        TvfFamily f = families.get(key);
        if (f == null) {
            double[] shift = new double[numGroups];
            for (int g = 0; g < numGroups; g++) {
                shift[g] = base.shift[g] + (g < corr.length ? corr[g] : 0.0);
            }
            f = new TvfFamily(key, shift, true);
            families.put(key, f);
        }
        return f;
    }

    // Profiles the ports need: distinct curve sets (every curve is on the fabric's scale).
    private int distinctProfiles(TvfFamily[] famOf) {
        stamp++;
        int count = 0;
        for (TvfFamily f : famOf) {
            if (f != null && f.usedStamp != stamp) {
                f.usedStamp = stamp;
                count++;
            }
        }
        return count;
    }

    private TvfProfile profileOf(TvfFamily f) {
        if (f.profile == null) {
            Map<Double, int[]> curves = new HashMap<>();
            int[][] pv = new int[numGroups][];
            for (int g = 0; g < numGroups; g++) {
                pv[g] = curves.computeIfAbsent(f.shift[g], sh -> tvf.curve(sh));
            }
            f.profile = new TvfProfile(pv);
        }
        return f.profile;
    }

    private int profileId(TvfProfile p, TvfProfile[] ids, DevicePolicy previous, String deviceId) {
        for (int i = 0; i < ids.length; i++) {
            if (p.equals(ids[i])) {
                return i;
            }
        }
        // Keep the id the profile had last time (nothing to rewrite) ...
        if (previous != null) {
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] == null && p.equals(previous.profile(i))) {
                    ids[i] = p;
                    return i;
                }
            }
        }
        // ... else take an id unused before and now (make-before-break) ...
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == null && (previous == null || previous.profile(i) == null)) {
                ids[i] = p;
                return i;
            }
        }
        // ... else overwrite an id the new policy no longer needs.
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == null) {
                ids[i] = p;
                return i;
            }
        }
        // Unreachable: compileDevice never asks for more profiles than ids.
        throw new IllegalStateException(deviceId + " needs more than " + ids.length + " TVF profiles");
    }

    private static int sum(int[] a) {
        int s = 0;
        for (int v : a) {
            s += v;
        }
        return s;
    }
}
