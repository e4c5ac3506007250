// SPDX-License-Identifier: Apache-2.0
// Packet headers, bridged metadata and per-gress metadata of ccfair.
#ifndef CCFAIR_HEADER_P4
#define CCFAIR_HEADER_P4

@controller_header("packet_in")
header packet_in_h {
    FabPortId_t ingress_port;
    @padding bit<7> _pad0;
}

@controller_header("packet_out")
header packet_out_h {
    @padding bit<7> _pad0;
    FabPortId_t egress_port;
}

header ethernet_h {
    mac_addr_t dst_addr;
    mac_addr_t src_addr;
    bit<16>    ether_type;
}

// ccfair shim: packet value and group across the fabric (docs/dataplane.md).
header shim_h {
    pv_t    pv;
    group_t group;
    bit<8>  slot;
    bit<16> ether_type;
}

// Group update, egress -> ingress through the recirculation port only.
header update_h {
    bit<32> flow_idx;
    bit<16> fg;        // flow_group word to store: 2 . egress port's stats index(9) . group(5)
    group_t group;
    bit<8>  _pad0;
}

header ipv4_h {
    bit<4>      version;
    bit<4>      ihl;
    bit<6>      dscp;
    bit<2>      ecn;
    bit<16>     total_len;
    bit<16>     identification;
    bit<3>      flags;
    bit<13>     frag_offset;
    bit<8>      ttl;
    bit<8>      protocol;
    bit<16>     hdr_checksum;
    ipv4_addr_t src_addr;
    ipv4_addr_t dst_addr;
}

header tcp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<32> seq_no;
    bit<32> ack_no;
    bit<4>  data_offset;
    bit<4>  res;
    bit<1>  cwr;
    bit<1>  ece;
    bit<1>  urg;
    bit<1>  ack;
    bit<1>  psh;
    bit<1>  rst;
    bit<1>  syn;
    bit<1>  fin;
    bit<16> window;
    bit<16> checksum;
    bit<16> urgent_ptr;
}

header udp_h {
    bit<16> src_port;
    bit<16> dst_port;
    bit<16> len;
    bit<16> checksum;
}

// Ingress -> egress. The egress half of the classifier needs the finished
// interval's statistics; the queue delay needs the ingress time.
// Every field is whole bytes and written from one source: Tofino writes a
// PHV container from at most two sources per action, and sub-byte fields
// packed into one container (flags, a 9-bit port) broke that limit.
header bridged_h {
    bit<8>      bmd_type;     // first byte: the egress parser looks ahead at it
    @flexible bit<8>      from_edge;
    @flexible bit<8>      tracked;
    @flexible bit<8>      flow_new;
    @flexible bit<8>      interval_end;
    @flexible bit<8>      is_pkt_out;
    @flexible group_t     group;
    @flexible bit<8>      qid;
    @flexible PortId_t    ig_port;
    @flexible flow_idx_t  flow_idx;
    @flexible bit<32>     rtt_us;
    @flexible bit<32>     ig_ts;
    @flexible bit<32>     int_bytes;
    @flexible bit<16>     int_pkts;     // finished interval's data packets (no pure ACKs)
    @flexible bit<8>      retx;         // 1: a data segment not above its direction's highest sequence number
    @flexible bit<8>      int_retx;     // at an interval end: the finished interval's retransmission run
#ifdef CCFAIR_PROFILE_BMV2
    bit<7>                _pad0;        // BMv2 headers are whole bytes (TNA packs @flexible)
#endif
}

// Egress -> mirrored copy (E2E mirror to the recirculation port).
header update_mirror_h {
    bit<8>  bmd_type;
    group_t group;
    bit<16> fg;        // as update_h.fg
    bit<32> flow_idx;
}

struct ingress_headers_t {
    packet_in_h  packet_in;
    packet_out_h packet_out;
    ethernet_h   ethernet;
    shim_h       shim;
    update_h     update;
    ipv4_h       ipv4;
    tcp_h        tcp;
    udp_h        udp;
}

struct egress_headers_t {
    packet_in_h     packet_in;
    bridged_h       bridged;
    update_mirror_h update_mirror;
    ethernet_h      ethernet;
    shim_h          shim;
    update_h        update;
    ipv4_h          ipv4;
}

struct reclass_digest_t {
    bit<32> flow_id;
    bit<16> stats_idx;      // stats index of the egress port the flow is queued on
    bit<8>  old_group;
    bit<8>  new_group;
}

struct ingress_metadata_t {
    bridged_h   bridged;    // emitted first; written where each value is computed
    FabPortId_t ig_port;
    FabPortId_t eg_port;
    stats_idx_t eg_stats_idx;   // of eg_port (IgEgPortIdx), for the flow gauges
    bit<8>      role;
    bit<32>     default_rtt_us;
    bit<1>      routed;
    bit<1>      punt;
    bit<1>      has_port;
    bit<1>      is_update;
    bit<1>      track;
    bit<8>      ip_proto;
    bit<16>     l4_sport;
    bit<16>     l4_dport;
    // symmetric 5-tuple
    ipv4_addr_t ip_lo;
    ipv4_addr_t ip_hi;
    bit<16>     port_lo;
    bit<16>     port_hi;
    bit<16>     sig;
    bit<16>     trk;        // sig_check output: 0 collision, even new, odd hit
    bit<8>      slot;
    bit<32>     ts_pend;
    bit<32>     ts_old;     // ts_pend - max RTT: a pending SYN time at or below it is stale (rtt_claim)
    int<32>     ts_s;
    bit<32>     deadline;
    bit<1>      syn_only;
    bit<1>      syn_ack;
    bit<1>      fin_rst;    // FIN or RST without SYN: the connection closes (group_close)
    bit<16>     data_pkt;   // 0 for a pure ACK, else 1
    bit<1>      dir;        // flow_seq's half: 0 from the lower IP (equal IPs: the lower port), else 1
    bit<32>     pkt_len32;
    bit<16>     now16;
    bit<32>     rtt_raw;
    bit<1>      rtt_smp;    // rtt_sample ran: a pending rtt_raw completes the handshake sample
    bit<1>      restart;    // this packet completed the sample: the first interval starts here
    bit<32>     ts_2;       // ig_ts + ts_pend: ts_2 - pending SYN time = now + RTT
    bit<16>     fg_new;
    bit<16>     fg_old;
    bit<1>      fg_written;
    bit<16>     digest_tick;
    reclass_digest_t digest;
}

struct egress_metadata_t {
    FabPortId_t eg_port;
    bit<16>     mirror_fg;
    bit<32>     eg_ts;
    bit<16>     ctv_now;
    bit<16>     update_tick;
    bit<1>      on;         // marked packet to a port: classify, mark, AQM
    bit<2>      cls_op;     // CLS_*
    bit<1>      upd_ok;     // update mirror allowed by the limiter
    bit<1>      ctv_tick;
    bit<16>     ctv_lo;       // CTV range of the queue (aqm_cfg)
    bit<16>     ctv_hi;
    bit<16>     ctv_edge;     // ctv_hi for a step up, ctv_lo for a step down
    bit<16>     ctv_cross;    // beyond it the step lands on ctv_edge
    bit<CCFAIR_DEPTH_HIST_BITS> depth_bucket;
    // port configuration
    stats_idx_t stats_idx;
    bit<8>      role;
    bit<8>      tvf_profile;
    bit<16>     fair_fine;
    bit<16>     ant_max_pkts;
    bit<8>      m_m1;
    bit<8>      ss_drop_en;
    bit<8>      family_forget;  // 1 (isolated layout): loss-based flows forget back-offs (family_op, D19), model-based keep their count through a fall (ignore_op, D20)
    // AQM
    bit<32>     target_delay;
    bit<32>     limit_cells;
    bit<8>      ecn_en;
    qidx_t      qidx;
    bit<32>     depth;
    bit<32>     delay_us;
    bit<32>     delay_over;
    bit<32>     delay_sc;     // delay_us << aqm.pv_gate_shift
    bit<32>     gate_over;    // delay_sc |-| target_delay: 0 = no standing queue, no PV verdict
    bit<32>     depth_over;
    bit<16>     ctv;
    bit<16>     pv_below;
    pgidx_t     pg_idx;       // telemetry counter index
    bit<1>      drop;
    bit<1>      mark;
    bit<1>      ss_drop;
    // marker
    bit<16>     rnd;
    bit<16>     nlog_u;
    bit<16>     pos;
    bit<16>     lr_sum;       // flow_rate_s: twice the rate label (0 for an untracked packet)
    bit<16>     lr_pv;        // the rate label: lr_sum >> 1
    // classifier
    bit<16>     log_b;
    bit<16>     log_r;
    bit<16>     lrate;
    bit<16>     bdp_gap;
    bit<16>     sparse_gap;
    bit<8>      family;
    bit<8>      fell;          // rate_end: 1 = the interval's rate fell by FALL_FINE or more
    bit<8>      ign;           // flow_ignore's loss-ignoring count
    bit<8>      t_mm;
    bit<16>     ss_in;
    bit<16>     ss_state;
    bit<8>      band;
    group_t     new_group;
    MirrorId_t  mirror_session;
    bit<32>     mirror_flow_idx;
    bit<8>      mirror_bmd_type;
}

#endif
