// SPDX-License-Identifier: Apache-2.0
// ACL: punts control traffic (LLDP, BDDP, ARP) to the CPU; wins over forwarding.
control Acl(inout ingress_headers_t hdr,
            inout ingress_metadata_t md,
            inout ingress_intrinsic_metadata_for_tm_t ig_tm_md,
            inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    DirectCounter<bit<64>>(CounterType_t.PACKETS_AND_BYTES) acl_counter;

    // Wins over forwarding, a forwarding drop included: control traffic the
    // controller asked for must reach it whatever the forwarding tables say.
    action punt_to_cpu() {
        ig_tm_md.ucast_egress_port = CPU_PORT;
        ig_dprsr_md.drop_ctl = 0;
        md.punt = 1;
        acl_counter.count();
    }
    action copy_to_cpu() {
        ig_tm_md.copy_to_cpu = 1;
        acl_counter.count();
    }
    action drop() {
        ig_dprsr_md.drop_ctl = 1;
        acl_counter.count();
    }
    action nop() {
        acl_counter.count();
    }
    table acl {
        key = {
            md.ig_port: ternary @name("ig_port");
            hdr.ethernet.src_addr: ternary @name("eth_src");
            hdr.ethernet.dst_addr: ternary @name("eth_dst");
            hdr.ethernet.ether_type: ternary @name("eth_type");
            md.ip_proto: ternary @name("ip_proto");
            md.l4_sport: ternary @name("l4_sport");
            md.l4_dport: ternary @name("l4_dport");
        }
        actions = { punt_to_cpu; copy_to_cpu; drop; nop; }
        default_action = nop();
        counters = acl_counter;
        size = ACL_TABLE_SIZE;
    }
    apply { acl.apply(); }
}
