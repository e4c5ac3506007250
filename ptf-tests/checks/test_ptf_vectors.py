# SPDX-License-Identifier: Apache-2.0
"""The shared test vectors load, validate against their schema, keep their packets clear of
interval boundaries, and translate into a PTF replay; the translation is unit-tested on
crafted vectors. (Running them on the ns-3 model is the model's own suite; on a switch,
tests/test_vectors.py.)"""
import copy
import json
import math
import os
import re

import jsonschema
import pytest

import vectors as V
from conftest import REPO, report
from ccfair import params as P

SCHEMA = os.path.join(V.VECTOR_DIR, "schema.json")
FILES = V.vector_files()
PARAMS = P.load()


def _validator():
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def test_vectors_validate_and_translate():
    if not FILES or not os.path.isfile(SCHEMA):
        report("SKIPPED: test vectors (testdata/vectors/*.json or schema.json missing)")
        pytest.skip("no vectors")
    val = _validator()
    checked = skipped = diverged = 0
    for path in FILES:
        vec = V.load(path)
        errors = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(root)", e.message) for e in val.iter_errors(vec)]
        assert not errors, "%s: %s" % (os.path.relpath(path, REPO), errors)
        assert vec["name"] == os.path.basename(path)[:-5]
        plan = V.translate(vec, PARAMS)
        assert plan.actions, "%s translates to nothing" % vec["name"]
        assert plan.checks or plan.whole_divergence, "%s: the replay checks nothing" % vec["name"]
        checked += plan.checks
        skipped += len(plan.unsupported)
        diverged += len(plan.divergences)
    report("vectors: %d files valid against testdata/vectors/schema.json; the PTF replay on BMv2 checks %d "
           "expectations, %d are not reproducible on a switch and %d follow model rules the P4 program does not have "
           "(each named with its reason by lib/vectors.py; the ns-3 model's suite checks them all)"
           % (len(FILES), checked, skipped, diverged))


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p)[:-5] for p in FILES])
def test_packets_keep_clear_of_interval_boundaries(path):
    """A replay through a software switch moves packets by milliseconds: every packet must be at
    least MARGIN_SHARE of the RTT away from its flow's interval deadline (the program's rule), or
    a few milliseconds of timing noise change which interval it counts in."""
    close = [(p.step, p.j, d, rtt) for p, d, rtt in V.margins(V.load(path), PARAMS) if d < V.MARGIN_SHARE * rtt]
    assert not close, "packets (step, packet, us from the deadline, RTT us) too close to an interval end: %s" % close


def test_divergences_name_existing_vectors():
    names = {V.load(p)["name"] for p in FILES}
    assert set(V.DIVERGENCES) <= names, set(V.DIVERGENCES) - names


A = {"src": "10.0.0.1", "sport": 1, "dst": "10.0.1.1", "dport": 2}
BASE = {
    "name": "t", "description": "crafted", "config": {"default_rtt_us": 10000, "min_interval_us": 5000,
                                                      "fair_rate_bps": 10000000},
    "flows": {"A": A},
    "steps": [
        {"t_us": 0, "flow": "A", "size": 1500, "payload": 1448, "drain": True,
         "expect": {"group": "mouse", "pv": [65535, 65535]}},
        {"t_us": 1000, "flow": "A", "repeat": 3, "every_us": 1000, "drain": True, "size": 1500, "payload": 1448,
         "expect": {"verdict": "enqueued", "group": "mouse"}},
        {"op": "check", "t_us": 5000, "flow": "A", "expect": {"rtt_us": [10000, 10000]}},
        {"op": "set", "t_us": 6000, "queue": "all", "ctv": 5, "fair_rate_bps": 1000000},
        {"op": "tick", "t_us": 7000},
    ],
}


def _plan(vec, scale=10, can_hold=True):
    return V.translate(copy.deepcopy(vec), PARAMS, scale=scale, can_hold=can_hold)


def _bins(x, up=True):
    """`x` rounded to a power of 10^(1/steps_per_decade), as translate rounds its time scale."""
    spd = PARAMS["tvf"]["steps_per_decade"]
    k = spd * math.log10(x)
    return 10 ** ((math.ceil(k - 1e-9) if up else math.floor(k + 1e-9)) / float(spd))


def test_translation_scales_time_rates_and_units():
    plan = _plan(BASE)
    assert plan.scale == 10
    assert plan.default_rtt_units == V.units(100000) == 97656       # 10 ms x 10 in 1.024 us units
    assert plan.aqm["target_delay_units"] == V.units(PARAMS["aqm"]["target_delay_us"] * 10)
    assert plan.egress["fair_rate_bin"] == 32                         # 10 Mbit/s / 10 = 1000 kbit/s
    assert [(t, k) for t, k, _ in plan.actions] == [(0, "train"), (0, "check"), (10000, "train"), (10000, "check"),
                                                    (50000, "check"), (60000, "fair_rate"), (60000, "set_ctv")]
    assert [p.t for p in plan.packets] == [0, 10000, 20000, 30000]
    assert [p.verdict for p in plan.packets] == [None, "forward", "forward", "forward"]
    assert plan.packets[0].pv == [65535, 65535] and plan.fabric_out
    assert plan.actions[4][2]["checks"] == {"rtt_us": [10000, 10000]}
    assert plan.actions[5][2] == {"bin": 16}
    skipped = {what for _, what, _ in plan.unsupported}
    assert skipped == {"group of packets 1..2", "tick"}


def test_scale_rises_for_close_packets_and_stays_below_the_expiry():
    vec = copy.deepcopy(BASE)
    vec["steps"][1]["every_us"] = 100
    assert _plan(vec).scale == pytest.approx(_bins(V.MIN_GAP_REAL_US / 100.0))
    vec["steps"].append({"t_us": 30000, "flow": "A", "size": 1500, "payload": 1448, "drain": True})
    plan = _plan(vec)                   # a 28.8 ms idle gap (1.2 -> 30 ms): the expiry bounds the scale
    assert plan.scale == pytest.approx(_bins(V.EXPIRE_SHARE * V.expire_us(PARAMS) / 28800, up=False))
    assert plan.notes and "expiry" in plan.notes[0]


def test_scale_keeps_packets_clear_of_deadlines_in_real_time():
    vec = copy.deepcopy(BASE)
    vec["steps"][1].update(t_us=8000, repeat=1)       # 2 ms before the 10 ms deadline
    plan = _plan(vec)
    assert plan.scale == pytest.approx(_bins(V.MIN_MARGIN_REAL_US / 2000.0))
    assert min(d for _p, d, _r in V.margins(vec, PARAMS)) * plan.scale >= V.MIN_MARGIN_REAL_US


def test_scaled_rates_keep_their_place_in_their_bins():
    """The scale is a whole number of bins per decade: the fair rate's bin edge stays an edge."""
    vec = copy.deepcopy(BASE)
    vec["steps"][1]["every_us"] = 100
    plan = _plan(vec)
    k = PARAMS["tvf"]["steps_per_decade"] * math.log10(plan.scale)
    assert k == pytest.approx(round(k))
    assert V.rate_bin(10e6 / plan.scale, PARAMS) + round(k) == V.rate_bin(10e6, PARAMS)
    assert V.rate_bin(12e6 / plan.scale, PARAMS) == V.rate_bin(10e6 / plan.scale, PARAMS) + 1


def test_bursts_are_paced_and_never_released_packets_held_past_the_last_push():
    vec = copy.deepcopy(BASE)
    vec["config"]["initial_limit_pkts"] = 3
    vec["steps"] = [{"t_us": 0, "flow": "A", "repeat": 4, "every_us": 0, "size": 1500, "payload": 1448,
                     "drain": False, "expect": {"verdict": "enqueued"}, "expect_last": {"verdict": "drop_limit"}}]
    plan = _plan(vec)
    pace = V.BURST_PACE_REAL_US
    assert [p.t for p in plan.packets] == [0, pace, 2 * pace, 3 * pace]
    assert {p.release for p in plan.packets} == {3 * pace + 300000 + 4 * 5000}
    assert [p.verdict for p in plan.packets] == ["forward"] * 3 + ["drop"] and plan.packets[3].limit
    assert plan.actions[-1][1] == "release" and plan.max_held == 4


def test_reverse_traffic_keeps_the_out_port_edge_and_pv_unchecked():
    vec = copy.deepcopy(BASE)
    vec["steps"].insert(1, {"t_us": 500, "flow": "A", "dir": "rev", "size": 52, "payload": 0, "drain": True})
    plan = _plan(vec)
    assert not plan.fabric_out
    assert plan.packets[0].pv is None
    assert any(what == "pv" and "edge port" in why for _, what, why in plan.unsupported)


def test_dequeue_steps_hold_packets_and_check_them_at_the_release():
    vec = copy.deepcopy(BASE)
    vec["steps"] = [
        {"t_us": 0, "flow": "A", "repeat": 3, "every_us": 0, "size": 1500, "payload": 1448, "drain": False,
         "expect": {"group": "mouse"}},
        {"op": "check", "t_us": 100, "flow": "A", "expect": {"family": 0}},
        {"op": "dequeue", "t_us": 5000, "count": 1, "expect": {"actions": ["forward"], "sojourn_us": [5000, 5000]}},
        {"op": "dequeue", "t_us": 8000, "count": "all", "expect": {"count": 2, "actions": ["mark", "drop"]}},
    ]
    plan = _plan(vec)
    assert [(p.release, p.verdict) for p in plan.packets] == [(50000, "forward"), (80000, "mark"), (80000, "drop")]
    assert plan.max_held == 3
    kinds = [(t, k) for t, k, _ in plan.actions]
    # the group after the train and the check wait for the release of the packets sent before them
    assert kinds == [(0, "train"), (80000, "release"), (80000, "check"), (80000, "check")] or \
        kinds == [(0, "train"), (50000, "release"), (80000, "release"), (80000, "check"), (80000, "check")]
    rel = [a for _, k, a in plan.actions if k == "release"]
    assert rel[0]["sojourn_us"] == [5000, 5000] and rel[1]["count"] == 2
    # a target that cannot hold sends them at once and checks nothing that needs the queue
    plan = _plan(vec, can_hold=False)
    assert all(p.release is None for p in plan.packets)
    assert any(what == "held packets" for _, what, _ in plan.unsupported)


def test_the_ctv_is_checked_only_where_the_switch_steps_it_deterministically():
    vec = copy.deepcopy(BASE)
    vec["steps"] = [
        {"op": "set", "t_us": 0, "queue": "all", "ctv": 100},
        {"t_us": 0, "flow": "A", "repeat": 4, "every_us": 0, "size": 1500, "payload": 1448, "drain": False},
        {"op": "dequeue", "t_us": 10000, "count": 1, "expect": {"ctv": [164, 164]}},
        {"op": "dequeue", "t_us": 12000, "count": "all", "expect": {"ctv": [228, 228]}},
        {"t_us": 15000, "flow": "A", "size": 1500, "payload": 1448, "drain": False},
        {"op": "dequeue", "t_us": 15000, "count": "all", "expect": {"ctv": [196, 196]}},
        {"op": "set", "t_us": 17000, "queue": "all", "ctv": 100},
        {"t_us": 20000, "flow": "A", "size": 1500, "payload": 1448, "drain": False},
        {"op": "dequeue", "t_us": 20000, "count": "all", "expect": {"ctv": [68, 68]}},
    ]
    plan = _plan(vec)
    ctv = [a.get("ctv") for _, k, a in plan.actions if k == "release"]
    # one packet alone: checked; three at once: not, nor the CTV after them until the next set
    assert ctv == [[164, 164], None, None, [68, 68]]
    assert {what for _, what, _ in plan.unsupported} == {"dequeue ctv", "dequeue ctv [196, 196]"}


def test_a_long_burst_raises_the_scale_to_end_clear_of_its_interval():
    vec = copy.deepcopy(BASE)
    vec["config"]["default_rtt_us"] = 20000
    vec["steps"] = [{"t_us": 0, "flow": "A", "repeat": 60, "every_us": 0, "size": 1500, "payload": 1448,
                     "drain": True}]
    plan = _plan(vec)            # 60 packets 5 ms apart take 295 ms: the 20 ms RTT x 10 is too short
    assert plan.scale > 10 and plan.packets[-1].t + V.MIN_MARGIN_REAL_US <= 20000 * plan.scale
    assert not any(p.rollover for p in plan.packets)


def test_paced_roll_overs_that_differ_from_the_vector_skip_the_flows_interval_checks():
    """The expectations follow the vector's times, the switch sees the paced ones: where the scale
    cannot rise far enough (here flow.max_rtt_us bounds it) and a paced burst crosses its interval
    end, the flow's interval counters and the checks decided at interval ends are skipped, with a
    note, and what does not depend on them (the RTT) is still checked."""
    vec = copy.deepcopy(BASE)
    vec["config"]["default_rtt_us"] = 20000
    vec["steps"] = [{"t_us": 0, "flow": "A", "repeat": 200, "every_us": 0, "size": 1500, "payload": 1448,
                     "drain": True, "expect": {"group": "mouse"}},
                    {"op": "check", "t_us": 15000, "flow": "A", "expect": {"interval_pkts": 200,
                                                                           "rtt_us": [20000, 20000]}}]
    plan = _plan(vec)            # 200 packets 5 ms apart take 995 ms; the scale stops below 47.5 (max RTT)
    assert not any(p.rollover for p in plan.packets)              # in vector time: one interval
    assert 20000 * plan.scale < plan.packets[-1].t               # paced: the burst outlasts it
    assert plan.paced_apart == {"A"}
    assert any("flow A's paced packets end intervals elsewhere" in n for n in plan.notes)
    assert all(p.counters is None for p in plan.packets)
    assert {(w, what) for w, what, why in plan.unsupported if why == V._PACED_APART} == {(0, "group"),
                                                                                        (1, "interval_pkts")}
    assert [a["checks"] for _, k, a in plan.actions if k == "check"] == [{"rtt_us": [20000, 20000]}]


def test_paced_roll_overs_are_compared_and_agree_where_the_scale_suffices():
    vec = copy.deepcopy(BASE)
    vec["config"]["default_rtt_us"] = 20000
    vec["steps"] = [{"t_us": 0, "flow": "A", "repeat": 30, "every_us": 0, "size": 1500, "payload": 1448,
                     "drain": True},
                    {"t_us": 30000, "flow": "A", "size": 1500, "payload": 1448, "drain": True,
                     "expect": {"group": "mouse"}}]
    plan = _plan(vec)
    assert plan.packets[-1].rollover and plan.paced_apart == set()
    assert all(p.counters is not None for p in plan.packets)


def test_pure_acks_need_no_margin_to_interval_ends():
    """A pure ACK ends no interval (INTERVAL_ACK): one at the deadline neither counts as too close
    nor raises the time scale."""
    vec = copy.deepcopy(BASE)
    vec["steps"] = [{"t_us": 0, "flow": "A", "size": 1500, "payload": 1448, "drain": True},
                    {"t_us": 10100, "flow": "A", "size": 52, "payload": 0, "drain": True},
                    {"t_us": 12000, "flow": "A", "size": 1500, "payload": 1448, "drain": True}]
    assert [(p.k, d) for p, d, _r in V.margins(vec, PARAMS)] == [(2, 2000)]
    assert _plan(vec).scale == pytest.approx(_bins(V.MIN_MARGIN_REAL_US / 2000.0))    # not 400 for the ACK


def test_registers_are_not_read_when_the_next_packet_leaves_too_soon():
    vec = copy.deepcopy(BASE)
    vec["steps"] = [
        {"t_us": 0, "flow": "A", "repeat": 2, "every_us": 0, "size": 1500, "payload": 1448, "drain": False},
        {"op": "dequeue", "t_us": 10000, "count": 1, "expect": {"sojourn_us": [10000, 10000]}},
        {"op": "dequeue", "t_us": 11000, "count": 1, "expect": {"sojourn_us": [11000, 11000]}},
    ]
    plan = _plan(vec)          # releases 10 ms (real) apart: the first read could see the second packet
    soj = [a.get("sojourn_us") for _, k, a in plan.actions if k == "release"]
    assert soj == [None, [11000, 11000]]
    assert any(what.startswith("dequeue sojourn_us") and "too soon" in why for _, what, why in plan.unsupported)


def test_the_fair_bdp_drop_is_checked_where_the_vector_states_it():
    # The vectors state the program's timing (the packet that ends the interval is dropped), so
    # the plan checks it as given, with no translation.
    vec = copy.deepcopy(BASE)
    vec["steps"] = [
        {"t_us": 0, "flow": "A", "repeat": 10, "every_us": 500, "size": 1500, "payload": 1448, "drain": True,
         "expect": {"verdict": "enqueued", "group": "mouse"}},
        {"t_us": 11000, "flow": "A", "size": 1500, "payload": 1448, "drain": True,
         "expect": {"verdict": "drop_proactive", "group": "delay0"}},
        {"t_us": 11500, "flow": "A", "size": 1500, "payload": 1448, "drain": True,
         "expect": {"verdict": "enqueued", "group": "delay0"}},
    ]
    plan = _plan(vec)
    assert [p.verdict for p in plan.packets] == ["forward"] * 10 + ["drop", "forward"]
    assert plan.packets[10].rollover and plan.packets[10].proactive
    assert plan.translated == []


def test_fixed_draws_become_forced_pvs_for_the_aqm():
    vec = copy.deepcopy(BASE)
    vec["config"]["ss_proactive_drop"] = False
    vec["steps"] = [
        {"t_us": 0, "flow": "A", "repeat": 10, "every_us": 1000, "size": 1500, "payload": 1448, "drain": True},
        {"t_us": 11000, "flow": "A", "size": 1500, "payload": 1448, "drain": True, "u16": 65535},
        {"t_us": 11100, "flow": "A", "size": 1500, "payload": 1448, "drain": True, "u16": 1},
        {"t_us": 11200, "flow": "A", "size": 1500, "payload": 1448, "drain": True, "u16": 65535,
         "expect": {"pv": [0, 65535]}},
    ]
    plan = _plan(vec)
    tvf = V.scale_tvf(PARAMS, plan.scale)
    # 15000 B per 10 ms = 12 Mbit/s, one bin above the fair rate for u ~ 1; bin 0's PV for u ~ 0; a
    # pv expectation is not forced
    own = V.rate_bin(12e6 / plan.scale, PARAMS)
    assert own == V.rate_bin(10e6 / plan.scale, PARAMS) + 1
    assert [p.force_pv for p in plan.packets[10:]] == [tvf[own], tvf[0], None]
    assert plan.forced_pvs == [tvf[own], tvf[0]]
    assert any(what == "pv" and "u16=65535" in why for _, what, why in plan.unsupported)


def test_fixed_draws_take_the_two_interval_label():
    """From the second interval end on, the PV forced for a fixed draw follows the marker's label,
    the log-domain average of the last two intervals' rates, not the last interval's rate."""
    vec = copy.deepcopy(BASE)
    vec["config"].update(ss_proactive_drop=False, fair_rate_bps=3000000)
    d = {"flow": "A", "size": 1500, "payload": 1448, "drain": True}
    vec["steps"] = [dict(d, t_us=0, repeat=2, every_us=1000),                # interval 1: 2 packets
                    dict(d, t_us=12000, repeat=8, every_us=500),             # interval 2: 8 packets
                    dict(d, t_us=24000, u16=65535)]                          # ends it: label = avg
    plan = _plan(vec)
    r1, r2 = 2 * 1500 * 8.0 / 10000 * 1000, 8 * 1500 * 8.0 / 10000 * 1000   # kbit/s over the 10 ms RTT
    tvf = V.scale_tvf(PARAMS, plan.scale)
    avg = V.rate_bin(math.sqrt(r1 * r2) * 1000 * 65535 / 65536.0 / plan.scale, PARAMS)
    last = V.rate_bin(r2 * 1000 * 65535 / 65536.0 / plan.scale, PARAMS)
    assert last - avg >= 2                                                    # the two rules differ here
    assert plan.packets[-1].force_pv == tvf[avg] != tvf[last]


def test_divergences_are_listed_not_checked(monkeypatch):
    vec = copy.deepcopy(BASE)
    monkeypatch.setitem(V.DIVERGENCES, "t", [(None, "rtt_us", None, "model only")])
    plan = _plan(vec)
    assert ("rtt_us" not in plan.actions[4][2]["checks"]) if plan.actions[4][1] == "check" else True
    assert plan.divergences == [(2, "rtt_us", "model only")]
    monkeypatch.setitem(V.DIVERGENCES, "t", [(None, None, None, "all of it")])
    plan = _plan(vec)
    assert plan.whole_divergence == "all of it" and plan.checks == 0


def test_compile_time_config_changes_are_named():
    vec = copy.deepcopy(BASE)
    vec["config"]["ctv_step_up"] = PARAMS["aqm"]["ctv_step_up"] + 1
    plan = _plan(vec)
    assert ("config", "ctv_step_up") in {(w, what) for w, what, _ in plan.unsupported}


def test_port_cfg_switches_become_egress_port_cfg_fields():
    """ss_proactive_drop and family_forget are port_cfg parameters (ss_drop, family_forget): the
    replay writes them into the out port's entry; a vector without them keeps the entry's default
    (egress_cfg: ss_drop from params, family_forget 0)."""
    plan = _plan(BASE)
    assert "ss_drop" not in plan.egress and "family_forget" not in plan.egress
    vec = copy.deepcopy(BASE)
    vec["config"].update(ss_proactive_drop=False, family_forget=True)
    plan = _plan(vec)
    assert plan.egress["ss_drop"] == 0 and plan.egress["family_forget"] == 1
    assert ("config", "family_forget") not in {(w, x) for w, x, _ in plan.unsupported}   # table data, not compiled
    vec["config"]["family_forget"] = False
    assert _plan(vec).egress["family_forget"] == 0


def test_program_intervals_follow_the_documented_rule():
    """First packet + max(RTT, floor); the first data packet at or after the deadline ends the
    interval and starts the next at its own time; a SYN starts the flow with the default RTT until
    the sample, and the packet completing the sample restarts the interval (its counters restart
    with it: INTERVAL_RESTART)."""
    vec = copy.deepcopy(BASE)
    vec["steps"] = [{"t_us": t, "flow": "A", "size": 1500, "payload": 1448, "drain": True} for t in
                    (0, 9999, 10000, 19999, 20000)]
    pk = V._packets(vec, "t", {"A": (A["src"], A["sport"], A["dst"], A["dport"])})
    V.program_intervals(pk, 10000, PARAMS, floor=5000)
    assert [p.rollover for p in pk] == [False, False, True, False, True]
    vec["steps"] = [{"t_us": 0, "flow": "A", "flags": "S", "size": 60, "payload": 0},
                    {"t_us": 20000, "flow": "A", "size": 52, "payload": 0},
                    {"t_us": 39000, "flow": "A", "size": 1500, "payload": 1448},
                    {"t_us": 40000, "flow": "A", "size": 1500, "payload": 1448},
                    {"t_us": 59000, "flow": "A", "size": 1500, "payload": 1448},
                    {"t_us": 60000, "flow": "A", "size": 1500, "payload": 1448}]
    pk = V._packets(vec, "t", {"A": (A["src"], A["sport"], A["dst"], A["dport"])})
    st = V.program_intervals(pk, 50000, PARAMS, floor=5000)
    assert [p.rollover for p in pk] == [False, False, False, True, False, True]
    assert st[pk[0].k]["pkts"] == 1          # the SYN counts
    assert st[pk[1].k]["pkts"] == 0          # the pure ACK completing the sample restarts the counters
    assert st[pk[1].k]["deadline"] == 40000  # at its time + the 20 ms sample
    assert st[pk[2].k]["pkts"] == 1
    assert st[pk[5].k]["last"] == (3000, 2, 20000)
    assert st[pk[5].k]["rates"] == (1500 * 8.0 / 20000 * 1000, 3000 * 8.0 / 20000 * 1000)


def test_intervals_last_the_floor_and_their_rate_divides_by_it():
    """An interval lasts max(RTT, floor) and its rate divides by the same; the RTT stays raw; the
    label's rates are the last two intervals' (the default floor is params' flow.min_interval_us)."""
    w = PARAMS["flow"]["min_interval_us"]
    vec = copy.deepcopy(BASE)
    vec["steps"] = [{"t_us": t, "flow": "A", "size": 1500, "payload": 1448, "drain": True} for t in
                    (0, 10000, w - 1, w, w + 10000, 2 * w + 1000)]
    pk = V._packets(vec, "t", {"A": (A["src"], A["sport"], A["dst"], A["dport"])})
    st = V.program_intervals(pk, 10000, PARAMS)
    assert [p.rollover for p in pk] == [False, False, False, True, False, True]
    assert st[pk[3].k]["rtt_eff"] == 10000 and st[pk[3].k]["span"] == w
    assert st[pk[3].k]["rates"] == (3 * 1500 * 8.0 / w * 1000,)
    assert st[pk[5].k]["rates"] == (3 * 1500 * 8.0 / w * 1000, 2 * 1500 * 8.0 / w * 1000)
    assert V.label_kbps(st[pk[5].k]) == pytest.approx(math.sqrt(3 * 2) * 1500 * 8.0 / w * 1000)
    assert V.label_kbps(st[pk[2].k]) is None


def test_a_floor_out_of_the_way_stays_out_of_the_way_on_the_switch():
    """The vector's floor (config min_interval_us) below its RTT: the scale keeps the compiled floor
    below the RTT too (>= W / RTT), whatever else it needs."""
    w = PARAMS["flow"]["min_interval_us"]
    vec = copy.deepcopy(BASE)
    vec["config"].update(default_rtt_us=1000, min_interval_us=500)
    vec["steps"] = [{"t_us": t, "flow": "A", "size": 1500, "payload": 1448, "drain": True} for t in (0, 1500, 3000)]
    plan = _plan(vec)
    assert plan.scale >= w / 1000.0 and not plan.floor_pinned
    assert V.floor_faithful(vec, plan.packets, plan.scale, PARAMS)
    assert not V.floor_faithful(vec, V._packets(vec, "t", plan.flows), 10, PARAMS)   # at 10 the switch would floor


def test_a_binding_floor_pins_the_scale_or_the_vector_is_rejected():
    """The vector's floor above its RTT: the switch's compiled floor is the vector's only at scale
    W / floor; a vector whose timing cannot run at that scale is rejected, not replayed wrong."""
    w = PARAMS["flow"]["min_interval_us"]
    vec = copy.deepcopy(BASE)
    del vec["config"]["min_interval_us"]                     # the params floor, 50 ms, above the 10 ms RTT
    vec["steps"] = [{"t_us": t, "flow": "A", "size": 1500, "payload": 1448, "drain": True,
                     "expect": {"group": "mouse"}} for t in (0, 10000, w + 40000)]
    plan = _plan(vec)
    assert plan.floor_pinned and plan.scale == pytest.approx(1.0)
    assert [p.rollover for p in plan.packets] == [False, False, True]
    assert any("pinned by the interval floor" in n for n in plan.notes)
    vec["config"]["min_interval_us"] = w // 10                # 5 ms: the same vector at scale 10
    vec["config"]["default_rtt_us"] = 1000
    vec["steps"] = [dict(st, t_us=st["t_us"] // 10) for st in vec["steps"]]
    plan = _plan(vec, scale=1)                              # its timing alone asks for 10 as well
    assert plan.scale == pytest.approx(10.0) and V.floor_faithful(vec, plan.packets, plan.scale, PARAMS)
    vec["steps"][1]["t_us"] = 400                             # 0.4 ms apart: needs scale 15 > 10
    with pytest.raises(V.VectorError, match="pins the time scale at 10.00"):
        _plan(vec)
    vec["config"]["min_interval_us"] = 3000                   # 50 / 3: not a whole number of bins
    with pytest.raises(V.VectorError, match="not a whole number of rate bins"):
        _plan(vec)


def test_a_binding_floor_no_packet_can_tell_keeps_its_scale():
    """A floor above the RTT that no roll-over or rate of the vector depends on (every packet well
    inside one interval either way, as handshake-rtt) does not pin the scale."""
    vec = copy.deepcopy(BASE)
    del vec["config"]["min_interval_us"]
    vec["steps"] = [{"t_us": t, "flow": "A", "size": 1500, "payload": 1448, "drain": True} for t in (0, 1000, 2000)]
    plan = _plan(vec)
    assert not plan.floor_pinned and plan.scale >= 10


def test_sequence_numbers_are_a_senders_per_direction():
    """Data segments get increasing seqs per flow and direction (advanced by payload, a FIN by one
    more), in time order: the program (flow_seq) takes a segment not above its direction's highest
    for a retransmission. A SYN carries ISN 0 and restarts both directions (a SYN-ACK its own); a
    pure ACK carries the next seq and advances nothing; `retx` repeats the direction's last segment
    with payload."""
    vec = copy.deepcopy(BASE)
    data = {"flow": "A", "size": 1500, "payload": 1448, "drain": True}
    vec["steps"] = [dict(data, t_us=0),
                    dict(data, t_us=1000, repeat=2, every_us=1000),
                    dict(data, t_us=1500, dir="rev", size=540, payload=500),   # the other direction: its own numbers
                    {"t_us": 3500, "flow": "A", "size": 52, "payload": 0, "drain": True},   # pure ACK
                    dict(data, t_us=4000, retx=True),
                    dict(data, t_us=4500, dir="rev", size=540, payload=500, retx=True),
                    dict(data, t_us=5000, flags="FA", size=52, payload=0),
                    {"t_us": 6000, "flow": "A", "flags": "S", "size": 52, "payload": 0, "drain": True},
                    {"t_us": 6500, "flow": "A", "dir": "rev", "flags": "SA", "size": 52, "payload": 0, "drain": True},
                    dict(data, t_us=7000),
                    dict(data, t_us=7500, dir="rev", size=540, payload=500)]
    got = [(p.dir, p.seq, p.retx) for p in sorted(V._packets(vec, "t", {"A": A}), key=lambda p: p.t_vec)]
    assert got == [("fwd", 1, False), ("fwd", 1449, False), ("rev", 1, False), ("fwd", 2897, False),
                   ("fwd", 4345, False), ("fwd", 2897, True), ("rev", 1, True), ("fwd", 4345, False),
                   ("fwd", 0, False), ("rev", 0, False), ("fwd", 1, False), ("rev", 1, False)]


def test_interleaved_trains_number_in_time_order():
    """Two trains of one flow and direction that interleave in time are numbered in arrival order,
    not step order (or the later step's earlier packets would look like retransmissions)."""
    vec = copy.deepcopy(BASE)
    data = {"flow": "A", "size": 1500, "payload": 1448, "drain": True}
    vec["steps"] = [dict(data, t_us=0, repeat=2, every_us=2000), dict(data, t_us=1000)]
    pkts = sorted(V._packets(vec, "t", {"A": A}), key=lambda p: p.t_vec)
    assert [(p.t_vec, p.seq) for p in pkts] == [(0, 1), (1000, 1449), (2000, 2897)]


@pytest.mark.parametrize("mutate,message", [
    (lambda v: v["steps"][0].update(flow="Z"), "step 0: unknown flow 'Z'"),
    (lambda v: v["steps"][0].update(retx=True), "step 0: retx, but flow A (fwd) sent no segment with payload"),
    (lambda v: v["steps"][1].update(dir="rev", retx=True), "step 1: retx, but flow A (rev)"),
    (lambda v: v["steps"][0]["expect"].update(group="weird"), "step 0: unknown group 'weird'"),
    (lambda v: v["steps"][1].update(size=40), "step 1: size 40 with payload 1448"),
    (lambda v: v["steps"].append({"op": "teleport", "t_us": 9}), "step 5: unknown op 'teleport'"),
    (lambda v: v["steps"].append({"op": "dequeue", "t_us": 9, "count": "all", "expect": {"actions": ["forward"]}}),
     "step 5: 1 actions for 0 dequeued packets"),
])
def test_bad_vectors_are_rejected_with_the_step(mutate, message):
    vec = copy.deepcopy(BASE)
    mutate(vec)
    with pytest.raises(V.VectorError, match=re.escape(message)):
        V.translate(vec, PARAMS)


@pytest.mark.parametrize("bps,bin_", [(5000, 0), (10000, 0), (100000, 16), (12000000, 49), (100e9, 112), (1e20, 159)])
def test_rate_bins_follow_params(bps, bin_):
    assert V.rate_bin(bps, PARAMS) == bin_


def test_scale_tvf_is_the_fabrics_one_scale():
    pv = PARAMS["tvf"]["pv_max"]
    t = V.scale_tvf(PARAMS)  # centre_kbps 100000: bin 64, four decades (64 bins) either side
    assert V.rate_bin(PARAMS["tvf"]["centre_kbps"] * 1000.0, PARAMS) == 64
    assert t[64] == pv // 2 and t[0] == pv and t[128] == 0  # integer maths, as the model
    assert t[-1] == 0 and all(a >= b for a, b in zip(t, t[1:]))
    # the vectors' pv-drawing numbers: bin 39 -> 45567, bin 40 -> 45055 (512 PV a bin)
    assert (t[39], t[40]) == (45567, 45055)
    # a replay 10 times slower (16 bins): switch bin b gets vector bin b + 16, bin 0 keeps bin 0's
    s = V.scale_tvf(PARAMS, 10.0)
    assert s[0] == t[0] and all(s[b] == t[b + 16] for b in range(1, len(t) - 16))


def test_tvf_is_the_scale_whatever_the_fair_rate():
    # D22: the replay writes the fabric's one scale (shifted by the replay's whole bins), not a
    # curve centred on the vector's fair rate; a vector with neither a fair nor a link rate keeps
    # the switch's default TVF
    vec = copy.deepcopy(BASE)
    plan = _plan(vec)
    assert plan.tvf == V.scale_tvf(PARAMS, plan.scale)
    other = copy.deepcopy(BASE)
    other["config"]["fair_rate_bps"] = 40 * BASE["config"]["fair_rate_bps"]
    assert _plan(other).scale == plan.scale and _plan(other).tvf == plan.tvf
    del vec["config"]["fair_rate_bps"]
    assert _plan(vec).tvf is None
