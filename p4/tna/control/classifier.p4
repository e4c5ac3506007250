// SPDX-License-Identifier: Apache-2.0
// Egress half of the classifier (P4air), run for tracked flows of this
// switch's edge ports. Per packet: the marker's rate label. At the end of an
// interval: the interval rate (log domain: log bytes - log max(RTT,
// flow.min_interval_us)), the rate label (average of the last two intervals'
// rates), loss-ignoring intervals (retransmission runs the rate does not back
// off from), slow-start end (packets per interval fall or the fair BDP is
// reached), the sticky family (loss-based once the rate fell in two intervals
// with a retransmission; forgotten after M clean intervals where the port
// says so, D19), then the group (const table generated from the
// params group layout). A group that differs from the one ingress queued the
// packet as is sent to ingress by a
// truncated mirror copy (at most UPDATE rate per pipe; retried at the next
// interval end if suppressed).
// The flow's egress state is guarded by a signature byte (flow_eg_sig,
// docs/algorithm.md defects 12 and 13): a packet whose slot holds another
// flow's runs as CLS_NEW.
struct pair16_t {
    bit<16> lo;
    bit<16> hi;
}

control Classifier(inout egress_headers_t hdr,
                   inout egress_metadata_t md,
                   in egress_intrinsic_metadata_t eg_intr_md,
                   inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Register<int<16>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_rate;
    Register<pair16_t, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_rate_s;
    Register<bit<8>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_ignore;
    Register<pair16_t, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_ss;
    Register<bit<8>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_family;
    Register<bit<8>, bit<FLOW_IDX_BITS>>(FLOW_TABLE_SIZE) flow_eg_sig;
    Register<bit<16>, bit<1>>(1) update_limiter;
    // The update's group word (flow_tracker.p4: flow_group) through the hash
    // unit: a constant and two PHV fields are too many sources for one ALU.
    Hash<bit<16>>(HashAlgorithm_t.IDENTITY) fg_hash;

    // --- logarithms (const, generated): fine units, FINE_PER_DECADE per decade
    action set_log_bytes(bit<16> log_b) { md.log_b = log_b; }
    table log_bytes {
        key = { hdr.bridged.int_bytes: ternary @name("bytes"); }
        actions = { set_log_bytes; }
        const entries = {
#include "entries_log_bytes.p4"
        }
        const default_action = set_log_bytes(0);
    }
    // The interval's divisor: log of max(RTT, flow.min_interval_us), as the
    // interval lasts (flow_tracker's interval_floor): every RTT below W's
    // bucket gets W's bucket's value (p4/gen_tables.py). rtt_band keeps the
    // raw RTT.
    action set_log_rtt(bit<16> log_r) { md.log_r = log_r; }
    table log_rtt {
        key = { hdr.bridged.rtt_us: ternary @name("rtt_us_log"); }  // const; rtt_band has "rtt_us"
        actions = { set_log_rtt; }
        const entries = {
#include "entries_log_rtt.p4"
        }
        const default_action = set_log_rtt(0);
    }

    // --- RTT band = sub-group of the delay and loss families
    action set_rtt_band(bit<8> band) { md.band = band; }
    // A range key may span at most 5 nibbles on Tofino: 20 bits hold every
    // clamped RTT (max_rtt_us in 2^10 ns units).
#if CCFAIR_RTT_MAX_UNITS >= (1 << 20)
#error "max_rtt_us too large for the 20-bit rtt_band key"
#endif
    table rtt_band {
        key = { hdr.bridged.rtt_us[19:0]: range @name("rtt_us"); }
        actions = { set_rtt_band; }
        default_action = set_rtt_band(0);
        size = RTT_BAND_SIZE;
    }

    // --- egress signature (defects 12 and 13): the slot's owner as egress
    // knows it, EG_SIG (define.p4: CRC32 bits above the index, bridged with
    // flow_idx). Ingress checks its 15-bit signature, but egress registers
    // exist once per egress pipe and are written by flows of every ingress
    // pipe, and the reset of a new occupant (CLS_NEW) rides on one packet,
    // which ingress may drop after the claim. So the first egress register
    // stage compares: a CLS_NEW packet stores its signature; a CLS_PKT or
    // CLS_END packet that finds another one stores its own and turns into
    // CLS_NEW (its output is the operation the rest of the classifier runs).
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<2>>(flow_eg_sig) eg_sig_claim = {
        void apply(inout bit<8> v) {
            v = EG_SIG;
        }
    };
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<2>>(flow_eg_sig) eg_sig_pkt = {
        void apply(inout bit<8> v, out bit<2> rv) {
            if (v == EG_SIG) {
                rv = CLS_PKT;
            } else {
                v = EG_SIG;
                rv = CLS_NEW;
            }
        }
    };
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<2>>(flow_eg_sig) eg_sig_end = {
        void apply(inout bit<8> v, out bit<2> rv) {
            if (v == EG_SIG) {
                rv = CLS_END;
            } else {
                v = EG_SIG;
                rv = CLS_NEW;
            }
        }
    };

    // --- rate of the finished interval; 1 if it fell to 1 - 2^-fall_shift of
    // the previous one or below (x0.866 as FALL_FINE log units). Signed: the
    // rates are logarithms, a difference is a ratio.
    RegisterAction<int<16>, bit<FLOW_IDX_BITS>, bit<8>>(flow_rate) rate_end = {
        void apply(inout int<16> v, out bit<8> rv) {
            if (v - (int<16>)md.lrate >= CCFAIR_FALL_FINE) {
                rv = 1;
            } else {
                rv = 0;
            }
            v = (int<16>)md.lrate;
        }
    };
    RegisterAction<int<16>, bit<FLOW_IDX_BITS>, int<16>>(flow_rate) rate_reset = {
        void apply(inout int<16> v) {
            v = 0;
        }
    };

    // --- rate label for the marker (classifier.rate_smooth_intervals 2): the
    // average of the last two intervals' log rates, kept as their sum.
    // lo = the last interval's log rate (RATE_S_NONE: none since the flow
    // (re)started, so the first interval end averages its rate with itself),
    // hi = lo + the one before = twice the label; the marker halves it.
    // Not an EWMA: a stateful ALU can neither shift nor scale its memory word,
    // so no decaying average fits (bf-p4c verdicts in docs/dataplane.md).
    // flow_rate stays the raw rate the fall test compares. lrate <= ~802, so the sum
    // never wraps and lrate[14:0] ++ 0 is 2 * lrate (an input-crossbar
    // expression: no PHV field).
    RegisterAction<pair16_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_rate_s) rate_s_end = {
        void apply(inout pair16_t v, out bit<16> rv) {
#if CCFAIR_RATE_SMOOTH_INTERVALS == 2
            if (v.lo == RATE_S_NONE) {
                v.hi = md.lrate[14:0] ++ 1w0;
            } else {
                v.hi = v.lo + md.lrate;
            }
#else
            v.hi = md.lrate[14:0] ++ 1w0;
#endif
            v.lo = md.lrate;
            rv = v.hi;
        }
    };
    RegisterAction<pair16_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_rate_s) rate_s_read = {
        void apply(inout pair16_t v, out bit<16> rv) {
            rv = v.hi;
        }
    };
    // Label 0 (the lowest rate bin) until the first interval end, as before.
    RegisterAction<pair16_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_rate_s) rate_s_reset = {
        void apply(inout pair16_t v) {
            v.lo = RATE_S_NONE;
            v.hi = 0;
        }
    };

    // The loss-ignoring count (model-based at m_m): an interval end of a flow
    // that retransmitted in classifier.retx_run intervals in a row and whose
    // rate did not fall adds classifier.ignore_up (ign_up); a fall (a back-off)
    // or an interval without a retransmission takes one off (ign_down), so a
    // flow stays model-based only while it keeps losing without backing off
    // (D15). A shorter run without a fall keeps it (ign_read); ignore_op
    // decides which, so no RegisterAction needs a PHV operand. Where port_cfg's
    // family_forget is set (the isolated layout) a flow queued model-based does
    // not read the fall (D20): in its own queue BBR's rate falls with its
    // probing and the other queues' backlog (DWRR), not as a back-off.
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_ignore) ign_reset = {
        void apply(inout bit<8> v) {
            v = 0;
        }
    };
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_ignore) ign_down = {
        void apply(inout bit<8> v, out bit<8> rv) {
            if (v != 0) {
                v = v - 1;
            }
            rv = v;
        }
    };
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_ignore) ign_up = {
        void apply(inout bit<8> v, out bit<8> rv) {
            v = v |+| CCFAIR_CLASSIFIER_IGNORE_UP;
            rv = v;
        }
    };
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_ignore) ign_read = {
        void apply(inout bit<8> v, out bit<8> rv) {
            rv = v;
        }
    };

    // lo = previous interval's packets (0 once the fair BDP was reached),
    // hi = slow-start state, which is also the output: SS_ACTIVE (0),
    // SS_ENDED_NOW (ended at this interval end), SS_DONE (ended before).
    // The output is the written hi half (no ALU is free for constants).
    // ss_in is the interval's data packets + 1, or 0 once the fair BDP is
    // reached; a new flow starts with lo = 1, so reaching the fair BDP ends
    // slow start in the first interval too (with lo = 0 it never could), and
    // an interval without data packets (1) never reads as "packets fell".
    RegisterAction<pair16_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_ss) ss_end = {
        void apply(inout pair16_t v, out bit<16> rv) {
            if (v.hi == SS_ACTIVE) {
                if (md.ss_in < v.lo) {
                    v.hi = SS_ENDED_NOW;
                    rv = v.hi;
                }
            } else {
                v.hi = SS_DONE;
                rv = v.hi;
            }
            v.lo = md.ss_in;
        }
    };
    RegisterAction<pair16_t, bit<FLOW_IDX_BITS>, bit<16>>(flow_ss) ss_reset = {
        void apply(inout pair16_t v) {
            v.lo = 1;
            v.hi = SS_ACTIVE;
        }
    };


    // Sticky while long-lived: delay (0, then 1) until the flow's rate has
    // fallen (rate_end) in two intervals with a retransmission (bridged
    // int_retx != 0) -- it backed off after a loss twice -- then loss (2)
    // (docs/algorithm.md D11, D16). Where port_cfg's family_forget is 1, a
    // loss-based flow counts its interval ends in a row without a
    // retransmission (2 + 4n, define.p4) and after M of them forgets one
    // back-off (1): a delay-based flow that lost its class in the drops that
    // end slow start gets it back (D19). group_of reads bit 1. Four
    // RegisterActions (Tofino's maximum), each returning the new value;
    // family_op picks one, so none needs more than two conditions.
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_family) family_reset = {
        void apply(inout bit<8> v) {
            v = FLOW_FAMILY_DELAY;
        }
    };
    // A back-off: one more, or a loss-based flow's run restarts.
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_family) family_loss = {
        void apply(inout bit<8> v, out bit<8> rv) {
            if (v < FLOW_FAMILY_LOSS) {
                v = v + 1;
            } else {
                v = FLOW_FAMILY_LOSS;
            }
            rv = v;
        }
    };
    // An interval end with a retransmission but no back-off: the run
    // restarts. Without forgetting v never exceeds 2 and this is a read.
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_family) family_dirty = {
        void apply(inout bit<8> v, out bit<8> rv) {
            if (v >= FLOW_FAMILY_LOSS) {
                v = FLOW_FAMILY_LOSS;
            }
            rv = v;
        }
    };
    // A clean interval end (forgetting on): the M-th in a row forgets one
    // back-off, an earlier one adds to the run; delay-based values stay.
    RegisterAction<bit<8>, bit<FLOW_IDX_BITS>, bit<8>>(flow_family) family_clean = {
        void apply(inout bit<8> v, out bit<8> rv) {
            if (v >= FLOW_FAMILY_FORGET_AT) {
                v = 1;
            } else if (v >= FLOW_FAMILY_LOSS) {
                v = v + 4;
            }
            rv = v;
        }
    };

    RegisterAction<bit<16>, bit<1>, bit<1>>(update_limiter) update_allow = {
        void apply(inout bit<16> v, out bit<1> rv) {
            if (v != md.update_tick) {
                v = md.update_tick;
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };

    // Separate actions, not one statement list: bf-p4c would copy-propagate
    // the first results into the next and need two ALU stages in one action.
    action interval_rate() {
        md.lrate = md.log_b |-| md.log_r;
        // Port thresholds as loaded raw by port_cfg: the fair rate in fine
        // units, and minus one, as "x >= m" is "x |-| (m - 1) != 0".
        md.fair_fine = md.fair_fine << CCFAIR_FINE_SHIFT;
        md.m_m1 = md.m_m1 - 1;
        md.sparse_gap = hdr.bridged.int_pkts |-| md.ant_max_pkts;
    }
    action interval_gaps() {
        md.bdp_gap = md.fair_fine |-| md.lrate;
    }

    // The marker's rate label: half of flow_rate_s's sum (lr_sum is 0 for a
    // packet without a flow). An action of its own: inlined into the marker's
    // subtraction it would be two ALU operations in one action.
    action rate_label() { md.lr_pv = md.lr_sum >> 1; }

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

    // One internal table per register, its action chosen by md.cls_op: a
    // single logical table instead of one per if/else arm (Tofino 1 has 16
    // per stage for both gresses, and they ran out before the memory did).
    // eg_sig_op first: it may turn md.cls_op into CLS_NEW for every table
    // after it (and for group_of, the slow-start drop and the update).
    @hidden action eg_sig_claim_op() {
        eg_sig_claim.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action eg_sig_pkt_op() {
        md.cls_op = eg_sig_pkt.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action eg_sig_end_op() {
        md.cls_op = eg_sig_end.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    AT_STAGE(STAGE_EG_SIG) @hidden
    table eg_sig_op {
        key = { md.cls_op: exact; }
        actions = { eg_sig_claim_op; eg_sig_pkt_op; eg_sig_end_op; no_op; }
        const entries = {
            CLS_NEW : eg_sig_claim_op();
            CLS_PKT : eg_sig_pkt_op();
            CLS_END : eg_sig_end_op();
        }
        const default_action = no_op();
        size = 4;
    }
    @hidden action rate_reset_op() {
        rate_reset.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action rate_end_op() {
        md.fell = rate_end.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    AT_STAGE(STAGE_EG_RATE) @hidden
    table rate_op {
        key = { md.cls_op: exact; }
        actions = { rate_reset_op; rate_end_op; no_op; }
        const entries = {
            CLS_NEW : rate_reset_op();
            CLS_END : rate_end_op();
        }
        const default_action = no_op();
        size = 4;
    }
    @hidden action rate_s_reset_op() {
        rate_s_reset.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action rate_s_read_op() {
        md.lr_sum = rate_s_read.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action rate_s_end_op() {
        md.lr_sum = rate_s_end.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    AT_STAGE(STAGE_EG_RATE_S) @hidden
    table rate_s_op {
        key = { md.cls_op: exact; }
        actions = { rate_s_reset_op; rate_s_read_op; rate_s_end_op; no_op; }
        const entries = {
            CLS_NEW : rate_s_reset_op();
            CLS_PKT : rate_s_read_op();
            CLS_END : rate_s_end_op();
        }
        const default_action = no_op();
        size = 4;
    }
    // Loss-ignoring and the family describe a long-lived flow: a
    // flow queued as a mouse keeps them at their reset values (clear), one
    // queued as an ant leaves them alone (hold), both classify with them at
    // 0, so a flow that leaves slow start starts delay-based with no history
    // (P4air; the model counts them for long-lived groups only).
    // A new flow and a mouse's interval end: both reset (and classify with 0).
    @hidden action ign_reset_op() {
        ign_reset.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
        md.ign = 0;
    }
    @hidden action ign_hold_op() { md.ign = 0; }
    @hidden action ign_down_op() {
        md.ign = ign_down.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action ign_up_op() {
        md.ign = ign_up.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action ign_read_op() {
        md.ign = ign_read.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    AT_STAGE(STAGE_EG_IGNORE) @hidden
    table ignore_op {
        key = {
            md.cls_op: exact;
            hdr.bridged.group: ternary;
            md.fell: ternary;
            hdr.bridged.int_retx: range;
            md.family_forget: ternary;
        }
        actions = { ign_reset_op; ign_hold_op; ign_down_op; ign_up_op; ign_read_op; no_op; }
        // First match wins: a clean interval end takes one off; a fall takes
        // one off too, but for a flow queued model-based where family_forget
        // is set, whose fall is not read (generated rows: a run >= retx_run
        // adds, a shorter one reads); a run >= retx_run without a fall adds;
        // the rest read.
        const entries = {
            (CLS_NEW, _, _, _, _) : ign_reset_op();
            (CLS_END, GROUP_MOUSE, _, _, _) : ign_reset_op();
            (CLS_END, GROUP_ANT, _, _, _) : ign_hold_op();
            (CLS_END, _, _, 0 .. 0, _) : ign_down_op();
            (CLS_END, _, 1, _, 0) : ign_down_op();
#include "entries_ignore_model.p4"       // model-based groups (generated by p4/gen_tables.py)
            (CLS_END, _, 1, _, _) : ign_down_op();
            (CLS_END, _, 0, CCFAIR_RETX_RUN .. 255, _) : ign_up_op();
            (CLS_END, _, _, _, _) : ign_read_op();
        }
        const default_action = no_op();
        size = 24;
    }
    @hidden action ss_reset_op() {
        ss_reset.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action ss_end_op() {
        md.ss_state = ss_end.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action ss_hold_op() { md.ss_state = SS_ACTIVE; }
    // An ant (queued as one) holds its slow-start state: sparse intervals say
    // nothing about slow start, and an ant that sends more becomes a mouse
    // again (group_of), as in the model.
    AT_STAGE(STAGE_EG_SS) @hidden
    table ss_op {
        key = {
            md.cls_op: exact;
            hdr.bridged.group: ternary;
        }
        actions = { ss_reset_op; ss_end_op; ss_hold_op; no_op; }
        const entries = {
            (CLS_NEW, _) : ss_reset_op();
            (CLS_END, GROUP_ANT) : ss_hold_op();
            (CLS_END, _) : ss_end_op();
        }
        const default_action = no_op();
        size = 4;
    }
    @hidden action family_reset_op() {
        family_reset.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action family_clear_op() {
        family_reset.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
        md.family = 0;
    }
    @hidden action family_hold_op() { md.family = 0; }
    @hidden action family_loss_op() {
        md.family = family_loss.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action family_clean_op() {
        md.family = family_clean.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    @hidden action family_dirty_op() {
        md.family = family_dirty.execute(hdr.bridged.flow_idx[FLOW_IDX_BITS - 1:0]);
    }
    // A back-off needs a retransmission in the interval, a clean end none,
    // so the two never overlap; family_forget 0 leaves every other end to
    // family_dirty, and any other value turns forgetting on, as ss_drop's
    // does the slow-start drop (D19).
    AT_STAGE(STAGE_EG_FAMILY) @hidden
    table family_op {
        key = {
            md.cls_op: exact;
            hdr.bridged.group: ternary;
            md.fell: ternary;
            hdr.bridged.int_retx: range;
            md.family_forget: ternary;
        }
        actions = {
            family_reset_op; family_clear_op; family_hold_op; family_loss_op;
            family_clean_op; family_dirty_op; no_op;
        }
        const entries = {
            (CLS_NEW, _, _, _, _) : family_reset_op();
            (CLS_END, GROUP_MOUSE, _, _, _) : family_clear_op();
            (CLS_END, GROUP_ANT, _, _, _) : family_hold_op();
            (CLS_END, _, 1, 1 .. 255, _) : family_loss_op();
            (CLS_END, _, _, _, 0) : family_dirty_op();
            (CLS_END, _, _, 0 .. 0, _) : family_clean_op();
            (CLS_END, _, _, _, _) : family_dirty_op();
        }
        const default_action = no_op();
        size = 8;
    }

    // Flat (see IngressPipe): the register operations are chosen by
    // md.cls_op; the rest runs on every packet and is used only at an
    // interval end.
    apply {
        log_bytes.apply();
        log_rtt.apply();
        rtt_band.apply();
        interval_rate();
        interval_gaps();
        eg_sig_op.apply();
        rate_op.apply();
        rate_s_op.apply();
        rate_label();
        if (md.bdp_gap == 0) {
            md.ss_in = 0;
        } else {
            md.ss_in = hdr.bridged.int_pkts |+| 1;   // >= 1: 0 means "fair BDP reached"
        }
        ignore_op.apply();
        ss_op.apply();
        md.t_mm = md.ign |-| md.m_m1;
        family_op.apply();
        if (md.cls_op == CLS_END) {
            group_of.apply();
        }
        // P4air: one deliberate drop when slow start ends at the fair BDP.
        if (md.cls_op == CLS_END && md.ss_state == SS_ENDED_NOW &&
                md.bdp_gap == 0 && md.ss_drop_en != 0) {
            md.ss_drop = 1;
        }
        if (md.cls_op == CLS_END && md.new_group != hdr.bridged.group) {
            md.upd_ok = update_allow.execute(0);
        }
        if (md.upd_ok == 1) {
            eg_dprsr_md.mirror_type = MIRROR_TYPE_UPDATE;
            md.mirror_flow_idx = hdr.bridged.flow_idx;
            md.mirror_bmd_type = BMD_MIRROR_UPDATE;
        }
        // Its own action: a keyless table cannot combine hash output with the
        // action data the constants above need (bf-p4c, Tofino 2).
        if (md.upd_ok == 1) {
            md.mirror_fg = fg_hash.get({2w2, md.stats_idx, md.new_group[4:0]});
        }
    }
}
