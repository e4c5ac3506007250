/*
 * SPDX-License-Identifier: Apache-2.0
 */
package org.ccfair.app.rest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.ccfair.app.CcfairParams;
import org.ccfair.app.PushStatus;
import org.ccfair.app.compute.DevicePolicy;
import org.ccfair.app.compute.PortPolicy;
import org.ccfair.app.stats.GroupStats;

import java.util.List;

/**
 * JSON views of compiled policy, statistics and push status (read-only:
 * these are outputs, never accepted as input).
 */
public final class PolicyCodec {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final CcfairParams params;
    private final java.util.function.BiFunction<String, Long, double[]> corrections;

    /**
     * Creates the codec (without share corrections in the port view).
     *
     * @param params shared parameters (group names)
     */
    public PolicyCodec(CcfairParams params) {
        this(params, null);
    }

    /**
     * Creates the codec.
     *
     * @param params      shared parameters (group names)
     * @param corrections (device, port) to its share correction per group, or null
     */
    public PolicyCodec(CcfairParams params, java.util.function.BiFunction<String, Long, double[]> corrections) {
        this.params = params;
        this.corrections = corrections;
    }

    /**
     * Encodes a device policy.
     *
     * @param d policy
     * @return JSON
     */
    public ObjectNode device(DevicePolicy d) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("device", d.deviceId());
        o.put("queues_per_port", d.numQueues());
        ArrayNode profiles = o.putArray("tvf_profiles_in_use");
        for (int i = 0; i < d.profileSlots(); i++) {
            if (d.profile(i) != null) {
                profiles.add(i);
            }
        }
        ArrayNode ports = o.putArray("ports");
        d.ports().forEach(p -> ports.add(port(d, p)));
        return o;
    }

    /**
     * Encodes one port's policy.
     *
     * @param d device policy (for the queue count)
     * @param p port policy
     * @return JSON
     */
    public ObjectNode port(DevicePolicy d, PortPolicy p) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("port", p.port());
        o.put("stats_index", p.statsIndex());
        o.put("role", p.role().name().toLowerCase());
        o.put("intent", p.intentId());
        o.put("tvf_profile", p.tvfProfileId());
        o.put("fair_rate_bin", p.fairRateBin());
        o.put("target_delay_us", p.targetDelayUs());
        o.put("buffer_policy", p.adaptiveBuffer() ? "adaptive" : "fixed");
        o.put("buffer_limit_pkts", p.bufferLimitPkts());
        o.put("queue_layout", p.queueLayout().text());
        // Per queue: Cocoa's current limits when adaptive, else the fixed limit everywhere; the AQM
        // target each queue is written with (a delay group's own in the isolated layout, D19).
        ArrayNode ql = o.putArray("queue_limit_pkts");
        ArrayNode cl = o.putArray("queue_ctv_lo");
        ArrayNode ch = o.putArray("queue_ctv_hi");
        ArrayNode qt = o.putArray("queue_target_delay_us");
        for (int q = 0; q < d.numQueues(); q++) {
            ql.add(p.limitOf(q));
            cl.add(p.ctvLoOf(q));
            ch.add(p.ctvHiOf(q));
            qt.add(p.targetDelayUsOf(q));
        }
        ObjectNode c = o.putObject("classifier");
        c.put("m_m", p.mM());
        ObjectNode groups = o.putObject("groups");
        int slots = (int) params.integer("queues", "slots_per_group");
        double[] corr = corrections == null ? new double[0] : corrections.apply(d.deviceId(), p.port());
        for (int g = 0; g < p.groups(); g++) {
            ObjectNode gn = groups.putObject(params.groupName(g));
            gn.put("id", g);
            gn.put("queues", p.queues(g));
            if (corrections != null) {
                // the share correction (docs/algorithm.md D13): TVF bins added to the group's curve
                gn.put("correction_bins", g < corr.length ? corr[g] : 0.0);
            }
            ArrayNode sq = gn.putArray("slot_queues");
            for (int s = 0; s < slots; s++) {
                sq.add(p.queueOf(g, s, d.numQueues()));
            }
        }
        return o;
    }

    /**
     * Encodes one port's statistics.
     *
     * @param port  port number
     * @param stats per-group statistics
     * @return JSON
     */
    public ObjectNode stats(long port, List<GroupStats> stats) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("port", port);
        ObjectNode groups = o.putObject("groups");
        for (GroupStats s : stats) {
            ObjectNode g = groups.putObject(s.group() < params.numGroups() ? params.groupName(s.group())
                                                    : String.valueOf(s.group()));
            g.put("id", s.group());
            g.put("active_flows", s.activeFlows());
            g.put("packets", s.packets());
            g.put("bytes", s.bytes());
            g.put("drops", s.drops());
            g.put("ecn_marks", s.marks());
        }
        return o;
    }

    /**
     * Encodes a push status.
     *
     * @param device device id
     * @param s      status
     * @return JSON
     */
    public ObjectNode status(String device, PushStatus s) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("device", device);
        o.put("state", s.state().name());
        o.put("writes", s.writes());
        o.put("failed_attempts", s.attempts());
        if (s.lastError() != null) {
            o.put("last_error", s.lastError());
            o.put("next_retry_ms", s.nextRetryMs());
        }
        o.put("updated_ms", s.updatedMs());
        return o;
    }
}
