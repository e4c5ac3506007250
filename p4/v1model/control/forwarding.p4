// SPDX-License-Identifier: Apache-2.0
// Forwarding (v1model port of tna/control/forwarding.p4): IPv4 LPM routing
// for packets to the router MAC (my_station), L2 exact bridging otherwise.
control Forwarding(inout headers_t hdr,
                   inout ingress_metadata_t md,
                   inout ig_tm_md_t ig_tm_md,
                   inout ig_dprsr_md_t ig_dprsr_md) {
    action set_routed() { md.routed = 1; }
    action nop() { }
    action drop() { ig_dprsr_md.drop_ctl = 1; }

    table my_station {
        key = { hdr.ethernet.dst_addr: exact @name("eth_dst"); }
        actions = { set_routed; nop; }
        default_action = nop();
        size = MY_STATION_SIZE;
    }

    action route(FabPortId_t port, mac_addr_t smac, mac_addr_t dmac) {
        ig_tm_md.ucast_egress_port = (PortId_t)port;
        md.eg_port = port;
        md.has_port = 1;
        hdr.ethernet.src_addr = smac;
        hdr.ethernet.dst_addr = dmac;
        hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
    }
    table routing_v4 {
        key = { hdr.ipv4.dst_addr: lpm @name("ipv4_dst"); }
        actions = { route; drop; nop; }
        default_action = nop();
        size = ROUTING_V4_SIZE;
    }

    action set_egress_port(FabPortId_t port) {
        ig_tm_md.ucast_egress_port = (PortId_t)port;
        md.eg_port = port;
        md.has_port = 1;
    }
    table l2_exact {
        key = { hdr.ethernet.dst_addr: exact @name("eth_dst"); }
        actions = { set_egress_port; drop; nop; }
        default_action = nop();
        size = L2_EXACT_SIZE;
    }

    apply {
        if (hdr.ipv4.isValid() && md.bridged.is_pkt_out == 0) {
            my_station.apply();
        }
        if (md.routed == 1) {
            if (hdr.ipv4.ttl <= 1) {
                drop();
            } else {
                routing_v4.apply();
            }
        } else if (md.bridged.is_pkt_out == 0) {
            l2_exact.apply();
        }
    }
}
