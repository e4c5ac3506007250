// SPDX-License-Identifier: Apache-2.0
// Per-flow tracking at edge ports (ingress half of the classifier):
// symmetric flow id + signature, handshake RTT, RTT intervals and their
// packet / byte counts, and the group the flow is currently queued as.
// One register access per packet each; the egress half (classifier.p4)
// decides the group and sends it back through a mirrored update.

struct sig_pair_t {
    bit<16> sig;
    bit<16> seen;     // last seen, 2^20 ns units (wraps after 68.7 s)
}

control FlowTracker(inout ingress_headers_t hdr,
                    inout ingress_metadata_t md) {
    Hash<bit<32>>(HashAlgorithm_t.CRC32) idx_hash;
    Hash<bit<16>>(HashAlgorithm_t.CRC16) sig_hash;

    Register<sig_pair_t, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_sig;
    Register<bit<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_rtt;
    Register<int<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_deadline;
    Register<bit<16>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_pkts;
    Register<bit<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_bytes;
    Register<bit<16>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_group;
    Counter<bit<32>, bit<2>>(UNTRACKED_SIZE, CounterType_t.PACKETS) untracked;

    // --- signature: hit, claim of an empty / expired slot, or collision.
    // A Tofino stateful ALU on a pair register has one output and no ALU
    // left for constants, so the outcome is encoded in the "seen" half it
    // writes: md.now16 is even and never 0 (see init_md), a claim stores it
    // as is, a hit stores it + 1 (odd), a collision writes nothing and
    // outputs 0. The flag costs the timestamp 2 of its 16 bits of resolution
    // (4 units = 4.2 ms), far below the expiry.
    RegisterAction<sig_pair_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_sig) sig_check = {
        void apply(inout sig_pair_t v, out bit<16> rv) {
            if (md.now16 - v.seen > CCFAIR_EXPIRE_UNITS) {
                // Empty, or idle longer than the expiry: (re)start a flow here.
                // Modular difference: a stale slot looks busy again only for
                // the expiry time once every 68.7 s.
                v.sig = md.sig;
                v.seen = md.now16;
                rv = v.seen;
            } else if (v.sig == md.sig) {
                v.seen = md.now16 | 1;
                rv = v.seen;
            } else {
                rv = 0;
            }
        }
    };

    // --- handshake RTT (P4air): first packet after the SYN minus the SYN
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_rtt) rtt_syn = {
        void apply(inout bit<32> v, out bit<32> rv) {
            v = md.ts_pend;
            rv = 0;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_rtt) rtt_read = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_rtt) rtt_sample = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v >= RTT_PENDING) {
                v = md.ts_pend - v;
            }
            rv = v;
        }
    };

    // --- interval: ends at the first packet one RTT after it started
    RegisterAction<int<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_deadline) dl_start = {
        void apply(inout int<32> v, out bit<8> rv) {
            v = (int<32>)md.deadline;
            rv = 1;
        }
    };
    RegisterAction<int<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_deadline) dl_check = {
        void apply(inout int<32> v, out bit<8> rv) {
            if (md.ts_s - v >= 0) {
                v = (int<32>)md.deadline;
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };

    // Data packets of the interval: pure ACKs are not the flow's sending
    // pattern, and the classifier uses data packets only. (A separate
    // per-flow pure-ACK count did not fit Tofino 1's stateful memory.)
    RegisterAction<bit<16>, bit<FLOW_IDX_BITS>, bit<16>>(flow_pkts) pkts_end = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = md.data_pkt;
        }
    };
    RegisterAction<bit<16>, bit<FLOW_IDX_BITS>, bit<16>>(flow_pkts) pkts_inc = {
        void apply(inout bit<16> v) {
            v = v |+| md.data_pkt;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_bytes) bytes_end = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = md.pkt_len32;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_bytes) bytes_inc = {
        void apply(inout bit<32> v) {
            v = v + md.pkt_len32;
        }
    };

    // --- group: valid(1) . port unknown(1) . egress port(9) . group(5); bits
    // 13:0 are the (port, group) counter index once the port is known (the
    // first group update from egress carries it).
    RegisterAction<bit<16>, bit<FLOW_IDX_BITS>, bit<16>>(flow_group) group_read = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
        }
    };
    RegisterAction<bit<16>, bit<FLOW_IDX_BITS>, bit<16>>(flow_group) group_write = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = md.fg_new;
        }
    };

    action symmetric() {
        // Both directions of a connection give the same tuple.
        md.ip_lo = min(hdr.ipv4.src_addr, hdr.ipv4.dst_addr);
        md.ip_hi = max(hdr.ipv4.src_addr, hdr.ipv4.dst_addr);
        md.port_lo = min(hdr.tcp.src_port, hdr.tcp.dst_port);
        md.port_hi = max(hdr.tcp.src_port, hdr.tcp.dst_port);
    }
    // Two actions: an action gets 32 bits of hash output.
    action hash_idx() {
        md.bridged.flow_idx = idx_hash.get({md.ip_lo, md.ip_hi, md.port_lo, md.port_hi, md.ip_proto});
    }
    action hash_sig() {
        md.sig = sig_hash.get({md.port_hi, md.ip_hi, md.port_lo, md.ip_lo});
    }

    // Each also computes the interval deadline (now + RTT) in parallel, which
    // saves a stage; beyond max_rtt_us the deadline uses the raw sample.
    action use_default_rtt() {
        md.bridged.rtt_us = md.default_rtt_us;
        md.deadline = md.bridged.ig_ts + md.default_rtt_us;
    }
    action use_min_rtt() {
        md.bridged.rtt_us = CCFAIR_RTT_MIN_UNITS;
        md.deadline = md.bridged.ig_ts + CCFAIR_RTT_MIN_UNITS;
    }
    action clamp_rtt() {
        md.bridged.rtt_us = min(md.rtt_raw, CCFAIR_RTT_MAX_UNITS);
        md.deadline = md.bridged.ig_ts + md.rtt_raw;
    }
    table rtt_fix {
        key = { md.rtt_raw: ternary; }
        actions = { use_default_rtt; use_min_rtt; clamp_rtt; }
        const entries = {
            0 &&& 0xffffffff : use_default_rtt();   // no handshake seen
            RTT_PENDING &&& RTT_PENDING : use_default_rtt();  // SYN seen, no sample yet
            0 &&& 0xffffff80 : use_min_rtt();
        }
        const default_action = clamp_rtt();
        size = 4;
    }

    // A pure ACK: ACK flag only and no payload (IPv4 without options).
    action set_pure_ack() { md.data_pkt = 0; }
    action no_pure_ack() { md.data_pkt = 1; }
    table pure_ack {
        key = {
            hdr.tcp.data_offset: exact;
            hdr.ipv4.total_len: exact;
        }
        actions = { set_pure_ack; no_pure_ack; }
        const entries = {
            (5, 40) : set_pure_ack(); (6, 44) : set_pure_ack(); (7, 48) : set_pure_ack();
            (8, 52) : set_pure_ack(); (9, 56) : set_pure_ack(); (10, 60) : set_pure_ack();
            (11, 64) : set_pure_ack(); (12, 68) : set_pure_ack(); (13, 72) : set_pure_ack();
            (14, 76) : set_pure_ack(); (15, 80) : set_pure_ack();
        }
        const default_action = no_pure_ack();
        size = 16;
    }

    apply {
        if (md.is_update == 1) {
            // Group decided by the egress classifier (IngressPipe checked the port).
            md.bridged.flow_idx = hdr.update.flow_idx;
            md.fg_new = 2w2 ++ hdr.update.eg_port[8:0] ++ hdr.update.group[4:0];
            md.fg_written = 1;
            md.fg_old = group_write.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
            return;
        }
        if (!hdr.tcp.isValid()) {
            untracked.count(UNTRACKED_NOT_TCP);
            return;
        }
        symmetric();
        hash_idx();
        hash_sig();
        // Register accesses pinned to stages on Tofino 1: see classifier.p4.
        AT_STAGE(STAGE_IG_SIG) {
            md.trk = sig_check.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
        }
        AT_STAGE(STAGE_IG_RTT) {
            if (md.syn_only == 1) {
                md.rtt_raw = rtt_syn.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
            } else if (md.syn_ack == 1) {
                md.rtt_raw = rtt_read.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
            } else {
                md.rtt_raw = rtt_sample.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
            }
        }
        md.slot = (bit<8>)md.sig[7:0] & CCFAIR_SLOT_MASK;

        if (md.trk == TRK_COLLIDE) {
            untracked.count(UNTRACKED_COLLISION);
            md.bridged.group = GROUP_ANT;
        } else {
            md.bridged.tracked = 1;
            AT_STAGE(STAGE_IG_GROUP) {
                if (md.trk[0:0] == 0 || md.syn_only == 1) {
                    // New slot or a new connection on it: start over as a mouse.
                    md.bridged.flow_new = 1;
                    // Port not known yet (bit 14): forwarding runs in parallel
                    // with tracking; update.p4 counts with md.eg_port instead.
                    md.fg_new = 2w3 ++ 9w0 ++ (bit<5>)GROUP_MOUSE;
                    md.fg_written = 1;
                    md.fg_old = group_write.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                    md.bridged.group = GROUP_MOUSE;
                } else {
                    md.fg_old = group_read.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                    md.bridged.group = (group_t)md.fg_old[4:0];
                }
            }
            rtt_fix.apply();
            AT_STAGE(STAGE_IG_DEADLINE) {
                if (md.bridged.flow_new == 1) {
                    md.bridged.interval_end = dl_start.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                } else {
                    md.bridged.interval_end = dl_check.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                }
            }
            if (hdr.tcp.ack == 1 && hdr.tcp.syn == 0 && hdr.tcp.fin == 0 && hdr.tcp.rst == 0) {
                pure_ack.apply();
            }
            AT_STAGE(STAGE_IG_COUNT) {
                if (md.bridged.interval_end == 1) {
                    md.bridged.int_pkts = pkts_end.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                    md.bridged.int_bytes = bytes_end.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                } else {
                    pkts_inc.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                    bytes_inc.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
                }
            }
        }
    }
}
