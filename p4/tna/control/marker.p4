// SPDX-License-Identifier: Apache-2.0
// Packet-value marking (CSAQM) for packets that entered on an edge port of
// this switch: PV = TVF_group(u x rate) with u uniform in [0, 1), computed in
// the log domain (log u from random bits, const table) so no division is
// needed. TVFs are controller-written, one per (profile, group).
control Marker(inout egress_headers_t hdr,
               inout egress_metadata_t md) {
    Random<bit<16>>() rnd;

    action set_nlog_u(bit<16> n) { md.nlog_u = n; }
    table log_u {
        key = { md.rnd: ternary @name("u"); }
        actions = { set_nlog_u; }
        const entries = {
#include "entries_log_u.p4"
        }
        const default_action = set_nlog_u(0xFFFF);   // u = 0: the lowest rate bin
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
        md.rnd = rnd.get();
        log_u.apply();
        md.pos = md.lr_pv |-| md.nlog_u;
        // Packets that entered on an edge port of this switch.
        if (md.on == 1 && hdr.bridged.from_edge == 1) {
            tvf.apply();
        }
    }
}
