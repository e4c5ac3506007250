// SPDX-License-Identifier: Apache-2.0
// Parsers and deparsers of both gresses.
#ifndef CCFAIR_PARSER_P4
#define CCFAIR_PARSER_P4

parser IngressParserImpl(packet_in pkt,
                         out ingress_headers_t hdr,
                         out ingress_metadata_t md,
                         out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        // Flags and values read before they may be written start at 0.
        md.routed = 0; md.punt = 0; md.has_port = 0; md.is_update = 0; md.track = 0;
        md.syn_only = 0; md.syn_ack = 0; md.fin_rst = 0; md.data_pkt = 1;
        md.fg_written = 0; md.slot = 0; md.trk = 0; md.dir = 0;
        // Keys of rtt_fix and deadline_op, set only by rtt_sample_op / use_sample:
        // without this bf-p4c overlaid both with global_tstamp[31:24] (B4), so
        // they read timestamp bits 24 and 25 whenever their setter did not run.
        md.rtt_smp = 0; md.restart = 0;
        // A new flow's group word: a mouse whose port is not known yet
        // (bit 14; update.p4 counts it with md.eg_port).
        md.fg_new = 2w3 ++ 9w0 ++ (bit<5>)GROUP_MOUSE;
        md.l4_sport = 0; md.l4_dport = 0; md.ip_proto = 0; md.pkt_len32 = 0;
        md.eg_port = (FabPortId_t)0;
        pkt.extract(ig_intr_md);
        // Bridged metadata is set up here, in the parser: constants written
        // by an action would be one more source for the containers the
        // pipeline's actions write (Tofino allows two per container).
        md.bridged.setValid();
        md.bridged.bmd_type = BMD_BRIDGED;
        md.bridged.from_edge = 0; md.bridged.is_pkt_out = 0;
        md.bridged.tracked = 0; md.bridged.flow_new = 0; md.bridged.interval_end = 0;
        md.bridged.group = GROUP_ANT; md.bridged.qid = 0; md.bridged.flow_idx = 0;
        md.bridged.rtt_us = 0; md.bridged.int_bytes = 0; md.bridged.int_pkts = 0;
        md.bridged.retx = 0; md.bridged.int_retx = 0;
        md.bridged.ig_port = ig_intr_md.ingress_port;
        // Copied here, not in an action, so tables can key on it in stage 0.
        md.ig_port = (FabPortId_t)ig_intr_md.ingress_port;
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        md.bridged.is_pkt_out = 1;
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_SHIM: parse_shim;
            ETHERTYPE_IPV4: check_ipv4;
            ETHERTYPE_UPDATE: parse_update;
            default: accept;
        }
    }
    state parse_shim {
        pkt.extract(hdr.shim);
        transition select(hdr.shim.ether_type) {
            ETHERTYPE_IPV4: check_ipv4;
            default: accept;
        }
    }
    state parse_update {
        pkt.extract(hdr.update);
        transition accept;
    }
    // IPv4 without options only: the checksum update covers the 20-byte
    // header, so a packet with options (or another version) is handled as
    // non-IP traffic: bridged unchanged, never tracked, routed or marked.
    state check_ipv4 {
        transition select(pkt.lookahead<bit<8>>()) {
            0x45: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        md.ip_proto = hdr.ipv4.protocol;
        md.pkt_len32 = (bit<32>)hdr.ipv4.total_len;
        // Fragments and TCP shorter than its 20-byte header (IP total length
        // under 40): no L4 header, the packet is an untracked ant.
        transition select(hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (0, IP_PROTO_TCP): check_tcp_len;
            (0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }
    // A state of its own: Tofino's parser has 1x16 + 2x8 match bits per state.
    state check_tcp_len {
        transition select(hdr.ipv4.total_len) {
            0 &&& 0xFFE0: accept;
            32 &&& 0xFFF8: accept;
            default: check_tcp;
        }
    }
    // A TCP data offset under 5 words is malformed: not parsed as TCP.
    state check_tcp {
        transition select(pkt.lookahead<bit<104>>()[7:4]) {
            0 &&& 0xC: accept;
            4: accept;
            default: parse_tcp;
        }
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        md.l4_sport = hdr.tcp.src_port;
        md.l4_dport = hdr.tcp.dst_port;
        // SYN flags here: each is a table less in the pipeline.
        transition select(hdr.tcp.syn, hdr.tcp.ack, hdr.tcp.fin, hdr.tcp.rst) {
            (1, 0, _, _): parse_tcp_syn;
            (1, 1, _, _): parse_tcp_syn_ack;
            (0, _, 1, _): parse_tcp_close;
            (0, _, _, 1): parse_tcp_close;
            default: accept;
        }
    }
    state parse_tcp_syn {
        md.syn_only = 1;
        transition accept;
    }
    state parse_tcp_close {
        md.fin_rst = 1;
        transition accept;
    }
    state parse_tcp_syn_ack {
        md.syn_ack = 1;
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        md.l4_sport = hdr.udp.src_port;
        md.l4_dport = hdr.udp.dst_port;
        transition accept;
    }
}

control IngressDeparserImpl(packet_out pkt,
                            inout ingress_headers_t hdr,
                            in ingress_metadata_t md,
                            in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Checksum() ipv4_csum;
    Digest<reclass_digest_t>() reclass_digest;
    apply {
        // TTL may have been decremented by routing.
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.hdr_checksum = ipv4_csum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
                hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
                hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
                hdr.ipv4.src_addr, hdr.ipv4.dst_addr});
        }
        if (ig_dprsr_md.digest_type == DIGEST_TYPE_RECLASS) {
            reclass_digest.pack(md.digest);
        }
        pkt.emit(md.bridged);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.shim);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

parser EgressParserImpl(packet_in pkt,
                        out egress_headers_t hdr,
                        out egress_metadata_t md,
                        out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        md.drop = 0; md.mark = 0; md.ss_drop = 0; md.lr_sum = 0; md.role = 0;
        md.new_group = 0; md.mirror_flow_idx = 0;
        md.on = 0; md.cls_op = CLS_NONE; md.upd_ok = 0;
        pkt.extract(eg_intr_md);
        // Copied here so port tables can key on it in stage 0.
        md.eg_port = (FabPortId_t)eg_intr_md.egress_port;
        transition select(pkt.lookahead<bit<8>>()) {
            BMD_MIRROR_UPDATE: parse_update_mirror;
            default: parse_bridged;
        }
    }
    state parse_update_mirror {
        // The truncated original packet after this header is not parsed.
        pkt.extract(hdr.update_mirror);
        transition accept;
    }
    state parse_bridged {
        pkt.extract(hdr.bridged);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_SHIM: parse_shim;
            ETHERTYPE_IPV4: check_ipv4;
            default: accept;
        }
    }
    state parse_shim {
        pkt.extract(hdr.shim);
        transition select(hdr.shim.ether_type) {
            ETHERTYPE_IPV4: check_ipv4;
            default: accept;
        }
    }
    // IPv4 without options only: the checksum update covers the 20-byte
    // header, so a packet with options (or another version) is handled as
    // non-IP traffic: bridged unchanged, never tracked, routed or marked.
    state check_ipv4 {
        transition select(pkt.lookahead<bit<8>>()) {
            0x45: parse_ipv4;
            default: accept;
        }
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        transition accept;
    }
}

control EgressDeparserImpl(packet_out pkt,
                           inout egress_headers_t hdr,
                           in egress_metadata_t md,
                           in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ipv4_csum;
    Mirror() mirror;
    apply {
        // ECN CE marking changes the header.
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.hdr_checksum = ipv4_csum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
                hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
                hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
                hdr.ipv4.src_addr, hdr.ipv4.dst_addr});
        }
        if (eg_dprsr_md.mirror_type == MIRROR_TYPE_UPDATE) {
            mirror.emit<update_mirror_h>(md.mirror_session, {
                md.mirror_bmd_type, md.new_group,
                md.mirror_fg, md.mirror_flow_idx});
        }
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.shim);
        pkt.emit(hdr.update);
        pkt.emit(hdr.ipv4);
    }
}

#endif
