// SPDX-License-Identifier: Apache-2.0
// Ingress port role: edge (host-facing, flows tracked, shim never trusted)
// or fabric (switch-facing, shim trusted). Unconfigured ports are edge.
control IgPortCfg(inout ingress_metadata_t md) {
    action set_edge_port(bit<32> default_rtt_us) {
        md.role = ROLE_EDGE;
        md.default_rtt_us = default_rtt_us;
    }
    action set_fabric_port() {
        md.role = ROLE_FABRIC;
        md.default_rtt_us = CCFAIR_FLOW_DEFAULT_RTT_US;
    }
    table port_cfg {
        key = { md.ig_port: exact @name("ig_port"); }
        actions = { set_edge_port; set_fabric_port; }
        default_action = set_edge_port(CCFAIR_FLOW_DEFAULT_RTT_US);
        size = PORT_TABLE_SIZE;
    }
    apply { port_cfg.apply(); }
}

// Stats index of the egress port forwarding chose (docs/dataplane.md, "Port
// stats index"). The ingress's only per-port arrays, the flow gauges, count
// per egress port, so the ingress needs that port's index: a table keyed by
// the egress port, applied after forwarding. The controller writes the same
// index here as in EgressPipe.port_cfg for that port.
control IgEgPortIdx(inout ingress_metadata_t md) {
    action set_stats_idx(stats_idx_t stats_idx) {
        md.eg_stats_idx = stats_idx;
    }
    table eg_port_idx {
        key = { md.eg_port: exact @name("eg_port"); }
        actions = { set_stats_idx; }
        default_action = set_stats_idx(STATS_IDX_UNCONFIGURED);
        size = PORT_TABLE_SIZE;
    }
    apply { eg_port_idx.apply(); }
}
