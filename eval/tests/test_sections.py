# SPDX-License-Identifier: Apache-2.0
"""Sections 7 (scenarios the design was not tuned on) and 8 (seed spread) of make_results.py:
every file in eval/scenarios/unseen/ validates for the section's AQMs; section 8's seed-1 runs are
section 3's runs (same cache key); the sections' tables are produced from stand-in results
without simulating (the runner is replaced), one row per scenario plus mean and worst."""
import glob
import os
import sys

import pytest

from evaltest import EVAL, ce

sys.path.insert(0, os.path.join(EVAL, "sweep"))
import make_results as mr  # noqa: E402
import runner  # noqa: E402

UNSEEN = sorted(glob.glob(os.path.join(EVAL, "scenarios", "unseen", "**", "*.json"), recursive=True))


def test_unseen_folder_is_not_empty():
    assert mr.unseen_files() and set(mr.unseen_files()) <= set(UNSEEN)


@pytest.mark.parametrize("path", UNSEEN, ids=[os.path.relpath(p, os.path.join(EVAL, "scenarios")) for p in UNSEEN])
def test_unseen_files_validate(path):
    for aqm in mr.UNSEEN_AQMS:
        s = ce.load(path, aqm)
        assert s["aqm"] == aqm and s["flows"] and s["warmup_s"] > 0
        assert ce.sim_args(s)  # the simulator's command line can be built


def test_seed_one_is_section_three():
    """Section 8's seed-1 mixes have section 3's simulator arguments, hence its cache entries
    (its short-flow runs section 6's, its unseen files section 7's); seeds 2 and 3 differ from
    them in --seed only."""
    s3, k3 = mr.mix_scenarios()
    s8, k8 = mr.seed_scenarios()
    path = lambda s: runner.cache_path("h", s, "sim")  # noqa: E731
    runs8 = {k: s for s, k in zip(s8, k8)}

    def same_but_seed(label, aqm, base):
        """Seed 1 of `label` is `base`'s cache entry; the other seeds differ from it in --seed only."""
        assert path(runs8[(label, aqm, 1)]) == path(base), label
        for seed in mr.SEEDS[1:]:
            diff = set(ce.sim_args(runs8[(label, aqm, seed)])) ^ set(ce.sim_args(base))
            assert diff == {"--seed=1", "--seed=%d" % seed}, (label, seed)

    for s, (label, aqm) in zip(s3, k3):
        same_but_seed("%d-flow mix: %s" % (mr.MIX_RUN["flows"], label), aqm, s)
    demo = [s for s, (lb, _, _) in zip(s8, k8) if lb.startswith("demo")]
    assert len(demo) == len(mr.SEEDS) * len(mr.SEED_AQMS)
    assert sorted({s["seed"] for s in demo}) == mr.SEEDS
    # section 6's runs on every seed; seed 1 is section 6's own cache entry
    short8 = [k for k in k8 if k[0].startswith("short flows")]
    assert len(short8) == len(mr.SHORT) * len(mr.SEEDS) * len(mr.SEED_AQMS)
    for row in mr.SHORT:
        for aqm in mr.SEED_AQMS:
            same_but_seed(mr.short_seed_label(row), aqm, mr.short_scenario(row, aqm))
    # section 7's files on every seed; seed 1 is each file's own (every file is written with seed 1)
    unseen8 = [k for k in k8 if k[0].startswith("unseen: ")]
    assert len(unseen8) == len(mr.unseen_files()) * len(mr.SEEDS) * len(mr.SEED_AQMS) > 0
    for p in mr.unseen_files():
        for aqm in mr.SEED_AQMS:
            same_but_seed(mr.unseen_seed_label(p), aqm, mr.scenario_file(p, aqm))
    # the section's rows: the demo, the mixes, section 6's runs, section 7's files
    assert list(dict.fromkeys(k[0] for k in k8)) == (
        ["demo (demo.json)"] + ["%d-flow mix: %s" % (mr.MIX_RUN["flows"], m[0]) for m in mr.MIXES]
        + [mr.short_seed_label(row) for row in mr.SHORT] + [mr.unseen_seed_label(p) for p in mr.unseen_files()])


FAKE_FCT_SCALE = {"fifo": 3.0, "fq_codel": 1.0, "ccfair": 1.25}


def fake_fcts(s):
    """Stand-in web flows: 100 under 100 KB with FCTs seed * 1000 + i ms (i < 100) times the AQM's
    scale, one unfinished, one of 200 KB."""
    k = FAKE_FCT_SCALE[s["aqm"]]
    recs = [[0.0, 5000, k * (s["seed"] * 1000 + i)] for i in range(100)] + [[0.0, 5000, None], [0.0, 2e5, 1.0]]
    small = [r[2] for r in recs if r[1] < ce.SMALL_FLOW_BYTES and r[2] is not None]
    return {"records": recs, "lt_100kB": {"fct_p99_ms": ce.percentile(small, 0.99)}}


def fake_run_many(scenarios, label="sweep", timeline_ms=0):
    """Stand-in results: JFI from the seed and the flow count, so the spread is known."""
    res = [{"name": s["name"], "aqm": s["aqm"], "jfi": 0.5 + 0.1 * s["seed"] + 0.001 * len(s["flows"]),
            "utilization": 0.9, "qdelay_p99_ms": float(s["seed"]), "flows": []} for s in scenarios]
    for r, s in zip(res, scenarios):
        if s.get("short_flows"):
            r["short_flows"] = fake_fcts(s)
    return res, 0.0, len(scenarios)


def test_sections_markdown_without_simulating(tmp_path, monkeypatch):
    monkeypatch.setattr(runner, "run_many", fake_run_many)
    monkeypatch.setattr(runner, "snapshot_binary", lambda: ("fakehash", "/nonexistent/sim"))
    monkeypatch.setattr(mr, "FIG_DIR", mr.FIG_DIR)  # sections_only redirects it; restore afterwards
    assert mr.sections_only(["7", "8"], out_dir=str(tmp_path)) == 0
    md = (tmp_path / "results-extra.md").read_text()
    assert (tmp_path / "figures" / "eval-unseen.png").exists() and (tmp_path / "figures" / "eval-seeds.png").exists()
    s7 = md.split("## 7.")[1].split("## 8.")[0]
    s8 = md.split("## 8.")[1].split("## Diagnostics")[0]
    rows7 = [r for r in s7.splitlines() if r.startswith("| ") and not r.startswith("| scenario")]
    assert len(rows7) == len(mr.unseen_files()) + 2
    for f in mr.unseen_files():
        assert "`%s`" % mr.unseen_stem(f) in s7
    jfi8, fct8 = s8.split("Section 6's web flows under 100 KB")
    rows8 = [r for r in jfi8.splitlines() if r.startswith("| ") and not r.startswith("| scenario")]
    assert len(rows8) == 1 + len(mr.MIXES) + len(mr.SHORT) + len(mr.unseen_files()) + 2  # demo, mixes, short flows, unseen; mean, worst
    # FCTs: per seed, and pooled over the seeds (nearest rank over 100 flows per seed)
    fct_rows = [[c.strip() for c in r.split("|")[1:-1]] for r in fct8.splitlines()
                if r.startswith("| ") and not r.startswith("| scenario")]
    assert len(fct_rows) == len(mr.SHORT) * len(mr.SEED_AQMS)
    pooled = {a: ce.percentile([FAKE_FCT_SCALE[a] * (x * 1000 + i) for x in mr.SEEDS for i in range(100)], 0.99)
              for a in mr.SEED_AQMS}
    for r in fct_rows[:len(mr.SEED_AQMS)]:
        a = r[1]
        assert r[2] == " / ".join("%.0f" % (FAKE_FCT_SCALE[a] * (x * 1000 + 98)) for x in mr.SEEDS)  # rank 98 of 0-99
        assert r[3] == "%d" % (100 * len(mr.SEEDS))
        assert r[4].split(" / ")[1] == "%.0f" % pooled[a]
        assert r[5] == "%.2f×" % (pooled[a] / pooled["fq_codel"])
    # JFI grows by 0.1 per seed in the stand-in: spread (max - min) is 0.1 * (last seed - first seed)
    spread = "%.2f" % (0.1 * (mr.SEEDS[-1] - mr.SEEDS[0]))
    assert rows8[0].split(" | ")[4] == " / ".join([spread] * len(mr.SEED_AQMS))
    assert "**mean**" in s7 and "**worst**" in s8


def test_sections_flag_rejects_unknown_section(capsys):
    assert mr.cli(["--sections", "3"]) == 2
    assert "--sections takes" in capsys.readouterr().err


def test_weighted_scenarios_carry_their_intent():
    """Section 9: every run is ccfair with its layout and intent; the weighted ones pass --weights."""
    scns, keys = mr.weighted_scenarios()
    assert len(scns) == sum(len(x[2]) for x in mr.WEIGHTED) * len(mr.WEIGHT_LAYOUTS) * len(mr.WEIGHT_SEEDS)
    for s, (label, intent, layout, seed) in zip(scns, keys):
        args = ce.sim_args(s)
        assert s["aqm"] == "ccfair" and "--queue_layout=%s" % layout in args and "--seed=%d" % seed in args
        weights = [a for a in args if a.startswith("--weights=")]
        assert (intent == "per-flow") == (not weights)
    assert "--weights=delay:2.0,loss:1.0" in ce.sim_args(scns[keys.index(("8 Vegas + 8 Cubic", "delay 2 : loss 1",
                                                                            "shared", 1))])
    assert "--weights=hybrid:1.0,loss:3.0" in ce.sim_args(scns[keys.index(("8 Cubic + 8 BBR", "loss 3 : hybrid 1",
                                                                            "shared", 1))])


def fake_weighted(deliver, in_family):
    """Stand-in runner for section 9: each flow's goodput = deliver(intent weights, family); each flow
    in its own family's group from warm-up on if in_family, else in 'ant' throughout."""
    def run_many(scenarios, label="sweep", timeline_ms=0):
        res = []
        for s in scenarios:
            w = s["intent"].get("weights", {})
            flows = []
            for f in s["flows"]:
                fam = mr.family_of(f["cc"])
                flows.append({"cc": f["cc"], "goodput_mbps": deliver(w, fam),
                              "group_timeline": [[0.5, fam + "0"]] if in_family else []})
            moves = 30 if s.get("queue_layout") == "isolated" else 0  # 2 a second over 15 measured s
            res.append({"name": s["name"], "aqm": "ccfair", "jfi": 1.0, "utilization": 0.97,
                        "qdelay_p99_ms": 3.0 + s["seed"], "flows": flows,
                        "queue_moves": moves, "queue_moved_flows": 4 * moves})
        return res, 0.0, len(scenarios)
    return run_many


def section9(tmp_path, monkeypatch, deliver, in_family=True):
    monkeypatch.setattr(runner, "run_many", fake_weighted(deliver, in_family))
    monkeypatch.setattr(runner, "snapshot_binary", lambda: ("fakehash", "/nonexistent/sim"))
    monkeypatch.setattr(mr, "FIG_DIR", mr.FIG_DIR)
    assert mr.sections_only(["9"], out_dir=str(tmp_path)) == 0
    s9 = (tmp_path / "results-extra.md").read_text().split("## 9.")[1].split("## Diagnostics")[0]
    return s9, [r.split(" | ") for r in s9.splitlines() if r.startswith("| ") and not r.startswith("| population")]


def test_weighted_section_delivered_as_asked(tmp_path, monkeypatch):
    # goodput = the family's weight: delivered = asked, every weighted run meets the goal
    s9, rows = section9(tmp_path, monkeypatch, lambda w, fam: w.get(fam, 1.0))
    assert len(rows) == sum(len(x[2]) for x in mr.WEIGHTED) * len(mr.WEIGHT_LAYOUTS)
    by = {(r[0].strip("| "), r[1], r[2]): r for r in rows}
    r = by[("8 Vegas + 8 Cubic", "delay 1 : loss 2", "isolated")]
    assert r[3] == "0.50" and r[4].startswith("0.50 [0.50") and r[5] == "+0 %"
    assert r[6] == "delay 1.00 / loss 1.00" and r[7] == "delay 100 % / loss 100 %"
    assert by[("8 Cubic + 8 BBR", "loss 3 : hybrid 1", "shared")][3] == "3.00"
    assert r[11].strip(" |") == "%.1f" % (3.0 + max(mr.WEIGHT_SEEDS))  # p99: the highest over the seeds
    measured = mr.WEIGHT_RUN["duration_s"] - mr.WEIGHT_RUN["warmup_s"]
    assert r[9] == "%.1f (%.0f)" % (30 / measured, 120 / measured)  # moves per measured second
    assert by[("8 Vegas + 8 Cubic", "delay 1 : loss 2", "shared")][9] == "0.0 (0)"
    n = sum(len(x[2]) - 1 for x in mr.WEIGHTED) * len(mr.WEIGHT_LAYOUTS)
    assert "ratio with JFI ≥ 0.95 in both families: %d of %d." % (n, n) in s9


def test_weighted_section_shows_a_missed_ratio(tmp_path, monkeypatch):
    # every flow gets the same goodput whatever the intent (and never sits in its family's groups)
    s9, rows = section9(tmp_path, monkeypatch, lambda w, fam: 2.0, in_family=False)
    by = {(r[0].strip("| "), r[1], r[2]): r for r in rows}
    r = by[("8 Vegas + 8 Cubic", "delay 2 : loss 1", "shared")]
    assert r[4].startswith("1.00") and r[5] == "-50 %" and r[7] == "delay 0 % / loss 0 %"
    assert by[("8 Cubic + 8 BBR", "loss 3 : hybrid 1", "shared")][5] == "-67 %"
    assert "in both families: 0 of" in s9


def test_confusion_matrix_counts_time_after_the_skip():
    """60 RTTs of 100 ms skip the first 6 s; time is split by family, K sub-groups merged."""
    res = {"flows": [{"cc": "cubic", "start_s": 0.0, "rtt_ms": 100,
                      "group_timeline": [[0.0, "mouse"], [5.0, "loss0"], [10.0, "hybrid0"], [12.0, "loss1"]]},
                     {"cc": "cubic", "start_s": 0.0, "rtt_ms": 400,  # 24 s of skip: outside an 18 s run
                      "group_timeline": [[0.0, "mouse"]]}]}
    conf = mr.confusion([(res, 18.0)])
    c = conf["cubic"]
    assert c["n"] == 1
    assert c["share"]["loss"] == pytest.approx((4 + 6) / 12)
    assert c["share"]["loss-delay"] == pytest.approx(2 / 12)
    assert c["share"]["mouse"] == 0.0
    assert mr.conf_family("delay1") == "delay" and mr.conf_family("hybrid1") == "model"
    assert "**83 %**" in mr.confusion_table(conf)


def test_results_keep_the_testbed_section(tmp_path):
    """make eval rewrites docs/results.md but carries the testbed's section (make testbed --report)."""
    p = tmp_path / "results.md"
    p.write_text("# Results\n\n## 1. Pairs\nold\n\n## Real Linux TCP on BMv2\n\nrow | 1\n\n## Closing note\nold\n")
    kept = mr.carried_sections(str(p))
    assert kept == "\n## Real Linux TCP on BMv2\n\nrow | 1\n"
    assert mr.carried_sections(str(tmp_path / "missing.md")) == ""


def test_resumed_counts_only_an_earlier_invocations_entries(tmp_path, monkeypatch):
    """A report is resumed only if it used cache entries an earlier invocation wrote: a run from an
    empty cache hits its own entries (section 8's seed 1 repeats sections 3, 6 and 7) and says so
    as the matrix's wall time, not as "not measured in one piece"."""
    monkeypatch.setattr(runner, "CACHE", str(tmp_path))
    monkeypatch.setattr(runner, "snapshot_binary", lambda: ("h", "sim"))
    monkeypatch.setattr(runner, "_written", set())
    monkeypatch.setattr(runner, "_earlier", [])
    monkeypatch.setattr(runner.ce, "run", lambda s, timeline_ms, sim: {"jfi": 1.0})
    monkeypatch.setenv("EVAL_JOBS", "1")
    a = mr.scenario("a", "fifo", mr.LINK, 10, 2, [{"cc": "cubic", "rtt_ms": 20}])
    b = mr.scenario("b", "fifo", mr.LINK, 10, 2, [{"cc": "reno", "rtt_ms": 20}])
    _, _, executed = runner.run_many([a, a], "t")  # the second repeats this invocation's run
    assert (executed, runner.from_earlier()) == (1, 0)
    monkeypatch.setattr(runner, "_written", set())  # a new invocation on the same cache
    _, _, executed = runner.run_many([a, b], "t")
    assert (executed, runner.from_earlier()) == (1, 1)
    monkeypatch.setenv("EVAL_JOBS", "2")  # two threads on one new scenario: neither is an earlier entry
    c = mr.scenario("c", "fifo", mr.LINK, 10, 2, [{"cc": "bic", "rtt_ms": 20}])
    before = runner.from_earlier()
    _, _, executed = runner.run_many([c, c], "t")
    assert executed in (1, 2) and runner.from_earlier() == before
    assert mr.resumed({"runs": 3, "executed": 1, "from_earlier": 1})
    assert not mr.resumed({"runs": 721, "executed": 685, "from_earlier": 0})
    assert mr.resumed({"runs": 721, "executed": 685})  # a meta file from before from_earlier


def test_fabric_section_runs_every_aqm_and_seed_over_two_edges(tmp_path, monkeypatch):
    # section 10: each scenario under every AQM and seed; the demo's flows on two edge switches, and
    # the table shows each run's JFI (a stand-in: the seed's number / 10)
    seen = []

    def run_many(scenarios, label="sweep", timeline_ms=0):
        seen.extend(scenarios)
        return [{"jfi": s["seed"] / 10.0, "utilization": 0.9, "qdelay_p99_ms": 7.0, "flows": []}
                for s in scenarios], 0.0, len(scenarios)
    monkeypatch.setattr(runner, "run_many", run_many)
    monkeypatch.setattr(runner, "snapshot_binary", lambda: ("fakehash", "/nonexistent/sim"))
    monkeypatch.setattr(mr, "FIG_DIR", mr.FIG_DIR)
    assert mr.sections_only(["10"], out_dir=str(tmp_path)) == 0
    assert len(seen) == len(mr.FABRIC) * len(mr.FABRIC_AQMS) * len(mr.FABRIC_SEEDS)
    for s in seen:
        assert s["fabric"] == {"uplink_mbps": float(mr.FABRIC_UPLINK_MBPS), "edges": 2}
        assert "--edges=2" in ce.sim_args(s)
    bbr_apart = [s for s in seen if s["aqm"] == "ccfair" and s["seed"] == 1][1]
    assert [f["edge"] for f in bbr_apart["flows"] if f["cc"] == "bbr"] == [0, 0]
    assert {f["edge"] for f in bbr_apart["flows"] if f["cc"] != "bbr"} == {1}
    s10 = (tmp_path / "results-extra.md").read_text().split("## 10.")[1].split("## Diagnostics")[0]
    rows = [r.split(" | ") for r in s10.splitlines() if r.startswith("| ") and not r.startswith("| scenario")]
    assert len(rows) == len(mr.FABRIC) * len(mr.FABRIC_AQMS)
    assert rows[2][1] == "ccfair" and rows[2][2] == "0.10 / 0.20 / 0.30"
