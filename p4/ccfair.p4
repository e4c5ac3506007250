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
    apply {
        init_md();
        init_times();
        init_now16();
        init_digest_tick();
        if (hdr.ipv4.isValid()) {
            md.pkt_len32 = (bit<32>)hdr.ipv4.total_len;
        }
        if (hdr.tcp.isValid() && hdr.tcp.syn == 1) {
            if (hdr.tcp.ack == 1) {
                md.syn_ack = 1;
            } else {
                md.syn_only = 1;
            }
        }

        if (hdr.packet_out.isValid()) {
            // Controller packet-out: straight to the requested port.
            ig_tm_md.ucast_egress_port = (PortId_t)hdr.packet_out.egress_port;
            hdr.packet_out.setInvalid();
        } else {
            port_cfg.apply(md);
            if (hdr.update.isValid()) {
                // Group update from the egress classifier; accepted only from
                // this pipe's recirculation port, never from the wire.
                if (ig_intr_md.ingress_port[6:0] == RECIRC_PORT_LOCAL) {
                    md.is_update = 1;
                    md.track = 1;
                }
                ig_dprsr_md.drop_ctl = 1;
            } else if (hdr.ipv4.isValid() && md.role == ROLE_EDGE) {
                // IPv4 from a host-facing port; flow_tracker counts what is
                // not TCP.
                md.track = 1;
            }
            // Flow tracking comes first in program order: on Tofino a table
            // cannot start before the tables it follows in the control flow
            // have been placed, and tracking does not need forwarding.
            // The group comes from the tracker or, on a fabric port, from the
            // shim: one if/else, so neither write waits for the other.
            if (md.track == 1) {
                flow_tracker.apply(hdr, md);
            } else if (hdr.shim.isValid() && md.role == ROLE_FABRIC) {
                // Fabric port: group and slot as marked by the ingress edge.
                md.bridged.group = hdr.shim.group;
                md.slot = hdr.shim.slot;
            }
            if (md.is_update == 0) {
                forwarding.apply(hdr, md, ig_tm_md, ig_dprsr_md);
                acl.apply(hdr, md, ig_tm_md, ig_dprsr_md);
            }
            if (md.track == 1) {
                update.apply(md, ig_dprsr_md);
            }
        }
        if (md.is_update == 0 && md.bridged.is_pkt_out == 0) {
            if (hdr.ipv4.isValid() && md.punt == 0 &&
                    (!hdr.shim.isValid() || md.role != ROLE_FABRIC)) {
                // Ingress edge: push the shim, or overwrite one that came
                // from a host (never trusted; overwriting instead of popping
                // early keeps forwarding independent of the tracker). The PV
                // is set at egress.
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
            queueing.apply(md, ig_tm_md);
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

    // Times through identity hashes, as in IngressPipe (see there).
    Hash<bit<32>>(HashAlgorithm_t.IDENTITY) eg_ts_hash;
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) ctv_now_hash;
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) update_tick_hash;
    // Zero-extended port: a constant and a PHV source in one action is
    // more than Tofino's action ALUs take for one container.
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) port16_hash;

    // One update mirror session per pipe (p4/tm/ccfair_tm.py creates them).
    action set_mirror_session(MirrorId_t session) { md.mirror_session = session; }
    table mirror_session_of_pipe {
        key = { eg_intr_md.egress_port[8:7]: exact @name("pipe"); }
        actions = { set_mirror_session; }
        const entries = {
            0 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE);
            1 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE + 1);
            2 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE + 2);
            3 : set_mirror_session(CCFAIR_UPDATE_MIRROR_SESSION_BASE + 3);
        }
        size = 4;
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
    action init_port16() {
        md.eg_port16 = port16_hash.get({7w0, eg_intr_md.egress_port});
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
            init_ctv_now();
            init_update_tick();
            init_port16();
            mirror_session_of_pipe.apply();
            if (eg_intr_md.egress_port == CPU_PORT) {
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = (FabPortId_t)hdr.bridged.ig_port;
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
