// SPDX-License-Identifier: Apache-2.0
// ccfair, v1model port for BMv2 (simple_switch_grpc): the TNA program
// (p4/tna/ccfair.p4) control by control, with the same tables, actions,
// counters and registers, so the PTF suite runs here. How each TNA construct
// is mapped, and what BMv2 cannot show: docs/dataplane.md, "v1model port".

#include "define_v1model.p4"
#include "../shared/define.p4"
#include "../shared/size.p4"
#include "../shared/header.p4"

// Both gresses' headers: BMv2 keeps the PHV from ingress to egress, so the
// bridged header travels there without being emitted.
struct headers_t {
    packet_in_h  packet_in;
    packet_out_h packet_out;
    bridged_h    bridged;
    ethernet_h   ethernet;
    shim_h       shim;
    update_h     update;
    ipv4_h       ipv4;
    tcp_h        tcp;
    udp_h        udp;
}

struct local_metadata_t {
    ingress_metadata_t ig;
    egress_metadata_t  eg;
    ig_tm_md_t         ig_tm;
    ig_dprsr_md_t      ig_dprsr;
    eg_dprsr_md_t      eg_dprsr;
    // What the update mirror carries (TNA: update_mirror_h) to its copy.
    @field_list(FL_UPDATE) group_t    upd_group;
    @field_list(FL_UPDATE) bit<16>    upd_fg;
    @field_list(FL_UPDATE) flow_idx_t upd_flow_idx;
    // The ingress port of a copy_to_cpu copy (BMv2 does not keep it for an I2E clone).
    @field_list(FL_CPU)    PortId_t   cpu_ig_port;
    // BMv2 gives a recirculated packet no ingress time: the update copy
    // carries its egress time instead (TNA: the recirculation port stamps it).
    @field_list(FL_RECIRC) bit<48>    recirc_ts;
}

#include "parser.p4"
#include "../shared/control/port_cfg.p4"
#include "control/acl.p4"
#include "control/forwarding.p4"
#include "control/flow_tracker.p4"
#include "control/update.p4"
#include "control/queueing.p4"
#include "../shared/control/eg_port_cfg.p4"
#include "control/classifier.p4"
#include "control/marker.p4"
#include "control/aqm.p4"
#include "control/telemetry.p4"

control IngressPipe(inout headers_t hdr,
                    inout local_metadata_t lmd,
                    inout standard_metadata_t sm) {
    IgPortCfg() port_cfg;
    IgEgPortIdx() eg_port_idx;
    Acl() acl;
    Forwarding() forwarding;
    FlowTracker() flow_tracker;
    GroupUpdate() update;
    Queueing() queueing;

    // TNA's time base: global_tstamp in ns, sliced. BMv2 counts microseconds,
    // so the nanoseconds here have microsecond resolution.
    action init_md() {
        bit<48> us = sm.instance_type == INSTANCE_RECIRC ? lmd.recirc_ts : sm.ingress_global_timestamp;
        bit<64> ns = (bit<64>)us * 1000;
        lmd.ig.bridged.ig_ts = ns[41:10];
        lmd.ig.now16 = ns[33:20] ++ 2w2;
        lmd.ig.digest_tick = ns[CCFAIR_DIGEST_PERIOD_SHIFT + 15:CCFAIR_DIGEST_PERIOD_SHIFT];
    }
    action init_times() {
        lmd.ig.ts_s = (int<32>)lmd.ig.bridged.ig_ts;
        lmd.ig.ts_pend = RTT_PENDING | lmd.ig.bridged.ig_ts;
    }

    apply {
        init_md();
        init_times();
        port_cfg.apply(lmd.ig);

        if (hdr.packet_out.isValid()) {
            lmd.ig_tm.ucast_egress_port = (PortId_t)hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        }
        if (hdr.update.isValid()) {
            // Accepted only as a recirculated update (TNA: only from this
            // pipe's recirculation port), never from the wire.
            lmd.ig_dprsr.drop_ctl = 1;
            if (sm.instance_type == INSTANCE_RECIRC) {
                lmd.ig.is_update = 1;
            }
        }
        if (hdr.ipv4.isValid() && lmd.ig.role == ROLE_EDGE &&
                lmd.ig.bridged.is_pkt_out == 0 && !hdr.update.isValid()) {
            lmd.ig.track = 1;
        }
        flow_tracker.apply(hdr, lmd.ig);
        if (hdr.shim.isValid() && lmd.ig.role == ROLE_FABRIC &&
                lmd.ig.bridged.is_pkt_out == 0) {
            lmd.ig.bridged.group = hdr.shim.group;
            lmd.ig.slot = hdr.shim.slot;
        }
        forwarding.apply(hdr, lmd.ig, lmd.ig_tm, lmd.ig_dprsr);
        // The egress port's stats index, for the flow gauges in update.
        eg_port_idx.apply(lmd.ig);
        if (lmd.ig.bridged.is_pkt_out == 0 && !hdr.update.isValid()) {
            acl.apply(hdr, lmd.ig, lmd.ig_tm, lmd.ig_dprsr);
        }
        if (hdr.ipv4.isValid() && lmd.ig.punt == 0 && lmd.ig.bridged.is_pkt_out == 0 &&
                (!hdr.shim.isValid() || lmd.ig.role != ROLE_FABRIC)) {
            if (!hdr.shim.isValid()) {
                hdr.shim.setValid();
                hdr.shim.ether_type = hdr.ethernet.ether_type;
                hdr.ethernet.ether_type = ETHERTYPE_SHIM;
            }
            hdr.shim.pv = CCFAIR_TVF_PV_MAX;
            hdr.shim.group = lmd.ig.bridged.group;
            hdr.shim.slot = lmd.ig.slot;
            lmd.ig.bridged.from_edge = 1;
        }
        if (hdr.shim.isValid() && !hdr.ipv4.isValid() && lmd.ig.role != ROLE_FABRIC &&
                lmd.ig.bridged.is_pkt_out == 0) {
            // a host's shim over a payload that is not plain IPv4 (TNA IngressPipe)
            hdr.ethernet.ether_type = hdr.shim.ether_type;
            hdr.shim.setInvalid();
        }
        if (lmd.ig.bridged.is_pkt_out == 0 && !hdr.update.isValid()) {
            queueing.apply(lmd.ig, lmd.ig_tm);
        }
        if (lmd.ig.has_port == 0 && lmd.ig.punt == 0 && lmd.ig.bridged.is_pkt_out == 0) {
            lmd.ig_dprsr.drop_ctl = 1;
        }
        update.apply(hdr, lmd.ig, lmd.ig_dprsr);

        // TNA's deparser and traffic manager: bridged header, digest,
        // copy to CPU (a clone; BMv2 re-parses the original for it), drop or
        // unicast into queue qid (BMv2 priority queue qid mod 8).
        hdr.bridged = lmd.ig.bridged;
        if (lmd.ig_dprsr.digest_type == DIGEST_TYPE_RECLASS) {
            digest<reclass_digest_t>(1, lmd.ig.digest);
        }
        if (lmd.ig_tm.copy_to_cpu == 1 && lmd.ig_dprsr.drop_ctl[1:1] == 0) {
            lmd.cpu_ig_port = sm.ingress_port;
            clone_preserving_field_list(CloneType.I2E, CCFAIR_CPU_COPY_SESSION_BMV2, FL_CPU);
        }
        if (lmd.ig_dprsr.drop_ctl[0:0] == 1) {
            mark_to_drop(sm);
        } else {
            sm.egress_spec = lmd.ig_tm.ucast_egress_port;
            sm.priority = lmd.ig_tm.qid[2:0];
        }
    }
}

control EgressPipe(inout headers_t hdr,
                   inout local_metadata_t lmd,
                   inout standard_metadata_t sm) {
    EgPortCfg() port_cfg;
    Classifier() classifier;
    Marker() marker;
    Aqm() aqm;
    Telemetry() telemetry;

    action init_md() {
        bit<64> ns = (bit<64>)sm.egress_global_timestamp * 1000;
        lmd.eg.eg_ts = ns[41:10];
        lmd.eg.ctv_now = ns[CCFAIR_CTV_PERIOD_SHIFT + 15:CCFAIR_CTV_PERIOD_SHIFT];
        lmd.eg.update_tick = ns[CCFAIR_UPDATE_PERIOD_SHIFT + 15:CCFAIR_UPDATE_PERIOD_SHIFT];
        // TNA's egress parser defaults.
        lmd.eg.drop = 0; lmd.eg.mark = 0; lmd.eg.ss_drop = 0;
        lmd.eg.lr_sum = 0; lmd.eg.role = 0;
        lmd.eg.new_group = 0; lmd.eg.mirror_flow_idx = 0;
        lmd.eg.on = 0; lmd.eg.cls_op = CLS_NONE; lmd.eg.upd_ok = 0;
        lmd.eg.eg_port = (FabPortId_t)sm.egress_port;
        lmd.eg_dprsr.drop_ctl = 0;
        lmd.eg_dprsr.mirror_type = 0;
    }

    action set_op(bit<1> on, bit<2> cls_op) {
        lmd.eg.on = on;
        lmd.eg.cls_op = cls_op;
    }
    @hidden
    table egress_op {
        key = {
            sm.egress_port: ternary @name("eg_port");
            hdr.bridged.is_pkt_out: ternary @name("is_pkt_out");
            hdr.shim.isValid(): ternary @name("shim");
            hdr.bridged.tracked: ternary @name("tracked");
            hdr.bridged.flow_new: ternary @name("flow_new");
            hdr.bridged.interval_end: ternary @name("interval_end");
        }
        actions = { set_op; }
        const entries = {
#include "../shared/entries/egress_op.p4"
        }
        const default_action = set_op(0, CLS_NONE);
        size = 8;
    }

    action out_drop() { lmd.eg_dprsr.drop_ctl = 1; }
    action out_mark() { hdr.ipv4.ecn = 3; }
    action out_pop() {
        hdr.ethernet.ether_type = hdr.shim.ether_type;
        hdr.shim.setInvalid();
    }
    action out_mark_pop() {
        hdr.ipv4.ecn = 3;
        hdr.ethernet.ether_type = hdr.shim.ether_type;
        hdr.shim.setInvalid();
    }
    @hidden
    table egress_out {
        key = {
            lmd.eg.on: exact;
            lmd.eg.drop: ternary;
            lmd.eg.mark: ternary;
            lmd.eg.role: ternary;
        }
        actions = { out_drop; out_mark; out_pop; out_mark_pop; no_op; }
        const entries = {
#include "../shared/entries/egress_out.p4"
        }
        const default_action = no_op();
        size = 8;
    }

    // A copy to the CPU (packet-in), as TNA's egress does for CPU_PORT.
    action to_cpu(PortId_t ig_port) {
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = (FabPortId_t)ig_port;
        hdr.packet_in._pad0 = 0;
        if (hdr.shim.isValid()) {
            hdr.ethernet.ether_type = hdr.shim.ether_type;
            hdr.shim.setInvalid();
        }
    }

    apply {
        if (sm.instance_type == INSTANCE_EGRESS_CLONE) {
            // The update mirror's copy (TNA: mirrored to the recirculation
            // port): an update packet, truncated, back into ingress.
            hdr.packet_in.setInvalid();
            hdr.bridged.setInvalid();
            hdr.shim.setInvalid();
            hdr.ipv4.setInvalid();
            hdr.tcp.setInvalid();
            hdr.udp.setInvalid();
            hdr.ethernet.setValid();
            hdr.ethernet.dst_addr = 0;
            hdr.ethernet.src_addr = 0;
            hdr.ethernet.ether_type = ETHERTYPE_UPDATE;
            hdr.update.setValid();
            hdr.update.flow_idx = lmd.upd_flow_idx;
            hdr.update.fg = lmd.upd_fg;
            hdr.update.group = lmd.upd_group;
            hdr.update._pad0 = 0;
            truncate(CCFAIR_UPDATE_TRUNCATE_BYTES);
            lmd.recirc_ts = sm.egress_global_timestamp;
            recirculate_preserving_field_list(FL_RECIRC);
        } else if (sm.instance_type == INSTANCE_INGRESS_CLONE) {
            to_cpu(lmd.cpu_ig_port);
        } else if (hdr.bridged.isValid()) {
            init_md();
            // the flow's ingress pipe (TNA mirror_session_of_pipe)
            lmd.eg.mirror_session = (MirrorId_t)CCFAIR_UPDATE_MIRROR_SESSION_BASE + (MirrorId_t)hdr.bridged.ig_port[8:7];
            egress_op.apply();
            if (sm.egress_port == CPU_PORT) {
                to_cpu(hdr.bridged.ig_port);
            }
            port_cfg.apply(lmd.eg);
            classifier.apply(hdr, lmd.eg, sm, lmd.eg_dprsr);
            marker.apply(hdr, lmd.eg);
            if (lmd.eg.ss_drop == 1) {
                lmd.eg.drop = 1;
            }
            aqm.apply(hdr, lmd.eg, sm);
            telemetry.apply(hdr, lmd.eg);
            egress_out.apply();
            // TNA's egress deparser: the update mirror, then the drop.
            if (lmd.eg_dprsr.mirror_type == MIRROR_TYPE_UPDATE) {
                lmd.upd_group = lmd.eg.new_group;
                lmd.upd_fg = lmd.eg.mirror_fg;
                lmd.upd_flow_idx = lmd.eg.mirror_flow_idx;
                clone_preserving_field_list(CloneType.E2E, (bit<32>)lmd.eg.mirror_session, FL_UPDATE);
            }
            if (lmd.eg_dprsr.drop_ctl[0:0] == 1) {
                mark_to_drop(sm);
            }
            hdr.bridged.setInvalid();
        }
    }
}

V1Switch(ParserImpl(),
         VerifyChecksumImpl(),
         IngressPipe(),
         EgressPipe(),
         ComputeChecksumImpl(),
         DeparserImpl()) main;
