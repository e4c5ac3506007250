// SPDX-License-Identifier: Apache-2.0
// Packet-value marking (v1model port of tna/control/marker.p4): PV =
// TVF_group(u x rate), in the log domain, u from 16 random bits.
control Marker(inout headers_t hdr,
               inout egress_metadata_t md) {
    action set_nlog_u(bit<16> n) { md.nlog_u = n; }
    table log_u {
        key = { md.rnd: ternary @name("u"); }
        actions = { set_nlog_u; }
        const entries = {
#include "entries_log_u.p4"
        }
        const default_action = set_nlog_u(0xFFFF);
    }

    action set_pv(pv_t pv) { hdr.shim.pv = pv; }
    table tvf {
        key = {
            md.tvf_profile: exact @name("tvf_profile");
            hdr.bridged.group: exact @name("group");
            md.pos[7 + CCFAIR_FINE_SHIFT:CCFAIR_FINE_SHIFT]: exact @name("rate_bin");
        }
        actions = { set_pv; }
        default_action = set_pv(CCFAIR_TVF_PV_MAX);
        size = TVF_TABLE_SIZE;
    }

    apply {
        random(md.rnd, 16w0, 16w0xFFFF);
        log_u.apply();
        md.pos = md.lr_pv |-| md.nlog_u;
        if (md.on == 1 && hdr.bridged.from_edge == 1) {
            tvf.apply();
        }
    }
}
