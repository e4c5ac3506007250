// SPDX-License-Identifier: Apache-2.0
// v1model architecture (BMv2 simple_switch_grpc) and the architecture-specific
// types and constants that shared/define.p4 builds on. Sizes and widths follow
// the Tofino 1 profile so that both P4Infos agree (p4/check_port.py).
#ifndef CCFAIR_DEFINE_V1MODEL_P4
#define CCFAIR_DEFINE_V1MODEL_P4

#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

#include "params.p4"
#include "ccfair_gen.p4"

#define CCFAIR_PROFILE_BMV2

// A plain 9-bit port: PI (BMv2's P4Runtime server) does not implement
// @p4runtime_translation, so P4Runtime carries device ports here.
typedef bit<9> FabPortId_t;
typedef bit<10> MirrorId_t;

const PortId_t CPU_PORT = CCFAIR_CPU_PORT_BMV2;
#define QID_BITS 5
#define FLOW_TABLE_SIZE CCFAIR_FLOWS_PER_PIPE_BMV2
#define FLOW_IDX_BITS   CCFAIR_FLOW_IDX_BITS_BMV2

// BMv2's drop port: an egress_spec nobody wrote means "no unicast copy", as an
// unset ucast_egress_port on Tofino.
const PortId_t DROP_PORT = 511;

// standard_metadata.instance_type values of simple_switch.
const bit<32> INSTANCE_INGRESS_CLONE = 1;
const bit<32> INSTANCE_EGRESS_CLONE = 2;
const bit<32> INSTANCE_RECIRC = 4;

const bit<3> MIRROR_TYPE_UPDATE = 1;
const bit<3> DIGEST_TYPE_RECLASS = 1;

// Field lists preserved by clone_preserving_field_list / recirculate.
#define FL_UPDATE 1
#define FL_RECIRC 2
#define FL_CPU 3

// TNA's intrinsic metadata for the traffic manager and the deparsers, kept so
// the controls read as their TNA originals; IngressPipe / EgressPipe turn
// them into standard_metadata, clones and digests at the end.
struct ig_tm_md_t {
    PortId_t ucast_egress_port;
    bit<1>   copy_to_cpu;
    bit<8>   qid;
}
struct ig_dprsr_md_t {
    bit<3> drop_ctl;
    bit<3> digest_type;
}
struct eg_dprsr_md_t {
    bit<3> drop_ctl;
    bit<3> mirror_type;
}

#endif
