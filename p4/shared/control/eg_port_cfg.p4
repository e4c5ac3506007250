// SPDX-License-Identifier: Apache-2.0
// Egress port configuration: role (edge ports pop the shim), the TVF profile
// used to mark flows leaving here, the classifier thresholds of this output
// link (fair rate per long-lived flow, P4air's mM), whether loss-based flows
// forget back-offs and model-based flows keep their class through a rate
// fall (family_forget = 1; the controller sets it where the port's queue
// layout is isolated, docs/algorithm.md D19, D20) and the port's
// stats index, which indexes every per-port array of the egress
// (docs/dataplane.md, "Port stats index").
control EgPortCfg(inout egress_metadata_t md) {
    action set_port_cfg(bit<8> role, bit<8> tvf_profile, bit<8> fair_rate_bin,
                        bit<16> ant_max_pkts, bit<8> m_m,
                        bit<8> ss_drop, bit<8> family_forget, stats_idx_t stats_idx) {
        md.role = role;
        md.tvf_profile = tvf_profile;
        // Raw here; the classifier scales / decrements them (classifier.p4:
        // interval_rate): Tofino cannot shift or add to action data in the
        // action that loads it.
        md.fair_fine = (bit<16>)fair_rate_bin;
        md.ant_max_pkts = ant_max_pkts;
        md.m_m1 = m_m;
        md.ss_drop_en = ss_drop;
        md.family_forget = family_forget;
        md.stats_idx = stats_idx;
    }
    table port_cfg {
        key = { md.eg_port: exact @name("eg_port"); }
        actions = { set_port_cfg; }
        default_action = set_port_cfg(ROLE_EDGE, 0, 255, CCFAIR_FLOW_ANT_MAX_PKTS_PER_INTERVAL,
                                      CCFAIR_CLASSIFIER_M_M, CCFAIR_CLASSIFIER_SS_PROACTIVE_DROP,
                                      0, STATS_IDX_UNCONFIGURED);
        size = PORT_TABLE_SIZE;
    }
    apply { port_cfg.apply(); }
}
