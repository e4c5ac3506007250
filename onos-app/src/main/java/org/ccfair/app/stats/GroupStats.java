/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.stats;

/**
 * Live statistics of one (port, group), read from the switch's per
 * port-group counters (docs/dataplane.md, "Counters").
 */
public final class GroupStats {

    private final int group;
    private final long activeFlows;
    private final long packets;
    private final long bytes;
    private final long drops;
    private final long marks;

    /**
     * Creates a record.
     *
     * @param group       group id
     * @param activeFlows flows that entered minus flows that left
     * @param packets     packets (before AQM)
     * @param bytes       bytes (before AQM)
     * @param drops       AQM, buffer-limit and slow-start drops
     * @param marks       ECN CE marks
     */
    public GroupStats(int group, long activeFlows, long packets, long bytes, long drops, long marks) {
        this.group = group;
        this.activeFlows = activeFlows;
        this.packets = packets;
        this.bytes = bytes;
        this.drops = drops;
        this.marks = marks;
    }

    /**
     * Group id.
     *
     * @return id
     */
    public int group() {
        return group;
    }

    /**
     * Active flows.
     *
     * @return flows
     */
    public long activeFlows() {
        return activeFlows;
    }

    /**
     * Packets.
     *
     * @return count
     */
    public long packets() {
        return packets;
    }

    /**
     * Bytes.
     *
     * @return count
     */
    public long bytes() {
        return bytes;
    }

    /**
     * Drops.
     *
     * @return count
     */
    public long drops() {
        return drops;
    }

    /**
     * ECN marks.
     *
     * @return count
     */
    public long marks() {
        return marks;
    }

    /**
     * Bits the group forwarded since an earlier reading: the bytes counted
     * (before the AQM) less the dropped share, pro rata; 0 without packets.
     *
     * @param before the earlier reading of the same group
     * @return bits
     */
    public double forwardedBitsSince(GroupStats before) {
        long pkts = packets - before.packets;
        long bytes = this.bytes - before.bytes;
        long dropped = drops - before.drops;
        if (pkts <= 0 || bytes <= 0) {
            return 0;
        }
        return 8.0 * bytes * Math.max(0, pkts - Math.max(0, dropped)) / pkts;
    }
}
