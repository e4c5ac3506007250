# SPDX-License-Identifier: Apache-2.0
"""Short flows: the "short_flows" schema (bad input names its field, exit 2) and one tiny run per
AQM family checked by invariants (every started flow completes or is counted unfinished; no
completion time beats size / rate + RTT)."""
import copy
import json
import os
import subprocess
import sys

import pytest

from evaltest import EVAL, HERE, MODEL_BUILT, RUN, ce, needs_model  # noqa: F401
# 10 Mbit/s, one long-lived Cubic and ~40 web flows over 4 s: about a second of CPU per AQM.
GOOD = {"name": "short", "seed": 2, "link": {"rate_mbps": 10, "buffer_pkts": 100},
        "duration_s": 6, "warmup_s": 1, "aqm": "fifo",
        "flows": [{"cc": "cubic", "rtt_ms": 40}],
        "short_flows": {"cc": "cubic", "rtt_ms": 20, "arrival_per_s": 10, "size_dist": "web",
                        "start_s": 1, "stop_s": 5}}
DEL = object()


def mutate(key, value):
    s = copy.deepcopy(GOOD)
    if value is DEL:
        del s["short_flows"][key]
    elif key is None:
        s["short_flows"] = value
    else:
        s["short_flows"][key] = value
    return s


BAD = [
    (None, "web", "short_flows: expected an object"),
    ("window", 4, "short_flows.window: unknown field"),
    ("cc", "quic", "short_flows.cc: unknown congestion control \"quic\""),
    ("cc", DEL, "short_flows.cc: required field missing"),
    ("rtt_ms", 1, "short_flows.rtt_ms: 1 is out of range"),
    ("rtt_ms", "20", "short_flows.rtt_ms: expected a number"),
    ("arrival_per_s", 0, "short_flows.arrival_per_s: 0 is out of range"),
    ("arrival_per_s", DEL, "short_flows.arrival_per_s: required field missing"),
    ("size_dist", "uniform", "short_flows.size_dist: unknown size distribution \"uniform\""),
    ("start_s", -1, "short_flows.start_s: -1 is out of range"),
    ("start_s", 6, "short_flows.start_s: 6.0 is not before duration_s"),
    ("stop_s", 7, "short_flows.stop_s: 7.0 must be above start_s (1.0) and at most duration_s (6.0)"),
    ("stop_s", 1, "short_flows.stop_s: 1.0 must be above start_s"),
]


@pytest.mark.parametrize("key,value,msg", BAD, ids=["%s-%d" % (k, i) for i, (k, _, _) in enumerate(BAD)])
def test_validation_names_the_field(key, value, msg):
    with pytest.raises(ce.ScenarioError) as e:
        ce.validate(mutate(key, value))
    assert msg in str(e.value)


def test_too_many_short_flows():
    s = mutate("arrival_per_s", 1999)
    assert ce.validate(s)["short_flows"]["arrival_per_s"] == 1999  # 7996 flows over 4 s: allowed
    s["duration_s"] = s["short_flows"]["stop_s"] = 7
    with pytest.raises(ce.ScenarioError) as e:
        ce.validate(s)
    assert "short_flows.arrival_per_s: 1999/s over 6 s is 11994 flows expected, at most 10000" in str(e.value)


def test_defaults_and_normalised():
    s = copy.deepcopy(GOOD)
    s["short_flows"] = {"cc": "bbr", "rtt_ms": 30, "arrival_per_s": 2}
    n = ce.validate(s)["short_flows"]
    assert n == {"cc": "bbr", "size_dist": "web", "rtt_ms": 30.0, "arrival_per_s": 2.0,
                 "start_s": 0.0, "stop_s": 6.0}
    assert "--short=ns3::TcpBbr,30.0,2.0,web,0.0,6.0" in ce.sim_args(ce.validate(s))
    del s["short_flows"]
    assert "short_flows" not in ce.validate(s)
    assert not any(a.startswith("--short") for a in ce.sim_args(ce.validate(s)))


def test_web_sizes():
    # bounded Pareto(0.63) on [2 KB, 10 MB]: mean 76.5 KB, 8 % of flows at or above 100 KB
    assert ce.web_mean_bytes() == pytest.approx(76.5e3, rel=0.01)
    assert ce.web_share_at_least(100e3) == pytest.approx(0.081, abs=0.002)
    assert ce.web_share_at_least(2e3) == pytest.approx(1.0)
    assert ce.arrival_for_load(0.3, 20) == pytest.approx(0.3 * 20e6 / 8 / ce.web_mean_bytes())


def test_cli_exit_2(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(mutate("size_dist", "dctcp")))
    r = subprocess.run([RUN, str(p)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stdout == ""
    assert "short_flows.size_dist: unknown size distribution" in r.stderr


def run_cli(tmp_path, scn, *args):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(scn))
    r = subprocess.run([RUN, str(p)] + list(args), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def check_short(res, s):
    sf, spec = res["short_flows"], s["short_flows"]
    recs = sf["records"]
    assert sf["started"] == len(recs) > 0
    # every started flow either completed or is counted as unfinished
    assert sf["completed"] + sf["unfinished"] == sf["started"]
    assert sf["completed"] == sum(1 for r in recs if r[2] is not None)
    for bucket, small in (("lt_100kB", True), ("ge_100kB", False)):
        mine = [r for r in recs if (r[1] < 100e3) == small]
        assert sf[bucket]["started"] == len(mine)
        assert sf[bucket]["completed"] == sum(1 for r in mine if r[2] is not None)
    rate_bps = s["rate_mbps"] * 1e6
    for start, size, fct_ms in recs:
        assert spec["start_s"] <= start < spec["stop_s"]
        assert ce.WEB_SIZES["min_bytes"] <= size <= ce.WEB_SIZES["max_bytes"]
        if fct_ms is not None:
            # a handshake and the bytes through the bottleneck: size / rate + RTT is a lower bound
            assert fct_ms >= (size * 8 / rate_bps + spec["rtt_ms"] / 1e3) * 1e3, (start, size, fct_ms)
            assert start + fct_ms / 1e3 <= s["duration_s"] + 1e-9
    done = sorted(r[2] for r in recs if r[2] is not None)
    assert sf["fct_p50_ms"] in done and sf["fct_p99_ms"] in done
    assert sf["fct_p50_ms"] <= sf["fct_p99_ms"]
    assert 0 < sf["offered_load"] and 0 < sf["goodput_mbps"] < s["rate_mbps"]
    # long-lived JFI as before: over the long-lived flows only
    assert len(res["flows"]) == len(s["flows"])
    assert res["jfi"] == pytest.approx(ce.jfi([f["goodput_mbps"] for f in res["flows"]]))
    # every drop and mark after warm-up is some flow's: long-lived or short
    assert sum(f["drops_total"] for f in res["flows"]) + sf["drops_total"] == res["drops"]
    assert sum(f["marks"] for f in res["flows"]) + sf["marks"] == res["marks"]


def test_short_flows_fifo(tmp_path):
    s = ce.validate(GOOD)
    res = run_cli(tmp_path, GOOD)
    check_short(res, s)
    assert "groups" not in res["short_flows"] and "drops" not in res["short_flows"]


@pytest.mark.skipif(not MODEL_BUILT, reason="ccfair model not built into eval/build/dumbbell")
def test_short_flows_ccfair(tmp_path):
    s = ce.validate(GOOD, "ccfair")
    res = run_cli(tmp_path, GOOD, "--aqm", "ccfair")
    check_short(res, s)
    sf = res["short_flows"]
    # the switch sees each short flow as a new flow: its packets are queued as ant, mouse or,
    # once its slow start ends, a long-lived group; the shares say which
    g = sf["groups"]
    assert g["ant"] + g["mouse"] + g["long_lived"] == pytest.approx(1.0)
    assert g["mouse"] > 0 and 0 < g["flows_only_ant_mouse"] <= 1
    assert sum(sf["drops"].values()) == sf["drops_total"]
