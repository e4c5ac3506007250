// SPDX-License-Identifier: Apache-2.0
// Stage pins of the TNA program (bf-p4c @stage); the v1model port has none.
#ifndef CCFAIR_STAGES_P4
#define CCFAIR_STAGES_P4

// Stages of the per-flow registers (flow_tracker.p4, classifier.p4), both
// profiles: left alone, bf-p4c places tables with slack as late as it can
// and fills the first stages with egress registers, pushing the ingress
// chain (signature, group, deadline, counts) behind them. A Tofino 1 stage
// holds about 48 map RAMs: a 64K x 32-bit register takes 17, 64K x 16 takes
// 9. Each pin is the earliest stage the register's inputs allow, but for
// the egress ones below the comment there; bf-p4c warns where it places
// later (p4/RESOURCES.md has the outcome).
#define AT_STAGE(n) @stage(n)
#define STAGE_IG_SIG       2
#define STAGE_IG_RTT       3   // after STAGE_IG_SIG: rtt_op is keyed on its outcome
#define STAGE_IG_GROUP     3
#define STAGE_IG_DEADLINE  5
#define STAGE_IG_COUNT     6
// flow_seq_lo: its inputs allow 3, but 3 and 4 have no map RAMs left; left
// to bf-p4c, both seq tables landed in the counts' stages and pushed retx_op
// to an 11th stage on Tofino 1 (measured). flow_seq_hi follows unpinned.
#define STAGE_IG_SEQ       5
// Egress: the rate label (rate_s_op) first, as the marker and the AQM verdict
// wait on it; flow_rate a stage later. With aggressiveness gone (D11),
// rate_op and rate_s_op both at 2 left bf-p4c unable to place rate_s_op
// before stage 4, and Tofino 2 took 12 stages (measured; 11 with these:
// flow_ignore and flow_family follow flow_rate's `fell`, flow_ss a stage
// after them).
// flow_eg_sig (defects 12 and 13): keyed on egress_op's cls_op (stage 0)
// alone, so stage 1, before every register whose operation it may change.
#define STAGE_EG_SIG       1
#define STAGE_EG_RATE      3
#define STAGE_EG_RATE_S    2
#define STAGE_EG_IGNORE    4
#define STAGE_EG_SS        5
#define STAGE_EG_FAMILY    4

#endif
