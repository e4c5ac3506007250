/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.stats;

import java.util.Arrays;

/**
 * Cumulative per-queue counters of one egress queue: drops at its buffer
 * limit (q_limit_drops) and its enqueue-depth histogram (q_depth_hist,
 * bucket b holds packets that found the queue below the bucket's bound;
 * docs/dataplane.md). The controller's Cocoa loop works on their deltas.
 */
public final class QueueStats {

    private final int qid;
    private final long limitDrops;
    private final long[] depthHist;
    private final long cellBytes;

    /**
     * Creates a record.
     *
     * @param qid        queue id
     * @param limitDrops packets dropped at the queue's buffer limit
     * @param depthHist  packets per enqueue-depth bucket (copied)
     * @param cellBytes  buffer cell size of the device's profile (depths are in cells)
     */
    public QueueStats(int qid, long limitDrops, long[] depthHist, long cellBytes) {
        this.qid = qid;
        this.limitDrops = limitDrops;
        this.depthHist = depthHist.clone();
        this.cellBytes = cellBytes;
    }

    /**
     * Buffer cell size.
     *
     * @return bytes per cell
     */
    public long cellBytes() {
        return cellBytes;
    }

    /**
     * Queue id.
     *
     * @return qid
     */
    public int qid() {
        return qid;
    }

    /**
     * Drops at the buffer limit.
     *
     * @return count
     */
    public long limitDrops() {
        return limitDrops;
    }

    /**
     * Packets per depth bucket.
     *
     * @return copy of the histogram
     */
    public long[] depthHist() {
        return depthHist.clone();
    }

    @Override
    public String toString() {
        return "QueueStats{qid=" + qid + ", limitDrops=" + limitDrops + ", hist=" + Arrays.toString(depthHist) + "}";
    }
}
