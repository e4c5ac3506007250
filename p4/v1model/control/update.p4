// SPDX-License-Identifier: Apache-2.0
// Bookkeeping when a flow's group register is written (v1model port of
// tna/control/update.p4): flow gauges per (port, group) and the rate-bounded
// reclassification digest.
control GroupUpdate(in headers_t hdr,
                    inout ingress_metadata_t md,
                    inout ig_dprsr_md_t ig_dprsr_md) {
    counter<bit<32>>(NUM_PG_INDEX, CounterType.packets) pg_flow_enter;
    counter<bit<32>>(NUM_PG_INDEX, CounterType.packets) pg_flow_leave;
    register<bit<16>, bit<32>>(1) digest_limiter;

    action digest_allow(out bit<1> rv) {
        bit<16> v;
        digest_limiter.read(v, 0);
        if (v != md.digest_tick) {
            digest_limiter.write(0, md.digest_tick);
            rv = 1;
        } else {
            rv = 0;
        }
    }

    apply {
        // An update that found its slot closed wrote nothing (group_update).
        if (md.fg_written == 1 && md.fg_new != md.fg_old
                && (md.is_update == 0 || md.fg_old[15:15] == 1)) {
            if (md.fg_new[15:15] == 0) {
                // Closed (FIN/RST): leaves below, enters nothing.
            } else if (md.is_update == 1) {
                pg_flow_enter.count((bit<32>)md.fg_new[13:0]);
            } else {
                pg_flow_enter.count((bit<32>)(md.eg_stats_idx ++ (bit<5>)GROUP_MOUSE));
            }
            if (md.fg_old[15:14] == 2w2) {
                pg_flow_leave.count((bit<32>)md.fg_old[13:0]);
            } else if (md.fg_old[15:14] == 2w3) {
                if (md.is_update == 1) {
                    pg_flow_leave.count((bit<32>)(md.fg_new[13:5] ++ md.fg_old[4:0]));
                } else {
                    pg_flow_leave.count((bit<32>)(md.eg_stats_idx ++ md.fg_old[4:0]));
                }
            }
            if (md.is_update == 1) {
                bit<1> allowed;
                digest_allow(allowed);
                if (allowed == 1) {
                    ig_dprsr_md.digest_type = DIGEST_TYPE_RECLASS;
                    md.digest.flow_id = hdr.update.flow_idx;
                    md.digest.stats_idx = (bit<16>)md.fg_new[13:5];
                    md.digest.new_group = (bit<8>)md.fg_new[4:0];
                    if (md.fg_old[15:15] == 1) {
                        md.digest.old_group = (bit<8>)md.fg_old[4:0];
                    } else {
                        md.digest.old_group = 0xFF;
                    }
                }
            }
        }
    }
}
