/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.pipeconf;

import org.ccfair.app.AppComponent;
import org.ccfair.app.stats.GroupStats;
import org.ccfair.app.stats.QueueStats;
import org.ccfair.app.stats.StatsSource;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.group.GroupService;
import org.onosproject.net.pi.model.PiCounterId;
import org.onosproject.net.pi.model.PiPipeconf;
import org.onosproject.net.pi.runtime.PiCounterCell;
import org.onosproject.net.pi.runtime.PiCounterCellHandle;
import org.onosproject.net.pi.runtime.PiCounterCellId;
import org.onosproject.net.pi.runtime.PiEntity;
import org.onosproject.net.pi.service.PiPipeconfService;
import org.onosproject.p4runtime.api.P4RuntimeClient;
import org.onosproject.p4runtime.api.P4RuntimeController;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.ccfair.app.pipeconf.P4InfoConstants.*;

/**
 * Binds the app to the devices. Policy writes go through ONOS's services
 * ({@link FlowRuleWriter}: table entries as flow rules through FlowRuleService,
 * clone sessions as CLONE groups through GroupService), so ONOS's store and
 * reconciliation own them. Statistics are read from the per port-group and
 * per-queue counters with the P4Runtime client (ONOS 2.7 has no service that
 * reads indirect counter cells by index); nothing is written through it.
 */
@Component(immediate = true)
public class P4RuntimeBinding {

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected P4RuntimeController controller;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PiPipeconfService pipeconfService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected GroupService groupService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected AppComponent app;

    /** How long the writer waits for ONOS to confirm one stage of flow rules. */
    static final long STAGE_TIMEOUT_MS = 30_000;

    @Activate
    protected void activate() {
        FlowRuleWriter writer = new FlowRuleWriter(app.params(), app.appId(), flowRuleService, groupService,
                                                   id -> profile(pipeconf(id)), STAGE_TIMEOUT_MS);
        app.bind(writer, new StatsSource() {
            @Override
            public Map<Long, List<GroupStats>> read(String deviceId, List<Long> ports) throws Exception {
                return P4RuntimeBinding.this.read(deviceId, ports);
            }

            @Override
            public Map<Long, List<QueueStats>> readQueues(String deviceId, List<Long> ports, int numQueues)
                    throws Exception {
                return P4RuntimeBinding.this.readQueues(deviceId, ports, numQueues);
            }
        });
    }

    private P4RuntimeClient client(DeviceId id) {
        P4RuntimeClient c = controller.get(id);
        if (c == null) {
            throw new IllegalStateException("no P4Runtime client for " + id);
        }
        return c;
    }

    private PiPipeconf pipeconf(DeviceId id) {
        return pipeconfService.ofDevice(id).flatMap(pipeconfService::getPipeconf)
                .orElseThrow(() -> new IllegalStateException("no pipeconf bound to " + id));
    }

    /** P4Runtime device id from the management address (grpc://host:port?device_id=N), default 1. */
    private long p4DeviceId(DeviceId id) {
        Device d = deviceService.getDevice(id);
        String addr = d == null ? null : d.annotations().value("managementAddress");
        if (addr != null) {
            String q = URI.create(addr).getQuery();
            if (q != null) {
                for (String kv : q.split("&")) {
                    if (kv.startsWith("device_id=")) {
                        return Long.parseLong(kv.substring("device_id=".length()));
                    }
                }
            }
        }
        return 1;
    }

    private static String profile(PiPipeconf pc) {
        return pc.id().id().endsWith("tofino2") ? "tofino2" : "tofino";
    }

    private Map<Long, List<GroupStats>> read(String device, List<Long> ports) throws Exception {
        DeviceId id = DeviceId.deviceId(device);
        PiPipeconf pc = pipeconf(id);
        List<PiCounterId> ids = List.of(INGRESS_PIPE_UPDATE_PG_FLOW_ENTER, INGRESS_PIPE_UPDATE_PG_FLOW_LEAVE,
                                        EGRESS_PIPE_TELEMETRY_PG_PKTS, EGRESS_PIPE_TELEMETRY_PG_DROPS,
                                        EGRESS_PIPE_TELEMETRY_PG_MARKS);
        Map<PiCounterId, Map<Long, PiCounterCell>> cells = new HashMap<>();
        for (PiEntity e : client(id).read(p4DeviceId(id), pc).counterCells(ids).submitSync().all()) {
            PiCounterCell cell = (PiCounterCell) e;
            cells.computeIfAbsent(cell.cellId().counterId(), k -> new HashMap<>()).put(cell.cellId().index(), cell);
        }
        int groups = app.params().numGroups();
        Map<Long, List<GroupStats>> out = new HashMap<>();
        for (long port : ports) {
            List<GroupStats> gs = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                long idx = (port << 5) | g; // port-group index of docs/dataplane.md
                gs.add(new GroupStats(g, pkts(cells, INGRESS_PIPE_UPDATE_PG_FLOW_ENTER, idx)
                        - pkts(cells, INGRESS_PIPE_UPDATE_PG_FLOW_LEAVE, idx),
                                      pkts(cells, EGRESS_PIPE_TELEMETRY_PG_PKTS, idx),
                                      bytes(cells, EGRESS_PIPE_TELEMETRY_PG_PKTS, idx),
                                      pkts(cells, EGRESS_PIPE_TELEMETRY_PG_DROPS, idx),
                                      pkts(cells, EGRESS_PIPE_TELEMETRY_PG_MARKS, idx)));
            }
            out.put(port, gs);
        }
        return out;
    }

    // Per-queue counters of the given ports, cell by cell: the queue index is
    // local port << qid bits | qid and the histogram index queue index <<
    // bucket bits | bucket (docs/dataplane.md); both widths follow from the
    // P4Info sizes of the profile.
    private Map<Long, List<QueueStats>> readQueues(String device, List<Long> ports, int numQueues)
            throws Exception {
        DeviceId id = DeviceId.deviceId(device);
        PiPipeconf pc = pipeconf(id);
        boolean t2 = "tofino2".equals(profile(pc));
        long queueIdx = t2 ? EGRESS_PIPE_AQM_Q_LIMIT_DROPS_SIZE_TOFINO2 : EGRESS_PIPE_AQM_Q_LIMIT_DROPS_SIZE_TOFINO;
        long histIdx = t2 ? EGRESS_PIPE_AQM_Q_DEPTH_HIST_SIZE_TOFINO2 : EGRESS_PIPE_AQM_Q_DEPTH_HIST_SIZE_TOFINO;
        int qidBits = Long.numberOfTrailingZeros(queueIdx) - 7;
        int buckets = (int) (histIdx / queueIdx);
        int bucketBits = Integer.numberOfTrailingZeros(buckets);
        int queues = Math.min(numQueues, 1 << qidBits);
        long cellBytes = app.params().integer("policy", "cell_bytes_" + profile(pc));
        List<PiCounterCellHandle> handles = new ArrayList<>();
        for (long port : ports) {
            for (int q = 0; q < queues; q++) {
                long qi = ((port & 0x7F) << qidBits) | q;
                handles.add(PiCounterCellHandle.of(id, PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_LIMIT_DROPS, qi)));
                for (int b = 0; b < buckets; b++) {
                    handles.add(PiCounterCellHandle.of(
                            id, PiCounterCellId.ofIndirect(EGRESS_PIPE_AQM_Q_DEPTH_HIST, (qi << bucketBits) | b)));
                }
            }
        }
        Map<PiCounterId, Map<Long, PiCounterCell>> cells = new HashMap<>();
        for (PiEntity e : client(id).read(p4DeviceId(id), pc).handles(handles).submitSync().all()) {
            PiCounterCell cell = (PiCounterCell) e;
            cells.computeIfAbsent(cell.cellId().counterId(), k -> new HashMap<>()).put(cell.cellId().index(), cell);
        }
        Map<Long, List<QueueStats>> out = new HashMap<>();
        for (long port : ports) {
            List<QueueStats> qs = new ArrayList<>();
            for (int q = 0; q < queues; q++) {
                long qi = ((port & 0x7F) << qidBits) | q;
                long[] hist = new long[buckets];
                for (int b = 0; b < buckets; b++) {
                    hist[b] = pkts(cells, EGRESS_PIPE_AQM_Q_DEPTH_HIST, (qi << bucketBits) | b);
                }
                qs.add(new QueueStats(q, pkts(cells, EGRESS_PIPE_AQM_Q_LIMIT_DROPS, qi), hist, cellBytes));
            }
            out.put(port, qs);
        }
        return out;
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
