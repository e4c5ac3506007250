// SPDX-License-Identifier: Apache-2.0
// Table and register sizes. The flow-table size (FLOW_TABLE_SIZE,
// FLOW_IDX_BITS) comes from params/ccfair.json through the architecture file;
// the rest are local to the program.
#ifndef CCFAIR_SIZE_P4
#define CCFAIR_SIZE_P4

// Routing LPM: Tofino 1 keeps it in TCAM, where 16384 prefixes would take 32
// TCAM blocks (more than a stage has), which the flow state's stages cannot
// spare; the v1model port uses Tofino 1's size so both P4Infos agree.
#ifdef CCFAIR_PROFILE_TOFINO2
#define ROUTING_V4_SIZE     16384
#else
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

#endif
