// SPDX-License-Identifier: Apache-2.0
// Bookkeeping when a flow's group register is written (new flow or a group
// update from the egress classifier): flows entering / leaving each
// (port, group), and a rate-bounded digest for reclassifications. Ports are
// their stats indices here: the group word holds the one egress wrote, a new
// flow uses md.eg_stats_idx (IgEgPortIdx).
control GroupUpdate(in ingress_headers_t hdr,
                    inout ingress_metadata_t md,
                    inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Counter<bit<32>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS) pg_flow_enter;
    Counter<bit<32>, pgidx_t>(NUM_PG_INDEX, CounterType_t.PACKETS) pg_flow_leave;

    // At most one digest per 2^DIGEST_PERIOD_SHIFT ns per pipe
    // (controller.digest_max_per_sec); further changes are applied unreported.
    Register<bit<16>, bit<1>>(1) digest_limiter;
    RegisterAction<bit<16>, bit<1>, bit<1>>(digest_limiter) digest_allow = {
        void apply(inout bit<16> v, out bit<1> rv) {
            if (v != md.digest_tick) {
                v = md.digest_tick;
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };

    apply {
        // An update that found its slot closed wrote nothing (group_update).
        if (md.fg_written == 1 && md.fg_new != md.fg_old
                && (md.is_update == 0 || md.fg_old[15:15] == 1)) {
            if (md.fg_new[15:15] == 0) {
                // Closed (FIN/RST): leaves below, enters nothing.
            } else if (md.is_update == 1) {
                pg_flow_enter.count(md.fg_new[13:0]);
            } else {
                // New flow (mouse): the port is the one forwarding chose.
                pg_flow_enter.count(md.eg_stats_idx ++ (bit<5>)GROUP_MOUSE);
            }
            if (md.fg_old[15:14] == 2w2) {
                pg_flow_leave.count(md.fg_old[13:0]);
            } else if (md.fg_old[15:14] == 2w3) {
                // A mouse whose port was never stored: an update carries the
                // flow's port; a new flow evicting it has only its own
                // (docs/dataplane.md: flow gauges).
                if (md.is_update == 1) {
                    pg_flow_leave.count(md.fg_new[13:5] ++ md.fg_old[4:0]);
                } else {
                    pg_flow_leave.count(md.eg_stats_idx ++ md.fg_old[4:0]);
                }
            }
            if (md.is_update == 1) {
                if (digest_allow.execute(0) == 1) {
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
