/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.compute;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Port stats indices: the one place that decides which cells of the data
 * plane's per-port counters and registers belong to which port
 * (docs/dataplane.md, "Port stats index").
 *
 * <p>The program indexes every per-port array by an index the controller
 * writes into the port tables ({@code EgressPipe.port_cfg} and
 * {@code IngressPipe.eg_port_idx}, the same index in both), never by the
 * device port: through Stratum the app sees only SDN port numbers
 * ({@code @p4runtime_translation}), so it cannot compute a device port.</p>
 *
 * <p>Assignment per device: the i-th smallest ONOS port number of the
 * device's ports gets index i, for i below {@code ports.stats_indices}
 * (params/ccfair.json); later ports get none and are left unconfigured
 * (their traffic counts in the cells of index {@code
 * ports.stats_index_unconfigured}). Computed from every port of the device,
 * enabled or not, so a port going down moves no other port's index, and every
 * cluster node computes the same indices without sharing state.</p>
 */
public final class StatsIndex {

    /** Bits of the group in a per-(port, group) cell: cell = index << 5 | group. */
    public static final int GROUP_BITS = 5;

    /** Bits of the index the per-queue arrays keep: cell = (index & 0x7F) << qid bits | qid. */
    public static final int QUEUE_INDEX_BITS = 7;

    private StatsIndex() {
    }

    /**
     * Indices of one device's ports.
     *
     * @param ports port numbers of the device (every port, enabled or not; duplicates ignored)
     * @param count indices available (ports.stats_indices)
     * @return port number to index, for the {@code count} smallest port numbers
     */
    public static Map<Long, Integer> assign(Collection<Long> ports, int count) {
        List<Long> sorted = new ArrayList<>(new TreeSet<>(ports));
        Map<Long, Integer> out = new HashMap<>(sorted.size() * 2);
        for (int i = 0; i < sorted.size() && i < count; i++) {
            out.put(sorted.get(i), i);
        }
        return out;
    }

    /**
     * Cell of a per-(port, group) counter ({@code pg_flow_enter}, {@code pg_flow_leave},
     * {@code pg_pkts}, {@code pg_drops}, {@code pg_marks}).
     *
     * @param index the port's stats index
     * @param group group id
     * @return cell index
     */
    public static long pgCell(int index, int group) {
        return ((long) index << GROUP_BITS) | group;
    }

    /**
     * Cell of a per-queue counter or register ({@code q_limit_drops}, {@code q_ctv}, ...).
     *
     * @param index   the port's stats index
     * @param qid     queue id
     * @param qidBits queue-id bits of the profile (5 on Tofino 1, 7 on Tofino 2)
     * @return cell index
     */
    public static long queueCell(int index, int qid, int qidBits) {
        return ((long) (index & ((1 << QUEUE_INDEX_BITS) - 1)) << qidBits) | qid;
    }

    /**
     * Cell of the depth histogram {@code q_depth_hist}.
     *
     * @param index      the port's stats index
     * @param qid        queue id
     * @param qidBits    queue-id bits of the profile
     * @param bucketBits bucket bits (3 for 8 buckets)
     * @param bucket     bucket
     * @return cell index
     */
    public static long histCell(int index, int qid, int qidBits, int bucketBits, int bucket) {
        return (queueCell(index, qid, qidBits) << bucketBits) | bucket;
    }
}
