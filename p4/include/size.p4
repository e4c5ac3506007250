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
#define NUM_PG_INDEX        16384
#define UNTRACKED_SIZE      4

// Target stages of the per-flow registers on Tofino 1 (classifier.p4,
// flow_tracker.p4, marker.p4, aqm.p4). A stage holds about two 64K x 32-bit
// registers; this plan keeps ingress (2-5) and egress (3-8) within that. On
// this revision Tofino 1 still needs 20 stages: blocks that follow each
// other in program order are placed one after the other, so bf-p4c warns
// that it cannot honour most pins (p4/RESOURCES.md, next step). Tofino 2
// (20 stages) is left to the compiler.
#ifdef CCFAIR_PROFILE_TOFINO2
#define AT_STAGE(n)
#else
#define AT_STAGE(n) @stage(n)
#endif
#define STAGE_IG_SIG       2
#define STAGE_IG_RTT       2
#define STAGE_IG_GROUP     3
#define STAGE_IG_DEADLINE  4
#define STAGE_IG_COUNT     5
#define STAGE_EG_RATE      3
#define STAGE_EG_QMAX      3
#define STAGE_EG_BWEST     4
#define STAGE_EG_SS        6
#define STAGE_EG_AGGR      6
#define STAGE_EG_FAMILY    8
#define STAGE_EG_RND       1
#define STAGE_EG_LOG_U     2
#define STAGE_EG_POS       4
#define STAGE_EG_TVF       5
#define STAGE_EG_CTV_TICK  3
#define STAGE_EG_CTV       4
#define STAGE_EG_PV_BELOW  6
#define STAGE_EG_VERDICT   7

#endif
