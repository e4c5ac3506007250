// SPDX-License-Identifier: Apache-2.0
// Per-flow tracking at edge ports (v1model port of tna/control/flow_tracker.p4:
// read that file for the design). Each TNA RegisterAction becomes an action
// that reads, computes and writes the register cell; the internal tables
// that pick a RegisterAction become if/else on the same conditions. A pair
// register (sig_pair_t) is one bit<32> cell, first member in the high half.
control FlowTracker(inout headers_t hdr,
                    inout ingress_metadata_t md) {
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_sig;       // sig ++ seen
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_rtt;
    register<int<32>, bit<32>>(FLOW_TABLE_SIZE) flow_deadline;
    register<bit<16>, bit<32>>(FLOW_TABLE_SIZE) flow_pkts;
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_bytes;
    register<bit<16>, bit<32>>(FLOW_TABLE_SIZE) flow_group;
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_seq_lo;   // md.dir 0
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_seq_hi;   // md.dir 1
    register<bit<16>, bit<32>>(FLOW_TABLE_SIZE) flow_retx;     // lo(8) ++ hi(8)
    counter<bit<32>>(UNTRACKED_SIZE, CounterType.packets) untracked;

    bit<FLOW_IDX_BITS> idx;

    // sig_check: claim an empty / expired slot (trk = now16, even), a hit
    // (trk = now16 - 1, odd) or a collision (trk = 0, nothing written).
    action sig_check() {
        bit<32> v;
        flow_sig.read(v, (bit<32>)idx);
        bit<16> sig = v[31:16];
        bit<16> seen = v[15:0];
        if (md.now16 - seen > CCFAIR_EXPIRE_UNITS) {
            flow_sig.write((bit<32>)idx, md.sig ++ md.now16);
            md.trk = md.now16;
        } else if (sig == md.sig) {
            flow_sig.write((bit<32>)idx, sig ++ (md.now16 - 1));
            md.trk = md.now16 - 1;
        } else {
            md.trk = TRK_COLLIDE;
        }
    }

    action rtt_syn() {
        flow_rtt.write((bit<32>)idx, md.ts_pend);
        md.rtt_raw = 0;
    }
    action rtt_read() {
        flow_rtt.read(md.rtt_raw, (bit<32>)idx);
    }
    // TNA rtt_claim: a claim without a SYN clears a pending SYN time older
    // than max_rtt_us (defect 9); outputs the value before the update
    action rtt_claim() {
        bit<32> v;
        flow_rtt.read(v, (bit<32>)idx);
        md.rtt_raw = v;
        if (v >= RTT_PENDING && md.ts_pend - CCFAIR_RTT_MAX_UNITS >= v) {
            flow_rtt.write((bit<32>)idx, 32w0);
        }
    }
    // outputs the value before the update (TNA rtt_sample)
    action rtt_sample() {
        bit<32> v;
        flow_rtt.read(v, (bit<32>)idx);
        md.rtt_raw = v;
        if (v >= RTT_PENDING) {
            // 0 across a wrap of the pending time (TNA rtt_sample, defect 16)
            flow_rtt.write((bit<32>)idx, md.ts_pend >= v ? md.ts_pend - v : 32w0);
        }
        md.rtt_smp = 1;
        md.ts_2 = md.bridged.ig_ts + md.ts_pend;
    }

    action dl_start() {
        flow_deadline.write((bit<32>)idx, (int<32>)md.deadline);
        md.bridged.interval_end = 1;
    }
    action dl_check() {
        int<32> v;
        flow_deadline.read(v, (bit<32>)idx);
        if (md.ts_s - v >= 0) {
            flow_deadline.write((bit<32>)idx, (int<32>)md.deadline);
            md.bridged.interval_end = 1;
        } else {
            md.bridged.interval_end = 0;
        }
    }

    action pkts_end() {
        flow_pkts.read(md.bridged.int_pkts, (bit<32>)idx);
        flow_pkts.write((bit<32>)idx, md.data_pkt);
    }
    action pkts_inc() {
        bit<16> v;
        flow_pkts.read(v, (bit<32>)idx);
        flow_pkts.write((bit<32>)idx, v |+| md.data_pkt);
    }
    action bytes_end() {
        flow_bytes.read(md.bridged.int_bytes, (bit<32>)idx);
        flow_bytes.write((bit<32>)idx, md.pkt_len32);
    }
    action bytes_inc() {
        bit<32> v;
        flow_bytes.read(v, (bit<32>)idx);
        flow_bytes.write((bit<32>)idx, v + md.pkt_len32);
    }

    // TNA seq_*: per direction the highest sequence number a data segment
    // carried (0: none); retx = 1 for one not above it
    action seq_new_lo() { flow_seq_lo.write((bit<32>)idx, hdr.tcp.seq_no); }
    action seq_clr_lo() { flow_seq_lo.write((bit<32>)idx, 0); }
    action seq_chk_lo() {
        bit<32> v;
        flow_seq_lo.read(v, (bit<32>)idx);
        if (v == 0 || (int<32>)(hdr.tcp.seq_no - v) > 0) {
            flow_seq_lo.write((bit<32>)idx, hdr.tcp.seq_no);
            md.bridged.retx = 0;
        } else {
            md.bridged.retx = 1;
        }
    }
    action seq_new_hi() { flow_seq_hi.write((bit<32>)idx, hdr.tcp.seq_no); }
    action seq_clr_hi() { flow_seq_hi.write((bit<32>)idx, 0); }
    action seq_chk_hi() {
        bit<32> v;
        flow_seq_hi.read(v, (bit<32>)idx);
        if (v == 0 || (int<32>)(hdr.tcp.seq_no - v) > 0) {
            flow_seq_hi.write((bit<32>)idx, hdr.tcp.seq_no);
            md.bridged.retx = 0;
        } else {
            md.bridged.retx = 1;
        }
    }

    // TNA retx_*: lo = a retransmission this interval, hi = the run of
    // intervals with one (saturating), output at the interval end
    action retx_reset() { flow_retx.write((bit<32>)idx, md.bridged.retx ++ 8w0); }
    action retx_pkt() {
        bit<16> v;
        flow_retx.read(v, (bit<32>)idx);
        flow_retx.write((bit<32>)idx, (v[15:8] | md.bridged.retx) ++ v[7:0]);
    }
    action retx_end() {
        bit<16> v;
        flow_retx.read(v, (bit<32>)idx);
        bit<8> hi = v[7:0];
        if (v[15:8] != 0) {
            hi = hi |+| 1;
        } else {
            hi = 0;
        }
        flow_retx.write((bit<32>)idx, md.bridged.retx ++ hi);   // the ending packet counts in the next
        md.bridged.int_retx = hi;
    }

    action group_write() {
        flow_group.read(md.fg_old, (bit<32>)idx);
        flow_group.write((bit<32>)idx, md.fg_new);
        md.fg_written = 1;
    }

    action symmetric() {
        md.ip_lo = hdr.ipv4.src_addr < hdr.ipv4.dst_addr ? hdr.ipv4.src_addr : hdr.ipv4.dst_addr;
        md.ip_hi = hdr.ipv4.src_addr < hdr.ipv4.dst_addr ? hdr.ipv4.dst_addr : hdr.ipv4.src_addr;
        // the parser's L4 ports, TCP or UDP (TNA symmetric)
        md.port_lo = md.l4_sport < md.l4_dport ? md.l4_sport : md.l4_dport;
        md.port_hi = md.l4_sport < md.l4_dport ? md.l4_dport : md.l4_sport;
        // TNA md.dir: 1 from the higher IP or, between equal IPs, the higher port
        md.dir = (hdr.ipv4.src_addr > hdr.ipv4.dst_addr ||
                  (hdr.ipv4.src_addr == hdr.ipv4.dst_addr && md.l4_sport > md.l4_dport)) ? 1w1 : 1w0;
    }
    action hash_idx() {
        hash(md.bridged.flow_idx, HashAlgorithm.crc32, 32w0,
             {md.ip_lo, md.ip_hi, md.port_lo, md.port_hi, md.ip_proto}, 64w0x100000000);
    }
    action hash_sig() {
        hash(md.sig, HashAlgorithm.crc16, 16w0,
             {md.port_hi, md.ip_hi, md.port_lo, md.ip_lo}, 32w0x10000);
        md.sig[15:15] = 1;   // stored and compared as TNA's sig_check: CRC16 bits 14:0 + 0x8000
    }

    action use_default_rtt() {
        md.bridged.rtt_us = md.default_rtt_us;
        md.deadline = md.bridged.ig_ts + md.default_rtt_us;
    }
    action use_min_rtt() {
        md.bridged.rtt_us = CCFAIR_RTT_MIN_UNITS;
        md.deadline = md.bridged.ig_ts + CCFAIR_RTT_MIN_UNITS;
    }
    action clamp_rtt() {
        md.bridged.rtt_us = md.rtt_raw < CCFAIR_RTT_MAX_UNITS ? md.rtt_raw : CCFAIR_RTT_MAX_UNITS;
        md.deadline = md.bridged.ig_ts + md.rtt_raw;
    }
    // TNA use_max_rtt: a stored RTT of 2^20 units or more
    action use_max_rtt() {
        md.bridged.rtt_us = CCFAIR_RTT_MAX_UNITS;
        md.deadline = md.bridged.ig_ts + CCFAIR_RTT_MAX_UNITS;
    }
    action use_sample() {   // TNA use_sample: the packet completing the handshake sample
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

    // interval_floor (TNA): an interval RTT below W lasts W (same generated entries)
    action floor_interval() {
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

    action set_pure_ack() { md.data_pkt = 0; md.pkt_len32 = 0; }   // TNA: flow_bytes counts data only
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

    // Statement order is tna/control/flow_tracker.p4's.
    apply {
        symmetric();
        if (md.is_update == 1) {
            md.bridged.flow_idx = hdr.update.flow_idx;
        } else {
            hash_idx();
        }
        hash_sig();
        idx = md.bridged.flow_idx[FLOW_IDX_BITS - 1:0];
        if (md.is_update == 1) {
            md.fg_new = hdr.update.fg;
        }
        if (md.track == 1 && hdr.tcp.isValid()) {
            sig_check();
        }
        // rtt_op: not for a colliding flow (TNA rtt_op)
        if (md.track == 1 && hdr.tcp.isValid() && md.trk != TRK_COLLIDE) {
            if (md.syn_only == 1) {
                rtt_syn();
            } else if (md.trk[0:0] == 0) {
                rtt_claim();
            } else if (md.syn_ack == 1) {
                rtt_read();
            } else {
                rtt_sample();
            }
        }
        if (md.track == 1) {
            md.slot = (bit<8>)md.sig[7:0] & CCFAIR_SLOT_MASK;
        }
        // untracked_count
        if (md.track == 1 && md.trk == TRK_COLLIDE) {
            if (hdr.tcp.isValid()) {
                untracked.count((bit<32>)UNTRACKED_COLLISION);
            } else {
                untracked.count((bit<32>)UNTRACKED_NOT_TCP);
            }
        }
        // group_op: an update, a new flow (new slot or a SYN) or a hit
        if (md.is_update == 1) {
            // TNA group_update: an egress update does not bring a closed slot (0) back
            flow_group.read(md.fg_old, (bit<32>)idx);
            if (md.fg_old[15:15] == 1) {
                flow_group.write((bit<32>)idx, md.fg_new);
            }
            md.fg_written = 1;
        } else if (md.track == 1 && md.trk != TRK_COLLIDE) {
            md.bridged.tracked = 1;
            if (md.trk[0:0] == 0 || md.syn_only == 1) {
                md.bridged.flow_new = 1;
                group_write();
            } else if (md.fin_rst == 1) {
                // TNA group_close: FIN or RST, the flow leaves its group now (update.p4)
                md.fg_new = 0;
                group_write();
            } else {
                flow_group.read(md.fg_old, (bit<32>)idx);
            }
        }
        rtt_fix.apply();
        interval_floor.apply();
        if (hdr.tcp.ack == 1 && hdr.tcp.syn == 0 && hdr.tcp.fin == 0 && hdr.tcp.rst == 0) {
            pure_ack.apply();
        }
        // seq_lo_op, seq_hi_op: a SYN or any packet claiming the slot
        // starts its direction and clears the other, a hit's data segment
        // is checked, a hit's pure ACK leaves both
        if (md.track == 1 && hdr.tcp.isValid() && md.trk != TRK_COLLIDE) {
            if (hdr.tcp.syn == 1 || md.trk[0:0] == 0) {
                if (md.dir == 0) {
                    seq_new_lo();
                    seq_clr_hi();
                } else {
                    seq_new_hi();
                    seq_clr_lo();
                }
            } else if (md.data_pkt == 1) {
                if (md.dir == 0) {
                    seq_chk_lo();
                } else {
                    seq_chk_hi();
                }
            }
        }
        // group_set
        if (md.bridged.tracked == 1) {
            if (md.bridged.flow_new == 1) {
                md.bridged.group = GROUP_MOUSE;
            } else {
                md.bridged.group[4:0] = md.fg_old[4:0];
            }
        }
        // deadline_op, pkts_op, bytes_op: a pure ACK of a known flow neither
        // ends nor counts in its interval (TNA deadline_op)
        if (md.bridged.tracked == 1) {
            if (md.bridged.flow_new == 1) {
                dl_start();
            } else if (md.restart == 1) {
                dl_start();   // the handshake sample: the first interval starts here
                md.bridged.interval_end = INTERVAL_RESTART;
            } else if (md.data_pkt == 1) {
                dl_check();
            } else {
                md.bridged.interval_end = INTERVAL_ACK;
            }
            if (md.bridged.interval_end == 1 || md.bridged.interval_end == INTERVAL_RESTART) {
                pkts_end();
                bytes_end();
            } else if (md.bridged.interval_end == 0) {
                pkts_inc();
                bytes_inc();
            }
            // retx_op: restarted with the flow and at the handshake restart
            if (md.bridged.flow_new == 1 || md.bridged.interval_end == INTERVAL_RESTART) {
                retx_reset();
            } else if (md.bridged.interval_end == 1) {
                retx_end();
            } else if (md.bridged.interval_end == 0) {
                retx_pkt();
            }
        }
    }
}
