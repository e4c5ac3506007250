/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import org.ccfair.app.policy.FairnessIntent.QueueLayout;

import java.util.Arrays;

/**
 * Compiled policy of one port: role, governing intent, how its queues are
 * split among the groups ({@link QueueSplit}: the group to queue map), the
 * TVF profile its edge marking
 * uses, the fair rate of one long-lived flow as a rate bin, the classifier
 * threshold mM, the AQM target (the port's, and per queue where the isolated
 * layout holds a delay group's queue to its own, D19) and the buffer limit,
 * and the port's stats index (where the data plane counts it, {@link StatsIndex}).
 */
public final class PortPolicy {

    private final long port;
    private final PortRole role;
    private final String intentId;
    private final QueueSplit split;
    private final int tvfProfileId;
    private final int fairRateBin;
    private final int mM;
    private final long targetDelayUs;
    private final boolean adaptiveBuffer;
    private final int bufferLimitPkts;
    private final int[] queueLimitPkts;
    private final int[] ctvLo;
    private final int[] ctvHi;
    private final long[] queueTargetUs;
    private final int statsIndex;
    private final int hash;

    /**
     * Creates a port policy.
     *
     * @param port            port number
     * @param role            role
     * @param intentId        governing intent
     * @param queues          queues per group (owned by this object)
     * @param tvfProfileId    TVF profile id on the device
     * @param fairRateBin     fair rate of one long-lived flow, as a rate bin
     * @param mM              classifier mM (the loss-ignoring count at which a flow is model-based)
     * @param targetDelayUs   AQM target
     * @param adaptiveBuffer  Cocoa adaptive buffers
     * @param bufferLimitPkts (initial) buffer limit per queue
     */
    public PortPolicy(long port, PortRole role, String intentId, int[] queues, int tvfProfileId, int fairRateBin,
                      int mM, long targetDelayUs, boolean adaptiveBuffer, int bufferLimitPkts) {
        this(port, role, intentId, queues, tvfProfileId, fairRateBin, mM, targetDelayUs, adaptiveBuffer,
             bufferLimitPkts, null, null, null, -1);
    }

    /**
     * Creates a port policy with isolated queues (groups laid out one after the
     * other) whose queues have their own buffer limits (Cocoa).
     *
     * @param port            port number
     * @param role            role
     * @param intentId        governing intent
     * @param queues          queues per group
     * @param tvfProfileId    TVF profile id
     * @param fairRateBin     fair rate bin
     * @param mM              classifier mM (the loss-ignoring count at which a flow is model-based)
     * @param targetDelayUs   AQM target
     * @param adaptiveBuffer  Cocoa adaptive buffers
     * @param bufferLimitPkts initial buffer limit per queue
     * @param queueLimitPkts  limit per queue id (copied), or null for bufferLimitPkts everywhere
     * @param ctvLo           lowest CTV per queue id (copied), or null for 0
     * @param ctvHi           highest CTV per queue id (copied), or null for 65535
     * @param statsIndex      stats index of the port ({@link StatsIndex}), or -1 if it has none (not writable)
     */
    public PortPolicy(long port, PortRole role, String intentId, int[] queues, int tvfProfileId, int fairRateBin,
                      int mM, long targetDelayUs, boolean adaptiveBuffer, int bufferLimitPkts,
                      int[] queueLimitPkts, int[] ctvLo, int[] ctvHi, int statsIndex) {
        this(port, role, intentId, QueueSplit.isolated(queues), tvfProfileId, fairRateBin, mM, targetDelayUs,
             adaptiveBuffer, bufferLimitPkts, queueLimitPkts, ctvLo, ctvHi, statsIndex);
    }

    /**
     * Creates a port policy with any queue split.
     *
     * @param port            port number
     * @param role            role
     * @param intentId        governing intent
     * @param split           queues per group and the group to queue map
     * @param tvfProfileId    TVF profile id
     * @param fairRateBin     fair rate bin
     * @param mM              classifier mM (the loss-ignoring count at which a flow is model-based)
     * @param targetDelayUs   AQM target
     * @param adaptiveBuffer  Cocoa adaptive buffers
     * @param bufferLimitPkts initial buffer limit per queue
     * @param queueLimitPkts  limit per queue id (copied), or null for bufferLimitPkts everywhere
     * @param ctvLo           lowest CTV per queue id (copied), or null for 0
     * @param ctvHi           highest CTV per queue id (copied), or null for 65535
     * @param statsIndex      stats index of the port ({@link StatsIndex}), or -1 if it has none (not writable)
     */
    public PortPolicy(long port, PortRole role, String intentId, QueueSplit split, int tvfProfileId, int fairRateBin,
                      int mM, long targetDelayUs, boolean adaptiveBuffer, int bufferLimitPkts,
                      int[] queueLimitPkts, int[] ctvLo, int[] ctvHi, int statsIndex) {
        this(port, role, intentId, split, tvfProfileId, fairRateBin, mM, targetDelayUs, adaptiveBuffer,
             bufferLimitPkts, queueLimitPkts, ctvLo, ctvHi, null, statsIndex);
    }

    /**
     * Creates a port policy with any queue split and AQM targets per queue.
     *
     * @param port            port number
     * @param role            role
     * @param intentId        governing intent
     * @param split           queues per group and the group to queue map
     * @param tvfProfileId    TVF profile id
     * @param fairRateBin     fair rate bin
     * @param mM              classifier mM (the loss-ignoring count at which a flow is model-based)
     * @param targetDelayUs   AQM target of the port (of every queue without one of its own)
     * @param adaptiveBuffer  Cocoa adaptive buffers
     * @param bufferLimitPkts initial buffer limit per queue
     * @param queueLimitPkts  limit per queue id (copied), or null for bufferLimitPkts everywhere
     * @param ctvLo           lowest CTV per queue id (copied), or null for 0
     * @param ctvHi           highest CTV per queue id (copied), or null for 65535
     * @param queueTargetUs   AQM target per queue id (copied), or null for targetDelayUs everywhere
     * @param statsIndex      stats index of the port ({@link StatsIndex}), or -1 if it has none (not writable)
     */
    public PortPolicy(long port, PortRole role, String intentId, QueueSplit split, int tvfProfileId, int fairRateBin,
                      int mM, long targetDelayUs, boolean adaptiveBuffer, int bufferLimitPkts,
                      int[] queueLimitPkts, int[] ctvLo, int[] ctvHi, long[] queueTargetUs, int statsIndex) {
        this.statsIndex = statsIndex;
        this.queueTargetUs = queueTargetUs == null ? null : queueTargetUs.clone();
        this.queueLimitPkts = queueLimitPkts == null ? null : queueLimitPkts.clone();
        this.ctvLo = ctvLo == null ? null : ctvLo.clone();
        this.ctvHi = ctvHi == null ? null : ctvHi.clone();
        this.port = port;
        this.role = role;
        this.intentId = intentId;
        this.split = split;
        this.tvfProfileId = tvfProfileId;
        this.fairRateBin = fairRateBin;
        this.mM = mM;
        this.targetDelayUs = targetDelayUs;
        this.adaptiveBuffer = adaptiveBuffer;
        this.bufferLimitPkts = bufferLimitPkts;
        // Hand-rolled (no boxing): computed for every port of every recomputation.
        int h = Long.hashCode(port);
        h = 31 * h + role.ordinal();
        h = 31 * h + intentId.hashCode();
        h = 31 * h + split.hashCode();
        h = 31 * h + tvfProfileId;
        h = 31 * h + fairRateBin;
        h = 31 * h + mM;
        h = 31 * h + Long.hashCode(targetDelayUs);
        h = 31 * h + (adaptiveBuffer ? 1 : 0);
        h = 31 * h + Arrays.hashCode(queueLimitPkts);
        h = 31 * h + Arrays.hashCode(ctvLo);
        h = 31 * h + Arrays.hashCode(ctvHi);
        h = 31 * h + Arrays.hashCode(queueTargetUs);
        h = 31 * h + statsIndex;
        this.hash = 31 * h + bufferLimitPkts;
    }

    /**
     * Port number.
     *
     * @return number
     */
    public long port() {
        return port;
    }

    /**
     * Stats index: the port's cells in the data plane's per-port counters and
     * registers, written into its port configuration ({@link StatsIndex}).
     *
     * @return index, or -1 if the port has none
     */
    public int statsIndex() {
        return statsIndex;
    }

    /**
     * Role.
     *
     * @return role
     */
    public PortRole role() {
        return role;
    }

    /**
     * Id of the intent that governs this port.
     *
     * @return intent id
     */
    public String intentId() {
        return intentId;
    }

    /**
     * Number of queues of a group (shared layout: 1 for every long-lived group, the common queue).
     *
     * @param group group id
     * @return queues, at least 1
     */
    public int queues(int group) {
        return split.queues(group);
    }

    /**
     * Number of groups.
     *
     * @return groups
     */
    public int groups() {
        return split.groups();
    }

    /**
     * Queue layout of the port (from its governing intent).
     *
     * @return layout
     */
    public QueueLayout queueLayout() {
        return split.layout();
    }

    /**
     * How the port's queues are split among the groups.
     *
     * @return split
     */
    public QueueSplit split() {
        return split;
    }

    /**
     * Queue of a group's slot: the group's queues are dealt round-robin over
     * the slots ({@link QueueSplit#queueOf}). Ids wrap when the port has fewer
     * queues than the split needs.
     *
     * @param group     group id
     * @param slot      queue-map slot
     * @param numQueues queues of the port
     * @return queue id
     */
    public int queueOf(int group, int slot, int numQueues) {
        return split.queueOf(group, slot, numQueues);
    }

    /**
     * TVF profile id.
     *
     * @return id
     */
    public int tvfProfileId() {
        return tvfProfileId;
    }

    /**
     * Fair rate of one long-lived flow on this port, as a rate bin.
     *
     * @return bin (the link speed's when the port has no long-lived flows; 255 without a speed)
     */
    public int fairRateBin() {
        return fairRateBin;
    }

    /**
     * Classifier mM.
     *
     * @return threshold
     */
    public int mM() {
        return mM;
    }

    /**
     * AQM target queuing delay of the port (its intent's): that of every queue
     * without a target of its own ({@link #targetDelayUsOf}).
     *
     * @return microseconds
     */
    public long targetDelayUs() {
        return targetDelayUs;
    }

    /**
     * AQM target of one queue (aqm_cfg target_delay_us): in the isolated layout
     * a delay group's queue has its own (PolicyCompiler, docs/algorithm.md D19);
     * every other queue the port's {@link #targetDelayUs()}.
     *
     * @param qid queue id
     * @return microseconds
     */
    public long targetDelayUsOf(int qid) {
        return queueTargetUs != null && qid < queueTargetUs.length ? queueTargetUs[qid] : targetDelayUs;
    }

    /**
     * Whether the port's loss-based flows forget a back-off after
     * classifier.family_forget_intervals clean interval ends (port_cfg
     * family_forget, docs/algorithm.md D19): only in the isolated layout, where
     * a delay-based flow misread as loss-based in slow start must get back to
     * its own queue; in the shared layout forgetting cost DCTCP and Westwood
     * their class (measured), so it stays off there.
     *
     * @return true if the port's queue layout is isolated
     */
    public boolean familyForget() {
        return split.layout() == QueueLayout.ISOLATED;
    }

    /**
     * Whether buffers adapt (Cocoa).
     *
     * @return true if adaptive
     */
    public boolean adaptiveBuffer() {
        return adaptiveBuffer;
    }

    /**
     * Buffer limit per queue (initial limit when adaptive).
     *
     * @return packets
     */
    public int bufferLimitPkts() {
        return bufferLimitPkts;
    }

    /**
     * Buffer limit of one queue: Cocoa's current limit when adaptive and
     * known, else {@link #bufferLimitPkts()}.
     *
     * @param qid queue id
     * @return limit in packets
     */
    public int limitOf(int qid) {
        return queueLimitPkts != null && qid < queueLimitPkts.length ? queueLimitPkts[qid] : bufferLimitPkts;
    }

    /**
     * Lowest CTV of one queue (the AQM's floor).
     *
     * @param qid queue id
     * @return packet value
     */
    public int ctvLoOf(int qid) {
        return ctvLo != null && qid < ctvLo.length ? ctvLo[qid] : 0;
    }

    /**
     * Highest CTV of one queue (the AQM's ceiling).
     *
     * @param qid queue id
     * @return packet value
     */
    public int ctvHiOf(int qid) {
        return ctvHi != null && qid < ctvHi.length ? ctvHi[qid] : 0xFFFF;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof PortPolicy)) {
            return false;
        }
        PortPolicy p = (PortPolicy) o;
        return hash == p.hash && port == p.port && role == p.role && intentId.equals(p.intentId)
                && split.equals(p.split) && tvfProfileId == p.tvfProfileId
                && fairRateBin == p.fairRateBin && mM == p.mM
                && targetDelayUs == p.targetDelayUs && adaptiveBuffer == p.adaptiveBuffer
                && bufferLimitPkts == p.bufferLimitPkts
                && Arrays.equals(queueLimitPkts, p.queueLimitPkts)
                && Arrays.equals(ctvLo, p.ctvLo) && Arrays.equals(ctvHi, p.ctvHi)
                && Arrays.equals(queueTargetUs, p.queueTargetUs) && statsIndex == p.statsIndex;
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
