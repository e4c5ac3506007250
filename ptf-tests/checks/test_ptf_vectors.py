# SPDX-License-Identifier: Apache-2.0
"""The shared test vectors load, validate against their schema, and translate into PTF
actions; the translation is unit-tested on crafted vectors. (Running them on the ns-3 model
is the model's own suite; on tofino-model, tests/test_vectors.py.)"""
import copy
import json
import os

import jsonschema
import pytest

import vectors as V
from conftest import REPO, report
from ccfair import params as P

SCHEMA = os.path.join(V.VECTOR_DIR, "schema.json")
FILES = V.vector_files()


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
    params = P.load()
    checked = skipped = 0
    for path in FILES:
        vec = V.load(path)
        errors = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(root)", e.message) for e in val.iter_errors(vec)]
        assert not errors, "%s: %s" % (os.path.relpath(path, REPO), errors)
        plan = V.translate(vec, params)
        assert plan.actions, "%s translates to nothing" % vec["name"]
        checked += plan.checks
        skipped += len(plan.unsupported)
    report("vectors: %d files valid against testdata/vectors/schema.json; the PTF replay checks %d "
           "expectations on tofino-model, %d are not reproducible on a switch (each named with its reason "
           "by lib/vectors.py; the ns-3 model's suite checks them all)" % (len(FILES), checked, skipped))


BASE = {
    "name": "t", "description": "crafted", "config": {"default_rtt_us": 10000, "fair_rate_bps": 10000000},
    "flows": {"A": {"src": "10.0.0.1", "sport": 1, "dst": "10.0.1.1", "dport": 2}},
    "steps": [
        {"t_us": 0, "flow": "A", "flags": "S", "size": 60, "payload": 0, "drain": True,
         "expect": {"group": "mouse", "pv": [65535, 65535]}},
        {"t_us": 100, "flow": "A", "repeat": 3, "every_us": 10, "drain": True, "size": 1500, "payload": 1448,
         "expect": {"verdict": "enqueued", "group": "mouse"}, "expect_last": {"group": "delay0"}},
        {"op": "check", "t_us": 200, "flow": "A", "expect": {"rtt_us": [100, 200], "intervals": 1}},
        {"op": "set", "t_us": 300, "queue": 0, "ctv": 5, "fair_rate_bps": 1000000},
        {"op": "dequeue", "t_us": 400, "count": "all", "expect": {"count": 1}},
        {"op": "tick", "t_us": 500},
    ],
}


def test_translation_scales_time_and_rates_and_names_what_it_skips():
    plan = V.translate(copy.deepcopy(BASE), P.load(), scale=10)
    assert plan.ingress_default_rtt_us == 100000
    # 10 Mbit/s / 10 = 1 Mbit/s = 1000 kbps: bin floor(16 log10(100)) = 32
    assert plan.egress["fair_rate_bin"] == 32
    kinds = [(t, k) for t, k, _ in plan.actions]
    assert kinds == [(0, "train"), (1000, "train"), (2000, "check"), (3000, "fair_rate")]
    train = plan.actions[1][2]
    assert train["n"] == 3 and train["every_us"] == 100
    assert train["verdicts"] == {"enqueued": 3}
    assert train["group_after"] == P.group_names(P.load()).index("delay0")
    assert plan.actions[2][2]["checks"] == {"rtt_us": [1000, 2000]}
    assert plan.actions[3][2] == {"bin": 16}
    assert plan.actions[0][2]["pvs"] == [[65535, 65535]]
    skipped = {what for _, what, _ in plan.unsupported}
    assert skipped == {"group of packets 1..2", "intervals", "set ctv", "dequeue count", "tick"}
    assert plan.shaped and plan.fabric_out


def test_reverse_traffic_keeps_the_out_port_edge_and_pv_unchecked():
    vec = copy.deepcopy(BASE)
    vec["steps"].insert(1, {"t_us": 50, "flow": "A", "dir": "rev", "flags": "SA", "size": 60, "payload": 0})
    plan = V.translate(vec, P.load())
    assert not plan.fabric_out
    assert plan.actions[0][2]["pvs"] == [None]
    assert any(what == "pv" and "edge port" in why for _, what, why in plan.unsupported)


def test_u16_pv_and_drop_limit_are_not_checked():
    vec = copy.deepcopy(BASE)
    vec["steps"][0]["u16"] = 7
    vec["steps"].append({"t_us": 600, "flow": "A", "size": 1500, "payload": 1448, "expect": {"verdict": "drop_limit"}})
    plan = V.translate(vec, P.load())
    assert plan.actions[0][2]["pvs"] == [None]
    assert any(what == "pv" and "u16=7" in why for _, what, why in plan.unsupported)
    assert any(what == "verdict drop_limit" for _, what, _ in plan.unsupported)


def test_a_fractional_scale_still_gives_whole_microseconds():
    plan = V.translate(copy.deepcopy(BASE), P.load(), scale=2.5)
    assert plan.ingress_default_rtt_us == 25000 and isinstance(plan.ingress_default_rtt_us, int)
    assert all(isinstance(t, int) for t, _, _ in plan.actions)
    assert plan.actions[2][2]["checks"]["rtt_us"] == [250, 500]


def test_compile_time_config_changes_are_named():
    vec = copy.deepcopy(BASE)
    vec["config"]["ctv_step_up"] = P.load()["aqm"]["ctv_step_up"] + 1
    plan = V.translate(vec, P.load())
    assert ("config", "ctv_step_up") in {(w, what) for w, what, _ in plan.unsupported}


@pytest.mark.parametrize("mutate,message", [
    (lambda v: v["steps"][0].update(flow="Z"), "step 0: unknown flow 'Z'"),
    (lambda v: v["steps"][0]["expect"].update(group="weird"), "step 0: unknown group 'weird'"),
    (lambda v: v["steps"][1].update(size=40), "step 1: size 40 with payload 1448"),
    (lambda v: v["steps"].append({"op": "teleport", "t_us": 9}), "step 6: unknown op 'teleport'"),
])
def test_bad_vectors_are_rejected_with_the_step(mutate, message):
    vec = copy.deepcopy(BASE)
    mutate(vec)
    with pytest.raises(V.VectorError, match=message.replace("(", r"\(")):
        V.translate(vec, P.load())


@pytest.mark.parametrize("bps,bin_", [(5000, 0), (10000, 0), (100000, 16), (12000000, 49), (100e9, 112), (1e20, 159)])
def test_rate_bins_follow_params(bps, bin_):
    assert V.rate_bin(bps, P.load()) == bin_


def test_fair_rate_tvf_is_centred_on_the_fair_rate():
    p = P.load()
    pv, spd = p["tvf"]["pv_max"], p["tvf"]["steps_per_decade"]
    t = V.fair_rate_tvf(p, 10e6)  # 10 Mbit/s: bin 48
    assert V.rate_bin(10e6, p) == 48
    assert t[48] == pv // 2 and t[48 - spd] == pv // 2 + pv // 2 and t[48 + spd] == 0  # integer maths, as the model
    assert t[0] == pv and t[-1] == 0 and all(a >= b for a, b in zip(t, t[1:]))
    # the vectors' pv-drawing numbers: bin 49 is one bin above the fair rate
    assert t[49] == pv // 2 - pv // (2 * spd)


def test_tvf_follows_the_scaled_fair_rate():
    vec = copy.deepcopy(BASE)
    plan = V.translate(vec, P.load(), scale=10)
    assert plan.tvf == V.fair_rate_tvf(P.load(), 1e6)
    del vec["config"]["fair_rate_bps"]
    assert V.translate(vec, P.load()).tvf is None
