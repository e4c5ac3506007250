# SPDX-License-Identifier: Apache-2.0
"""
Every P4 object the PTF tests use, with the widths they rely on.

Transcribed from the control-plane contract in docs/dataplane.md. The tests
reach the switch only through these names (base_test refuses others), and
``make test`` checks each one, with its widths, against the committed P4Info
of both profiles (checks/test_p4info_crosscheck.py), so a rename or a width
change in the P4 program fails here before anyone reaches a tofino-model.

Widths: PORT marks a PortId (9-bit device port) carried in P4Runtime as a
32-bit SDN port through @p4runtime_translation("tna/PortId_t", 32).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from ccfair import params as _P  # noqa: E402

PORT = "PortId"
PORT_SDN_BITS = 32
PORT_URI = "tna/PortId_t"

IG, EG = "IngressPipe", "EgressPipe"

# table -> keys {name: (match type, width)}, the actions the tests use
TABLES = {
    IG + ".port_cfg.port_cfg": {
        "keys": {"ig_port": ("EXACT", PORT)},
        "actions": [IG + ".port_cfg.set_edge_port", IG + ".port_cfg.set_fabric_port"],
    },
    IG + ".acl.acl": {
        "keys": {"ig_port": ("TERNARY", PORT), "eth_src": ("TERNARY", 48), "eth_dst": ("TERNARY", 48),
                 "eth_type": ("TERNARY", 16), "ip_proto": ("TERNARY", 8), "l4_sport": ("TERNARY", 16),
                 "l4_dport": ("TERNARY", 16)},
        "actions": [IG + ".acl.punt_to_cpu", IG + ".acl.copy_to_cpu", IG + ".acl.drop", IG + ".acl.nop"],
    },
    IG + ".forwarding.my_station": {
        "keys": {"eth_dst": ("EXACT", 48)},
        "actions": [IG + ".forwarding.set_routed"],
    },
    IG + ".forwarding.routing_v4": {
        "keys": {"ipv4_dst": ("LPM", 32)},
        "actions": [IG + ".forwarding.route", IG + ".forwarding.drop"],
    },
    IG + ".forwarding.l2_exact": {
        "keys": {"eth_dst": ("EXACT", 48)},
        "actions": [IG + ".forwarding.set_egress_port", IG + ".forwarding.drop"],
    },
    IG + ".eg_port_idx.eg_port_idx": {
        "keys": {"eg_port": ("EXACT", PORT)},
        "actions": [IG + ".eg_port_idx.set_stats_idx"],
    },
    IG + ".queueing.queue_map": {
        "keys": {"eg_port": ("EXACT", PORT), "group": ("EXACT", 8), "slot": ("EXACT", 8)},
        "actions": [IG + ".queueing.set_queue"],
    },
    EG + ".port_cfg.port_cfg": {
        "keys": {"eg_port": ("EXACT", PORT)},
        "actions": [EG + ".port_cfg.set_port_cfg"],
    },
    EG + ".classifier.rtt_band": {
        "keys": {"rtt_us": ("RANGE", 20)},
        "actions": [EG + ".classifier.set_rtt_band"],
    },
    EG + ".marker.tvf": {
        "keys": {"tvf_profile": ("EXACT", 8), "group": ("EXACT", 8), "rate_bin": ("EXACT", 8)},
        "actions": [EG + ".marker.set_pv"],
    },
    EG + ".aqm.aqm_cfg": {
        "keys": {"eg_port": ("EXACT", PORT), "qid": ("EXACT", 8)},
        "actions": [EG + ".aqm.set_aqm"],
    },
}

# action -> {param: width}
ACTIONS = {
    IG + ".port_cfg.set_edge_port": {"default_rtt_us": 32},
    IG + ".port_cfg.set_fabric_port": {},
    IG + ".acl.punt_to_cpu": {},
    IG + ".acl.copy_to_cpu": {},
    IG + ".acl.drop": {},
    IG + ".acl.nop": {},
    IG + ".forwarding.set_routed": {},
    IG + ".forwarding.route": {"port": PORT, "smac": 48, "dmac": 48},
    IG + ".forwarding.set_egress_port": {"port": PORT},
    IG + ".forwarding.drop": {},
    IG + ".eg_port_idx.set_stats_idx": {"stats_idx": 9},
    IG + ".queueing.set_queue": {"qid": 8},
    EG + ".port_cfg.set_port_cfg": {"role": 8, "tvf_profile": 8, "fair_rate_bin": 8, "ant_max_pkts": 16,
                                    "m_m": 8, "ss_drop": 8, "family_forget": 8, "stats_idx": 9},
    EG + ".classifier.set_rtt_band": {"band": 8},
    EG + ".marker.set_pv": {"pv": 16},
    EG + ".aqm.set_aqm": {"target_delay_us": 32, "limit_cells": 32, "ecn": 8, "ctv_lo": 16, "ctv_hi": 16},
}

# register -> width
REGISTERS = {
    EG + ".aqm.q_ctv": 16,
    EG + ".aqm.q_ctv_tick": 16,
    EG + ".aqm.q_max_delay": 32,
    EG + ".aqm.q_min_depth": 32,
    IG + ".flow_tracker.flow_sig": 32,
    IG + ".flow_tracker.flow_rtt": 32,
    IG + ".flow_tracker.flow_deadline": 32,
    IG + ".flow_tracker.flow_pkts": 16,
    IG + ".flow_tracker.flow_bytes": 32,
    IG + ".flow_tracker.flow_group": 16,
    # per direction (lo: md.dir 0, from the lower IP, between equal IPs the lower port; hi: the other),
    # the highest seq of its data segments (0: none yet)
    IG + ".flow_tracker.flow_seq_lo": 32,
    IG + ".flow_tracker.flow_seq_hi": 32,
    IG + ".flow_tracker.flow_retx": 16,
    EG + ".classifier.flow_rate": 16,  # signed: interval rate in 1/64 decade (4 per TVF rate bin)
    EG + ".classifier.flow_rate_s": 32,
    EG + ".classifier.flow_ignore": 8,  # the loss-ignoring count
    EG + ".classifier.flow_ss": 32,
    # back-offs: 0, 1 delay-based; 2 + 4n loss-based, n = clean interval ends in a row when the port's
    # family_forget is on (0 <= n < classifier.family_forget_intervals; else 2 only). Bit 1 is the family.
    EG + ".classifier.flow_family": 8,
    # the 8 flow-hash bits above the index (define.p4 EG_SIG) of the flow egress last saw in the slot
    EG + ".classifier.flow_eg_sig": 8,
}

# registers whose cells are structs: members in order, (name, width); reads return them as a list
REGISTER_FIELDS = {
    IG + ".flow_tracker.flow_sig": [("sig", 16), ("seen", 16)],
    # lo: a retransmission in the current interval; hi: intervals in a row with one (the run)
    IG + ".flow_tracker.flow_retx": [("lo", 8), ("hi", 8)],
    # lo: last interval's log rate (0xFFFF: none yet); hi: lo + the one before (twice the marker's label)
    EG + ".classifier.flow_rate_s": [("lo", 16), ("hi", 16)],
    # lo: previous interval's data packets + 1 (0: fair BDP reached); hi: slow-start state (0 active)
    EG + ".classifier.flow_ss": [("lo", 16), ("hi", 16)],
}

# indirect counter -> unit (P4Info CounterSpec.Unit name)
COUNTERS = {
    IG + ".flow_tracker.untracked": "PACKETS",
    IG + ".update.pg_flow_enter": "PACKETS",
    IG + ".update.pg_flow_leave": "PACKETS",
    EG + ".telemetry.pg_pkts": "BOTH",
    EG + ".telemetry.pg_drops": "PACKETS",
    EG + ".telemetry.pg_marks": "PACKETS",
    EG + ".aqm.q_limit_drops": "PACKETS",
    EG + ".aqm.q_depth_hist": "PACKETS",
}

DIRECT_COUNTERS = {IG + ".acl.acl_counter": IG + ".acl.acl"}

# digest -> [(field, width)] in order
DIGESTS = {
    "reclass_digest_t": [("flow_id", 32), ("stats_idx", 16), ("old_group", 8), ("new_group", 8)],
}

# @controller_header -> [(field, width)]
CONTROLLER_HEADERS = {
    "packet_in": [("ingress_port", PORT), ("_pad0", 7)],
    "packet_out": [("_pad0", 7), ("egress_port", PORT)],
}

# Indices of per-(port, group) and per-queue externs (docs/dataplane.md, "Port stats index"): a
# port's cells are at the stats index the controller wrote into its port configuration
# (EgressPipe.port_cfg and IngressPipe.eg_port_idx), never at its port number.
UNTRACKED_COLLISION, UNTRACKED_NOT_TCP = 0, 1
QUEUE_SHIFT = {"tofino": 5, "tofino2": 7, "bmv2": 5}  # QID_BITS of p4/tna/define_tna.p4, p4/v1model/define_v1model.p4
STATS_INDICES = _P.load()["ports"]["stats_indices"]  # a controller deals 0..STATS_INDICES-1
STATS_INDEX_UNCONFIGURED = _P.load()["ports"]["stats_index_unconfigured"]  # a port without port_cfg


def pg_index(stats_idx, group):
    return (stats_idx << 5) | group


def queue_index(profile, stats_idx, qid):
    return ((stats_idx & 0x7F) << QUEUE_SHIFT[profile]) | qid


# From the params file, as the P4 program's histogram size (p4/gen_tables.py).
DEPTH_HIST_BUCKETS = _P.load()["cocoa"]["depth_hist_buckets"]
_DEPTH_HIST_BITS = DEPTH_HIST_BUCKETS.bit_length() - 1


def depth_hist_index(profile, stats_idx, qid, bucket):
    return (queue_index(profile, stats_idx, qid) << _DEPTH_HIST_BITS) | bucket


# -- used by base_test and the cross-check ------------------------------------------------
KIND_TABLES = {"table": TABLES, "action": ACTIONS, "register": REGISTERS, "counter": COUNTERS,
               "direct_counter": DIRECT_COUNTERS, "digest": DIGESTS,
               "controller_packet_metadata": CONTROLLER_HEADERS}


class ContractError(LookupError):
    pass


def require(kind, name):
    """`name` if the contract declares it; the tests use no P4 object the cross-check has not seen."""
    if name not in KIND_TABLES[kind]:
        raise ContractError("%s %r is not in ptf-tests/lib/contract.py; add it there (from docs/dataplane.md) "
                            "so make test cross-checks it against the P4Info" % (kind, name))
    return name
