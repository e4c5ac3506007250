# SPDX-License-Identifier: Apache-2.0
"""Scenario-file validation and one short end-to-end run per AQM family, checked by invariants."""
import copy
import json
import os
import subprocess
import sys

import pytest

from evaltest import EVAL, HERE, MODEL_BUILT, RUN, ce, needs_model  # noqa: F401
GOOD = {"name": "t", "seed": 3, "link": {"rate_mbps": 10, "buffer_pkts": 100},
        "duration_s": 8, "warmup_s": 2, "aqm": "fifo",
        "flows": [{"cc": "cubic", "count": 1, "rtt_ms": 40, "start_s": 0},
                  {"cc": "vegas", "rtt_ms": 40, "start_s": 0.5},
                  {"cc": "bbr", "rtt_ms": 80, "start_s": 1}]}


def mutate(path, value):
    """Copy of GOOD with `path` (a tuple of keys/indices) set to value, or deleted if value is DEL."""
    s = copy.deepcopy(GOOD)
    obj = s
    for k in path[:-1]:
        obj = obj[k]
    if value is DEL:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value
    return s


DEL = object()

BAD = [
    (("colour",), "red", "colour: unknown field"),
    (("link", "delay_ms"), 5, "link.delay_ms: unknown field"),
    (("flows", 0, "window"), 5, "flows[0].window: unknown field"),
    (("flows", 1, "cc"), "quic", "flows[1].cc: unknown congestion control \"quic\""),
    (("flows", 0, "rtt_ms"), -5, "flows[0].rtt_ms: -5 is out of range"),
    (("flows", 0, "rtt_ms"), 1, "flows[0].rtt_ms: 1 is out of range"),
    (("flows", 0, "rtt_ms"), "40", "flows[0].rtt_ms: expected a number"),
    (("flows", 0, "count"), 0, "flows[0].count: 0 is out of range"),
    (("flows", 0, "count"), 1.5, "flows[0].count: expected an integer"),
    (("flows", 2, "start_s"), 8, "flows[2].start_s: 8.0 is not before duration_s"),
    (("link", "rate_mbps"), 0, "link.rate_mbps: 0 is out of range"),
    (("link", "buffer_pkts"), True, "link.buffer_pkts: expected a number"),
    (("link", "buffer_pkts"), DEL, "link.buffer_pkts: required field missing"),
    (("warmup_s",), 8, "warmup_s: 8.0 must be below duration_s"),
    (("duration_s",), -1, "duration_s: -1 is out of range"),
    (("aqm",), "wfq", "aqm: unknown AQM \"wfq\""),
    (("flows",), [], "flows: expected a non-empty list"),
    (("name",), "", "name: expected a non-empty string"),
    (("flows", 0, "cc"), DEL, "flows[0].cc: required field missing"),
    (("queue_layout",), "fair", "queue_layout: unknown queue layout \"fair\" (allowed: shared, isolated)"),
    (("queue_layout",), 1, "queue_layout: unknown queue layout 1 (allowed: shared, isolated)"),
    (("flows", 1, "app_rate_mbps"), 0, "flows[1].app_rate_mbps: 0 is out of range"),
    (("flows", 1, "app_rate_mbps"), "2", "flows[1].app_rate_mbps: expected a number"),
    (("flows", 1, "edge"), 1, "flows[1].edge: only with a \"fabric\" object"),
    (("fabric",), {"uplink_mbps": 5}, "fabric.uplink_mbps: 5.0 is below link.rate_mbps (10.0)"),
    (("fabric",), {"uplink": 50}, "fabric.uplink: unknown field"),
    (("fabric",), {}, "fabric.uplink_mbps: required field missing"),
]


def test_fabric_edges_and_simulator_arguments():
    # Two edge switches: flows without an edge are on edge 0; the simulator is told the edges of
    # every long-lived flow (docs/eval.md, "Fabric").
    fab = copy.deepcopy(GOOD)
    fab["fabric"] = {"uplink_mbps": 50}
    fab["flows"][2]["edge"] = 1
    s = ce.validate(fab, "ccfair")
    assert s["fabric"] == {"uplink_mbps": 50.0, "edges": 2}
    assert [f["edge"] for f in s["flows"]] == [0, 0, 1]
    args = ce.sim_args(s)
    assert "--edges=2" in args and "--uplink_mbps=50" in args and "--flow_edges=0,0,1" in args
    bad = copy.deepcopy(fab)
    bad["flows"][2]["edge"] = 16
    with pytest.raises(ce.ScenarioError, match=r"flows\[2\]\.edge: 16 is out of range"):
        ce.validate(bad)
    assert not any(a.startswith("--edges") for a in ce.sim_args(ce.validate(GOOD)))


@pytest.mark.parametrize("path,value,msg", BAD, ids=[m.split(":")[0] + "-" + str(i) for i, (_, _, m) in enumerate(BAD)])
def test_validation_names_the_field(path, value, msg):
    with pytest.raises(ce.ScenarioError) as e:
        ce.validate(mutate(path, value))
    assert msg in str(e.value)


def test_valid_scenario_is_normalised():
    s = ce.validate(GOOD)
    assert [f["cc"] for f in s["flows"]] == ["cubic", "vegas", "bbr"]
    assert s["aqm"] == "fifo" and s["buffer_pkts"] == 100
    many = mutate(("flows", 0, "count"), 4)
    assert len(ce.validate(many)["flows"]) == 6


def test_queue_layout_default_and_simulator_arguments():
    # The default is params queues.layout; only ccfair's simulator run is told the layout.
    assert ce.validate(GOOD)["queue_layout"] == ce.default_queue_layout() == "shared"
    iso = ce.validate(dict(GOOD, queue_layout="isolated"), "ccfair")
    assert iso["queue_layout"] == "isolated"
    assert "--queue_layout=isolated" in ce.sim_args(iso)
    fifo = ce.validate(dict(GOOD, queue_layout="isolated"))
    assert not any(a.startswith("--queue_layout") for a in ce.sim_args(fifo))


def test_simulator_rejects_a_bad_layout():
    if not os.access(ce.SIM, os.X_OK):
        pytest.skip("simulator not built")
    args = ce.sim_args(ce.validate(GOOD, "ccfair"))
    for bad, msg in [("fair", "queue_layout: unknown queue layout \"fair\""),
                     ("shared", "queue_layout: only aqm ccfair")]:
        a = [x if not x.startswith("--queue_layout") else "--queue_layout=" + bad for x in args]
        if bad == "shared":
            a = [x if x != "--aqm=ccfair" else "--aqm=fifo" for x in a]
        r = subprocess.run(a, capture_output=True, text=True)
        assert r.returncode == 2 and msg in r.stderr, r.stderr


WEIGHTED = {"objective": "weighted-groups", "weights": {"delay": 2, "loss": 1}}

# Each bad intent names its field, with the ONOS app's names, families and limits (params policy).
BAD_INTENTS = [
    ("per-flow", "intent: expected an object"),
    ({"weights": {"loss": 2}}, "intent.objective: required field missing"),
    ({"objective": "weighted", "weights": {"loss": 2}},
     "intent.objective: \"weighted\" is not 'per-flow' or 'weighted-groups'"),
    ({"objective": "weighted-groups"}, "intent.weights: objective 'weighted-groups' needs an object"),
    ({"objective": "weighted-groups", "weights": {}}, "intent.weights: objective 'weighted-groups' needs an object"),
    ({"objective": "weighted-groups", "weights": [2, 1]}, "intent.weights: objective 'weighted-groups' needs"),
    ({"objective": "per-flow", "weights": {"loss": 2}}, "intent.weights: only allowed with objective 'weighted-groups'"),
    ({"objective": "weighted-groups", "weights": {"bbr": 2}},
     "intent.weights.bbr: unknown family (known: delay, loss, hybrid)"),
    ({"objective": "weighted-groups", "weights": {"loss": "2"}}, "intent.weights.loss: expected a number, got \"2\""),
    ({"objective": "weighted-groups", "weights": {"loss": True}}, "intent.weights.loss: expected a number, got true"),
    ({"objective": "weighted-groups", "weights": {"loss": 0}}, "intent.weights.loss: 0 is out of range [0.01, 100]"),
    ({"objective": "weighted-groups", "weights": {"delay": 101}}, "intent.weights.delay: 101 is out of range"),
    (dict(WEIGHTED, priority=3), "intent.priority: unknown field (allowed: objective, weights)"),
]


@pytest.mark.parametrize("intent,msg", BAD_INTENTS, ids=[str(i) for i in range(len(BAD_INTENTS))])
def test_intent_validation_names_the_field(intent, msg):
    with pytest.raises(ce.ScenarioError) as e:
        ce.validate(dict(GOOD, intent=intent), "ccfair")
    assert msg in str(e.value)


def test_intent_limits_are_the_apps():
    # the same families and weight range as the ONOS app's IntentValidator (params/ccfair.json)
    p = ce.ccparams.load()
    assert ce.families() == p["groups"]["families"] == ["delay", "loss", "hybrid"]
    assert ce.weight_limits() == (p["policy"]["weight_min"], p["policy"]["weight_max"])
    lo, hi = ce.weight_limits()
    for w in (lo, hi):
        ce.validate(dict(GOOD, intent={"objective": "weighted-groups", "weights": {"hybrid": w}}))


def test_intent_reaches_only_ccfair():
    s = ce.validate(dict(GOOD, intent=WEIGHTED), "ccfair")
    assert s["intent"] == {"objective": "weighted-groups", "weights": {"delay": 2.0, "loss": 1.0}}
    assert "--weights=delay:2.0,loss:1.0" in ce.sim_args(s)
    assert not any(a.startswith("--weights") for a in ce.sim_args(ce.validate(dict(GOOD, intent=WEIGHTED))))
    per = ce.validate(dict(GOOD, intent={"objective": "per-flow"}), "ccfair")
    assert per["intent"] == {"objective": "per-flow"}
    assert not any(a.startswith("--weights") for a in ce.sim_args(per))
    assert "intent" not in ce.validate(GOOD, "ccfair")
    assert [ce.family_weight(s["intent"], cc) for cc in ("vegas", "cubic", "bbr")] == [2.0, 1.0, 1.0]
    assert ce.family_weight(None, "vegas") == ce.family_weight(per["intent"], "vegas") == 1.0


def test_cli_rejects_a_bad_intent_and_runs_nothing(tmp_path):
    bad = dict(GOOD, aqm="ccfair", intent={"objective": "weighted-groups", "weights": {"loss": 1000}})
    r = subprocess.run([RUN, write(tmp_path, bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert "intent.weights.loss: 1000 is out of range" in r.stderr


@needs_model
def test_end_to_end_ccfair_weighted(tmp_path):
    scn = dict(GOOD, intent={"objective": "weighted-groups", "weights": {"hybrid": 4}})
    s = ce.validate(scn, "ccfair")
    res = run_cli(tmp_path, scn, "--aqm", "ccfair")
    check_invariants(res, s)
    assert res["intent"] == {"objective": "weighted-groups", "weights": {"hybrid": 4.0}}
    assert "intent" not in run_cli(tmp_path, scn, "--aqm", "fifo")


@needs_model
def test_simulator_rejects_bad_weights():
    args = ce.sim_args(ce.validate(dict(GOOD, intent=WEIGHTED), "ccfair"))
    for bad, msg in [("bbr:2", "weights.bbr: unknown family"), ("loss:500", "weights.loss: 500 outside [0.01, 100]")]:
        a = [x if not x.startswith("--weights") else "--weights=" + bad for x in args]
        r = subprocess.run(a, capture_output=True, text=True)
        assert r.returncode == 2 and msg in r.stderr, r.stderr


def test_too_many_flows():
    with pytest.raises(ce.ScenarioError, match="at most"):
        ce.validate(mutate(("flows", 0, "count"), 1000))


def write(tmp_path, scn, name="s.json"):
    p = tmp_path / name
    p.write_text(scn if isinstance(scn, str) else json.dumps(scn))
    return str(p)


@pytest.mark.parametrize("content,args,msg", [
    (mutate(("flows", 0, "cc"), "sprout"), [], "flows[0].cc: unknown congestion control"),
    ("{\"name\": ", [], "not valid JSON"),
    (GOOD, ["--aqm", "wred"], "--aqm: unknown AQM \"wred\""),
    (GOOD, ["--timeline", "-1"], "--timeline: must be >= 0"),
])
def test_cli_exit_2_and_message(tmp_path, content, args, msg):
    r = subprocess.run([RUN, write(tmp_path, content)] + args, capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    assert msg in r.stderr


def test_cli_missing_file():
    r = subprocess.run([RUN, "/nonexistent/s.json"], capture_output=True, text=True)
    assert r.returncode == 2 and "cannot read scenario" in r.stderr


def test_jfi():
    assert ce.jfi([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    assert ce.jfi([1.0, 0.0]) == pytest.approx(0.5)
    assert ce.jfi([0.0, 0.0]) == 0.0


def test_maxmin_shares_and_fairness():
    assert ce.maxmin_shares(20.0, [None, None]) == pytest.approx([10.0, 10.0])
    assert ce.maxmin_shares(20.0, [3.0, None]) == pytest.approx([3.0, 17.0])
    # water-filling: 2 and 4 are below the equal share, the rest splits what they leave
    assert ce.maxmin_shares(20.0, [2.0, 4.0, None, None]) == pytest.approx([2.0, 4.0, 7.0, 7.0])
    assert ce.maxmin_shares(5.0, [3.0, 4.0]) == pytest.approx([2.5, 2.5])
    bulk = [{"goodput_mbps": 6.0}, {"goodput_mbps": 2.0}]
    assert ce.fairness(bulk) == pytest.approx(ce.jfi([6.0, 2.0]))  # no app-limited flow: plain JFI
    fair = [{"goodput_mbps": 3.0, "app_rate_mbps": 3.0}, {"goodput_mbps": 17.0}]
    assert ce.fairness(fair) == pytest.approx(1.0) and fair[1]["maxmin_share_mbps"] == pytest.approx(17.0)
    # the app-limited flow held to 1 of its 3: 1/3 and 19/17 of the max-min shares
    held = [{"goodput_mbps": 1.0, "app_rate_mbps": 3.0}, {"goodput_mbps": 19.0}]
    assert ce.fairness(held) == pytest.approx(ce.jfi([1 / 3, 19 / 17]))


def test_end_to_end_app_limited(tmp_path):
    scn = dict(GOOD, flows=[{"cc": "cubic", "rtt_ms": 40, "app_rate_mbps": 1.5}, {"cc": "reno", "rtt_ms": 40}])
    s = ce.validate(scn)
    flows = [a for a in ce.sim_args(s) if a.startswith("--flows=")][0].split("=", 1)[1].split(";")
    assert flows[0].endswith(",1.5") and flows[1].count(",") == 2  # the bulk flow's entry has no rate
    res = run_cli(tmp_path, scn)
    app, bulk = res["flows"]
    # The application offers 1.5 Mbit/s of payload: never more, and on a 10 Mbit/s link shared
    # with one bulk flow nearly all of it arrives; the bulk flow takes the rest.
    assert app["app_rate_mbps"] == 1.5 and 1.2 < app["goodput_mbps"] <= 1.5 * 1.01
    assert bulk["goodput_mbps"] > 6.0 and "app_rate_mbps" not in bulk
    assert res["jfi"] == pytest.approx(ce.fairness([dict(f) for f in res["flows"]]))


def check_invariants(res, s):
    measure = s["duration_s"] - s["warmup_s"]
    capacity_bits = s["rate_mbps"] * 1e6 * measure
    delivered_bits = sum(f["goodput_mbps"] for f in res["flows"]) * 1e6 * measure
    assert 0 < delivered_bits <= capacity_bits
    assert 0 < res["utilization"] <= 1.0
    assert 0.0 <= res["jfi"] <= 1.0
    assert ce.jfi([f["goodput_mbps"] for f in res["flows"]]) == pytest.approx(res["jfi"])
    assert 0 <= res["qdelay_p50_ms"] <= res["qdelay_p99_ms"]
    # The delay percentiles cover every packet the bottleneck transmitted after warm-up,
    # not a subset (a map keyed by packet uid once sampled one segment per application write).
    assert res["tx_packets"] > 0 and res["qdelay_samples"] == res["tx_packets"]
    # Every AQM gets the scenario's packet limit: the queue disc never holds more
    # (fq_codel and fq_pie enqueue first, then drop from the fattest flow, as Linux does).
    assert 0 < res["max_queued_pkts"] <= s["buffer_pkts"] + (1 if s["aqm"].startswith("fq_") else 0)
    assert res["drops"] >= 0 and len(res["flows"]) == len(s["flows"])


def run_cli(tmp_path, scn, *args):
    r = subprocess.run([RUN, write(tmp_path, scn)] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def test_end_to_end_fifo(tmp_path):
    s = ce.validate(GOOD)
    res = run_cli(tmp_path, GOOD, "--timeline", "500")
    check_invariants(res, s)
    # A tail-drop FIFO cannot hold a packet longer than its full buffer takes to drain
    # (plus one packet in the device's own queue and one in transmission).
    drain_ms = (s["buffer_pkts"] + 2) * 1500 * 8 / (s["rate_mbps"] * 1e3)
    assert res["qdelay_p99_ms"] <= drain_ms
    assert "group_timeline" not in res["flows"][0]
    # Timeline samples are in-order bytes delivered per 500 ms; one sample may exceed the
    # link rate (a repaired hole releases buffered data at once) but their sum cannot.
    for f in res["flows"]:
        assert len(f["timeline_mbps"]) == int(s["duration_s"] * 1000 / 500)
    delivered_mbit = sum(sum(f["timeline_mbps"]) * 0.5 for f in res["flows"])
    assert 0 < delivered_mbit <= s["rate_mbps"] * s["duration_s"]


# A buffer small enough that three flows overrun it: the packet limit binds every AQM
# (ccfair once ran with its own 25,000-packet default here).
SMALL = dict(GOOD, link={"rate_mbps": 10, "buffer_pkts": 12})


@pytest.mark.parametrize("aqm", [a for a in ce.AQMS if a != "ccfair" or MODEL_BUILT])
def test_every_aqm_honours_the_buffer(tmp_path, aqm):
    res = run_cli(tmp_path, SMALL, "--aqm", aqm)
    limit = SMALL["link"]["buffer_pkts"] + (1 if aqm.startswith("fq_") else 0)
    assert 0 < res["max_queued_pkts"] <= limit
    assert res["qdelay_samples"] == res["tx_packets"] > 0


def test_end_to_end_fq_codel(tmp_path):
    check_invariants(run_cli(tmp_path, GOOD, "--aqm", "fq_codel"), ce.validate(GOOD, "fq_codel"))


@pytest.mark.skipif(not MODEL_BUILT, reason="ccfair model not built into eval/build/dumbbell")
def test_end_to_end_ccfair(tmp_path):
    s = ce.validate(GOOD, "ccfair")
    res = run_cli(tmp_path, GOOD, "--aqm", "ccfair")
    check_invariants(res, s)
    assert res["queue_layout"] == ce.default_queue_layout()
    names = set(ce.group_names())
    for spec, f in zip(s["flows"], res["flows"]):
        tl = f["group_timeline"]
        assert all(g in names for _, g in tl)
        assert [t for t, _ in tl] == sorted(t for t, _ in tl)
        # No flow is classified into a family (delay/loss/hybrid) before its first full
        # interval: its first packet reaches the switch at or after start_s and an interval
        # lasts one RTT. Before that it may only be an ant or a mouse (new flow, slow start).
        early = [g for t, g in tl if t < spec["start_s"] + spec["rtt_ms"] / 1e3]
        assert set(early) <= {"ant", "mouse"}, (spec, tl)


@pytest.mark.skipif(MODEL_BUILT, reason="ccfair model is built")
def test_ccfair_unavailable_is_a_clear_error(tmp_path):
    r = subprocess.run([RUN, write(tmp_path, GOOD), "--aqm", "ccfair"], capture_output=True, text=True)
    assert r.returncode == 2 and "ccfair model" in r.stderr
