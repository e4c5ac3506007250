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
import java.util.List;
import java.util.Map;

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
            public Map<Long, List<GroupStats>> read(String deviceId, Map<Long, Integer> ports) throws Exception {
                return P4RuntimeBinding.this.read(deviceId, ports);
            }

            @Override
            public Map<Long, List<QueueStats>> readQueues(String deviceId, Map<Long, Integer> ports, int numQueues)
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

    // Cells at each port's stats index (CounterCells), never at its ONOS port
    // number: the data plane counts by the index the app wrote into the port tables.
    private Map<Long, List<GroupStats>> read(String device, Map<Long, Integer> index) throws Exception {
        DeviceId id = DeviceId.deviceId(device);
        PiPipeconf pc = pipeconf(id);
        List<PiCounterCell> cells = new ArrayList<>();
        for (PiEntity e : client(id).read(p4DeviceId(id), pc).counterCells(CounterCells.PG_COUNTERS)
                .submitSync().all()) {
            cells.add((PiCounterCell) e);
        }
        return CounterCells.groupStats(index, app.params().numGroups(), cells);
    }

    // Per-queue counters of the given ports, cell by cell (CounterCells: the
    // layout follows from the P4Info sizes of the profile).
    private Map<Long, List<QueueStats>> readQueues(String device, Map<Long, Integer> index, int numQueues)
            throws Exception {
        DeviceId id = DeviceId.deviceId(device);
        PiPipeconf pc = pipeconf(id);
        CounterCells layout = new CounterCells(profile(pc));
        long cellBytes = app.params().integer("policy", "cell_bytes_" + profile(pc));
        List<PiCounterCellHandle> handles = new ArrayList<>();
        for (PiCounterCellId c : layout.queueCells(index, numQueues)) {
            handles.add(PiCounterCellHandle.of(id, c));
        }
        List<PiCounterCell> cells = new ArrayList<>();
        for (PiEntity e : client(id).read(p4DeviceId(id), pc).handles(handles).submitSync().all()) {
            cells.add((PiCounterCell) e);
        }
        return layout.queueStats(index, numQueues, cellBytes, cells);
    }
}
