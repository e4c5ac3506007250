// SPDX-License-Identifier: Apache-2.0
// TNA / T2NA architecture, profile selection and the architecture-specific
// types and constants that shared/define.p4 builds on.
#ifndef CCFAIR_DEFINE_TNA_P4
#define CCFAIR_DEFINE_TNA_P4

#include <core.p4>
// bf-p4c defines __TARGET_TOFINO__ (1 or 2) from --target.
#if __TARGET_TOFINO__ == 2
#include <t2na.p4>
#define CCFAIR_PROFILE_TOFINO2
#else
#include <tna.p4>
#endif

#include "params.p4"
#include "ccfair_gen.p4"

// Ports as SDN ports in P4Runtime (Stratum translates them).
@p4runtime_translation("tna/PortId_t", 32)
type bit<9> FabPortId_t;

#ifdef CCFAIR_PROFILE_TOFINO2
const PortId_t CPU_PORT = CCFAIR_CPU_PORT_TOFINO2;
const bit<7> RECIRC_PORT_LOCAL = CCFAIR_UPDATE_RECIRC_PORT_TOFINO2;
#define QID_BITS 7
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_TOFINO2
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_TOFINO2
#else
const PortId_t CPU_PORT = CCFAIR_CPU_PORT_TOFINO;
const bit<7> RECIRC_PORT_LOCAL = CCFAIR_UPDATE_RECIRC_PORT_TOFINO;
#define QID_BITS 5
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_TOFINO
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_TOFINO
#endif

const MirrorType_t MIRROR_TYPE_UPDATE = 1;
const DigestType_t DIGEST_TYPE_RECLASS = 1;

#endif
