// SPDX-License-Identifier: Apache-2.0
// Per-flow tracking at edge ports (ingress half of the classifier):
// symmetric flow id + signature, handshake RTT, RTT intervals and their
// packet / byte counts, retransmissions, and the group the flow is currently
// queued as.
// One register access per packet each; the egress half (classifier.p4)
// decides the group and sends it back through a mirrored update.

struct sig_pair_t {
    bit<16> sig;
    bit<16> seen;     // last seen: 2^20 ns ticks in bits 15:2 (wraps after 17.2 s), flag bits 1:0
}

// 8-bit pair: flow_retx.
struct pair8_t {
    bit<8> lo;
    bit<8> hi;
}

control FlowTracker(inout ingress_headers_t hdr,
                    inout ingress_metadata_t md) {
    Hash<bit<32>>(HashAlgorithm_t.CRC32) idx_hash;
    Hash<bit<15>>(HashAlgorithm_t.CRC16) sig_hash;

    Register<sig_pair_t, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_sig;
    Register<bit<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_rtt;
    Register<int<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_deadline;
    Register<bit<16>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_pkts;
    Register<bit<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_bytes;
    Register<bit<16>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_group;
    // One per direction (md.dir 0: lo, 1: hi), not one 64-bit pair: 64K
    // pairs (33 map RAMs) fit no Tofino 2 stage (bf-p4c 9.13.4 places 40K,
    // not 48K).
    Register<bit<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_seq_lo;
    Register<bit<32>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_seq_hi;
    Register<pair8_t, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_retx;
    Counter<bit<32>, bit<2>>(UNTRACKED_SIZE, CounterType_t.PACKETS) untracked;

    // --- signature: hit, claim of an empty / expired slot, or collision.
    // A Tofino stateful ALU on a pair register has one output and no ALU
    // left for constants, so the outcome is encoded in the "seen" half it
    // writes: md.now16 ends in binary 10 (even, never 0; see init_now16), a
    // claim stores it as is, a hit stores it - 1 (ends in 01: odd, and at
    // most one unit behind now16 for the next packet of the same tick; + 1
    // would be one unit ahead, and the modular difference would wrap to
    // 0xFFFF and restart the flow), a collision writes nothing and outputs
    // 0. The flag bits cost the 16-bit clock 2 bits of range (17.2 s).
    // md.sig is a 15-bit CRC; slots hold it + 0x8000 and a hit is
    // "stored - sig == 0x8000", so an empty slot (signature 0) matches no
    // flow even while the clock's blind window makes it look busy (forcing
    // the bit in PHV before this stage cost the ingress chain a stage).
    RegisterAction<sig_pair_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_sig) sig_check = {
        void apply(inout sig_pair_t v, out bit<16> rv) {
            if (md.now16 - v.seen > CCFAIR_EXPIRE_UNITS) {
                // Empty, or idle longer than the expiry: (re)start a flow here.
                // Modular difference: a stale slot looks busy again only for
                // the expiry time once every 17.2 s.
                v.sig = md.sig + 0x8000;
                v.seen = md.now16;
                rv = v.seen;
            } else if (v.sig - md.sig == 0x8000) {
                v.seen = md.now16 - 1;
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
    // Outputs the value before the update: a pending SYN time (bit 31) says
    // this packet completes the sample, and rtt_fix derives the RTT and the
    // first interval's deadline from it (use_sample).
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_rtt) rtt_sample = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            if (v >= RTT_PENDING) {
                // Across a wrap of the 31-bit pending time the difference
                // would look pending again and restart every later packet
                // (defect 16): store 0 (default RTT) instead.
                if (md.ts_pend >= v) {
                    v = md.ts_pend - v;
                } else {
                    v = 0;
                }
            }
        }
    };

    // A slot claimed without a SYN (a flow first seen mid-connection, a
    // resuming one, or a slow handshake's next packet after the expiry) does
    // not complete a pending SYN time older than max_rtt_us: that "sample"
    // would be the time since a dead handshake (a SYN scan), seconds to
    // 36 min (defect 9); it is cleared (default RTT). A younger one stays
    // pending for the next packet (a handshake slower than the expiry), and
    // a completed RTT stays (a resuming flow keeps its own). Outputs the
    // value before the update: rtt_fix reads a pending one as "no sample".
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<32>>(flow_rtt) rtt_claim = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            if (v >= RTT_PENDING) {
                if (md.ts_old >= v) {
                    v = 0;
                }
            }
        }
    };

    // --- interval: ends at the first packet one interval (max(RTT, W)) after it started
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

    // --- retransmissions: per direction, the highest sequence number a data
    // segment carried (0: none yet). A data segment not above it is a
    // retransmission as far as a switch can tell (rv 1). A SYN or a claim
    // restarts the packet's direction and clears the other one: what it
    // holds is a previous connection's.
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_seq_lo) seq_new_lo = {
        void apply(inout bit<32> v) {
            v = hdr.tcp.seq_no;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_seq_lo) seq_clr_lo = {
        void apply(inout bit<32> v) {
            v = 0;
        }
    };
    // Modular comparison: sequence numbers wrap.
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_seq_lo) seq_chk_lo = {
        void apply(inout bit<32> v, out bit<8> rv) {
            if (v == 0 || (int<32>)(hdr.tcp.seq_no - v) > 0) {
                v = hdr.tcp.seq_no;
                rv = 0;
            } else {
                rv = 1;
            }
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_seq_hi) seq_new_hi = {
        void apply(inout bit<32> v) {
            v = hdr.tcp.seq_no;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_seq_hi) seq_clr_hi = {
        void apply(inout bit<32> v) {
            v = 0;
        }
    };
    RegisterAction<bit<32>, bit<FLOW_IDX_BITS>, bit<8>>(flow_seq_hi) seq_chk_hi = {
        void apply(inout bit<32> v, out bit<8> rv) {
            if (v == 0 || (int<32>)(hdr.tcp.seq_no - v) > 0) {
                v = hdr.tcp.seq_no;
                rv = 0;
            } else {
                rv = 1;
            }
        }
    };

    // lo = a retransmission in the current interval, hi = the retransmission
    // run: intervals in a row, ending with the one that ends now, that had one.
    // As in pkts_end, the packet that ends an interval counts in the next.
    // Output at the end.
    RegisterAction<pair8_t, bit<FLOW_IDX_BITS>, bit<8>>(flow_retx) retx_reset = {
        void apply(inout pair8_t v) {
            v.lo = md.bridged.retx;
            v.hi = 0;
        }
    };
    RegisterAction<pair8_t, bit<FLOW_IDX_BITS>, bit<8>>(flow_retx) retx_pkt = {
        void apply(inout pair8_t v) {
            v.lo = v.lo | md.bridged.retx;
        }
    };
    RegisterAction<pair8_t, bit<FLOW_IDX_BITS>, bit<8>>(flow_retx) retx_end = {
        void apply(inout pair8_t v, out bit<8> rv) {
            if (v.lo != 0) {
                v.hi = v.hi |+| 1;
            } else {
                v.hi = 0;
            }
            v.lo = md.bridged.retx;
            rv = v.hi;
        }
    };

    // --- group: valid(1) . port unknown(1) . egress port's stats index(9) .
    // group(5); bits 13:0 are the (port, group) counter index once the port
    // is known (the first group update from egress carries it).
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
    // An egress update does not bring a closed slot (word 0) back: a packet
    // queued before the FIN can still end an interval (update.p4 skips it).
    RegisterAction<bit<16>, bit<FLOW_IDX_BITS>, bit<16>>(flow_group) group_update = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            if (v >= 0x8000) { // valid (bit 15)
                v = md.fg_new;
            }
        }
    };
    // FIN or RST: the flow leaves its group now, not when its slot is reused,
    // so the controller's flow count (enter - leave) follows closed flows.
    RegisterAction<bit<16>, bit<FLOW_IDX_BITS>, bit<16>>(flow_group) group_close = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = 0;
        }
    };

    action symmetric() {
        // Both directions of a connection give the same tuple.
        md.ip_lo = min(hdr.ipv4.src_addr, hdr.ipv4.dst_addr);
        md.ip_hi = max(hdr.ipv4.src_addr, hdr.ipv4.dst_addr);
        // The parser's L4 ports (TCP or UDP, else 0): an untracked UDP flow's
        // queue slot comes from its own ports, not from an invalid TCP header.
        md.port_lo = min(md.l4_sport, md.l4_dport);
        md.port_hi = max(md.l4_sport, md.l4_dport);
    }
    // Two actions: an action gets 32 bits of hash output.
    action hash_idx() {
        md.bridged.flow_idx = idx_hash.get({md.ip_lo, md.ip_hi, md.port_lo, md.port_hi, md.ip_proto});
    }
    action hash_sig() {
        md.sig = (bit<16>)sig_hash.get({md.port_hi, md.ip_hi, md.port_lo, md.ip_lo});
    }
    // rtt_claim's threshold: a pending SYN time at or below it is older than
    // max_rtt_us. An action of its own: with hash_sig's hash output it would
    // need action data the hit-only hash path cannot carry (bf-p4c).
    action stale_syn_time() {
        md.ts_old = md.ts_pend - CCFAIR_RTT_MAX_UNITS;
    }

    // Each also computes the interval deadline (now + RTT) in parallel, which
    // saves a stage; from max_rtt_us to 2^20 units the deadline uses the raw
    // sample (clamp_rtt), beyond it max_rtt_us (use_max_rtt).
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
    // A stored RTT of 2^20 units (1.07 s) or more: max_rtt_us for the RTT
    // and the deadline alike (clamp_rtt's deadline is raw, which below 2^20
    // is at most 1.07 s).
    action use_max_rtt() {
        md.bridged.rtt_us = CCFAIR_RTT_MAX_UNITS;
        md.deadline = md.bridged.ig_ts + CCFAIR_RTT_MAX_UNITS;
    }
    // The packet that completes the handshake sample (rtt_raw = the pending
    // SYN time): RTT = now - SYN, and the first interval restarts here with
    // deadline now + RTT (unclamped: one interval; later packets read the
    // stored RTT through the clamps above).
    action use_sample() {
        md.bridged.rtt_us = md.ts_pend - md.rtt_raw;
        md.deadline = md.ts_2 - md.rtt_raw;
        md.restart = 1;
    }
    table rtt_fix {
        key = {
            md.rtt_raw: ternary;
            md.rtt_smp: ternary;
        }
        actions = { use_default_rtt; use_min_rtt; clamp_rtt; use_max_rtt; use_sample; }
        const entries = {
#include "../../shared/entries/rtt_fix.p4"
        }
        const default_action = use_max_rtt();
        size = 8;
    }

    // Interval floor (flow.min_interval_us = W): an interval lasts at least W
    // whatever RTT it runs on (port default, minimum, stored, or the handshake
    // sample, which rtt_fix cannot key on: it is computed there), so its rate
    // is taken over enough packets; the RTT itself (bridged rtt_us, the RTT
    // band) stays raw, and egress's log_rtt divides by the same max(RTT, W).
    // Keyed on the RTT rtt_fix chose; entries: the prefixes of 0..W-1
    // (p4/gen_tables.py).
    @hidden action floor_interval() {
        md.deadline = md.bridged.ig_ts + CCFAIR_INTERVAL_MIN_UNITS;
    }
    @hidden
    table interval_floor {
        key = { md.bridged.rtt_us: ternary; }
        actions = { floor_interval; no_op; }
        const entries = {
#include "entries_interval_floor.p4"
        }
        const default_action = no_op();
        size = 32;
    }

    // A pure ACK: ACK flag only and no payload (IPv4 without options). Its
    // length is zeroed (flow_bytes is its only reader): a flow whose first
    // packet is an ACK starts its interval with no bytes.
    action set_pure_ack() { md.data_pkt = 0; md.pkt_len32 = 0; }
    action no_pure_ack() { md.data_pkt = 1; }
    table pure_ack {
        key = {
            hdr.tcp.data_offset: exact;
            hdr.ipv4.total_len: exact;
        }
        actions = { set_pure_ack; no_pure_ack; }
        const entries = {
#include "../../shared/entries/pure_ack.p4"
        }
        const default_action = no_pure_ack();
        size = 16;
    }

    // Register operations as internal tables whose const entries pick the
    // RegisterAction: one logical table per register instead of one per
    // if/else arm (Tofino 1 has 16 per stage for both gresses).
    @hidden action rtt_syn_op() { md.rtt_raw = rtt_syn.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action rtt_read_op() { md.rtt_raw = rtt_read.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action rtt_claim_op() { md.rtt_raw = rtt_claim.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action rtt_sample_op() {
        md.rtt_raw = rtt_sample.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
        md.rtt_smp = 1;
        md.ts_2 = md.bridged.ig_ts + md.ts_pend;
    }
    // After the signature check: a colliding flow (trk 0) must not write the
    // holder's RTT (its SYN stored its own time there, its other packets
    // completed the holder's pending sample); a claim without a SYN clears
    // a pending SYN time older than max_rtt_us (rtt_claim).
    AT_STAGE(STAGE_IG_RTT) @hidden
    table rtt_op {
        key = {
            md.track: exact;
            hdr.tcp.isValid(): exact;
            md.trk: ternary;
            md.syn_only: ternary;
            md.syn_ack: ternary;
        }
        actions = { rtt_syn_op; rtt_read_op; rtt_claim_op; rtt_sample_op; no_op; }
        const entries = {
            (1, true, TRK_COLLIDE &&& 0xFFFF, _, _) : no_op();
            (1, true, _, 1, _) : rtt_syn_op();
            (1, true, 0 &&& 1, 0, _) : rtt_claim_op();
            (1, true, _, 0, 1) : rtt_read_op();
            (1, true, _, 0, 0) : rtt_sample_op();
        }
        const default_action = no_op();
        size = 8;
    }

    // trk: 0 collision, bit 0 clear = new slot; a SYN restarts the slot.
    @hidden action group_update_op() {
        md.fg_written = 1;
        md.fg_old = group_update.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action group_new_op() {
        md.bridged.tracked = 1;
        md.bridged.flow_new = 1;
        md.fg_written = 1;
        md.fg_old = group_write.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action group_hit_op() {
        md.bridged.tracked = 1;
        md.fg_old = group_read.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action group_close_op() {
        md.bridged.tracked = 1;
        md.fg_written = 1;
        md.fg_new = 0;
        md.fg_old = group_close.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    AT_STAGE(STAGE_IG_GROUP) @hidden
    table group_op {
        key = {
            md.is_update: exact;
            md.track: ternary;
            md.trk: ternary;
            md.syn_only: ternary;
            md.fin_rst: ternary;
        }
        actions = { group_update_op; group_new_op; group_hit_op; group_close_op; no_op; }
        const entries = {
            (1, _, _, _, _) : group_update_op();
            (0, 1, TRK_COLLIDE &&& 0xFFFF, _, _) : no_op();
            (0, 1, 0 &&& 1, _, _) : group_new_op();
            (0, 1, _, 1, _) : group_new_op();
            (0, 1, _, _, 1) : group_close_op();
            (0, 1, _, _, _) : group_hit_op();
        }
        const default_action = no_op();
        size = 8;
    }

    // A SYN, or any packet that claims the slot, starts its direction (and
    // clears the other): what the slot held is a previous connection's. A
    // hit's data segment is checked; a hit's pure ACK leaves both alone
    // (retx stays 0). A claim by a pure ACK stores the sequence number of
    // the next data segment, which then counts as one retransmission.
    // One table per register; only the packet's direction checks, so at
    // most one of the two writes retx.
    @hidden action seq_new_lo_op() { seq_new_lo.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action seq_clr_lo_op() { seq_clr_lo.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action seq_chk_lo_op() { md.bridged.retx = seq_chk_lo.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    AT_STAGE(STAGE_IG_SEQ) @hidden
    table seq_lo_op {
        key = {
            md.track: exact;
            hdr.tcp.isValid(): exact;
            md.trk: ternary;
            hdr.tcp.syn: ternary;
            md.data_pkt: ternary;
            md.dir: ternary;
        }
        actions = { seq_new_lo_op; seq_clr_lo_op; seq_chk_lo_op; no_op; }
        const entries = {
            (1, true, TRK_COLLIDE &&& 0xFFFF, _, _, _) : no_op();
            (1, true, _, 1, _, 0) : seq_new_lo_op();
            (1, true, _, 1, _, 1) : seq_clr_lo_op();
            (1, true, 0 &&& 1, _, _, 0) : seq_new_lo_op();
            (1, true, 0 &&& 1, _, _, 1) : seq_clr_lo_op();
            (1, true, _, _, 1, 0) : seq_chk_lo_op();
        }
        const default_action = no_op();
        size = 8;
    }
    @hidden action seq_new_hi_op() { seq_new_hi.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action seq_clr_hi_op() { seq_clr_hi.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action seq_chk_hi_op() { md.bridged.retx = seq_chk_hi.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden
    table seq_hi_op {
        key = {
            md.track: exact;
            hdr.tcp.isValid(): exact;
            md.trk: ternary;
            hdr.tcp.syn: ternary;
            md.data_pkt: ternary;
            md.dir: ternary;
        }
        actions = { seq_new_hi_op; seq_clr_hi_op; seq_chk_hi_op; no_op; }
        const entries = {
            (1, true, TRK_COLLIDE &&& 0xFFFF, _, _, _) : no_op();
            (1, true, _, 1, _, 1) : seq_new_hi_op();
            (1, true, _, 1, _, 0) : seq_clr_hi_op();
            (1, true, 0 &&& 1, _, _, 1) : seq_new_hi_op();
            (1, true, 0 &&& 1, _, _, 0) : seq_clr_hi_op();
            (1, true, _, _, 1, 1) : seq_chk_hi_op();
        }
        const default_action = no_op();
        size = 8;
    }

    // Untracked: not TCP, or its slot is held by another flow (the group
    // stays GROUP_ANT, the parser's default).
    @hidden action count_not_tcp() { untracked.count(UNTRACKED_NOT_TCP); }
    @hidden action count_collision() { untracked.count(UNTRACKED_COLLISION); }
    @hidden
    table untracked_count {
        key = {
            md.track: exact;
            hdr.tcp.isValid(): exact;
            md.trk: exact;
        }
        actions = { count_not_tcp; count_collision; no_op; }
        const entries = {
            (1, false, TRK_COLLIDE) : count_not_tcp();
            (1, true, TRK_COLLIDE) : count_collision();
        }
        const default_action = no_op();
        size = 2;
    }

    @hidden action group_mouse() { md.bridged.group = GROUP_MOUSE; }
    // A slice write is one ALU operation; bits 7:5 stay 0 (parser default).
    @hidden action group_stored() { md.bridged.group[4:0] = md.fg_old[4:0]; }
    AT_STAGE(STAGE_IG_GROUP + 1) @hidden
    table group_set {
        key = {
            md.bridged.tracked: exact;
            md.bridged.flow_new: exact;
        }
        actions = { group_mouse; group_stored; no_op; }
        const entries = {
            (1, 1) : group_mouse();
            (1, 0) : group_stored();
        }
        const default_action = no_op();
        size = 2;
    }

    @hidden action dl_start_op() { md.bridged.interval_end = dl_start.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action dl_check_op() { md.bridged.interval_end = dl_check.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action pure_ack_op() { md.bridged.interval_end = INTERVAL_ACK; }
    @hidden action dl_restart_op() {
        dl_start.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
        md.bridged.interval_end = INTERVAL_RESTART;
    }
    // A pure ACK of a known flow neither ends its interval nor counts in it
    // (pkts_op / bytes_op have no entry for INTERVAL_ACK); a flow's first
    // packet starts the interval whatever it is, and the packet completing
    // the handshake sample (usually the handshake's pure ACK) restarts it.
    AT_STAGE(STAGE_IG_DEADLINE) @hidden
    table deadline_op {
        key = {
            md.bridged.tracked: exact;
            md.bridged.flow_new: exact;
            md.restart: ternary;
            md.data_pkt: ternary;
        }
        actions = { dl_start_op; dl_check_op; pure_ack_op; dl_restart_op; no_op; }
        const entries = {
            (1, 1, _, _) : dl_start_op();
            (1, 0, 1, _) : dl_restart_op();
            (1, 0, _, 1) : dl_check_op();
            (1, 0, _, 0) : pure_ack_op();
        }
        const default_action = no_op();
        size = 4;
    }

    @hidden action pkts_end_op() { md.bridged.int_pkts = pkts_end.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action pkts_inc_op() { pkts_inc.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    AT_STAGE(STAGE_IG_COUNT) @hidden
    table pkts_op {
        key = {
            md.bridged.tracked: exact;
            md.bridged.interval_end: exact;
        }
        actions = { pkts_end_op; pkts_inc_op; no_op; }
        const entries = {
            (1, 1) : pkts_end_op();
            (1, INTERVAL_RESTART) : pkts_end_op();
            (1, 0) : pkts_inc_op();
        }
        const default_action = no_op();
        size = 4;
    }
    @hidden action bytes_end_op() { md.bridged.int_bytes = bytes_end.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action bytes_inc_op() { bytes_inc.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    AT_STAGE(STAGE_IG_COUNT) @hidden
    table bytes_op {
        key = {
            md.bridged.tracked: exact;
            md.bridged.interval_end: exact;
        }
        actions = { bytes_end_op; bytes_inc_op; no_op; }
        const entries = {
            (1, 1) : bytes_end_op();
            (1, INTERVAL_RESTART) : bytes_end_op();
            (1, 0) : bytes_inc_op();
        }
        const default_action = no_op();
        size = 4;
    }
    // The interval's retransmission run, restarted where pkts_op restarts
    // the count (flow start, handshake restart). A pure ACK carries retx 0
    // and has no entry, as in pkts_op.
    @hidden action retx_reset_op() { retx_reset.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action retx_pkt_op() { retx_pkt.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    @hidden action retx_end_op() { md.bridged.int_retx = retx_end.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]); }
    AT_STAGE(STAGE_IG_COUNT) @hidden
    table retx_op {
        key = {
            md.bridged.tracked: exact;
            md.bridged.flow_new: exact;
            md.bridged.interval_end: exact;
        }
        actions = { retx_reset_op; retx_pkt_op; retx_end_op; no_op; }
        const entries = {
            (1, 1, 1) : retx_reset_op();
            (1, 0, INTERVAL_RESTART) : retx_reset_op();
            (1, 0, 1) : retx_end_op();
            (1, 0, 0) : retx_pkt_op();
        }
        const default_action = no_op();
        size = 4;
    }

    // Flat on purpose (see IngressPipe): every table or if/else below fits
    // one stage and reads only what earlier statements computed.
    apply {
        symmetric();
        // The packet's direction (md.dir, parser default 0): 1 from the
        // higher IP, or, between equal IPs, from the higher port. The
        // symmetric tuple takes its IP and port minima apart, so (ip_lo,
        // port_lo) need not be one end; this tells the two ends apart
        // unless both IPs and both ports are equal.
        if (hdr.ipv4.src_addr != md.ip_lo) {
            md.dir = 1;
        } else if (hdr.ipv4.src_addr == hdr.ipv4.dst_addr && md.l4_sport != md.port_lo) {
            md.dir = 1;
        }
        // The slot of a group update is in the update; every other packet
        // is hashed (cheaper than a gateway in front of the hash).
        if (md.is_update == 1) {
            md.bridged.flow_idx = hdr.update.flow_idx;
        } else {
            hash_idx();
        }
        hash_sig();
        stale_syn_time();
        // Group decided by the egress classifier (IngressPipe checked the
        // port); egress sends the word ready to store. Otherwise fg_new is
        // the parser's "new mouse, port unknown".
        if (md.is_update == 1) {
            md.fg_new = hdr.update.fg;
        }
        AT_STAGE(STAGE_IG_SIG) {
            if (md.track == 1 && hdr.tcp.isValid()) {
                md.trk = sig_check.execute(md.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
            }
        }
        AT_STAGE(0) {
            if (hdr.tcp.ack == 1 && hdr.tcp.syn == 0 && hdr.tcp.fin == 0 && hdr.tcp.rst == 0) {
                pure_ack.apply();
            }
        }
        rtt_op.apply();
        if (md.track == 1) {
            md.slot = (bit<8>)md.sig[7:0] & CCFAIR_SLOT_MASK;
        }
        untracked_count.apply();
        seq_lo_op.apply();   // after pure_ack: keyed on data_pkt
        seq_hi_op.apply();
        group_op.apply();
        // Pins: bf-p4c places tables with slack as late as it can, and these
        // feed the pinned register stages.
        AT_STAGE(STAGE_IG_RTT + 1) {
            rtt_fix.apply();
        }
        interval_floor.apply();
        group_set.apply();
        deadline_op.apply();
        pkts_op.apply();
        bytes_op.apply();
        retx_op.apply();
    }
}
