// SPDX-License-Identifier: Apache-2.0
// ccfair: congestion-control-aware fairness on Tofino (TNA / T2NA).
// Edge ports track flows and fingerprint their congestion control (P4air),
// every packet is queued by group and marked with a packet value at the
// ingress edge (CSAQM), and every switch runs a per-queue packet-value AQM.
// Design and control-plane contract: docs/dataplane.md.

#include "include/define.p4"
#include "include/size.p4"
#include "include/header.p4"
#include "include/parser.p4"
#include "include/control/port_cfg.p4"
#include "include/control/acl.p4"
#include "include/control/forwarding.p4"
#include "include/control/flow_tracker.p4"
#include "include/control/update.p4"
#include "include/control/queueing.p4"
#include "include/control/eg_port_cfg.p4"
#include "include/control/classifier.p4"
#include "include/control/marker.p4"
#include "include/control/aqm.p4"
#include "include/control/telemetry.p4"

control IngressPipe(inout ingress_headers_t hdr,
                    inout ingress_metadata_t md,
                    in ingress_intrinsic_metadata_t ig_intr_md,
                    in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                    inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {
    IgPortCfg() port_cfg;
    Acl() acl;
    Forwarding() forwarding;
    FlowTracker() flow_tracker;
    GroupUpdate() update;
    Queueing() queueing;

    action init_md() {
        md.ig_port = (FabPortId_t)ig_intr_md.ingress_port;
        md.ts_us = ig_prsr_md.global_tstamp[41:10];
    }
    // Every other time is derived from the one aligned 32-bit slice in a
    // second action: slices of the 48-bit global_tstamp at several offsets
    // split the fields into pieces PHV allocation could not place.
    action init_times() {
        md.ts_s = (int<32>)md.ts_us;
        md.ts_pend = RTT_PENDING | md.ts_us;
        // 2^20 ns units, low 2 bits forced to 2: even and never 0, which
        // lets flow_tracker's sig_check encode its outcome (see there).
        md.now16 = md.ts_us[25:12] ++ 2w2;
        md.digest_tick = md.ts_us >> (CCFAIR_DIGEST_PERIOD_SHIFT - 10);
    }
    action init_l4_tcp() {
        md.l4_sport = hdr.tcp.src_port;
        md.l4_dport = hdr.tcp.dst_port;
    }
    action init_l4_udp() {
        md.l4_sport = hdr.udp.src_port;
        md.l4_dport = hdr.udp.dst_port;
    }

    action bridge() {
        hdr.bridged.setValid();
        hdr.bridged.bmd_type = BMD_BRIDGED;
        hdr.bridged.from_edge = 0;
        hdr.bridged.tracked = 0;
        hdr.bridged.flow_new = 0;
        hdr.bridged.interval_end = 0;
        hdr.bridged.is_pkt_out = 0;
        hdr.bridged.ig_port = (bit<16>)ig_intr_md.ingress_port;
    }

    apply {
        init_md();
        init_times();
        if (hdr.ipv4.isValid()) {
            md.ip_proto = hdr.ipv4.protocol;
            md.pkt_len32 = (bit<32>)hdr.ipv4.total_len;
        }
        if (hdr.tcp.isValid()) {
            init_l4_tcp();
            if (hdr.tcp.syn == 1) {
                if (hdr.tcp.ack == 1) {
                    md.syn_ack = 1;
                } else {
                    md.syn_only = 1;
                }
            }
        } else if (hdr.udp.isValid()) {
            init_l4_udp();
        }

        if (hdr.packet_out.isValid()) {
            // Controller packet-out: straight to the requested port.
            ig_tm_md.ucast_egress_port = (PortId_t)hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
            bridge();
            hdr.bridged.is_pkt_out = 1;
        } else {
            if (hdr.update.isValid()) {
                // Group update from the egress classifier; accepted only from
                // this pipe's recirculation port, never from the wire.
                if (ig_intr_md.ingress_port[6:0] == RECIRC_PORT_LOCAL) {
                    md.is_update = 1;
                    md.track = 1;
                }
                ig_dprsr_md.drop_ctl = 1;
            } else {
                port_cfg.apply(md);
                if (hdr.shim.isValid() && md.role != ROLE_FABRIC) {
                    // Never trust a shim from a host-facing port.
                    hdr.ethernet.ether_type = hdr.shim.ether_type;
                    hdr.shim.setInvalid();
                }
                forwarding.apply(hdr, md, ig_tm_md, ig_dprsr_md);
                acl.apply(hdr, md, ig_tm_md, ig_dprsr_md);
                md.group = GROUP_ANT;
                if (hdr.shim.isValid()) {
                    // Fabric port: group and slot as marked by the ingress edge.
                    md.group = hdr.shim.group;
                    md.slot = hdr.shim.slot;
                } else if (hdr.ipv4.isValid() && md.role == ROLE_EDGE) {
                    md.track = 1;
                }
            }
            if (md.track == 1) {
                flow_tracker.apply(hdr, md);
                update.apply(md, ig_dprsr_md);
            }
        }
        if (md.is_update == 0 && !hdr.bridged.isValid()) {
            bridge();
            if (!hdr.shim.isValid() && hdr.ipv4.isValid() && md.punt == 0) {
                // Ingress edge: push the shim; the PV is set at egress.
                hdr.shim.setValid();
                hdr.shim.pv = CCFAIR_TVF_PV_MAX;
                hdr.shim.group = md.group;
                hdr.shim.slot = md.slot;
                hdr.shim.ether_type = hdr.ethernet.ether_type;
                hdr.ethernet.ether_type = ETHERTYPE_SHIM;
                hdr.bridged.from_edge = 1;
            }
            queueing.apply(md, ig_tm_md);
            hdr.bridged.group = md.group;
            hdr.bridged.qid = md.qid;
            hdr.bridged.tracked = md.tracked;
            hdr.bridged.flow_new = md.flow_new;
            hdr.bridged.interval_end = md.interval_end;
            hdr.bridged.flow_idx = md.flow_idx;
            hdr.bridged.rtt_us = md.rtt_us;
            hdr.bridged.ig_ts = md.ts_us;
            hdr.bridged.int_bytes = md.int_bytes;
            hdr.bridged.int_pkts = md.int_pkts;
            hdr.bridged.int_acks = md.int_acks;
            if (md.has_port == 0 && md.punt == 0) {
                ig_dprsr_md.drop_ctl = 1;
            }
        }
    }
}

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

    action init_md() {
        md.eg_port = (FabPortId_t)eg_intr_md.egress_port;
        md.eg_port16 = (bit<16>)eg_intr_md.egress_port;
        md.eg_ts = eg_prsr_md.global_tstamp[41:10];
        md.ctv_now = eg_prsr_md.global_tstamp[CCFAIR_CTV_PERIOD_SHIFT + 15:CCFAIR_CTV_PERIOD_SHIFT];
        md.update_tick = (bit<32>)(eg_prsr_md.global_tstamp >> CCFAIR_UPDATE_PERIOD_SHIFT);
        md.mirror_session = CCFAIR_UPDATE_MIRROR_SESSION_BASE + (MirrorId_t)eg_intr_md.egress_port[8:7];
    }

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
            hdr.update.eg_port = hdr.update_mirror.eg_port;
            hdr.update.group = hdr.update_mirror.group;
            hdr.update._pad0 = 0;
            hdr.update_mirror.setInvalid();
        } else if (hdr.bridged.isValid()) {
            init_md();
            if (eg_intr_md.egress_port == CPU_PORT) {
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = (FabPortId_t)hdr.bridged.ig_port[8:0];
                hdr.packet_in._pad0 = 0;
                if (hdr.shim.isValid()) {
                    // copy_to_cpu of a marked packet: the controller sees it as sent.
                    hdr.ethernet.ether_type = hdr.shim.ether_type;
                    hdr.shim.setInvalid();
                }
            } else if (hdr.bridged.is_pkt_out == 0 && hdr.shim.isValid()) {
                port_cfg.apply(md);
                if (hdr.bridged.tracked == 1) {
                    classifier.apply(hdr, md, eg_intr_md, eg_dprsr_md);
                }
                if (hdr.bridged.from_edge == 1) {
                    marker.apply(hdr, md);
                }
                aqm.apply(hdr, md, eg_intr_md);
                if (md.ss_drop == 1) {
                    md.drop = 1;
                }
                telemetry.apply(hdr, md);
                if (md.drop == 1) {
                    eg_dprsr_md.drop_ctl = 1;
                } else if (md.mark == 1) {
                    hdr.ipv4.ecn = 3;
                }
                if (md.role == ROLE_EDGE) {
                    hdr.ethernet.ether_type = hdr.shim.ether_type;
                    hdr.shim.setInvalid();
                }
            }
            hdr.bridged.setInvalid();
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
