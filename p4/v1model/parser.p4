// SPDX-License-Identifier: Apache-2.0
// Parser, checksum controls and deparser of the v1model port. One parser
// serves both gresses (BMv2 keeps the parsed headers from ingress to egress):
// it is tna/parser.p4's ingress parser, with the same metadata defaults.
#ifndef CCFAIR_V1MODEL_PARSER_P4
#define CCFAIR_V1MODEL_PARSER_P4

parser ParserImpl(packet_in pkt,
                  out headers_t hdr,
                  inout local_metadata_t lmd,
                  inout standard_metadata_t sm) {
    state start {
        lmd.ig.routed = 0; lmd.ig.punt = 0; lmd.ig.has_port = 0; lmd.ig.is_update = 0; lmd.ig.track = 0;
        lmd.ig.syn_only = 0; lmd.ig.syn_ack = 0; lmd.ig.fin_rst = 0; lmd.ig.data_pkt = 1;
        lmd.ig.fg_written = 0; lmd.ig.slot = 0; lmd.ig.trk = 0; lmd.ig.dir = 0;
        lmd.ig.rtt_smp = 0; lmd.ig.restart = 0;   // as tna/parser.p4 (BMv2 zeroes metadata anyway)
        lmd.ig.fg_new = 2w3 ++ 9w0 ++ (bit<5>)GROUP_MOUSE;
        lmd.ig.l4_sport = 0; lmd.ig.l4_dport = 0; lmd.ig.ip_proto = 0; lmd.ig.pkt_len32 = 0;
        lmd.ig.eg_port = (FabPortId_t)0;
        lmd.ig.bridged.setValid();
        lmd.ig.bridged.bmd_type = BMD_BRIDGED;
        lmd.ig.bridged.from_edge = 0; lmd.ig.bridged.is_pkt_out = 0;
        lmd.ig.bridged.tracked = 0; lmd.ig.bridged.flow_new = 0; lmd.ig.bridged.interval_end = 0;
        lmd.ig.bridged.group = GROUP_ANT; lmd.ig.bridged.qid = 0; lmd.ig.bridged.flow_idx = 0;
        lmd.ig.bridged.rtt_us = 0; lmd.ig.bridged.int_bytes = 0; lmd.ig.bridged.int_pkts = 0;
        lmd.ig.bridged.retx = 0; lmd.ig.bridged.int_retx = 0;
        lmd.ig.bridged.ig_port = sm.ingress_port;
        lmd.ig.ig_port = (FabPortId_t)sm.ingress_port;
        lmd.ig_tm.ucast_egress_port = DROP_PORT;
        lmd.ig_tm.copy_to_cpu = 0;
        lmd.ig_tm.qid = 0;
        lmd.ig_dprsr.drop_ctl = 0;
        lmd.ig_dprsr.digest_type = 0;
        transition select(sm.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        lmd.ig.bridged.is_pkt_out = 1;
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
        lmd.ig.ip_proto = hdr.ipv4.protocol;
        lmd.ig.pkt_len32 = (bit<32>)hdr.ipv4.total_len;
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
        lmd.ig.l4_sport = hdr.tcp.src_port;
        lmd.ig.l4_dport = hdr.tcp.dst_port;
        transition select(hdr.tcp.syn, hdr.tcp.ack, hdr.tcp.fin, hdr.tcp.rst) {
            (1, 0, _, _): parse_tcp_syn;
            (1, 1, _, _): parse_tcp_syn_ack;
            (0, _, 1, _): parse_tcp_close;
            (0, _, _, 1): parse_tcp_close;
            default: accept;
        }
    }
    state parse_tcp_syn {
        lmd.ig.syn_only = 1;
        transition accept;
    }
    state parse_tcp_close {
        lmd.ig.fin_rst = 1;
        transition accept;
    }
    state parse_tcp_syn_ack {
        lmd.ig.syn_ack = 1;
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
        lmd.ig.l4_sport = hdr.udp.src_port;
        lmd.ig.l4_dport = hdr.udp.dst_port;
        transition accept;
    }
}

// TNA checks no checksum on the way in either.
control VerifyChecksumImpl(inout headers_t hdr, inout local_metadata_t lmd) {
    apply { }
}

// TTL (routing) and ECN (AQM) change the IPv4 header; TNA updates the
// checksum in both deparsers, BMv2 once after egress.
control ComputeChecksumImpl(inout headers_t hdr, inout local_metadata_t lmd) {
    apply {
        update_checksum(hdr.ipv4.isValid(),
            {hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp, hdr.ipv4.ecn,
             hdr.ipv4.total_len, hdr.ipv4.identification, hdr.ipv4.flags,
             hdr.ipv4.frag_offset, hdr.ipv4.ttl, hdr.ipv4.protocol,
             hdr.ipv4.src_addr, hdr.ipv4.dst_addr},
            hdr.ipv4.hdr_checksum, HashAlgorithm.csum16);
    }
}

// The bridged header is never emitted: BMv2 carries it from ingress to
// egress in the PHV.
control DeparserImpl(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.shim);
        pkt.emit(hdr.update);
        pkt.emit(hdr.ipv4);
        pkt.emit(hdr.tcp);
        pkt.emit(hdr.udp);
    }
}

#endif
