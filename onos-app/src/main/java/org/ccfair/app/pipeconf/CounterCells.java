/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.compute.StatsIndex;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiCounterCellId;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;

/**
 * Which counter cells hold a port's statistics, and the statistics from the
 * cells read: every cell id comes from the port's stats index
 * ({@link StatsIndex}), never from its ONOS port number, which is an SDN port
 * the data plane does not index by. Separate from {@link P4RuntimeBinding}
 * (which only reads the cells) so the arithmetic is testable without a device.
 */
public final class CounterCells {

    /** The per-(port, group) counters, read whole each round. */
    public static final List<PiCounterId> PG_COUNTERS = List.of(
            INGRESS_PIPE_UPDATE_PG_FLOW_ENTER, INGRESS_PIPE_UPDATE_PG_FLOW_LEAVE, EGRESS_PIPE_TELEMETRY_PG_PKTS,
            EGRESS_PIPE_TELEMETRY_PG_DROPS, EGRESS_PIPE_TELEMETRY_PG_MARKS);

    private final int qidBits;
    private final int bucketBits;
    private final int buckets;

    /**
     * Cell layout of one profile, from its P4Info sizes: the queue-index arrays
     * hold 2^7 indices times 2^(qid bits) queues, the histogram that times its buckets.
     *
     * @param profile "tofino" or "tofino2"
     */
    public CounterCells(String profile) {
        boolean t2 = "tofino2".equals(profile);
        long queueIdx = t2 ? EGRESS_PIPE_AQM_Q_LIMIT_DROPS_SIZE_TOFINO2 : EGRESS_PIPE_AQM_Q_LIMIT_DROPS_SIZE_TOFINO;
        long histIdx = t2 ? EGRESS_PIPE_AQM_Q_DEPTH_HIST_SIZE_TOFINO2 : EGRESS_PIPE_AQM_Q_DEPTH_HIST_SIZE_TOFINO;
        this.qidBits = Long.numberOfTrailingZeros(queueIdx) - StatsIndex.QUEUE_INDEX_BITS;
        this.buckets = (int) (histIdx / queueIdx);
        this.bucketBits = Integer.numberOfTrailingZeros(buckets);
    }

    /**
     * Queue ids per port the profile has cells for.
     *
     * @return 2^(qid bits)
     */
    public int queuesPerPort() {
        return 1 << qidBits;
    }

    /**
     * Cell ids of the per-queue counters of the given ports.
     *
     * @param index  port number to stats index
     * @param queues queues per port
     * @return q_limit_drops and q_depth_hist cells
     */
    public List<PiCounterCellId> queueCells(Map<Long, Integer> index, int queues) {
        List<PiCounterCellId> out = new ArrayList<>();
        for (int idx : index.values()) {
            for (int q = 0; q < Math.min(queues, queuesPerPort()); q++) {
                out.add(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_LIMIT_DROPS,
                                                   StatsIndex.queueCell(idx, q, qidBits)));
                for (int b = 0; b < buckets; b++) {
                    out.add(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_DEPTH_HIST,
                                                       StatsIndex.histCell(idx, q, qidBits, bucketBits, b)));
                }
            }
        }
        return out;
    }

    /**
     * Per-(port, group) statistics of the given ports from the cells read.
     *
     * @param index  port number to stats index
     * @param groups groups
     * @param cells  cells of {@link #PG_COUNTERS}
     * @return port number to per-group statistics (index = group id)
     */
    public static Map<Long, List<GroupStats>> groupStats(Map<Long, Integer> index, int groups,
                                                         Iterable<PiCounterCell> cells) {
        Map<PiCounterId, Map<Long, PiCounterCell>> m = byId(cells);
        Map<Long, List<GroupStats>> out = new HashMap<>();
        index.forEach((port, idx) -> {
            List<GroupStats> gs = new ArrayList<>(groups);
            for (int g = 0; g < groups; g++) {
                long c = StatsIndex.pgCell(idx, g);
                gs.add(new GroupStats(g, pkts(m, INGRESS_PIPE_UPDATE_PG_FLOW_ENTER, c)
                        - pkts(m, INGRESS_PIPE_UPDATE_PG_FLOW_LEAVE, c),
                                      pkts(m, EGRESS_PIPE_TELEMETRY_PG_PKTS, c),
                                      bytes(m, EGRESS_PIPE_TELEMETRY_PG_PKTS, c),
                                      pkts(m, EGRESS_PIPE_TELEMETRY_PG_DROPS, c),
                                      pkts(m, EGRESS_PIPE_TELEMETRY_PG_MARKS, c)));
            }
            out.put(port, gs);
        });
        return out;
    }

    /**
     * Per-queue statistics of the given ports from the cells read.
     *
     * @param index     port number to stats index
     * @param queues    queues per port
     * @param cellBytes buffer cell size of the profile
     * @param cells     cells of {@link #queueCells}
     * @return port number to per-queue statistics
     */
    public Map<Long, List<QueueStats>> queueStats(Map<Long, Integer> index, int queues, long cellBytes,
                                                  Iterable<PiCounterCell> cells) {
        Map<PiCounterId, Map<Long, PiCounterCell>> m = byId(cells);
        Map<Long, List<QueueStats>> out = new HashMap<>();
        index.forEach((port, idx) -> {
            List<QueueStats> qs = new ArrayList<>();
            for (int q = 0; q < Math.min(queues, queuesPerPort()); q++) {
                long[] hist = new long[buckets];
                for (int b = 0; b < buckets; b++) {
                    hist[b] = pkts(m, EGRESS_PIPE_AQM_Q_DEPTH_HIST,
                                   StatsIndex.histCell(idx, q, qidBits, bucketBits, b));
                }
                qs.add(new QueueStats(q, pkts(m, EGRESS_PIPE_AQM_Q_LIMIT_DROPS, StatsIndex.queueCell(idx, q, qidBits)),
                                      hist, cellBytes));
            }
            out.put(port, qs);
        });
        return out;
    }

    private static Map<PiCounterId, Map<Long, PiCounterCell>> byId(Iterable<PiCounterCell> cells) {
        Map<PiCounterId, Map<Long, PiCounterCell>> m = new HashMap<>();
        for (PiCounterCell cell : cells) {
            m.computeIfAbsent(cell.cellId().counterId(), k -> new HashMap<>()).put(cell.cellId().index(), cell);
        }
        return m;
    }

    private static long pkts(Map<PiCounterId, Map<Long, PiCounterCell>> m, PiCounterId c, long idx) {
        PiCounterCell cell = m.getOrDefault(c, Map.of()).get(idx);
        return cell == null ? 0 : cell.data().packets();
    }

    private static long bytes(Map<PiCounterId, Map<Long, PiCounterCell>> m, PiCounterId c, long idx) {
        PiCounterCell cell = m.getOrDefault(c, Map.of()).get(idx);
        return cell == null ? 0 : cell.data().bytes();
    }
}
