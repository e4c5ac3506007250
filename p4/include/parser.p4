// SPDX-License-Identifier: Apache-2.0
// Parsers and deparsers of both gresses.
#ifndef CCFAIR_PARSER_P4
#define CCFAIR_PARSER_P4

parser IngressParserImpl(packet_in pkt,
                         out ingress_headers_t hdr,
                         out ingress_metadata_t md,
                         out ingress_intrinsic_metadata_t ig_intr_md) {
    state start {
        pkt.extract(ig_intr_md);
        pkt.advance(PORT_METADATA_SIZE);
        transition select(ig_intr_md.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }
    state parse_packet_out {
        pkt.extract(hdr.packet_out);
        transition parse_ethernet;
    }
    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_SHIM: parse_shim;
            ETHERTYPE_IPV4: parse_ipv4;
            ETHERTYPE_UPDATE: parse_update;
            default: accept;
        }
    }
    state parse_shim {
        pkt.extract(hdr.shim);
        transition select(hdr.shim.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_update {
        pkt.extract(hdr.update);
        transition accept;
    }
    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        // Options and fragments: no L4 header, the packet is an ant.
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (5, 0, IP_PROTO_TCP): parse_tcp;
            (5, 0, IP_PROTO_UDP): parse_udp;
            default: accept;
        }
    }
    state parse_tcp {
        pkt.extract(hdr.tcp);
        transition accept;
    }
    state parse_udp {
        pkt.extract(hdr.udp);
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
        pkt.emit(hdr.bridged);
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
        pkt.extract(eg_intr_md);
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
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }
    state parse_shim {
        pkt.extract(hdr.shim);
        transition select(hdr.shim.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
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
                BMD_MIRROR_UPDATE, md.new_group,
                md.eg_port16, hdr.bridged.flow_idx});
        }
        pkt.emit(hdr.packet_in);
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.shim);
        pkt.emit(hdr.update);
        pkt.emit(hdr.ipv4);
    }
}

#endif
