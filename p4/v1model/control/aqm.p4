// SPDX-License-Identifier: Apache-2.0
// Packet-value AQM per queue (v1model port of tna/control/aqm.p4: read that
// file for the design). BMv2 gives the enqueue depth in packets, not cells,
// and has no register initial value: q_min_depth starts at 0 here (TNA:
// 0xFFFFFFFF), so its running minimum stays 0 (nothing in ccfair reads it).
control Aqm(inout headers_t hdr,
            inout egress_metadata_t md,
            inout standard_metadata_t sm) {
    register<bit<16>, bit<32>>(NUM_QUEUE_INDEX) q_ctv;
    register<bit<16>, bit<32>>(NUM_QUEUE_INDEX) q_ctv_tick;
    register<bit<32>, bit<32>>(NUM_QUEUE_INDEX) q_max_delay;
    register<bit<32>, bit<32>>(NUM_QUEUE_INDEX) q_min_depth;
    counter<bit<32>>(NUM_QUEUE_INDEX, CounterType.packets) q_limit_drops;
    counter<bit<32>>(NUM_DEPTH_HIST_INDEX, CounterType.packets) q_depth_hist;

    action set_depth_bucket(bit<CCFAIR_DEPTH_HIST_BITS> bucket) { md.depth_bucket = bucket; }
    table depth_bucket {
        key = { sm.enq_qdepth: ternary @name("enq_qdepth"); }
        actions = { set_depth_bucket; }
        const entries = {
#include "entries_depth_bucket.p4"
        }
        const default_action = set_depth_bucket((1 << CCFAIR_DEPTH_HIST_BITS) - 1);
    }

    action ctv_tick() {
        bit<16> v;
        q_ctv_tick.read(v, (bit<32>)md.qidx);
        if (v != md.ctv_now) {
            q_ctv_tick.write((bit<32>)md.qidx, md.ctv_now);
            md.ctv_tick = 1;
        } else {
            md.ctv_tick = 0;
        }
    }
    // Steps stay within [ctv_lo, ctv_hi]: ctv_edge / ctv_cross as in TNA.
    action ctv_up() {
        bit<16> v;
        q_ctv.read(v, (bit<32>)md.qidx);
        if (v >= md.ctv_cross) {
            v = md.ctv_edge;
        } else {
            v = v + CCFAIR_AQM_CTV_STEP_UP;
        }
        q_ctv.write((bit<32>)md.qidx, v);
        md.ctv = v;
    }
    action ctv_down() {
        bit<16> v;
        q_ctv.read(v, (bit<32>)md.qidx);
        if (v <= md.ctv_cross) {
            v = md.ctv_edge;
        } else {
            v = v - CCFAIR_AQM_CTV_STEP_DOWN;
        }
        q_ctv.write((bit<32>)md.qidx, v);
        md.ctv = v;
    }
    action max_delay() {
        bit<32> v;
        q_max_delay.read(v, (bit<32>)md.qidx);
        if (md.delay_us > v) {
            q_max_delay.write((bit<32>)md.qidx, md.delay_us);
        }
    }
    action min_depth() {
        bit<32> v;
        q_min_depth.read(v, (bit<32>)md.qidx);
        if (md.depth < v) {
            q_min_depth.write((bit<32>)md.qidx, md.depth);
        }
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

    action queue_delay() { md.delay_us = md.eg_ts - hdr.bridged.ig_ts; }
    // PV verdicts need a standing queue: sojourn << aqm.pv_gate_shift > target.
    // The sojourn is scaled, not the target: this needs no aqm_cfg result, so
    // the verdict is not a stage later (a shifted target cost Tofino 1 its
    // 11th stage, measured with bf-p4c).
    action queue_delay_scaled() { md.delay_sc = md.delay_us << CCFAIR_AQM_PV_GATE_SHIFT; }
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

    action pass() { }
    action limit_drop() {
        md.drop = 1;
        q_limit_drops.count((bit<32>)md.qidx);
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
        const default_action = pass();
        size = 16;
    }

    apply {
        md.qidx = md.stats_idx[6:0] ++ hdr.bridged.qid[QID_BITS - 1:0];
        md.depth = (bit<32>)sm.enq_qdepth;
        aqm_cfg.apply();
        queue_delay();
        queue_delay_scaled();
        delay_excess();
        md.depth_over = md.depth |-| md.limit_cells;
        if (md.on == 1) {
            max_delay();
            min_depth();
        }
        depth_bucket.apply();
        if (md.on == 1) {
            q_depth_hist.count((bit<32>)(md.qidx ++ md.depth_bucket));
            ctv_tick();
        }
        if (md.delay_over != 0) {
            ctv_edge_for_up();
        } else {
            ctv_edge_for_down();
        }
        // ctv_op
        if (md.on == 1) {
            if (md.ctv_tick == 1) {
                if (md.delay_over == 0) {
                    ctv_down();
                } else {
                    ctv_up();
                }
            } else {
                q_ctv.read(md.ctv, (bit<32>)md.qidx);
            }
        }
        md.pv_below = md.ctv |-| hdr.shim.pv;
        if (md.on == 1) {
            aqm_verdict.apply();
        }
    }
}
