// SPDX-License-Identifier: Apache-2.0
// ccfair: congestion-control-aware fairness on Tofino (TNA / T2NA).
// Edge ports track flows and fingerprint their congestion control (P4air),
// every packet is queued by group and marked with a packet value at the
// ingress edge (CSAQM), and every switch runs a per-queue packet-value AQM.
// Design and control-plane contract: docs/dataplane.md. The v1model port
// for BMv2 (p4/v1model/) mirrors it control by control.

#include "define_tna.p4"
#include "stages.p4"
#include "../shared/define.p4"
#include "../shared/size.p4"
#include "../shared/header.p4"
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

// The shim push writes pv (a constant), group and slot (two PHV fields) and
// ether_type (a third): in separate 16-bit containers each write has few
// enough sources for Tofino's action ALUs.
@pa_container_size("ingress", "hdr.shim.pv", 16)
@pa_container_size("ingress", "hdr.shim.ether_type", 16)
control IngressPipe(inout ingress_headers_t hdr,
                    inout ingress_metadata_t md,
                    in ingress_intrinsic_metadata_t ig_intr_md,
                    in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    IgPortCfg() port_cfg;
    IgEgPortIdx() eg_port_idx;
    Acl() acl;
    Forwarding() forwarding;
    FlowTracker() flow_tracker;
    GroupUpdate() update;
    Queueing() queueing;

    // Time fields are bit ranges of the timestamps taken by identity hashes
    // on the input crossbar. A PHV slice (global_tstamp[41:10] straddles its
    // containers) or a shift would split the field into pieces, and with it
    // every field added to or copied from it (deadline, RTT), which no
    // 32-bit add can then use.
    Hash<bit<32>>(HashAlgorithm_t.IDENTITY) ig_ts_hash;
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) now16_hash;
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) digest_tick_hash;

    action init_md() {
        md.bridged.ig_ts = ig_ts_hash.get({ig_prsr_md.global_tstamp[41:10]});
    }
    // The other times of the flow tracker derive from the bridged ingress
    // time, in a second action (it reads what init_md wrote).
    action init_times() {
        md.ts_s = (int<32>)md.bridged.ig_ts;
        md.ts_pend = RTT_PENDING | md.bridged.ig_ts;
    }
    // One hash result per action: an action gets 32 bits of hash output.
    // 2^20 ns units, low 2 bits forced to 2: even and never 0, which lets
    // flow_tracker's sig_check encode its outcome (see there).
    action init_now16() {
        md.now16 = now16_hash.get({ig_intr_md.ingress_mac_tstamp[33:20], 2w2});
    }
    action init_digest_tick() {
        md.digest_tick = digest_tick_hash.get({ig_intr_md.ingress_mac_tstamp[CCFAIR_DIGEST_PERIOD_SHIFT + 15:CCFAIR_DIGEST_PERIOD_SHIFT]});
    }
    // Tofino 1 runs the tables of a gress as one chain of "next table"
    // pointers: an if/else whose arms span several stages holds back every
    // table after it in program order. So the apply below is flat: each
    // if/else fits one stage (its arms are mutually exclusive tables), its
    // inputs are computed by earlier statements, and the compiler is free to
    // interleave the independent chains (tracking, forwarding, queueing).
    apply {
        init_md();
        init_times();
        init_now16();
        init_digest_tick();
        port_cfg.apply(md);

        if (hdr.packet_out.isValid()) {
            // Controller packet-out: straight to the requested port; nothing
            // below touches it (every write is gated by is_pkt_out).
            ig_tm_md.ucast_egress_port = (PortId_t)hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        }
        if (hdr.update.isValid()) {
            // Group update from the egress classifier; accepted only from
            // this pipe's recirculation port, never from the wire.
            ig_dprsr_md.drop_ctl = 1;
            if (ig_intr_md.ingress_port[6:0] == RECIRC_PORT_LOCAL) {
                md.is_update = 1;
            }
        }
        if (hdr.ipv4.isValid() && md.role == ROLE_EDGE &&
                md.bridged.is_pkt_out == 0 && !hdr.update.isValid()) {
            // IPv4 from a host-facing port; flow_tracker counts what is
            // not TCP.
            md.track = 1;
        }
        // Tracking (and group updates): needs only the headers and the role.
        flow_tracker.apply(hdr, md);
        if (hdr.shim.isValid() && md.role == ROLE_FABRIC &&
                md.bridged.is_pkt_out == 0) {
            // Fabric port: group and slot as marked by the ingress edge.
            md.bridged.group = hdr.shim.group;
            md.slot = hdr.shim.slot;
        }
        forwarding.apply(hdr, md, ig_tm_md, ig_dprsr_md);
        // The egress port's stats index, for the flow gauges in update.
        eg_port_idx.apply(md);
        if (md.bridged.is_pkt_out == 0 && !hdr.update.isValid()) {
            acl.apply(hdr, md, ig_tm_md, ig_dprsr_md);
        }
        if (hdr.ipv4.isValid() && md.punt == 0 && md.bridged.is_pkt_out == 0 &&
                (!hdr.shim.isValid() || md.role != ROLE_FABRIC)) {
            // Ingress edge: push the shim, or overwrite one that came from a
            // host (never trusted). The PV is set at egress.
            if (!hdr.shim.isValid()) {
                hdr.shim.setValid();
                hdr.shim.ether_type = hdr.ethernet.ether_type;
                hdr.ethernet.ether_type = ETHERTYPE_SHIM;
            }
            hdr.shim.pv = CCFAIR_TVF_PV_MAX;
            hdr.shim.group = md.bridged.group;
            hdr.shim.slot = md.slot;
            md.bridged.from_edge = 1;
        }
        if (hdr.shim.isValid() && !hdr.ipv4.isValid() && md.role != ROLE_FABRIC &&
                md.bridged.is_pkt_out == 0) {
            // A host's shim over a payload that is not plain IPv4 (another
            // ethertype, or IPv4 with options): nothing above overwrote it,
            // and toward a fabric port the next switch would trust its group,
            // slot and PV. Removed, as every shim from a host must be.
            hdr.ethernet.ether_type = hdr.shim.ether_type;
            hdr.shim.setInvalid();
        }
        if (md.bridged.is_pkt_out == 0 && !hdr.update.isValid()) {
            queueing.apply(md, ig_tm_md);
        }
        if (md.has_port == 0 && md.punt == 0 && md.bridged.is_pkt_out == 0) {
            ig_dprsr_md.drop_ctl = 1;
        }
        // Flow gauges and digests last: nothing reads what they write.
        update.apply(hdr, md, ig_dprsr_md);
    }
}

// The CTV edge arithmetic saturates: its result must sit in a container of
// its own width (bf-p4c: "saturation add ... bigger container").
@pa_container_size("egress", "md.ctv_cross", 16)
control EgressPipe(inout egress_headers_t hdr,
                   inout egress_metadata_t md,
                   in egress_intrinsic_metadata_t eg_intr_md,
                   in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                   inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                   inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    EgPortCfg() port_cfg;
    Classifier() classifier;
    Marker() marker;
    Aqm() aqm;
    Telemetry() telemetry;

    // Times through identity hashes, as in IngressPipe (see there).
    Hash<bit<32>>(HashAlgorithm_t.IDENTITY) eg_ts_hash;
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) ctv_now_hash;
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) update_tick_hash;

    // One update mirror session per pipe (p4/tm/ccfair_tm.py creates them).
    // Internal (@hidden): MirrorId_t is 10 bits on Tofino, 8 on Tofino 2,
    // and the control plane has nothing to write here. The pipe is the
    // flow's *ingress* pipe: its per-flow ingress registers are there, and
    // the session's recirculation port feeds the update back into that pipe
    // (the egress port's pipe would write another pipe's slot).
    @hidden action set_mirror_session(MirrorId_t session) { md.mirror_session = session; }
    @hidden
    table mirror_session_of_pipe {
        key = { hdr.bridged.ig_port[8:7]: exact @name("pipe"); }
        actions = { set_mirror_session; }
        const entries = {
            0 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE);
            1 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE + 1);
            2 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE + 2);
            3 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE + 3);
        }
        size = 4;
    }

    // md.on: a marked packet to a port (not the CPU, not a packet-out);
    // every classifier, marker and AQM statement is gated by it, and the
    // classifier's register operation by cls_op. One table in stage 0
    // instead of nested conditions that take two.
    @hidden action set_op(bit<1> on, bit<2> cls_op) {
        md.on = on;
        md.cls_op = cls_op;
    }
    @hidden
    table egress_op {
        key = {
            eg_intr_md.egress_port: ternary @name("eg_port");
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

    // The verdict and, at an edge port, the shim pop, in one table.
    @hidden action out_drop() { eg_dprsr_md.drop_ctl = 1; }
    @hidden action out_mark() { hdr.ipv4.ecn = 3; }
    @hidden action out_pop() {
        hdr.ethernet.ether_type = hdr.shim.ether_type;
        hdr.shim.setInvalid();
    }
    @hidden action out_mark_pop() {
        hdr.ipv4.ecn = 3;
        hdr.ethernet.ether_type = hdr.shim.ether_type;
        hdr.shim.setInvalid();
    }
    @hidden
    table egress_out {
        key = {
            md.on: exact;
            md.drop: ternary;
            md.mark: ternary;
            md.role: ternary;
        }
        actions = { out_drop; out_mark; out_pop; out_mark_pop; no_op; }
        const entries = {
#include "../shared/entries/egress_out.p4"
        }
        const default_action = no_op();
        size = 8;
    }

    // One hash result per action: an action gets 32 bits of hash output.
    action init_md() {
        md.eg_ts = eg_ts_hash.get({eg_prsr_md.global_tstamp[41:10]});
    }
    action init_ctv_now() {
        md.ctv_now = ctv_now_hash.get({eg_prsr_md.global_tstamp[CCFAIR_CTV_PERIOD_SHIFT + 15:CCFAIR_CTV_PERIOD_SHIFT]});
    }
    action init_update_tick() {
        md.update_tick = update_tick_hash.get({eg_prsr_md.global_tstamp[CCFAIR_UPDATE_PERIOD_SHIFT + 15:CCFAIR_UPDATE_PERIOD_SHIFT]});
    }

    // Flat, as IngressPipe (see there): the classifier, marker and AQM
    // chains interleave only if no multi-stage if/else sits between them.
    apply {
        if (hdr.update_mirror.isValid()) {
            // Mirrored copy on its way out of the recirculation port:
            // turn it into an update packet for this pipe's ingress.
            hdr.ethernet.setValid();
            hdr.ethernet.dst_addr = 0;
            hdr.ethernet.src_addr = 0;
            hdr.ethernet.ether_type = ETHERTYPE_UPDATE;
            hdr.update.setValid();
            hdr.update.flow_idx = hdr.update_mirror.flow_idx;
            hdr.update.fg = hdr.update_mirror.fg;
            hdr.update.group = hdr.update_mirror.group;
            hdr.update._pad0 = 0;
            hdr.update_mirror.setInvalid();
        } else if (hdr.bridged.isValid()) {
            init_md();
            init_ctv_now();
            init_update_tick();
            mirror_session_of_pipe.apply();
            egress_op.apply();   // before the CPU branch, which may pop the shim
            if (eg_intr_md.egress_port == CPU_PORT) {
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = (FabPortId_t)hdr.bridged.ig_port;
                if (hdr.shim.isValid()) {
                    // copy_to_cpu of a marked packet: the controller sees it as sent.
                    hdr.ethernet.ether_type = hdr.shim.ether_type;
                    hdr.shim.setInvalid();
                }
            }
            port_cfg.apply(md);
            classifier.apply(hdr, md, eg_intr_md, eg_dprsr_md);
            marker.apply(hdr, md);
            if (md.ss_drop == 1) {
                md.drop = 1;
            }
            aqm.apply(hdr, md, eg_intr_md);
            telemetry.apply(hdr, md);
            egress_out.apply();
        }
    }
}

Pipeline(IngressParserImpl(),
         IngressPipe(),
         IngressDeparserImpl(),
         EgressParserImpl(),
         EgressPipe(),
         EgressDeparserImpl()) pipe;

Switch(pipe) main;
