// SPDX-License-Identifier: Apache-2.0
// Egress half of the classifier (v1model port of tna/control/classifier.p4:
// read that file for the design). Each RegisterAction becomes an action that
// reads, computes and writes the cell; the internal tables that pick one by
// md.cls_op become if/else. Pair registers are one cell, first member (lo)
// in the high half. An output a TNA RegisterAction leaves unassigned is 0.
control Classifier(inout headers_t hdr,
                   inout egress_metadata_t md,
                   inout standard_metadata_t sm,
                   inout eg_dprsr_md_t eg_dprsr_md) {
    register<int<16>, bit<32>>(FLOW_TABLE_SIZE) flow_rate;
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_rate_s;   // lo(16) ++ hi(16)
    register<bit<8>, bit<32>>(FLOW_TABLE_SIZE) flow_ignore;    // the loss-ignoring count
    register<bit<32>, bit<32>>(FLOW_TABLE_SIZE) flow_ss;       // lo(16) ++ hi(16)
    register<bit<8>, bit<32>>(FLOW_TABLE_SIZE) flow_family;
    register<bit<8>, bit<32>>(FLOW_TABLE_SIZE) flow_eg_sig;     // EG_SIG of the slot's flow (defects 12, 13)
    register<bit<16>, bit<32>>(1) update_limiter;

    bit<32> idx;

    action set_log_bytes(bit<16> log_b) { md.log_b = log_b; }
    table log_bytes {
        key = { hdr.bridged.int_bytes: ternary @name("bytes"); }
        actions = { set_log_bytes; }
        const entries = {
#include "entries_log_bytes.p4"
        }
        const default_action = set_log_bytes(0);
    }
    // log of max(RTT, W): the same generated entries as TNA
    action set_log_rtt(bit<16> log_r) { md.log_r = log_r; }
    table log_rtt {
        key = { hdr.bridged.rtt_us: ternary @name("rtt_us_log"); }
        actions = { set_log_rtt; }
        const entries = {
#include "entries_log_rtt.p4"
        }
        const default_action = set_log_rtt(0);
    }
    action set_rtt_band(bit<8> band) { md.band = band; }
    table rtt_band {
        key = { hdr.bridged.rtt_us[19:0]: range @name("rtt_us"); }
        actions = { set_rtt_band; }
        default_action = set_rtt_band(0);
        size = RTT_BAND_SIZE;
    }

    action interval_rate() {
        md.lrate = md.log_b |-| md.log_r;
        md.fair_fine = md.fair_fine << CCFAIR_FINE_SHIFT;
        md.m_m1 = md.m_m1 - 1;
        md.sparse_gap = hdr.bridged.int_pkts |-| md.ant_max_pkts;
    }
    action interval_gaps() {
        md.bdp_gap = md.fair_fine |-| md.lrate;
    }

    action rate_label() { md.lr_pv = md.lr_sum >> 1; }   // TNA rate_label

    action set_group(group_t group) { md.new_group = group; }
    table group_of {
        key = {
            md.sparse_gap: ternary;
            md.ss_state: ternary;
            md.t_mm: ternary;
            md.family: ternary;
            md.band: ternary;
        }
        actions = { set_group; }
        const entries = {
#include "entries_group_of.p4"
        }
        const default_action = set_group(GROUP_ANT);
    }

    // --- egress signature (TNA eg_sig_claim / eg_sig_pkt / eg_sig_end): a
    // CLS_NEW packet stores EG_SIG; a CLS_PKT or CLS_END packet that finds
    // another flow's stores its own and runs as CLS_NEW
    action eg_sig_claim() { flow_eg_sig.write(idx, EG_SIG); }
    action eg_sig_check() {
        bit<8> v;
        flow_eg_sig.read(v, idx);
        if (v != EG_SIG) {
            flow_eg_sig.write(idx, EG_SIG);
            md.cls_op = CLS_NEW;
        }
    }

    // --- rate: reset, interval end (fell = 1: down by FALL_FINE or more)
    action rate_reset() { flow_rate.write(idx, 0); }
    action rate_end() {
        int<16> v;
        flow_rate.read(v, idx);
        if (v - (int<16>)md.lrate >= CCFAIR_FALL_FINE) {
            md.fell = 1;
        } else {
            md.fell = 0;
        }
        flow_rate.write(idx, (int<16>)md.lrate);
    }

    // --- rate label (TNA rate_s_*): lo = last interval's log rate (RATE_S_NONE
    // after a reset), hi = lo + the one before (twice the average; 16-bit,
    // never wraps: lrate <= ~802); the label is hi >> 1
    action rate_s_reset() { flow_rate_s.write(idx, RATE_S_NONE ++ 16w0); }
    action rate_s_read() {
        bit<32> v;
        flow_rate_s.read(v, idx);
        md.lr_sum = v[15:0];
    }
    action rate_s_end() {
        bit<32> v;
        flow_rate_s.read(v, idx);
        bit<16> hi;
#if CCFAIR_RATE_SMOOTH_INTERVALS == 2
        if (v[31:16] == RATE_S_NONE) {
            hi = md.lrate[14:0] ++ 1w0;
        } else {
            hi = v[31:16] + md.lrate;
        }
#else
        hi = md.lrate[14:0] ++ 1w0;
#endif
        flow_rate_s.write(idx, md.lrate ++ hi);
        md.lr_sum = hi;
    }

    // the loss-ignoring count (TNA ign_*; ignore_op picks one as the if-chain below)
    action ign_reset() { flow_ignore.write(idx, 0); }
    action ign_down() {
        bit<8> v;
        flow_ignore.read(v, idx);
        if (v != 0) {
            v = v - 1;
        }
        flow_ignore.write(idx, v);
        md.ign = v;
    }
    action ign_up() {
        bit<8> v;
        flow_ignore.read(v, idx);
        v = v |+| CCFAIR_CLASSIFIER_IGNORE_UP;
        flow_ignore.write(idx, v);
        md.ign = v;
    }
    action ign_read() {
        flow_ignore.read(md.ign, idx);
    }

    // lo = previous interval's packets, hi = slow-start state (the output)
    // lo = 1 at the start, ss_in = packets + 1 (0: fair BDP reached): see the TNA ss_end
    action ss_reset() { flow_ss.write(idx, 16w1 ++ SS_ACTIVE); }
    action ss_end() {
        bit<32> v;
        flow_ss.read(v, idx);
        bit<16> lo = v[31:16];
        bit<16> hi = v[15:0];
        md.ss_state = 0;
        if (hi == SS_ACTIVE) {
            if (md.ss_in < lo) {
                hi = SS_ENDED_NOW;
                md.ss_state = hi;
            }
        } else {
            hi = SS_DONE;
            md.ss_state = hi;
        }
        flow_ss.write(idx, md.ss_in ++ hi);
    }

    // sticky: delay (0, then 1) until the rate has fallen in two intervals
    // with a retransmission, then loss (2 + 4n, n = clean interval ends in a
    // row where family_forget is not 0; forgets one back-off after M) (TNA
    // family_loss / family_dirty / family_clean, D16, D19)
    action family_reset() { flow_family.write(idx, FLOW_FAMILY_DELAY); }
    action family_loss() {
        flow_family.read(md.family, idx);
        if (md.family < FLOW_FAMILY_LOSS) {
            md.family = md.family + 1;
        } else {
            md.family = FLOW_FAMILY_LOSS;
        }
        flow_family.write(idx, md.family);
    }
    action family_dirty() {
        flow_family.read(md.family, idx);
        if (md.family >= FLOW_FAMILY_LOSS) {
            md.family = FLOW_FAMILY_LOSS;
        }
        flow_family.write(idx, md.family);
    }
    action family_clean() {
        flow_family.read(md.family, idx);
        if (md.family >= FLOW_FAMILY_FORGET_AT) {
            md.family = 1;
        } else if (md.family >= FLOW_FAMILY_LOSS) {
            md.family = md.family + 4;
        }
        flow_family.write(idx, md.family);
    }

    action update_allow() {
        bit<16> v;
        update_limiter.read(v, 0);
        if (v != md.update_tick) {
            update_limiter.write(0, md.update_tick);
            md.upd_ok = 1;
        } else {
            md.upd_ok = 0;
        }
    }

    // Statement order is tna/control/classifier.p4's.
    apply {
        idx = (bit<32>)hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0];
        log_bytes.apply();
        log_rtt.apply();
        rtt_band.apply();
        interval_rate();
        interval_gaps();
        if (md.cls_op == CLS_NEW) {
            eg_sig_claim();
        } else if (md.cls_op == CLS_PKT || md.cls_op == CLS_END) {
            eg_sig_check();
        }
        if (md.cls_op == CLS_PKT) {
            rate_s_read();
        } else if (md.cls_op == CLS_NEW) {
            rate_reset();
            rate_s_reset();
        } else if (md.cls_op == CLS_END) {
            rate_end();
            rate_s_end();
        }
        rate_label();
        if (md.bdp_gap == 0) {
            md.ss_in = 0;
        } else {
            md.ss_in = hdr.bridged.int_pkts |+| 1;   // >= 1: 0 means "fair BDP reached"
        }
        if (md.cls_op == CLS_NEW) {
            ign_reset();
            md.ign = 0;
            ss_reset();
        } else if (md.cls_op == CLS_END) {
            // A flow queued model-based where family_forget is set does not read
            // the fall (D20; TNA ignore_op's generated rows)
            bool keep_on_fall = md.family_forget != 0 && hdr.bridged.group >= CCFAIR_FIRST_MODEL_GROUP
                                && hdr.bridged.group <= CCFAIR_LAST_MODEL_GROUP;
            // Loss-ignoring count and the family: cleared for a mouse, held
            // for an ant, both classify with 0 (TNA ignore_op, family_op)
            if (hdr.bridged.group == GROUP_MOUSE) {
                ign_reset();
                md.ign = 0;
            } else if (hdr.bridged.group == GROUP_ANT) {
                md.ign = 0;
            } else if (hdr.bridged.int_retx == 0 || (md.fell == 1 && !keep_on_fall)) {
                ign_down();     // an interval without a retransmission, or a back-off (D15)
            } else if (hdr.bridged.int_retx >= CCFAIR_RETX_RUN) {
                ign_up();       // fell is 0 here, or not read (D20)
            } else {
                ign_read();
            }
            if (hdr.bridged.group == GROUP_ANT) {
                md.ss_state = SS_ACTIVE;   // an ant holds its slow-start state (TNA ss_op)
            } else {
                ss_end();
            }
        }
        md.t_mm = md.ign |-| md.m_m1;
        if (md.cls_op == CLS_NEW) {
            family_reset();
        } else if (md.cls_op == CLS_END && hdr.bridged.group == GROUP_MOUSE) {
            family_reset();
            md.family = 0;
        } else if (md.cls_op == CLS_END && hdr.bridged.group == GROUP_ANT) {
            md.family = 0;
        } else if (md.cls_op == CLS_END && md.fell == 1 && hdr.bridged.int_retx != 0) {
            family_loss();
        } else if (md.cls_op == CLS_END && hdr.bridged.int_retx == 0 && md.family_forget != 0) {
            family_clean();
        } else if (md.cls_op == CLS_END) {
            family_dirty();
        }
        if (md.cls_op == CLS_END) {
            group_of.apply();
        }
        if (md.cls_op == CLS_END && md.ss_state == SS_ENDED_NOW &&
                md.bdp_gap == 0 && md.ss_drop_en != 0) {
            md.ss_drop = 1;
        }
        if (md.cls_op == CLS_END && md.new_group != hdr.bridged.group) {
            update_allow();
        }
        if (md.upd_ok == 1) {
            eg_dprsr_md.mirror_type = MIRROR_TYPE_UPDATE;
            md.mirror_flow_idx = hdr.bridged.flow_idx;
            md.mirror_bmd_type = BMD_MIRROR_UPDATE;
            md.mirror_fg = 2w2 ++ md.stats_idx ++ md.new_group[4:0];
        }
    }
}
