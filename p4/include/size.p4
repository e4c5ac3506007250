// SPDX-License-Identifier: Apache-2.0
// Table and register sizes. Flow-table sizes come from params/ccfair.json
// (targets.profiles.*.flows_per_pipe); the rest are local to the program.
#ifndef CCFAIR_SIZE_P4
#define CCFAIR_SIZE_P4

#ifdef CCFAIR_PROFILE_TOFINO2
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_TOFINO2
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_TOFINO2
#define ROUTING_V4_SIZE     16384
#else
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_TOFINO
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_TOFINO
// LPM lives in TCAM: 16384 prefixes would take 32 TCAM blocks (more than a
// stage has), which the flow state's stages cannot spare on Tofino 1.
#define ROUTING_V4_SIZE     4096
#endif

#define PORT_TABLE_SIZE     512
#define ACL_TABLE_SIZE      256
#define MY_STATION_SIZE     64
#define L2_EXACT_SIZE       16384
#define QUEUE_MAP_SIZE      8192
#define RTT_BAND_SIZE       64
#define TVF_TABLE_SIZE      8192
#define AQM_CFG_SIZE        4096
#define NUM_QUEUE_INDEX     (1 << (7 + QID_BITS))
#define NUM_DEPTH_HIST_INDEX (NUM_QUEUE_INDEX << CCFAIR_DEPTH_HIST_BITS)
#define NUM_PG_INDEX        16384
#define UNTRACKED_SIZE      4

// Stages of the per-flow registers (flow_tracker.p4, classifier.p4), both
// profiles: left alone, bf-p4c places tables with slack as late as it can
// and fills the first stages with egress registers, pushing the ingress
// chain (signature, group, deadline, counts) behind them. A Tofino 1 stage
// holds about 48 map RAMs: a 64K x 32-bit register takes 17, 64K x 16 takes
// 9. Each pin is the earliest stage the register's inputs allow; bf-p4c
// warns where it places later (p4/RESOURCES.md has the outcome).
#define AT_STAGE(n) @stage(n)
#define STAGE_IG_SIG       2
#define STAGE_IG_RTT       2
#define STAGE_IG_GROUP     3
#define STAGE_IG_DEADLINE  4
#define STAGE_IG_COUNT     5
#define STAGE_EG_QMAX      1
#define STAGE_EG_RATE      2
#define STAGE_EG_AGGR      3
#define STAGE_EG_BWEST     3
#define STAGE_EG_SS        4
#define STAGE_EG_FAMILY    5

#endif
