// SPDX-License-Identifier: Apache-2.0
// Table and register sizes. Flow-table sizes come from params/ccfair.json
// (targets.profiles.*.flows_per_pipe); the rest are local to the program.
#ifndef CCFAIR_SIZE_P4
#define CCFAIR_SIZE_P4

#ifdef CCFAIR_PROFILE_TOFINO2
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_TOFINO2
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_TOFINO2
#else
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_TOFINO
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_TOFINO
#endif

#define PORT_TABLE_SIZE     512
#define ACL_TABLE_SIZE      256
#define MY_STATION_SIZE     64
#define ROUTING_V4_SIZE     16384
#define L2_EXACT_SIZE       16384
#define QUEUE_MAP_SIZE      8192
#define RTT_BAND_SIZE       64
#define TVF_TABLE_SIZE      8192
#define AQM_CFG_SIZE        4096
#define NUM_QUEUE_INDEX     (1 << (7 + QID_BITS))
#define NUM_PG_INDEX        16384
#define UNTRACKED_SIZE      4

#endif
