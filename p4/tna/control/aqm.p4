// SPDX-License-Identifier: Apache-2.0
// Packet-value AQM per queue (CSAQM), on every switch: the queue's congestion
// threshold value (CTV) steps up while the queuing delay is above the
// controller-set target and down below it, once per CTV period; a packet with
// PV < CTV is dropped, or CE-marked if ECN-capable and the queue allows ECN:
// every such packet, as CSFQ's drop law wants (a per-flow one-drop-per-interval
// token forgave most candidates, and BBR ignores one loss per RTT); only a
// retransmission the ingress edge saw (bridged retx) of a flow that is not
// model-based passes instead.
// The Cocoa buffer limit (controller-computed) is enforced here too.
control Aqm(inout egress_headers_t hdr,
            inout egress_metadata_t md,
            in egress_intrinsic_metadata_t eg_intr_md) {
    Register<bit<16>, qidx_t>(NUM_QUEUE_INDEX) q_ctv;
    Register<bit<16>, qidx_t>(NUM_QUEUE_INDEX) q_ctv_tick;
    Register<bit<32>, qidx_t>(NUM_QUEUE_INDEX) q_max_delay;
    Register<bit<32>, qidx_t>(NUM_QUEUE_INDEX, 0xFFFFFFFF) q_min_depth;
    Counter<bit<32>, qidx_t>(NUM_QUEUE_INDEX, CounterType_t.PACKETS) q_limit_drops;
    // Enqueue-depth histogram per queue, for the controller's Cocoa loop:
    // the lowest bucket that grew during a loss-free interval bounds the
    // standing queue (ONOS 2.7 reads counters, not registers).
    Counter<bit<32>, hidx_t>(NUM_DEPTH_HIST_INDEX, CounterType_t.PACKETS) q_depth_hist;

    action set_depth_bucket(bit<CCFAIR_DEPTH_HIST_BITS> bucket) { md.depth_bucket = bucket; }
    table depth_bucket {
        key = { eg_intr_md.enq_qdepth: ternary @name("enq_qdepth"); }
        actions = { set_depth_bucket; }
        const entries = {
#include "entries_depth_bucket.p4"
        }
        const default_action = set_depth_bucket((1 << CCFAIR_DEPTH_HIST_BITS) - 1);
    }

    RegisterAction<bit<16>, qidx_t, bit<1>>(q_ctv_tick) ctv_tick = {
        void apply(inout bit<16> v, out bit<1> rv) {
            if (v != md.ctv_now) {
                v = md.ctv_now;
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };
    // Steps stay within the controller's range [ctv_lo, ctv_hi] (aqm_cfg):
    // unbounded, the CTV winds up whenever every flow is near its share and
    // the delay is still above target, and starves them all
    // (docs/eval-model.md, tuning 5). A stateful ALU takes two PHV operands
    // for all its actions, so ctv_edge_for_up / _down load the edge the step
    // goes toward (ctv_edge) and where a step would cross it (ctv_cross).
    RegisterAction<bit<16>, qidx_t, bit<16>>(q_ctv) ctv_up = {
        void apply(inout bit<16> v, out bit<16> rv) {
            if (v >= md.ctv_cross) {
                v = md.ctv_edge;
            } else {
                v = v + CCFAIR_AQM_CTV_STEP_UP;
            }
            rv = v;
        }
    };
    RegisterAction<bit<16>, qidx_t, bit<16>>(q_ctv) ctv_down = {
        void apply(inout bit<16> v, out bit<16> rv) {
            if (v <= md.ctv_cross) {
                v = md.ctv_edge;
            } else {
                v = v - CCFAIR_AQM_CTV_STEP_DOWN;
            }
            rv = v;
        }
    };
    RegisterAction<bit<16>, qidx_t, bit<16>>(q_ctv) ctv_read = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
        }
    };
    RegisterAction<bit<32>, qidx_t, bit<32>>(q_max_delay) max_delay = {
        void apply(inout bit<32> v) {
            if (md.delay_us > v) {
                v = md.delay_us;
            }
        }
    };
    RegisterAction<bit<32>, qidx_t, bit<32>>(q_min_depth) min_depth = {
        void apply(inout bit<32> v) {
            if (md.depth < v) {
                v = md.depth;
            }
        }
    };

    // Once per period the CTV steps up while the delay exceeds the target,
    // down otherwise; an internal table picks the RegisterAction (one
    // logical table instead of one per branch).
    @hidden action ctv_up_op() { md.ctv = ctv_up.execute(md.qidx); }
    @hidden action ctv_down_op() { md.ctv = ctv_down.execute(md.qidx); }
    @hidden action ctv_read_op() { md.ctv = ctv_read.execute(md.qidx); }
    @hidden
    table ctv_op {
        key = {
            md.on: exact;
            md.ctv_tick: exact;
            md.delay_over: ternary;
        }
        actions = { ctv_up_op; ctv_down_op; ctv_read_op; no_op; }
        const entries = {
            (1, 1, 0) : ctv_down_op();
            (1, 1, _) : ctv_up_op();
            (1, 0, _) : ctv_read_op();
        }
        const default_action = no_op();
        size = 4;
    }

    action set_aqm(bit<32> target_delay_us, bit<32> limit_cells, bit<8> ecn, bit<16> ctv_lo, bit<16> ctv_hi) {
        md.target_delay = target_delay_us;
        md.limit_cells = limit_cells;
        md.ecn_en = ecn;
        md.ctv_lo = ctv_lo;
        md.ctv_hi = ctv_hi;
    }
    table aqm_cfg {
        key = {
            md.eg_port: exact @name("eg_port");
            hdr.bridged.qid: exact @name("qid");
        }
        actions = { set_aqm; }
        default_action = set_aqm(CCFAIR_AQM_TARGET_DELAY_US, 1 << 19, CCFAIR_AQM_ECN, 0, 0xFFFF);
        size = AQM_CFG_SIZE;
    }

    // Separate actions so the difference is not folded into the saturating
    // subtraction (two ALU stages in one action).
    action queue_delay() { md.delay_us = md.eg_ts - hdr.bridged.ig_ts; }
    // PV verdicts need a standing queue: sojourn << aqm.pv_gate_shift > target.
    // The sojourn is scaled, not the target: this needs no aqm_cfg result, so
    // the verdict is not a stage later (a shifted target cost Tofino 1 its
    // 11th stage, measured with bf-p4c).
    action queue_delay_scaled() { md.delay_sc = md.delay_us << CCFAIR_AQM_PV_GATE_SHIFT; }
    // Not in set_aqm: Tofino cannot add to action data in the action that loads it.
    action ctv_edge_for_up() {
        md.ctv_edge = md.ctv_hi;
        md.ctv_cross = md.ctv_hi |-| CCFAIR_AQM_CTV_STEP_UP;
    }
    action ctv_edge_for_down() {
        md.ctv_edge = md.ctv_lo;
        md.ctv_cross = md.ctv_lo |+| CCFAIR_AQM_CTV_STEP_DOWN;
    }
    action delay_excess() {
        md.delay_over = md.delay_us |-| md.target_delay;
        md.gate_over = md.delay_sc |-| md.target_delay;
    }

    // Verdict as a small ternary table: gateways cannot test the computed
    // 32-bit excess ("condition expression too complex"). First match wins.
    action pass() { }
    action limit_drop() {
        md.drop = 1;
        q_limit_drops.count(md.qidx);
    }
    action pv_drop() { md.drop = 1; }
    action pv_mark() { md.mark = 1; }
    table aqm_verdict {
        key = {
            md.depth_over: ternary;
            md.pv_below: ternary;
            hdr.ipv4.isValid(): ternary;
            hdr.ipv4.ecn: ternary;
            md.ecn_en: ternary;
            md.gate_over: ternary;
            hdr.bridged.retx: ternary;
            hdr.bridged.group: ternary;
        }
        actions = { pass; limit_drop; pv_drop; pv_mark; }
        const entries = {
#include "../../shared/entries/aqm_verdict.p4"
        }
        // An entry, not the default: its counter index needs the hash unit.
        const default_action = pass();
        size = 16;
    }

    apply {
        // The port's stats index (port_cfg), not its device port; 7 bits of
        // it, as the local port before, keep the arrays' size.
        md.qidx = md.stats_idx[6:0] ++ hdr.bridged.qid[QID_BITS - 1:0];
        md.depth = (bit<32>)eg_intr_md.enq_qdepth;
        aqm_cfg.apply();
        queue_delay();
        queue_delay_scaled();
        delay_excess();
        md.depth_over = md.depth |-| md.limit_cells;
        if (md.on == 1) {
            max_delay.execute(md.qidx);
        }
        if (md.on == 1) {
            min_depth.execute(md.qidx);
        }
        depth_bucket.apply();
        if (md.on == 1) {
            q_depth_hist.count(md.qidx ++ md.depth_bucket);
        }
        if (md.on == 1) {
            md.ctv_tick = ctv_tick.execute(md.qidx);
        }
        if (md.delay_over != 0) {
            ctv_edge_for_up();
        } else {
            ctv_edge_for_down();
        }
        ctv_op.apply();
        md.pv_below = md.ctv |-| hdr.shim.pv;
        if (md.on == 1) {
            aqm_verdict.apply();
        }
    }
}
