/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.CcfairParams;
import org.ccfair.app.compute.StatsIndex;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.junit.Test;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiCounterCellId;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

/**
 * Counter cells are found by the port's stats index, never by its ONOS port
 * number: through Stratum, ONOS port 260 may be device port 4, and the data
 * plane counts neither at 260 nor at 4 but at the index the app wrote.
 */
public class CounterCellsTest {

    private static final CcfairParams P = CcfairParams.load();
    // ONOS (SDN) port numbers of one device; the app never learns their device ports.
    private static final Map<Long, Integer> INDEX = StatsIndex.assign(List.of(260L, 7L, 33L, 7L), 127);

    @Test
    public void indicesAreDenseRanksOfThePortNumbers() {
        assertEquals(Map.of(7L, 0, 33L, 1, 260L, 2), INDEX);
        assertEquals("ports beyond the count get none", Map.of(7L, 0, 33L, 1),
                     StatsIndex.assign(List.of(260L, 7L, 33L), 2));
        int count = (int) P.integer("ports", "stats_indices");
        int unconfigured = (int) P.integer("ports", "stats_index_unconfigured");
        assertTrue(count <= 1 << StatsIndex.QUEUE_INDEX_BITS);
        assertTrue("the unconfigured index shares no queue cell with an assigned one",
                   (unconfigured & 0x7F) >= count);
        assertEquals("9 bits, the width of the device port it replaces", 9, STATS_IDX_BITWIDTH);
        assertTrue(unconfigured < 1 << STATS_IDX_BITWIDTH);
    }

    @Test
    public void groupStatsComeFromTheCellsOfTheIndex() {
        int groups = P.numGroups();
        List<PiCounterCell> cells = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            // The port's cells: index 2.
            long c = StatsIndex.pgCell(2, g);
            assertEquals((2L << 5) | g, c);
            cells.add(new PiCounterCell(PiCounterCellId.ofIndirect(INGRESS_PIPE_UPDATE_PG_FLOW_ENTER, c), 10 + g, 0));
            cells.add(new PiCounterCell(PiCounterCellId.ofIndirect(INGRESS_PIPE_UPDATE_PG_FLOW_LEAVE, c), 4, 0));
            cells.add(new PiCounterCell(PiCounterCellId.ofIndirect(EGRESS_PIPE_TELEMETRY_PG_PKTS, c), 100 + g,
                                        1000 + g));
            cells.add(new PiCounterCell(PiCounterCellId.ofIndirect(EGRESS_PIPE_TELEMETRY_PG_DROPS, c), 3, 0));
            cells.add(new PiCounterCell(PiCounterCellId.ofIndirect(EGRESS_PIPE_TELEMETRY_PG_MARKS, c), 5, 0));
            // Decoys where the old arithmetic looked: port << 5 | g and (port & 0x7F) << 5 | g.
            for (long decoy : new long[]{(260L << 5) | g, ((260L & 0x7F) << 5) | g}) {
                cells.add(new PiCounterCell(PiCounterCellId.ofIndirect(EGRESS_PIPE_TELEMETRY_PG_PKTS, decoy),
                                            999_999, 999_999));
            }
        }
        Map<Long, List<GroupStats>> out = CounterCells.groupStats(INDEX, groups, cells);
        assertEquals(INDEX.keySet(), out.keySet());
        List<GroupStats> port260 = out.get(260L);
        for (int g = 0; g < groups; g++) {
            GroupStats s = port260.get(g);
            assertEquals(g, s.group());
            assertEquals(10 + g - 4, s.activeFlows());
            assertEquals(100 + g, s.packets());
            assertEquals(1000 + g, s.bytes());
            assertEquals(3, s.drops());
            assertEquals(5, s.marks());
            assertEquals("port 7 (index 0) has no cells written", 0, out.get(7L).get(g).packets());
        }
    }

    @Test
    public void queueCellsAreAtTheIndexOnBothProfiles() {
        for (String profile : List.of("tofino", "tofino2")) {
            CounterCells layout = new CounterCells(profile);
            int qidBits = "tofino2".equals(profile) ? 7 : 5;
            assertEquals(1 << qidBits, layout.queuesPerPort());
            Map<Long, Integer> one = Map.of(260L, INDEX.get(260L));
            Set<PiCounterCellId> ids = new HashSet<>(layout.queueCells(one, 4));
            assertEquals("4 queues x (limit drops + 8 buckets)", 4 * 9, ids.size());
            long q3 = (2L << qidBits) | 3;
            assertTrue(ids.contains(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_LIMIT_DROPS, q3)));
            assertTrue(ids.contains(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_DEPTH_HIST, (q3 << 3) | 7)));
            assertFalse("not at (port & 0x7F)",
                        ids.contains(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_LIMIT_DROPS,
                                                                ((260L & 0x7F) << qidBits) | 3)));
            List<PiCounterCell> cells = List.of(
                    new PiCounterCell(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_LIMIT_DROPS, q3), 6, 0),
                    new PiCounterCell(PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_DEPTH_HIST, (q3 << 3) | 2), 8, 0));
            List<QueueStats> qs = layout.queueStats(one, 4, 80, cells).get(260L);
            assertEquals(4, qs.size());
            assertEquals(6, qs.get(3).limitDrops());
            assertEquals(0, qs.get(2).limitDrops());
            assertEquals(8, qs.get(3).depthHist()[2]);
        }
    }
}
