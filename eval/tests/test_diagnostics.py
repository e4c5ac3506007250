# SPDX-License-Identifier: Apache-2.0
"""The ccfair model's diagnostics in eval/run's output add up: per flow, drops by reason equal
the drops the queue disc reported for that flow; over the flows, the run's total; a run without
drops gives zeros. No expected numbers."""
import json
import os
import subprocess
import sys

import pytest

from evaltest import EVAL, HERE, MODEL_BUILT, RUN, ce, needs_model  # noqa: F401

# Three CCs on a 40-packet buffer: PV and shared-buffer drops after warm-up.
DROPPY = {"name": "droppy", "seed": 3, "link": {"rate_mbps": 10, "buffer_pkts": 40},
          "duration_s": 8, "warmup_s": 2,
          "flows": [{"cc": "cubic", "rtt_ms": 40}, {"cc": "bbr", "rtt_ms": 40, "start_s": 0.5},
                    {"cc": "reno", "rtt_ms": 80, "start_s": 1}]}
# One Vegas flow on a deep buffer: it keeps a few packets queued and is never dropped after warm-up.
QUIET = {"name": "quiet", "seed": 1, "link": {"rate_mbps": 10, "buffer_pkts": 100},
         "duration_s": 8, "warmup_s": 4, "flows": [{"cc": "vegas", "rtt_ms": 40}]}


def run_cli(tmp_path, scn, aqm):
    p = tmp_path / "s.json"
    p.write_text(json.dumps(scn))
    r = subprocess.run([RUN, str(p), "--aqm", aqm], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@needs_model
def test_drops_by_reason_add_up(tmp_path):
    res = run_cli(tmp_path, DROPPY, "ccfair")
    assert res["drops"] > 0, "the scenario is meant to drop"
    for f in res["flows"]:
        assert set(f["drops"]) == set(ce.DROP_REASONS)
        # the model's verdicts against the queue disc's own drop trace, flow by flow
        assert sum(f["drops"].values()) == f["drops_total"], f
    assert sum(f["drops_total"] for f in res["flows"]) == res["drops"]
    assert sum(res["drops_by_reason"].values()) == res["drops"]
    assert sum(f["marks"] for f in res["flows"]) == res["marks"]
    assert res["diag_key_collisions"] == 0
    lo, hi, edge = res["ctv_at_lo_share"], res["ctv_at_hi_share"], res["ctv_at_edge_share"]
    assert 0 <= edge <= 1 and max(lo, hi) <= edge <= lo + hi + 1e-12
    assert sum(q["pkts"] for q in res["ctv_queues"]) > 0
    assert all(0 <= q["at_edge_share"] <= 1 for q in res["ctv_queues"])
    r = res["rstar_over_fair"]
    assert 0 < r["p10"] <= r["p50"] <= r["p90"]
    # the share correction (D13): long-lived groups only, within +-correction_max_bins
    bound = ce._params()["controller"]["correction_max_bins"]
    assert set(res["correction_mean_bins"]) <= set(ce.group_names()[2:])
    assert all(abs(v) <= bound for v in res["correction_mean_bins"].values())
    # the shared layout (the scenario's, by default) never moves a long-lived group's queue
    assert res["queue_moves"] == 0 and res["queue_moved_flows"] == 0


@needs_model
def test_no_drop_gives_zeros(tmp_path):
    res = run_cli(tmp_path, QUIET, "ccfair")
    assert res["drops"] == 0 and res["marks"] == 0
    assert res["drops_by_reason"] == {k: 0 for k in ce.DROP_REASONS}
    f = res["flows"][0]
    assert f["drops"] == {k: 0 for k in ce.DROP_REASONS} and f["drops_total"] == 0 and f["marks"] == 0


def test_other_aqms_count_drops_per_flow(tmp_path):
    res = run_cli(tmp_path, DROPPY, "fifo")
    assert res["drops"] > 0
    assert sum(f["drops_total"] for f in res["flows"]) == res["drops"]
    assert "drops" not in res["flows"][0] and "ctv_at_edge_share" not in res and "rstar_over_fair" not in res
