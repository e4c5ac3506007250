# SPDX-License-Identifier: Apache-2.0
"""The contract check's ONOS 2.7 translation (ptf-tests/contract/translate.py) without a switch:
it refuses what ONOS refuses, sends what ONOS sends, and maps ports and ids onto BMv2 by name.
The switch side runs in `make -C ptf-tests test-contract` (root and BMv2)."""
import os
import sys

import pytest

from conftest import PTF_DIR, REPO

sys.path.insert(0, os.path.join(PTF_DIR, "contract"))
import translate as T  # noqa: E402
from p4info import P4Info  # noqa: E402

ONOS = P4Info.from_file(os.path.join(REPO, "p4", "p4info", "tofino", "p4info.txt"))
BMV2 = P4Info.from_file(os.path.join(REPO, "p4", "p4info", "bmv2", "p4info.txt"))
TR = T.Translator(ONOS, BMV2)


def aqm(qid="00", port="00000003", **params):
    p = {"ecn": "01", "ctv_hi": "ffff", "ctv_lo": "0000", "limit_cells": "0000076c", "target_delay_us": "00001388"}
    p.update(params)
    return {"table": "EgressPipe.aqm.aqm_cfg", "priority": 0,
            "match": [{"field": "eg_port", "kind": "EXACT", "value": port},
                      {"field": "qid", "kind": "EXACT", "value": qid}],
            "action": {"name": "EgressPipe.aqm.set_aqm", "params": [{"name": k, "value": v} for k, v in p.items()]}}


def test_fitted_values_go_out_at_their_byte_width_and_ports_become_device_ports():
    _, te, canon = TR.entry(aqm(qid="0001"))  # one zero byte too wide: ONOS fits it, so do we
    port_id = BMV2.match_field("EgressPipe.aqm.aqm_cfg", "eg_port").id
    by_id = {m.field_id: m.exact.value for m in te.match}
    assert by_id[port_id] == b"\x00\x03"  # 32-bit SDN port 3 -> BMv2's 9-bit device port, 2 bytes
    assert b"\x01" in by_id.values()  # qid: 8 bits, one byte
    assert te.table_id == BMV2.id("table", "EgressPipe.aqm.aqm_cfg") and te.priority == 0
    assert canon[1] == (("eg_port", 3), ("qid", 1))


def test_what_onos_refuses_is_refused_naming_the_rule():
    with pytest.raises(T.ContractError, match=r"qid.*does not fit in 8 bits"):
        TR.entry(aqm(qid="0100"))
    with pytest.raises(T.ContractError, match=r"port 512 is no BMv2 device port"):
        TR.entry(aqm(port="00000200"))
    with pytest.raises(T.ContractError, match=r"table 'EgressPipe.aqm.nope' is not in the P4Info"):
        TR.entry(dict(aqm(), table="EgressPipe.aqm.nope"))
    r = aqm()
    r["action"]["params"].pop()
    with pytest.raises(T.ContractError, match=r"set_aqm: parameters"):
        TR.entry(r)
    r = aqm()
    r["action"]["name"] = "EgressPipe.marker.set_pv"
    with pytest.raises(T.ContractError, match=r"not an action of table EgressPipe.aqm.aqm_cfg"):
        TR.entry(r)
    r = aqm()
    r["match"].pop()
    with pytest.raises(T.ContractError, match=r"no value for exact match field EgressPipe.aqm.aqm_cfg.qid"):
        TR.entry(r)


def test_range_and_ternary_tables_get_priority_plus_one_and_masked_values():
    rng = {"table": "EgressPipe.classifier.rtt_band", "priority": 0,
           "match": [{"field": "rtt_us", "kind": "RANGE", "low": "000000", "high": "004e1f"}],
           "action": {"name": "EgressPipe.classifier.set_rtt_band", "params": [{"name": "band", "value": "00"}]}}
    assert TR.entry(rng)[1].priority == 1
    acl = {"table": "IngressPipe.acl.acl", "priority": 40000,
           "match": [{"field": "eth_type", "kind": "TERNARY", "value": "000088cd", "mask": "0000fff0"}],
           "action": {"name": "IngressPipe.acl.punt_to_cpu", "params": []}}
    _, te, _ = TR.entry(acl)
    assert te.priority == 40001  # value fitted to 16 bits, then ANDed with the mask
    assert (te.match[0].ternary.value, te.match[0].ternary.mask) == (b"\x88\xc0", b"\xff\xf0")


def test_read_back_compares_values_not_byte_strings():
    _, te, canon = TR.entry(aqm())
    te.match[0].exact.value = te.match[0].exact.value.lstrip(b"\x00") or b"\x00"  # a canonical server's answer
    assert TR.canonical(te) == canon


def test_clone_groups_become_sessions_as_onos_builds_them():
    g = {"id": 3, "type": "CLONE", "buckets": [{"outputs": [324], "truncate": 64}]}
    assert T.clone_session(g) == (3, [(324, 0)], 64)
    assert T.clone_session({"id": 1, "type": "CLONE", "buckets": [{"outputs": [5]}, {"outputs": [5]}]}) == \
        (1, [(5, 0), (5, 1)], 0)
    with pytest.raises(T.ContractError, match="CLONE groups only"):
        T.clone_session({"id": 1, "type": "ALL", "buckets": []})


def test_clone_buckets_take_exactly_one_output_and_the_same_truncate():
    """PiReplicationGroupTranslatorImpl (2.7) refuses a bucket without exactly one OUTPUT and a
    bucket that drops the TRUNCATE an earlier bucket had; a later bucket may add one."""
    for outs in ([], [5, 6]):
        with pytest.raises(T.ContractError, match="exactly one per bucket"):
            T.clone_session({"id": 2, "type": "CLONE", "buckets": [{"outputs": outs, "truncate": 64}]})
    with pytest.raises(T.ContractError, match="TRUNCATE instructions must be the same"):
        T.clone_session({"id": 2, "type": "CLONE", "buckets": [{"outputs": [5], "truncate": 64}, {"outputs": [6]}]})
    assert T.clone_session({"id": 2, "type": "CLONE", "buckets": [{"outputs": [5]}, {"outputs": [6], "truncate": 64}]}) \
        == (2, [(5, 0), (6, 0)], 64)
