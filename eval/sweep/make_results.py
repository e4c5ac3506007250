# SPDX-License-Identifier: Apache-2.0
"""`make eval`: run every reproduction and regenerate docs/results.md and its figures.

Experiments (scaling and methodology: docs/eval.md):
  1. 13x13 pairwise JFI matrix, compared cell by cell with the seed's FIFO table,
     with every AQM in MATRIX_AQMS (its wall time is the "full matrix" goal);
  2. RTT fairness: two flows of one CC, RTT base and base + diff;
  3. P4air's 128-flow mixes;
  4. asymmetric populations: many flows of one CC family against few of another, mixed RTTs;
  5. classification accuracy per CC from the ccfair runs' group timelines;
  6. short flows: web-size transfers (Poisson arrivals) beside four long-lived flows;
  7. scenarios the design was not tuned on: every eval/scenarios/unseen/*.json as is;
  8. seed spread: the demo, section 3's mixes and section 6's web runs on seeds 2 and 3 beside seed 1 (with their FCTs pooled);
  9. weighted intents: delivered per-family shares under weighted-groups intents (ccfair only);
then ccfair's diagnostics per section (drops by reason, CTV at its range edge, R* / fair).
FIFO, fq_codel and ccfair run in every experiment.
EVAL_QUICK=1 shrinks everything to a smoke run (used while developing; its output
says so in the first line). EVAL_RESUME=1 keeps cached runs of the same binary.
`make_results.py --short-only` runs section 6 alone (its cache is kept) and writes its
markdown to eval/build/results-short.md instead of docs/results.md; `make_results.py
--sections 7,8` (any of 6, 7, 8, 9) likewise writes those sections to eval/build/results-extra.md
and their figures to eval/build/figures/.
"""
import csv
import datetime
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import runner  # noqa: E402
from runner import ce  # noqa: E402

REPO = ce.REPO
REF = os.path.join(ce.EVAL, "reference")  # published tables, each citing its source
DOCS = os.path.join(REPO, "docs")
FIG_DIR = os.path.join(DOCS, "figures")
QUICK = os.environ.get("EVAL_QUICK") == "1"

# The 13 CCs of the seed's tables that ns-3 has (LoLa is missing), with the
# seed's column names.
SEED_NAMES = {"reno": "Reno", "bic": "BIC", "cubic": "Cubic", "highspeed": "HS-TCP",
              "htcp": "HTCP", "hybla": "Hybla", "westwood": "Westwood", "vegas": "Vegas",
              "veno": "Veno", "illinois": "Illinois", "yeah": "YeAH", "bbr": "BBR", "dctcp": "DCTCP"}
CCS = list(SEED_NAMES)

# Scaled set-up (docs/eval.md): the seed ran 100 Mbit/s at 100 ms; ns-3 at 100 Mbit/s runs
# at about real time, so rate is scaled to 20 Mbit/s, keeping RTT and buffer in BDPs.
LINK = {"rate_mbps": 20, "buffer_pkts": 200}          # 200 pkts = 1.2 BDP at 100 ms
MATRIX = {"rtt_ms": 100, "duration_s": 18, "warmup_s": 6}   # 120 RTTs measured
# The AQMs the issue asks the matrix for; EVAL_MATRIX_AQMS=fifo,red,codel,fq_codel,pie,fq_pie,ccfair
# runs all seven (637 runs, about 1.75x the time).
MATRIX_AQMS = os.environ.get("EVAL_MATRIX_AQMS", "fifo,fq_codel,pie,ccfair").split(",")
# The report compares against the seed's FIFO table and against fq_codel, and reports ccfair.
for _needed in ("fifo", "fq_codel", "ccfair"):
    if _needed not in MATRIX_AQMS:
        sys.exit("EVAL_MATRIX_AQMS must include %s (the report compares fifo, fq_codel and ccfair)" % _needed)
DETAIL_AQMS = ["fifo", "fq_codel", "pie", "ccfair"]
RTT_BASE_MS = 20
RTT_DIFFS = [0, 40, 120, 200]
RTT_AQMS = ["fifo", "fq_codel", "ccfair"]
RTT_RUN = {"duration_s": 20, "warmup_s": 8}   # the 220 ms flow: 54 RTTs measured
MIX_LINK = {"rate_mbps": 100, "buffer_pkts": 833}     # 1 BDP at 100 ms
MIX_RUN = {"rtt_ms": 100, "duration_s": 16, "warmup_s": 6, "flows": 128}   # 100 RTTs measured
MIXES = [("50% Cubic / 50% Vegas", {"cubic": 0.5, "vegas": 0.5}, (0.20, 0.92)),
         ("75% Cubic / 25% BBR", {"cubic": 0.75, "bbr": 0.25}, (0.19, 0.93)),
         ("25% of each family", {"cubic": 0.25, "vegas": 0.25, "illinois": 0.25, "bbr": 0.25}, (0.18, 0.88)),
         ("100% BBR", {"bbr": 1.0}, (0.16, 1.00))]
MIX_AQMS = ["fifo", "fq_codel", "ccfair"]
# Asymmetric populations (our own design, not from a paper): a crowd of one CC family against
# a few flows of another, each population split over two RTTs. The minority's share is what
# a fairness scheme must protect; P4air's and CSAQM's published mixes are all symmetric.
ASYM_LINK = {"rate_mbps": 50, "buffer_pkts": 333}   # 1 BDP at 80 ms
ASYM_RUN = {"duration_s": 25, "warmup_s": 10}
ASYM_AQMS = ["fifo", "fq_codel", "ccfair"]
ASYM = [  # (label, crowd [(cc, count, rtt_ms)], minority [(cc, count, rtt_ms)])
    ("2 BBR vs 14 Cubic", [("cubic", 7, 20), ("cubic", 7, 80)], [("bbr", 1, 20), ("bbr", 1, 80)]),
    ("2 Vegas vs 14 Cubic", [("cubic", 7, 20), ("cubic", 7, 80)], [("vegas", 1, 20), ("vegas", 1, 80)]),
    ("2 BBR vs 14 Vegas", [("vegas", 7, 20), ("vegas", 7, 80)], [("bbr", 1, 20), ("bbr", 1, 80)]),
    ("2 Cubic vs 14 Vegas", [("vegas", 7, 20), ("vegas", 7, 80)], [("cubic", 1, 20), ("cubic", 1, 80)]),
    ("4 Reno vs 16 BBR", [("bbr", 8, 10), ("bbr", 8, 60)], [("reno", 2, 10), ("reno", 2, 60)]),
    ("2 Illinois at 160 ms vs 14 Cubic at 10 ms", [("cubic", 14, 10)], [("illinois", 2, 160)]),
]

# Short flows (our own scenarios): web-size transfers (bounded Pareto, eval/pylib WEB_SIZES and
# docs/eval.md), Poisson arrivals of new TCP connections, beside four long-lived flows of four
# families, all at one RTT. Arrival rates give the web flows' mean offered load as a share of the
# link; the long-lived flows take what is left. Same links (and buffers) as sections 1 and 3.
SHORT_LONG = ["cubic", "bbr", "vegas", "illinois"]
SHORT_RTT_MS = 40
SHORT_CC = "cubic"
# The last arrivals get 10 s (4 s at 100 Mbit/s) to complete; 20 Mbit/s runs cost ~4 CPU-s,
# 100 Mbit/s ones 9-25 CPU-s (ns-3.44): the section is 55-77 CPU-s.
SHORT = [  # (label, link, web load, duration_s, warmup_s = start of arrivals, end of arrivals)
    ("20 Mbit/s, 30 % web load", LINK, 0.3, 60, 5, 50),
    ("20 Mbit/s, 60 % web load", LINK, 0.6, 60, 5, 50),
    ("100 Mbit/s, 30 % web load", MIX_LINK, 0.3, 20, 4, 16),
]
SHORT_AQMS = ["fifo", "fq_codel", "ccfair"]
# Section 7: scenario files ccfair's parameters were not tuned on, each run as written (its own
# link, buffer, duration, warm-up and seed); a file added to the folder adds a row.
UNSEEN_DIR = os.path.join(ce.EVAL, "scenarios", "unseen")
UNSEEN_AQMS = ["fifo", "fq_codel", "ccfair"]
# Section 8: how far one seed's JFI can be trusted. The demo and section 3's mixes, unchanged but
# for the seed (ns-3's run number); seed 1 is the run of `make run` / section 3 (same simulator
# arguments, so the same cache entries where the runner's key matches).
DEMO = os.path.join(ce.EVAL, "scenarios", "demo.json")
SEEDS = [1, 2, 3]
SEED_AQMS = ["fifo", "fq_codel", "ccfair"]
# Section 9: does a weighted-groups intent deliver the share it asks for? ccfair alone (the only
# AQM with an intent), two families of 8 flows each on section 4's link, every flow at one RTT,
# each intent beside the per-flow objective (None), in both queue layouts, on three seeds.
# Section 10 (our own scenarios): a two-switch fabric. The demo's flows sit behind two edge
# switches, each with a 100 Mbit/s uplink (5x the bottleneck: never the bottleneck) into the
# bottleneck's switch, which receives them on fabric ports: it tracks nothing and drops by the PV
# the edge switches marked (docs/eval.md, "Fabric"; docs/algorithm.md D22).
FABRIC_UPLINK_MBPS = 100
FABRIC = [  # (label, the edge switch of each of the demo's flows, by its CC and RTT)
    ("demo over two edge switches, 4 flows each", lambda i, f: i % 2),
    ("demo over two edge switches: the 2 BBR on one, the 6 others on the other", lambda i, f: int(f["cc"] != "bbr")),
]
FABRIC_AQMS = ["fifo", "fq_codel", "ccfair"]
FABRIC_SEEDS = [1, 2, 3]
WEIGHT_LINK = ASYM_LINK
WEIGHT_RUN = {"rtt_ms": 80, "duration_s": 25, "warmup_s": 10}
WEIGHTED = [  # (label, [(cc, count)], [weights or None])
    ("8 Vegas + 8 Cubic", [("vegas", 8), ("cubic", 8)], [None, {"delay": 2, "loss": 1}, {"delay": 1, "loss": 2}]),
    ("8 Cubic + 8 BBR", [("cubic", 8), ("bbr", 8)], [None, {"loss": 3, "hybrid": 1}]),
]
WEIGHT_LAYOUTS = ["shared", "isolated"]
WEIGHT_SEEDS = [1, 2, 3]

# Time-boxed runs (shared machine): fewer RTT differences / shorter mixes, stated in the report.
if os.environ.get("EVAL_RTT_DIFFS"):
    RTT_DIFFS = [int(x) for x in os.environ["EVAL_RTT_DIFFS"].split(",")]
if os.environ.get("EVAL_MIXES"):  # indices into MIXES
    MIXES = [MIXES[int(i)] for i in os.environ["EVAL_MIXES"].split(",")]
if os.environ.get("EVAL_MIX_S"):
    MIX_RUN.update(duration_s=float(os.environ["EVAL_MIX_S"]), warmup_s=float(os.environ["EVAL_MIX_S"]) * 0.4)

if QUICK:
    CCS = ["cubic", "vegas", "bbr"]
    MATRIX.update(duration_s=12, warmup_s=4)
    RTT_DIFFS = [0, 200]
    RTT_RUN.update(duration_s=12, warmup_s=4)
    MIX_LINK = {"rate_mbps": 20, "buffer_pkts": 167}
    MIX_RUN.update(duration_s=10, warmup_s=4, flows=16)
    MIXES = MIXES[:1]
    ASYM = ASYM[:2]
    ASYM_LINK = {"rate_mbps": 20, "buffer_pkts": 133}
    ASYM_RUN.update(duration_s=10, warmup_s=4)
    SHORT = [(label, link, load, 12, 3, 10) for label, link, load, *_ in SHORT[:2]]
    SEEDS = [1, 2]
    WEIGHT_LINK = {"rate_mbps": 20, "buffer_pkts": 133}
    WEIGHT_RUN.update(duration_s=10, warmup_s=4)
    WEIGHT_SEEDS = [1]
QUICK_MAX_S = 8  # EVAL_QUICK: scenario files (sections 7, 8) cut to this many seconds, warm-up 40 %


def scenario(name, aqm, link, duration_s, warmup_s, flows, seed=1):
    return ce.validate({"name": name, "seed": seed, "link": link, "duration_s": duration_s,
                        "warmup_s": warmup_s, "aqm": aqm, "flows": flows})


def scenario_file(path, aqm, seed=None):
    """A scenario file validated for `aqm` (optionally another seed); EVAL_QUICK cuts it short."""
    with open(path) as fh:
        raw = json.load(fh)
    if seed is not None:
        raw["seed"] = seed
    if QUICK and raw["duration_s"] > QUICK_MAX_S:
        raw.update(duration_s=QUICK_MAX_S, warmup_s=0.4 * QUICK_MAX_S)
    try:
        return ce.validate(raw, aqm)
    except ce.ScenarioError as e:
        raise ce.ScenarioError("%s: %s" % (os.path.relpath(path, REPO), e))


def read_ref(name):
    with open(os.path.join(REF, name)) as fh:
        rows = list(csv.reader(line for line in fh if not line.startswith("#")))  # '#': source lines
    head = rows[0][1:]
    return {r[0]: dict(zip(head, map(float, r[1:]))) for r in rows[1:]}


def pairs(ccs):
    return [(a, b) for i, a in enumerate(ccs) for b in ccs[i:]]


def fmt(x, nd=2):
    return "–" if x is None else ("%.*f" % (nd, x))


def resumed(meta):
    """Whether the report's runs include cache entries of an earlier invocation (a meta file written
    before from_earlier was recorded: whenever fewer runs were simulated than the sections hold)."""
    return meta.get("from_earlier", meta["runs"] - meta["executed"]) > 0


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


# ---------------------------------------------------------------- experiments

def run_matrix():
    scns, keys = [], []
    for aqm in MATRIX_AQMS:
        for a, b in pairs(CCS):
            flows = [{"cc": a, "rtt_ms": MATRIX["rtt_ms"]}, {"cc": b, "rtt_ms": MATRIX["rtt_ms"]}]
            scns.append(scenario("pair-%s-%s" % (a, b), aqm, LINK, MATRIX["duration_s"],
                                 MATRIX["warmup_s"], flows))
            keys.append((aqm, a, b))
    res, wall, executed = runner.run_many(scns, "matrix")
    return dict(zip(keys, res)), wall, executed


def run_rtt():
    scns, keys = [], []
    for aqm in RTT_AQMS:
        for cc in CCS:
            for d in RTT_DIFFS:
                flows = [{"cc": cc, "rtt_ms": RTT_BASE_MS}, {"cc": cc, "rtt_ms": RTT_BASE_MS + d}]
                scns.append(scenario("rtt-%s-%d" % (cc, d), aqm, LINK, RTT_RUN["duration_s"],
                                     RTT_RUN["warmup_s"], flows))
                keys.append((aqm, cc, d))
    res, wall, executed = runner.run_many(scns, "rtt")
    return dict(zip(keys, res)), wall, executed


def mix_scenarios(seed=1, aqms=None):
    """Section 3's scenarios: ([scenario], [(mix label, aqm)]); section 8 reruns them on other seeds."""
    scns, keys = [], []
    n = MIX_RUN["flows"]
    for label, shares, _ in MIXES:
        flows = [{"cc": cc, "count": int(round(n * sh)), "rtt_ms": MIX_RUN["rtt_ms"]}
                 for cc, sh in shares.items()]
        for aqm in aqms or MIX_AQMS:
            scns.append(scenario("mix", aqm, MIX_LINK, MIX_RUN["duration_s"], MIX_RUN["warmup_s"], flows, seed))
            keys.append((label, aqm))
    return scns, keys


def run_mixes():
    scns, keys = mix_scenarios()
    # FIFO mixes first: one of them (heavy loss, ns-3's SACK scoreboard) costs as much CPU as
    # the rest of the stage, and started last it would run alone on one core.
    order = sorted(range(len(scns)), key=lambda i: keys[i][1] != "fifo")
    res, wall, executed = runner.run_many([scns[i] for i in order], "mixes")
    return {keys[i]: r for i, r in zip(order, res)}, wall, executed


def run_asym():
    scns, keys = [], []
    for label, crowd, few in ASYM:
        flows = [{"cc": cc, "count": n, "rtt_ms": rtt} for cc, n, rtt in crowd + few]
        for aqm in ASYM_AQMS:
            scns.append(scenario("asym", aqm, ASYM_LINK, ASYM_RUN["duration_s"], ASYM_RUN["warmup_s"], flows))
            keys.append((label, aqm))
    res, wall, executed = runner.run_many(scns, "asymmetric")
    return dict(zip(keys, res)), wall, executed


def short_scenario(row, aqm, seed=1):
    """A section 6 run: `row` one of SHORT, under `aqm`, on `seed`."""
    label, link, load, dur, warm, stop = row
    flows = [{"cc": cc, "rtt_ms": SHORT_RTT_MS} for cc in SHORT_LONG]
    short = {"cc": SHORT_CC, "rtt_ms": SHORT_RTT_MS, "size_dist": "web", "start_s": warm, "stop_s": stop,
             "arrival_per_s": round(ce.arrival_for_load(load, link["rate_mbps"]), 3)}
    s = scenario("short", aqm, link, dur, warm, flows, seed)
    s["short_flows"] = ce.validate({"name": "x", "link": link, "duration_s": dur, "flows": flows,
                                    "short_flows": short})["short_flows"]
    return s


def run_short():
    scns, keys = [], []
    for row in SHORT:
        for aqm in SHORT_AQMS:
            scns.append(short_scenario(row, aqm))
            keys.append((row[0], aqm))
    # the 100 Mbit/s runs first: the longest, started last they would run alone on one core
    order = sorted(range(len(scns)), key=lambda i: -scns[i]["rate_mbps"])
    res, wall, executed = runner.run_many([scns[i] for i in order], "short")
    return {keys[i]: r for i, r in zip(order, res)}, wall, executed


def unseen_files():
    return sorted(glob.glob(os.path.join(UNSEEN_DIR, "*.json")))


def unseen_stem(path):
    """A section 7 file's name in its tables: the file name without .json."""
    return os.path.splitext(os.path.basename(path))[0]


def run_unseen():
    """Section 7: {(file stem, aqm): result}, every eval/scenarios/unseen/*.json under every UNSEEN_AQMS."""
    scns, keys = [], []
    for path in unseen_files():
        for aqm in UNSEEN_AQMS:
            scns.append(scenario_file(path, aqm))
            keys.append((unseen_stem(path), aqm))
    # the most simulated bits first, FIFO first among equals (heavy loss: ns-3's SACK scoreboard)
    order = sorted(range(len(scns)), key=lambda i: (-scns[i]["rate_mbps"] * scns[i]["duration_s"],
                                                    keys[i][1] != "fifo"))
    res, wall, executed = runner.run_many([scns[i] for i in order], "unseen")
    got = {keys[i]: r for i, r in zip(order, res)}
    return {k: got[k] for k in keys}, wall, executed  # in file order


def seed_scenarios():
    """Section 8: ([scenario], [(label, aqm, seed)]): the demo file, section 3's mixes, section 6's
    runs and section 7's unseen files on every seed."""
    scns, keys = [], []
    for seed in SEEDS:
        for aqm in SEED_AQMS:
            scns.append(scenario_file(DEMO, aqm, seed))
            keys.append((DEMO_SEED_LABEL, aqm, seed))
        ms_, mk = mix_scenarios(seed, SEED_AQMS)
        scns += ms_
        keys += [("%d-flow mix: %s" % (MIX_RUN["flows"], label), aqm, seed) for label, aqm in mk]
        for row in SHORT:
            for aqm in SEED_AQMS:
                scns.append(short_scenario(row, aqm, seed))
                keys.append((short_seed_label(row), aqm, seed))
        for path in unseen_files():
            for aqm in SEED_AQMS:
                scns.append(scenario_file(path, aqm, seed))
                keys.append((unseen_seed_label(path), aqm, seed))
    return scns, keys


DEMO_SEED_LABEL = "demo (demo.json)"


def unseen_seed_label(path):
    return "unseen: %s" % unseen_stem(path)


def short_seed_label(row):
    return "short flows: %s (long-lived JFI)" % row[0]


def run_seeds():
    """Section 8: ({(label, aqm, seed): result}, wall, executed, executed on seed 1)."""
    scns, keys = seed_scenarios()
    # the FIFO mixes first (the costly runs, as in run_mixes), then by simulated bits
    order = sorted(range(len(scns)), key=lambda i: (not (keys[i][1] == "fifo" and "mix" in keys[i][0]),
                                                    -scns[i]["rate_mbps"] * scns[i]["duration_s"]))
    # runs of seed 1 not in the cache (the runner's key: binary hash + simulator arguments)
    binhash, sim = runner.snapshot_binary()
    fresh1 = sum(1 for s, k in zip(scns, keys) if k[2] == 1 and not os.path.exists(runner.cache_path(binhash, s, sim)))
    res, wall, executed = runner.run_many([scns[i] for i in order], "seeds")
    got = {keys[i]: r for i, r in zip(order, res)}
    return {k: got[k] for k in keys}, wall, executed, fresh1  # demo first, then the mixes


def weight_key(weights):
    """'per-flow' or 'delay 2 : loss 1' (families in the population's order is not needed: sorted)."""
    return "per-flow" if not weights else " : ".join("%s %g" % kv for kv in weights.items())


def weighted_scenarios():
    """Section 9: ([scenario], [(label, intent key, layout, seed)])."""
    scns, keys = [], []
    for label, pop, intents in WEIGHTED:
        flows = [{"cc": cc, "count": n, "rtt_ms": WEIGHT_RUN["rtt_ms"]} for cc, n in pop]
        for weights in intents:
            for layout in WEIGHT_LAYOUTS:
                for seed in WEIGHT_SEEDS:
                    raw = {"name": "weighted", "seed": seed, "link": WEIGHT_LINK, "aqm": "ccfair",
                           "duration_s": WEIGHT_RUN["duration_s"], "warmup_s": WEIGHT_RUN["warmup_s"],
                           "flows": flows, "queue_layout": layout,
                           "intent": {"objective": "weighted-groups", "weights": weights} if weights
                           else {"objective": "per-flow"}}
                    scns.append(ce.validate(raw))
                    keys.append((label, weight_key(weights), layout, seed))
    return scns, keys


def run_weighted():
    """Section 9: ({(label, intent key, layout, seed): result}, wall, executed)."""
    scns, keys = weighted_scenarios()
    res, wall, executed = runner.run_many(scns, "weighted")
    return dict(zip(keys, res)), wall, executed


def fabric_scenarios():
    """Section 10: ([scenario], [(label, aqm, seed)])."""
    with open(DEMO) as fh:
        demo = json.load(fh)
    scns, keys = [], []
    for label, edge_of in FABRIC:
        for aqm in FABRIC_AQMS:
            for seed in FABRIC_SEEDS:
                raw = dict(demo, name="fabric", seed=seed, fabric={"uplink_mbps": FABRIC_UPLINK_MBPS},
                           flows=[dict(f, edge=edge_of(i, f)) for i, f in enumerate(demo["flows"])])
                if QUICK:
                    raw.update(duration_s=QUICK_MAX_S, warmup_s=0.4 * QUICK_MAX_S)
                scns.append(ce.validate(raw, aqm))
                keys.append((label, aqm, seed))
    return scns, keys


def run_fabric():
    """Section 10: ({(label, aqm, seed): result}, wall, executed)."""
    scns, keys = fabric_scenarios()
    res, wall, executed = runner.run_many(scns, "fabric")
    return dict(zip(keys, res)), wall, executed


def fabric_section(fabric, wall=None):
    """Section 10's markdown lines; `fabric` = {(label, aqm, seed): result}."""
    L = []
    w = L.append
    w("## 10. A two-switch fabric\n")
    w("The demo's flows (`eval/scenarios/demo.json`: 2 Cubic, 2 BBR, 2 Vegas, 2 Illinois; 20/80 ms; 20 Mbit/s, 200 "
      "pkts; 60 s, warm-up 15 s) behind two edge switches, each with a %d Mbit/s uplink into the bottleneck's switch "
      "(docs/eval.md, \"Fabric\"). Under ccfair each edge switch runs the program on its uplink as an edge switch "
      "(tracks and classifies its flows, marks their PVs, pushes the shim) and the bottleneck's switch receives "
      "them on fabric ports: it tracks nothing and drops by the PV the edges marked, against its own CTV; one "
      "emulated controller computes every switch's policy from the flows all of them count, as the ONOS app does "
      "for a fabric. The other AQMs run at the bottleneck only (the uplinks are deep FIFOs that never queue for "
      "long). Seeds %s; utilisation of the bottleneck and p99 queuing delay mean over the seeds. Our own "
      "scenarios, no published reference; the program before one PV scale for the fabric is measured in "
      "docs/algorithm.md D22.%s\n"
      % (FABRIC_UPLINK_MBPS, " / ".join(str(x) for x in FABRIC_SEEDS),
         " **EVAL_QUICK: cut to %d s.**" % QUICK_MAX_S if QUICK else ""))
    labels = list(dict.fromkeys(k[0] for k in fabric))
    rows = []
    for label in labels:
        for aqm in FABRIC_AQMS:
            rs = [fabric[(label, aqm, x)] for x in FABRIC_SEEDS]
            rows.append([label if aqm == FABRIC_AQMS[0] else "", aqm, " / ".join(fmt(r["jfi"]) for r in rs),
                         pct(statistics.mean(r["utilization"] for r in rs)),
                         "%.1f" % statistics.mean(r["qdelay_p99_ms"] for r in rs)])
    w(md_table(["scenario", "AQM", "JFI (seed %s)" % " / ".join(str(x) for x in FABRIC_SEEDS), "util. %",
                "p99 ms"], rows))
    w("")
    if wall is not None:
        w("Section wall time: %.0f s (%d runs, %d parallel jobs).\n" % (wall, len(fabric), runner.jobs()))
    return L


def family_of(cc):
    """The intent family a CC's flows are weighted as (ccfair_eval.CCS: 'hybrid:model' -> hybrid)."""
    return ce.CCS[cc][1].split(":")[0]


def weighted_stats(res, pop, weights, warmup_s, duration_s):
    """One run of section 9: per family (population order) its flows' goodputs, JFI, and the share
    of the measured interval its flows spent in any group of the family (the groups the intent's
    weight applies to; mean over the flows); the delivered and the asked per-flow ratio of the
    first family to the second."""
    fams = [family_of(cc) for cc, _ in pop]
    out = {"fam": fams, "gp": [], "jfi": [], "cls": [], "where": []}
    for fam in fams:
        fl = [f for f in res["flows"] if family_of(f["cc"]) == fam]
        gp = [f["goodput_mbps"] for f in fl]
        out["gp"].append(gp)
        out["jfi"].append(ce.jfi(gp))
        shares, where = [], {}
        for f in fl:
            # "ant" before the first change
            spent = ce.timeline_time([[0.0, "ant"]] + f["group_timeline"], warmup_s, duration_s)
            for g, dt in spent.items():
                where[g] = where.get(g, 0.0) + dt / (duration_s - warmup_s) / len(fl)
            shares.append(sum(dt for g, dt in spent.items() if g.rstrip("0123456789") == fam)
                          / (duration_s - warmup_s))
        out["cls"].append(statistics.mean(shares))
        out["where"].append(where)  # group -> share of the family's measured time
    a, b = (statistics.mean(g) for g in out["gp"])
    out["delivered"] = a / b if b > 0 else float("inf")
    w = weights or {}
    out["asked"] = w.get(fams[0], 1.0) / w.get(fams[1], 1.0)
    return out


def weighted_section(weighted, wall=None):
    """Section 9's markdown lines; `weighted` = {(label, intent key, layout, seed): result}."""
    L = []
    w = L.append
    params = ce.ccparams.load()  # D19's M and k, named in the text
    w("## 9. Weighted intents: delivered against asked shares\n")
    w("Does a `weighted-groups` intent deliver the per-family share it asks for? ccfair only (the only AQM with an "
      "intent); the emulated controller applies the intent as the ONOS app does (testdata/controller/cases.json, "
      "the weighted cases included, holds both to it). Two families of %d flows each, every flow at %d ms, "
      "%g Mbit/s, %d-packet buffer (1 BDP at 80 ms, section 4's link), %g s (warm-up %g s); each intent beside the "
      "per-flow objective, in both queue layouts (`shared`: every long-lived group in one queue, the default; "
      "`isolated`: each long-lived group a queue of its own, picked by the TM's DWRR weight to follow flows × weight, "
      "docs/algorithm.md D18, where a loss-based flow forgets a back-off after %d intervals without a "
      "retransmission and a delay group's queue holds %d packets a flow before the AQM acts, D19, and a model-based "
      "group's queue reads its CTV range at its weighted share and keeps its flows model-based through a rate fall, "
      "D20, and Cocoa's shrink leaves a delay group's queue those packets a flow, D21), seeds %s. BBR is weighted as `hybrid` (its expected group is "
      "hybrid1, the model-based kind of the hybrid family; docs/algorithm.md §8). *asked* = the first family's "
      "weight over the second's; *delivered* = the first family's mean goodput per flow over the second's, mean "
      "over the seeds [min – max]; *error* = delivered / asked − 1 of the mean. *JFI in family* = Jain's index "
      "of the goodputs within each family, lowest over the seeds. *in family* = share of the measured interval "
      "the family's flows spent in a group of their own family (the groups the intent's weight applies to), mean "
      "over flows and seeds: a flow the classifier puts elsewhere gets that group's weight, not its own; *most time "
      "in* = the group each family spent most of that interval in, and its share. *moves /s (flows /s)* = how often a "
      "policy moved a long-lived group that has flows after it to another queue, per measured second, and "
      "those flows per second (`queue_moves`, `queue_moved_flows`; docs/eval.md), mean over the seeds: always "
      "0 in `shared`; in `isolated` a group moves when the flow counts change, and its packets queued before "
      "and after meet different queues (the model's controller applies a policy every 100 ms, the app every "
      "1 s). "
      "Utilisation mean, p99 queuing delay highest over the seeds. Goal (issue 23): every intent within ± 15 %% "
      "of its asked ratio, JFI in each family ≥ 0.95.%s\n"
      % (WEIGHTED[0][1][0][1], WEIGHT_RUN["rtt_ms"], WEIGHT_LINK["rate_mbps"], WEIGHT_LINK["buffer_pkts"],
         WEIGHT_RUN["duration_s"], WEIGHT_RUN["warmup_s"],
         params["classifier"]["family_forget_intervals"], params["queues"]["delay_target_pkts"],
         " / ".join(str(x) for x in WEIGHT_SEEDS),
         " **EVAL_QUICK: 20 Mbit/s, 10 s, one seed.**" if QUICK else ""))
    rows, met, outside = [], [], {}
    measured = WEIGHT_RUN["duration_s"] - WEIGHT_RUN["warmup_s"]
    for label, pop, intents in WEIGHTED:
        for weights in intents:
            for layout in WEIGHT_LAYOUTS:
                runs = [(weighted[(label, weight_key(weights), layout, sd)]) for sd in WEIGHT_SEEDS]
                st = [weighted_stats(r, pop, weights, WEIGHT_RUN["warmup_s"], WEIGHT_RUN["duration_s"])
                      for r in runs]
                fams = st[0]["fam"]
                d = [x["delivered"] for x in st]
                asked = st[0]["asked"]
                err = statistics.mean(d) / asked - 1
                jf = [min(x["jfi"][i] for x in st) for i in range(2)]
                cl = [statistics.mean(x["cls"][i] for x in st) for i in range(2)]
                # the group each family spent most of its measured time in (mean over the seeds)
                most = []
                for i in range(2):
                    gs = {g for x in st for g in x["where"][i]}
                    share = {g: statistics.mean(x["where"][i].get(g, 0.0) for x in st) for g in gs}
                    top = max(sorted(share), key=lambda g: share[g])
                    most.append("%s %.0f %%" % (top, 100 * share[top]))
                if weights:
                    met.append(abs(err) <= 0.15 and min(jf) >= 0.95)
                for f, c in zip(fams, cl):
                    outside.setdefault((label, f), []).append(c)
                rows.append([label, weight_key(weights), layout, "%.2f" % asked,
                             "%.2f [%.2f – %.2f]" % (statistics.mean(d), min(d), max(d)), "%+.0f %%" % (100 * err),
                             " / ".join("%s %.2f" % (f, j) for f, j in zip(fams, jf)),
                             " / ".join("%s %.0f %%" % (f, 100 * c) for f, c in zip(fams, cl)),
                             " / ".join(most),
                             "%.1f (%.0f)" % tuple(statistics.mean(r[k] for r in runs) / measured
                                                         for k in ("queue_moves", "queue_moved_flows")),
                             pct(statistics.mean(r["utilization"] for r in runs)),
                             "%.1f" % max(r["qdelay_p99_ms"] for r in runs)])
    w(md_table(["population", "intent", "layout", "asked", "delivered", "error", "JFI in family",
                "in family", "most time in", "moves /s (flows /s)", "util. %", "p99 ms"], rows))
    w("")
    w("Weighted runs within ± 15 %% of the asked ratio with JFI ≥ 0.95 in both families: %d of %d.\n"
      % (sum(met), len(met)))
    low = ["%s in %s: %.0f %%" % (f, label, 100 * statistics.mean(c)) for (label, f), c in outside.items()
           if statistics.mean(c) < 0.5]
    if low:
        w("Families in their own groups less than half of the measured time (mean over the section's runs): %s. "
          "A flow outside its family's groups is weighted as the family of the group it is in, so for these "
          "families the table measures the classifier (docs/algorithm.md §8.6, D11, D16: a flow is "
          "loss-based once it has backed off after a loss twice, and under ccfair's short queue Vegas loses and backs off too), not the weights; where no flow of either family is in its own "
          "groups, a weighted run delivers about what the per-flow run does (identical runs where the weights touch no group a flow ever entered).\n" % "; ".join(low))
    if wall is not None:
        w("Section wall time: %.0f s (%d runs, %d parallel jobs).\n" % (wall, len(weighted), runner.jobs()))
    return L


def minority_share(label, res):
    """The minority's mean goodput per flow as a fraction of the fair share rate / N
    (validate() expands flows in list order: the crowd first)."""
    _, crowd, _ = next(a for a in ASYM if a[0] == label)
    n_crowd = sum(n for _, n, _ in crowd)
    fair = ASYM_LINK["rate_mbps"] / len(res["flows"])
    return statistics.mean(f["goodput_mbps"] for f in res["flows"][n_crowd:]) / fair


# ---------------------------------------------------------------- classification

def classification(runs):
    """Per CC, from (result, duration_s) pairs: share of lifetime in the expected group,
    flows ever correct, RTTs to first correct."""
    per = {}
    for res, dur in runs:
        for f in res["flows"]:
            exp = ce.expected_groups(f["cc"])
            tl = f["group_timeline"]
            t_in, first = 0.0, None
            for k, (t, g) in enumerate(tl):
                t_end = tl[k + 1][0] if k + 1 < len(tl) else dur
                if g in exp:
                    t_in += max(0.0, min(t_end, dur) - t)
                    if first is None:
                        first = t
            life = dur - f["start_s"]
            d = per.setdefault(f["cc"], {"share": [], "ever": 0, "n": 0, "rtts": []})
            d["n"] += 1
            d["share"].append(t_in / life if life > 0 else 0.0)
            if first is not None:
                d["ever"] += 1
                d["rtts"].append((first - f["start_s"]) / (f["rtt_ms"] / 1e3))
    return per


# Sections of docs/results.md that other tools measure (`make testbed --report`): `make eval`
# carries them over unchanged, from their heading to the next "## " heading or the end.
CARRIED_HEADINGS = ["## Real Linux TCP on BMv2"]


def carried_sections(path):
    """The CARRIED_HEADINGS sections of the results.md at `path` (as they stand), or ""."""
    try:
        with open(path) as fh:
            lines = fh.read().split("\n")
    except FileNotFoundError:
        return ""
    out, keep = [], False
    for line in lines:
        if line.startswith("## "):
            keep = any(line.startswith(h) for h in CARRIED_HEADINGS)
        if keep:
            out.append(line)
    return ("\n" + "\n".join(out).rstrip("\n") + "\n") if out else ""


# Confusion matrix columns: a group name -> the family it stands for (K sub-groups merged).
CONF_COLS = ["ant", "mouse", "delay", "loss", "loss-delay", "model"]
CONF_SKIP_RTTS = 60  # P4air's horizon: BBR correct after ~48 RTTs, Cubic after ~60


def conf_family(group):
    """The confusion matrix's column of a group name (delay0/1 -> delay, hybrid0 -> loss-delay,
    hybrid1 -> model), or None for a name outside the table."""
    if group in ("ant", "mouse"):
        return group
    for fam in ("delay", "loss"):
        if group.startswith(fam):
            return fam
    return {"hybrid0": "loss-delay", "hybrid1": "model"}.get(group)


def confusion(runs, skip_rtts=CONF_SKIP_RTTS):
    """Per CC, from (result, duration_s) pairs: the share of each flow's lifetime after its first
    `skip_rtts` base RTTs spent in each CONF_COLS family (time-weighted over all flows of the CC),
    and the flows counted. A flow whose window is empty (run too short for its RTT) is left out."""
    per = {}
    for res, dur in runs:
        for f in res["flows"]:
            t0 = f["start_s"] + skip_rtts * f["rtt_ms"] / 1e3
            if t0 >= dur:
                continue
            d = per.setdefault(f["cc"], {"time": dict.fromkeys(CONF_COLS, 0.0), "total": 0.0, "n": 0})
            d["n"] += 1
            for g, dt in ce.timeline_time(f.get("group_timeline") or [], t0, dur).items():
                col = conf_family(g)
                if col:
                    d["time"][col] += dt
                    d["total"] += dt
    return {cc: {"n": d["n"], "share": {c: (d["time"][c] / d["total"] if d["total"] else 0.0) for c in CONF_COLS}}
            for cc, d in per.items()}


def confusion_table(conf):
    rows = []
    for cc in CCS:
        d = conf.get(cc)
        if not d:
            continue
        exp = {conf_family(g) for g in ce.expected_groups(cc)}
        rows.append([SEED_NAMES[cc], d["n"]] + [("**%.0f %%**" if c in exp else "%.0f %%") % (100 * d["share"][c])
                                               for c in CONF_COLS])
    return md_table(["cc", "flows"] + CONF_COLS, rows)


# ---------------------------------------------------------------- figures

def fig_matrix(matrix, seed):
    aqms = [a for a in DETAIL_AQMS if a in MATRIX_AQMS]
    n = len(CCS)
    fig, axes = plt.subplots(1, len(aqms) + 1, figsize=(3.3 * (len(aqms) + 1), 3.6))
    panels = [("seed FIFO (Linux, 100 Mbit/s)", lambda a, b: seed[SEED_NAMES[a]][SEED_NAMES[b]])]
    panels += [("ns-3 " + aqm, (lambda aqm: lambda a, b: cell(matrix, aqm, a, b))(aqm)) for aqm in aqms]
    for ax, (title, get) in zip(axes, panels):
        grid = [[get(a, b) for b in CCS] for a in CCS]
        im = ax.imshow(grid, vmin=0.5, vmax=1.0, cmap="RdYlGn")
        ax.set_title(title, fontsize=9)
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.set_xticklabels([SEED_NAMES[c] for c in CCS], rotation=90, fontsize=6)
        ax.set_yticklabels([SEED_NAMES[c] for c in CCS], fontsize=6)
    fig.subplots_adjust(left=0.04, right=0.93, bottom=0.2, top=0.9, wspace=0.35)
    fig.colorbar(im, ax=axes, shrink=0.8, label="JFI")
    return save(fig, "eval-jfi-matrix.png", tight=False)


def fig_seed_scatter(matrix, seed):
    fig, ax = plt.subplots(figsize=(4.2, 4))
    xs = [seed[SEED_NAMES[a]][SEED_NAMES[b]] for a, b in pairs(CCS)]
    ys = [cell(matrix, "fifo", a, b) for a, b in pairs(CCS)]
    ax.scatter(xs, ys, s=12)
    ax.plot([0.4, 1], [0.4, 1], "k:", lw=1)
    ax.set_xlabel("seed FIFO JFI (Linux)")
    ax.set_ylabel("ns-3 FIFO JFI (this harness)")
    ax.set_xlim(0.4, 1.01)
    ax.set_ylim(0.4, 1.01)
    ax.grid(alpha=0.3)
    return save(fig, "eval-fifo-vs-seed.png")


def fig_rtt(rtt, seed_fifo, seed_aqm):
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for aqm in RTT_AQMS:
        ax.plot(RTT_DIFFS, [statistics.mean(rtt[(aqm, cc, d)]["jfi"] for cc in CCS) for d in RTT_DIFFS],
                marker="o", label="ns-3 " + aqm)
    for ref, name, ls in ((seed_fifo, "seed FIFO", "--"), (seed_aqm, "seed AQM", ":")):
        ds = sorted(int(k) for k in ref)
        ax.plot(ds, [statistics.mean(ref[str(d)][SEED_NAMES[c]] for c in CCS) for d in ds],
                ls=ls, color="grey", label=name)
    ax.set_xlabel("RTT difference (ms), base %d ms" % RTT_BASE_MS)
    ax.set_ylabel("mean JFI over %d CCs" % len(CCS))
    ax.set_ylim(0.4, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return save(fig, "eval-rtt-fairness.png")


def fig_mixes(mixes):
    fig, ax = plt.subplots(figsize=(6, 3.4))
    w = 0.8 / len(MIX_AQMS)
    for k, aqm in enumerate(MIX_AQMS):
        ax.bar([i + k * w for i in range(len(MIXES))], [mixes[(m[0], aqm)]["jfi"] for m in MIXES],
               width=w, label="ns-3 " + aqm)
    ax.set_xticks([i + w * (len(MIX_AQMS) - 1) / 2 for i in range(len(MIXES))])
    ax.set_xticklabels([m[0] for m in MIXES], fontsize=7)
    ax.set_ylabel("JFI (%d flows)" % MIX_RUN["flows"])
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, ncol=len(MIX_AQMS), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(alpha=0.3, axis="y")
    return save(fig, "eval-mixes.png")


def fig_asym(asym):
    fig, ax = plt.subplots(figsize=(7, 3.6))
    w = 0.8 / len(ASYM_AQMS)
    for k, aqm in enumerate(ASYM_AQMS):
        ax.bar([i + k * w for i in range(len(ASYM))],
               [minority_share(a[0], asym[(a[0], aqm)]) for a in ASYM], width=w, label="ns-3 " + aqm)
    ax.axhline(1.0, color="k", ls=":", lw=1)
    ax.set_xticks([i + w * (len(ASYM_AQMS) - 1) / 2 for i in range(len(ASYM))])
    ax.set_xticklabels([a[0].replace(" vs ", "\nvs ") for a in ASYM], fontsize=6)
    ax.set_ylabel("minority goodput / fair share")
    ax.legend(fontsize=8, ncol=len(ASYM_AQMS), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(alpha=0.3, axis="y")
    return save(fig, "eval-asymmetric.png")


def fig_unseen(unseen, stems):
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(stems)), 3.4))
    w = 0.8 / len(UNSEEN_AQMS)
    for k, aqm in enumerate(UNSEEN_AQMS):
        ax.bar([i + k * w for i in range(len(stems))], [unseen[(st, aqm)]["jfi"] for st in stems],
               width=w, label="ns-3 " + aqm)
    ax.set_xticks([i + w * (len(UNSEEN_AQMS) - 1) / 2 for i in range(len(stems))])
    ax.set_xticklabels([st.replace("_", "\n", 1) for st in stems], fontsize=7)
    ax.set_ylabel("JFI")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, ncol=len(UNSEEN_AQMS), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(alpha=0.3, axis="y")
    return save(fig, "eval-unseen.png")


def fig_seeds(seeds, labels):
    """Per scenario and AQM: the JFI of each seed (dots) and their range (bar)."""
    fig, ax = plt.subplots(figsize=(7, 3.4))
    w = 0.8 / len(SEED_AQMS)
    for k, aqm in enumerate(SEED_AQMS):
        xs = [i + k * w for i in range(len(labels))]
        js = [[seeds[(lb, aqm, x)]["jfi"] for x in SEEDS] for lb in labels]
        line = ax.vlines(xs, [min(j) for j in js], [max(j) for j in js], lw=6, alpha=0.35, color="C%d" % k)
        for x, j in zip(xs, js):
            ax.plot([x] * len(j), j, "o", ms=3, color=line.get_color()[0])
        ax.plot([], [], "o-", color="C%d" % k, label="ns-3 " + aqm)
    ax.set_xticks([i + w * (len(SEED_AQMS) - 1) / 2 for i in range(len(labels))])
    ax.set_xticklabels([lb.replace(": ", ":\n") for lb in labels], fontsize=6)
    ax.set_ylabel("JFI, seeds %s" % ", ".join(str(x) for x in SEEDS))
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, ncol=len(SEED_AQMS), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    ax.grid(alpha=0.3, axis="y")
    return save(fig, "eval-seeds.png")


def fig_class(per):
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ccs = [c for c in CCS if c in per]
    ax.bar(range(len(ccs)), [statistics.mean(per[c]["share"]) for c in ccs])
    ax.set_xticks(range(len(ccs)))
    ax.set_xticklabels([SEED_NAMES[c] for c in ccs], rotation=45, fontsize=7)
    ax.set_ylabel("share of lifetime in expected group")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3, axis="y")
    return save(fig, "eval-classification.png")


# ---------------------------------------------------------------- short flows and diagnostics (text)

def ms(x):
    return "–" if x is None else "%.0f" % x


def short_section(short, wall=None):
    """Section 6's markdown lines."""
    L = []
    w = L.append
    w("## 6. Short flows beside long-lived flows\n")
    w("Web-size transfers, each a new %s connection at %d ms RTT, arriving as a Poisson process between warm-up "
      "and a few seconds before the end, beside four long-lived flows (%s, all at %d ms). Sizes: bounded Pareto, "
      "tail index %.2f, %d KB to %d MB, mean %.1f KB, %.0f %% of flows ≥ 100 KB (docs/eval.md, \"Short flows\"). "
      "The arrival rate sets the web flows' mean offered load; with heavy tails the load drawn in one run differs "
      "(*offered*). FCT runs from the SYN to the last byte's arrival; percentiles over the flows that completed "
      "(*done*: completed / started; the others were still running at the end). JFI over the long-lived flows. "
      "Same links and buffers as sections 1 and 3; one seed; our own scenarios (no published reference). "
      "*ant/mouse* (ccfair): share of the web flows' packets the switch queued as ants or mice, and of web flows "
      "never queued as long-lived.\n"
      % (SEED_NAMES[SHORT_CC], SHORT_RTT_MS, ", ".join(SEED_NAMES[c] for c in SHORT_LONG), SHORT_RTT_MS,
         ce.WEB_SIZES["alpha"], ce.WEB_SIZES["min_bytes"] / 1e3, ce.WEB_SIZES["max_bytes"] / 1e6,
         ce.web_mean_bytes() / 1e3, 100 * ce.web_share_at_least(ce.SMALL_FLOW_BYTES)))
    rows = []
    for label, link, load, dur, warm, stop in SHORT:
        for aqm in SHORT_AQMS:
            r = short[(label, aqm)]
            sf = r["short_flows"]
            a, b = sf["lt_100kB"], sf["ge_100kB"]
            g = sf.get("groups")
            rows.append([label if aqm == SHORT_AQMS[0] else "", aqm, "%.2f" % sf["offered_load"],
                         "%d / %d" % (sf["completed"], sf["started"]),
                         "%s / %s" % (ms(sf["fct_p50_ms"]), ms(sf["fct_p99_ms"])),
                         "%s / %s" % (ms(a["fct_p50_ms"]), ms(a["fct_p99_ms"])),
                         "%s / %s" % (ms(b["fct_p50_ms"]), ms(b["fct_p99_ms"])),
                         fmt(r["jfi"]), "%.1f" % (100 * r["utilization"]), "%.1f" % r["qdelay_p99_ms"],
                         "%.0f %% / %.0f %%" % (100 * (g["ant"] + g["mouse"]), 100 * g["flows_only_ant_mouse"])
                         if g else "–"])
    w(md_table(["scenario", "AQM", "offered", "done", "FCT p50 / p99 ms", "< 100 KB p50 / p99", "≥ 100 KB p50 / p99",
                "long-lived JFI", "util. %", "p99 delay ms", "ant/mouse pkts / flows"], rows))
    w("")
    if wall is not None:
        w("Section wall time: %.0f s (%d runs, %d parallel jobs).\n" % (wall, len(short), runner.jobs()))
    return L


def setup(s):
    """One line describing a validated scenario: flows per CC, RTTs, link, buffer, duration."""
    n = {}
    for f in s["flows"]:
        key = (f["cc"], f.get("app_rate_mbps"))
        n[key] = n.get(key, 0) + 1
    rtts = sorted({f["rtt_ms"] for f in s["flows"]})
    return "%s; %s ms; %g Mbit/s, %d pkts; %g s (warm-up %g s)" % (
        ", ".join("%d %s%s" % (k, SEED_NAMES[c], "" if app is None else " offering %g Mbit/s" % app)
                  for (c, app), k in n.items()), "/".join("%g" % r for r in rtts),
        s["rate_mbps"], s["buffer_pkts"], s["duration_s"], s["warmup_s"])


def sides(rs, key, f):
    """'a / b / c' of one field over the AQMs' results."""
    return " / ".join(f(r[key]) for r in rs)


def pct(x):
    return "%.1f" % (100 * x)


def unseen_section(unseen, wall=None):
    """Section 7's markdown lines; `unseen` = {(file stem, aqm): result}."""
    L = []
    w = L.append
    stems = list(dict.fromkeys(k[0] for k in unseen))
    w("## 7. Scenarios the design was not tuned on\n")
    w("Every scenario file in `eval/scenarios/unseen/` (its README says what each "
      "checks), run as written (link, buffer, duration, warm-up and seed are the file's) with %s. ccfair's "
      "parameters (params/ccfair.json) were not tuned on these scenarios; no published reference. "
      "One seed; JFI over all flows after warm-up (over each flow's max-min share where a file has application-limited flows, docs/eval.md). *mean* / *worst* are over the section's %d scenarios "
      "(worst: lowest JFI and utilisation, highest p99).%s\n"
      % (", ".join(UNSEEN_AQMS), len(stems), " **EVAL_QUICK: files cut to %d s.**" % QUICK_MAX_S if QUICK else ""))
    if not stems:
        w("No scenario files in eval/scenarios/unseen/.\n")
        return L
    w("![unseen scenarios](%s)\n" % fig_unseen(unseen, stems))
    rows = []
    for stem in stems:
        s = scenario_file(os.path.join(UNSEEN_DIR, stem + ".json"), "fifo")
        rs = [unseen[(stem, a)] for a in UNSEEN_AQMS]
        rows.append(["`%s`" % stem, setup(s)] + [fmt(r["jfi"]) for r in rs]
                    + [sides(rs, "utilization", pct), sides(rs, "qdelay_p99_ms", lambda x: "%.1f" % x)])
    for name, jf, uf, pf in (("**mean**", statistics.mean, statistics.mean, statistics.mean),
                             ("**worst**", min, min, max)):
        col = lambda a, k, f: f(unseen[(st, a)][k] for st in stems)  # noqa: E731
        rows.append([name, ""] + [fmt(col(a, "jfi", jf)) for a in UNSEEN_AQMS]
                    + [" / ".join(pct(col(a, "utilization", uf)) for a in UNSEEN_AQMS),
                       " / ".join("%.1f" % col(a, "qdelay_p99_ms", pf) for a in UNSEEN_AQMS)])
    w(md_table(["scenario", "set-up"] + ["JFI " + a for a in UNSEEN_AQMS]
               + ["util. %% %s" % " / ".join(UNSEEN_AQMS), "p99 ms %s" % " / ".join(UNSEEN_AQMS)], rows))
    w("")
    if wall is not None:
        w("Section wall time: %.0f s (%d runs, %d parallel jobs).\n" % (wall, len(unseen), runner.jobs()))
    return L


def seed_section(seeds, wall=None, fresh1=None):
    """Section 8's markdown lines; `seeds` = {(label, aqm, seed): result}."""
    L = []
    w = L.append
    labels = list(dict.fromkeys(k[0] for k in seeds))
    sd = " / ".join(str(x) for x in SEEDS)
    w("## 8. Seed spread\n")
    w("How much one seed says: the demo (`eval/scenarios/demo.json` as is: %s), section 3's %d-flow mixes, "
      "section 6's runs (their JFI over the long-lived flows) and section 7's files, unchanged but for the seed (ns-3's run number: it sets each flow's start jitter in [0, 10 ms) and every "
      "other random stream), on seeds %s with %s. Seed 1 is the seed of `make run` (the demo), of section 3 "
      "(the mixes), of section 6 and of every section 7 file; sections 1–4 are all single-seed. *spread* = max − min of the JFI over the "
      "seeds; utilisation and p99 queuing delay are means over the seeds. *mean* / *worst* over the %d "
      "scenarios (worst: lowest JFI per seed, largest spread, lowest utilisation, highest p99).%s\n"
      % (setup(scenario_file(DEMO, "fifo")), MIX_RUN["flows"], sd, ", ".join(SEED_AQMS), len(labels),
         " **EVAL_QUICK: demo cut to %d s, mixes as in the quick section 3.**" % QUICK_MAX_S if QUICK else ""))
    w("![seed spread](%s)\n" % fig_seeds(seeds, labels))
    jf = lambda lb, a: [seeds[(lb, a, x)]["jfi"] for x in SEEDS]  # noqa: E731
    mean_of = lambda lb, a, k: statistics.mean(seeds[(lb, a, x)][k] for x in SEEDS)  # noqa: E731
    spread = lambda lb, a: max(jf(lb, a)) - min(jf(lb, a))  # noqa: E731
    rows = []
    for lb in labels:
        rows.append([lb] + [" / ".join(fmt(j) for j in jf(lb, a)) for a in SEED_AQMS]
                    + [" / ".join(fmt(spread(lb, a)) for a in SEED_AQMS),
                       " / ".join(pct(mean_of(lb, a, "utilization")) for a in SEED_AQMS),
                       " / ".join("%.1f" % mean_of(lb, a, "qdelay_p99_ms") for a in SEED_AQMS)])
    for name, f, fu, fp, fs in (("**mean**", statistics.mean, statistics.mean, statistics.mean, statistics.mean),
                                ("**worst**", min, min, max, max)):
        rows.append([name] + [" / ".join(fmt(f(seeds[(lb, a, x)]["jfi"] for lb in labels)) for x in SEEDS)
                              for a in SEED_AQMS]
                    + [" / ".join(fmt(fs(spread(lb, a) for lb in labels)) for a in SEED_AQMS),
                       " / ".join(pct(fu(mean_of(lb, a, "utilization") for lb in labels)) for a in SEED_AQMS),
                       " / ".join("%.1f" % fp(mean_of(lb, a, "qdelay_p99_ms") for lb in labels) for a in SEED_AQMS)])
    w(md_table(["scenario"] + ["JFI %s (seed %s)" % (a, sd) for a in SEED_AQMS]
               + ["JFI spread %s" % " / ".join(SEED_AQMS), "util. %% (mean) %s" % " / ".join(SEED_AQMS),
                  "p99 ms (mean) %s" % " / ".join(SEED_AQMS)], rows))
    w("")
    big = {a: max(labels, key=lambda lb: spread(lb, a)) for a in SEED_AQMS}
    w("Largest spread per AQM: %s. A JFI difference between two AQMs in a single-seed table that is smaller than "
      "the spread here is within seed noise.\n"
      % "; ".join("%s %.2f (%s)" % (a, spread(big[a], a), big[a]) for a in SEED_AQMS))
    L += short_seed_table(seeds)
    if wall is not None:
        w("Section wall time: %.0f s (%d runs, %d parallel jobs%s).\n"
          % (wall, len(seeds), runner.jobs(),
             "" if fresh1 is None else "; %d of the %d seed-1 runs were simulated here, the rest came from the cache"
             % (fresh1, sum(1 for k in seeds if k[2] == 1))))
    return L


def short_seed_table(seeds):
    """Section 8's FCT table: section 6's web flows under 100 KB on every seed, and the FCTs of all
    seeds pooled (a p99 over ~400 flows is its 4th-worst flow: one seed's draw moves it)."""
    L = []
    w = L.append
    sd = " / ".join(str(x) for x in SEEDS)
    w("Section 6's web flows under 100 KB on the same seeds: FCT p99 per seed (ms), and p50 / p99 of the FCTs of "
      "all seeds pooled; *× fq_codel* = the pooled p99 over fq_codel's (issue 22 asks ≤ 1.5×).\n")
    rows = []
    for row in SHORT:
        lb = short_seed_label(row)
        small = lambda a, x: [r for r in seeds[(lb, a, x)]["short_flows"]["records"]  # noqa: E731
                              if r[1] < ce.SMALL_FLOW_BYTES]
        pooled = {a: [r[2] for x in SEEDS for r in small(a, x) if r[2] is not None] for a in SEED_AQMS}
        p99 = {a: ce.percentile(pooled[a], 0.99) for a in SEED_AQMS}
        for a in SEED_AQMS:
            rows.append([row[0] if a == SEED_AQMS[0] else "", a,
                         " / ".join(ms(seeds[(lb, a, x)]["short_flows"]["lt_100kB"]["fct_p99_ms"]) for x in SEEDS),
                         "%d" % len(pooled[a]),
                         "%s / %s" % (ms(ce.percentile(pooled[a], 0.5)), ms(p99[a])),
                         "%.2f×" % (p99[a] / p99["fq_codel"]) if p99[a] and p99.get("fq_codel") else "–"])
    w(md_table(["scenario", "AQM", "p99 ms (seed %s)" % sd, "flows done (pooled)", "pooled p50 / p99 ms",
                "× fq_codel"], rows))
    w("")
    return L


def diag_section(sections):
    """ccfair's diagnostics per section: [(label, [ccfair results])] -> markdown lines."""
    L = []
    w = L.append
    w("## Diagnostics: where ccfair drops, and where its CTV sits\n")
    w("From the model's counters over every ccfair run of each section, after warm-up (docs/eval.md, output fields). "
      "*Drops by reason*: PV (the AQM: PV < CTV), limit (Cocoa's per-queue limit), buffer (the port's shared buffer "
      "full), ss (the slow-start proactive drop), as shares of the section's drops. *CTV at edge*: share of the "
      "dequeued packets that met their queue's CTV at the controller's range edge, ctv_lo or ctv_hi (at ctv_hi: R\\* "
      "at its lowest); a CTV pinned at an edge does not regulate the queue. *R\\*/fair*: R\\* = TVF⁻¹(CTV) per packet "
      "against the controller's fair rate; median over the runs of each run's p10 / p50 / p90.\n")
    rows = []
    for label, rs in sections:
        rs = [r for r in rs if "drops_by_reason" in r]
        if not rs:
            continue
        by = {k: sum(r["drops_by_reason"][k] for r in rs) for k in ce.DROP_REASONS}
        n = sum(by.values())
        pk = [sum(q["pkts"] for q in r["ctv_queues"]) for r in rs]
        tot = sum(pk)
        edge = sum(p * r["ctv_at_edge_share"] for p, r in zip(pk, rs) if p) / tot if tot else None
        hi = sum(p * r["ctv_at_hi_share"] for p, r in zip(pk, rs) if p) / tot if tot else None
        rr = [r["rstar_over_fair"] for r in rs if r.get("rstar_over_fair")]
        rows.append([label, len(rs), n] + ["%.0f %%" % (100 * by[k] / n) if n else "–" for k in ce.DROP_REASONS]
                    + ["%.0f %% (%.0f %%)" % (100 * edge, 100 * hi) if edge is not None else "–",
                       " / ".join("%.2f" % statistics.median(x[q] for x in rr) for q in ("p10", "p50", "p90"))
                       if rr else "–"])
    w(md_table(["section", "ccfair runs", "drops", "PV", "limit", "buffer", "ss", "CTV at edge (at ctv_hi)",
                "R\\*/fair p10 / p50 / p90"], rows))
    w("")
    return L


def short_only():
    """Section 6 alone (`--short-only`): markdown to eval/build/results-short.md and stdout."""
    t0 = time.time()
    load0 = os.getloadavg()[0]
    cpu0 = os.times()
    short, wall, executed = run_short()
    L = short_section(short, wall)
    L += diag_section([("6. short flows", [short[(x[0], "ccfair")] for x in SHORT])])
    L.append("%d runs (%d executed, the rest from the cache), %.0f CPU-s of simulation, %.0f s wall on %d jobs, "
             "load average %.1f -> %.1f."
             % (len(short), executed, sum(os.times()[2:4]) - sum(cpu0[2:4]), time.time() - t0, runner.jobs(),
                load0, os.getloadavg()[0]))
    out = os.path.join(ce.EVAL, "build", "results-short.md")
    with open(out, "w") as fh:
        fh.write("\n".join(L) + "\n")
    print("\n".join(L))
    print("wrote %s" % out)
    return 0


SECTIONS = {"6": "short flows", "7": "unseen scenarios", "8": "seed spread", "9": "weighted intents",
            "10": "two-switch fabric"}


def sections_only(which, out_dir=os.path.join(ce.EVAL, "build")):
    """`--sections 7,8`: the given sections (of 6, 7, 8, 9, 10) alone, with their ccfair diagnostics rows;
    markdown to eval/build/results-extra.md (and stdout), figures to eval/build/figures/. The cache
    is kept: runs of the same binary and arguments (e.g. section 8's seed 1 after `make eval`) are reused."""
    global FIG_DIR
    bad = [x for x in which if x not in SECTIONS]
    if bad or not which:
        sys.stderr.write("make_results.py: --sections takes a comma list of %s (got %s)\n"
                         % (", ".join(SECTIONS), ",".join(which) or "nothing"))
        return 2
    FIG_DIR = os.path.join(out_dir, "figures")
    os.makedirs(FIG_DIR, exist_ok=True)
    t0 = time.time()
    load0 = os.getloadavg()[0]
    binhash, _ = runner.snapshot_binary()
    L, diag, stats = [], [], []
    if QUICK:
        L.append("**EVAL_QUICK smoke run: reduced scenarios and durations; not a result.**\n")
    for sec in which:
        cpu0 = os.times()
        if sec == "6":
            short, wall, executed = run_short()
            L += short_section(short, wall)
            diag.append(("6. short flows", [short[(x[0], "ccfair")] for x in SHORT]))
            n = len(short)
        elif sec == "7":
            unseen, wall, executed = run_unseen()
            L += unseen_section(unseen, wall)
            diag.append(("7. unseen scenarios", [r for (_, a), r in unseen.items() if a == "ccfair"]))
            n = len(unseen)
        elif sec == "9":
            weighted, wall, executed = run_weighted()
            L += weighted_section(weighted, wall)
            diag.append(("9. weighted intents", list(weighted.values())))
            n = len(weighted)
        elif sec == "10":
            fabric, wall, executed = run_fabric()
            L += fabric_section(fabric, wall)
            diag.append(("10. two-switch fabric", [r for (_, a, _), r in fabric.items() if a == "ccfair"]))
            n = len(fabric)
        else:
            seeds, wall, executed, fresh1 = run_seeds()
            L += seed_section(seeds, wall, fresh1)
            diag.append(("8. seed spread (seeds %s)" % ", ".join(str(x) for x in SEEDS),
                         [r for (_, a, _), r in seeds.items() if a == "ccfair"]))
            n = len(seeds)
        stats.append("section %s: %d runs (%d executed, the rest from the cache), %.0f CPU-s of simulation, "
                     "%.0f s wall" % (sec, n, executed, sum(os.times()[2:4]) - sum(cpu0[2:4]), wall))
    L += diag_section(diag)
    L.append("Simulator binary %s; %s; %.0f s wall in total on %d jobs, load average %.1f -> %.1f."
             % (binhash, "; ".join(stats), time.time() - t0, runner.jobs(), load0, os.getloadavg()[0]))
    out = os.path.join(out_dir, "results-extra.md")
    with open(out, "w") as fh:
        fh.write("\n".join(L) + "\n")
    print("\n".join(L))
    print("wrote %s and figures in %s" % (out, FIG_DIR))
    return 0


def cli(argv):
    if argv == ["--short-only"]:
        return short_only()
    if len(argv) == 2 and argv[0] == "--sections":
        return sections_only(argv[1].split(","))
    if len(argv) == 1 and argv[0].startswith("--sections="):
        return sections_only(argv[0].split("=", 1)[1].split(","))
    if argv:
        sys.stderr.write("usage: make_results.py [--short-only | --sections 6,7,8,9,10]\n")
        return 2
    return main()


def save(fig, name, tight=True):
    if tight:
        fig.tight_layout()
    fig.savefig(os.path.join(FIG_DIR, name), dpi=80)
    plt.close(fig)
    return "figures/" + name


def cell(matrix, aqm, a, b):
    r = matrix.get((aqm, a, b)) or matrix.get((aqm, b, a))
    return r["jfi"]


# ---------------------------------------------------------------- report

def main():
    t_start = time.time()
    if os.environ.get("EVAL_RESUME") != "1":
        shutil.rmtree(runner.CACHE, ignore_errors=True)
    os.makedirs(FIG_DIR, exist_ok=True)
    seed = read_ref("jfi_pairs_fifo.csv")
    seed_aqm = read_ref("jfi_pairs_aqm.csv")
    rtt_fifo_ref = read_ref("rtt_fairness_fifo.csv")
    rtt_aqm_ref = read_ref("rtt_fairness_aqm.csv")
    p = ce.ccparams.load()
    target_ms = p["aqm"]["target_delay_us"] / 1000.0

    load0 = os.getloadavg()[0]
    cpu0 = os.times()
    print("make eval: %d CCs, matrix AQMs %s, %d jobs%s" % (
        len(CCS), ",".join(MATRIX_AQMS), runner.jobs(), " (EVAL_QUICK smoke run)" if QUICK else ""))
    binhash, _ = runner.snapshot_binary()
    commit = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    if subprocess.run(["git", "-C", REPO, "status", "--porcelain", "eval/model", "eval/sim", "params"],
                      capture_output=True, text=True).stdout.strip():
        commit += " + uncommitted changes in eval/model, eval/sim or params"
    matrix, matrix_wall, ex_m = run_matrix()
    rtt, rtt_wall, ex_r = run_rtt()
    mixes, mix_wall, ex_x = run_mixes()
    asym, asym_wall, ex_a = run_asym()
    short, short_wall, ex_s = run_short()
    unseen, unseen_wall, ex_u = run_unseen()
    seeds, seeds_wall, ex_d, fresh1 = run_seeds()
    weighted, weighted_wall, ex_w = run_weighted()
    fabric, fabric_wall, ex_f = run_fabric()
    matrix_runs = len(matrix)

    # Provenance and timings belong to the invocation that ran the simulations: a report
    # regenerated from a complete cache (EVAL_RESUME=1) keeps those of the original run.
    meta_path = os.path.join(runner.CACHE, "meta-%s.json" % binhash)
    executed = ex_m + ex_r + ex_x + ex_a + ex_s + ex_u + ex_d + ex_w + ex_f
    if executed == 0 and os.path.exists(meta_path):
        with open(meta_path) as fh:
            meta = json.load(fh)
    else:
        meta = {"commit": commit, "generated": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
                "total_s": time.time() - t_start, "matrix_wall": matrix_wall, "rtt_wall": rtt_wall,
                "mix_wall": mix_wall, "asym_wall": asym_wall, "short_wall": short_wall,
                "unseen_wall": unseen_wall, "seeds_wall": seeds_wall, "seeds_fresh1": fresh1,
                "weighted_wall": weighted_wall, "fabric_wall": fabric_wall, "load_start": load0,
                "load_end": os.getloadavg()[0], "executed": executed, "from_earlier": runner.from_earlier(),
                # the simulators' own CPU time: wall time on a shared machine says little alone
                "cpu_s": sum(os.times()[2:4]) - sum(cpu0[2:4]),
                "runs": matrix_runs + len(rtt) + len(mixes) + len(asym) + len(short) + len(unseen) + len(seeds)
                + len(weighted) + len(fabric)}
        with open(meta_path, "w") as fh:
            json.dump(meta, fh)
    matrix_wall, rtt_wall, mix_wall = meta["matrix_wall"], meta["rtt_wall"], meta["mix_wall"]
    asym_wall = meta.get("asym_wall", 0.0)
    short_wall = meta.get("short_wall", 0.0)
    unseen_wall, seeds_wall = meta.get("unseen_wall", 0.0), meta.get("seeds_wall", 0.0)
    weighted_wall = meta.get("weighted_wall", 0.0)
    fabric_wall = meta.get("fabric_wall", 0.0)

    cls = classification([(r, MATRIX["duration_s"]) for (aqm, _, _), r in matrix.items() if aqm == "ccfair"]
                         + [(r, RTT_RUN["duration_s"]) for (aqm, _, _), r in rtt.items() if aqm == "ccfair"])

    def agg(aqm):
        rs = [matrix[(aqm, a, b)] for a, b in pairs(CCS)]
        return {"worst": min(r["jfi"] for r in rs), "mean": statistics.mean(r["jfi"] for r in rs),
                "util_mean": statistics.mean(r["utilization"] for r in rs),
                "util_min": min(r["utilization"] for r in rs),
                "p99_mean": statistics.mean(r["qdelay_p99_ms"] for r in rs),
                "p99_max": max(r["qdelay_p99_ms"] for r in rs)}
    A = {aqm: agg(aqm) for aqm in MATRIX_AQMS}
    rtt200 = {aqm: statistics.mean(rtt[(aqm, cc, RTT_DIFFS[-1])]["jfi"] for cc in CCS) for aqm in RTT_AQMS}
    rtt200_min = {aqm: min(rtt[(aqm, cc, RTT_DIFFS[-1])]["jfi"] for cc in CCS) for aqm in RTT_AQMS}
    # the worst RTT run at any difference: a mean per difference or the 200 ms column alone can hide it
    rtt_worst = {aqm: min(((rtt[(aqm, cc, d)]["jfi"], cc, d) for cc in CCS for d in RTT_DIFFS)) for aqm in RTT_AQMS}

    figs = {"matrix": fig_matrix(matrix, seed), "scatter": fig_seed_scatter(matrix, seed),
            "rtt": fig_rtt(rtt, rtt_fifo_ref, rtt_aqm_ref), "mixes": fig_mixes(mixes),
            "asym": fig_asym(asym), "class": fig_class(cls)}

    L = []
    w = L.append
    w("<!-- SPDX-License-Identifier: Apache-2.0 -->")
    w("# ccfair evaluation results (ns-3)\n")
    if QUICK:
        w("**EVAL_QUICK smoke run: reduced CC set and durations; not a result.**\n")
    w("Generated by `make eval` (eval/sweep/make_results.py); simulations run on %s UTC from commit `%s` "
      "(simulator binary %s), %d parallel jobs, %.0f s in total (%s), machine load average %.1f at the start "
      "and %.1f at the end (other work shares the cores). Set-up, scaling and methodology: [eval.md](eval.md). "
      "Every number below was measured by that run on ns-3 %s; reference values are the published tables in "
      "[`eval/reference/`](../eval/reference/) (each file names its source) and the figures P4air reports.\n"
      % (meta["generated"], meta["commit"], binhash, runner.jobs(), meta["total_s"],
         "%.0f CPU-s of simulation" % meta["cpu_s"] if "cpu_s" in meta else "CPU time not recorded",
         meta["load_start"], meta["load_end"],
         next(iter(matrix.values())).get("ns3", "?")))
    was_resumed = resumed(meta)
    if was_resumed and meta["executed"] > 0:
        w("*Resumed run: %d of %d simulations were executed in this invocation; wall times cover only those.*\n"
          % (meta["executed"], meta["runs"]))

    # headline
    w("## Headline: FIFO, fq_codel and ccfair side by side\n")
    w("fq_codel is per-flow fair queueing in software: a queue per flow, which a switch ASIC with 32 queues per port "
      "does not have. It is the bar ccfair is measured against, not a competitor it must beat to be useful.\n")
    hl = [a for a in ("fifo", "fq_codel", "ccfair") if a in A]
    asym_jfi = {a: [asym[(x[0], a)]["jfi"] for x in ASYM] for a in ASYM_AQMS}
    asym_min = {a: [minority_share(x[0], asym[(x[0], a)]) for x in ASYM] for a in ASYM_AQMS}
    rows = [["worst pairwise JFI (%d×%d)" % (len(CCS), len(CCS))] + [fmt(A[a]["worst"]) for a in hl] + ["–", "≥ 0.95"],
            ["mean pairwise JFI"] + [fmt(A[a]["mean"]) for a in hl] + ["–", "–"]]
    for label, _, (p_no, p_p4) in MIXES:
        rows.append(["%d-flow mix: %s, JFI" % (MIX_RUN["flows"], label)]
                    + [fmt(mixes[(label, a)]["jfi"]) if a in MIX_AQMS else "–" for a in hl]
                    + ["%.2f → %.2f" % (p_no, p_p4), "–"])
    rows.append(["asymmetric populations, mean / worst JFI (%d scenarios)" % len(ASYM)]
                + ["%.2f / %.2f" % (statistics.mean(asym_jfi[a]), min(asym_jfi[a])) if a in ASYM_AQMS else "–" for a in hl]
                + ["–", "–"])
    rows.append(["asymmetric populations, worst minority share of fair"]
                + ["%.2f" % min(asym_min[a]) if a in ASYM_AQMS else "–" for a in hl] + ["–", "–"])
    stems = list(dict.fromkeys(k[0] for k in unseen))
    if stems:
        rows.append(["scenarios not tuned on, mean / worst JFI (%d files)" % len(stems)]
                    + ["%.2f / %.2f" % (statistics.mean(unseen[(st, a)]["jfi"] for st in stems),
                                        min(unseen[(st, a)]["jfi"] for st in stems)) if a in UNSEEN_AQMS else "–"
                       for a in hl] + ["–", "–"])
    fab_lb = list(dict.fromkeys(k[0] for k in fabric))
    rows.append(["two-switch fabric, mean / worst JFI (%d scenarios x %d seeds)" % (len(fab_lb), len(FABRIC_SEEDS))]
                + ["%.2f / %.2f" % (statistics.mean(fabric[(lb, a, x)]["jfi"] for lb in fab_lb for x in FABRIC_SEEDS),
                                    min(fabric[(lb, a, x)]["jfi"] for lb in fab_lb for x in FABRIC_SEEDS))
                   if a in FABRIC_AQMS else "–" for a in hl] + ["–", "–"])
    seed_lb = list(dict.fromkeys(k[0] for k in seeds))
    rows.append(["largest JFI spread over seeds %s (%d scenarios)" % ("/".join(str(x) for x in SEEDS), len(seed_lb))]
                + ["%.2f" % max(max(seeds[(lb, a, x)]["jfi"] for x in SEEDS) - min(seeds[(lb, a, x)]["jfi"] for x in SEEDS)
                                for lb in seed_lb) if a in SEED_AQMS else "–" for a in hl] + ["–", "–"])
    # the busiest short-flow scenario on the 20 Mbit/s link
    busiest = max([x for x in SHORT if x[1] is LINK] or SHORT, key=lambda x: x[2])
    rows.append(["web flows < 100 KB, FCT p50 / p99 ms (%s)" % busiest[0]]
                + ["%s / %s" % (ms(short[(busiest[0], a)]["short_flows"]["lt_100kB"]["fct_p50_ms"]),
                                ms(short[(busiest[0], a)]["short_flows"]["lt_100kB"]["fct_p99_ms"]))
                   if a in SHORT_AQMS else "–" for a in hl] + ["–", "–"])
    rows += [["RTT fairness at %d ms, mean / worst" % RTT_DIFFS[-1]]
             + ["%.2f / %.2f" % (rtt200[a], rtt200_min[a]) if a in rtt200 else "–" for a in hl] + ["–", "≥ 0.90"],
             ["RTT fairness, worst run at any difference (CC, ms)"]
             + ["%.2f (%s, %d)" % (rtt_worst[a][0], SEED_NAMES[rtt_worst[a][1]], rtt_worst[a][2]) if a in rtt_worst
                else "–" for a in hl] + ["–", "–"],
             ["mean link utilisation (matrix)"] + ["%.1f %%" % (100 * A[a]["util_mean"]) for a in hl] + ["–", "≥ 95 %"],
             ["lowest link utilisation (matrix)"] + ["%.1f %%" % (100 * A[a]["util_min"]) for a in hl] + ["–", "–"],
             ["p99 queuing delay, mean / worst (ms, matrix)"]
             + ["%.1f / %.1f" % (A[a]["p99_mean"], A[a]["p99_max"]) for a in hl] + ["–", "≤ %.0f ms (2× target)" % (2 * target_ms)]]
    w(md_table(["metric"] + hl + ["P4air reported (no AQM → P4air)", "goal"], rows))
    w("\nSeed (Linux, 100 Mbit/s): worst pairwise JFI FIFO %.2f, AQM %.2f; mean %.2f; RTT fairness at 200 ms mean FIFO %.2f.\n"
      % (min(seed[SEED_NAMES[a]][SEED_NAMES[b]] for a, b in pairs(CCS)),
         min(seed_aqm[SEED_NAMES[a]][SEED_NAMES[b]] for a, b in pairs(CCS)),
         statistics.mean(seed[SEED_NAMES[a]][SEED_NAMES[b]] for a, b in pairs(CCS)),
         statistics.mean(rtt_fifo_ref["200"][SEED_NAMES[c]] for c in CCS)))
    if was_resumed:
        w("Full %d×%d matrix with %d AQMs (%s), %d runs: wall time **not measured in one piece** (this report was "
          "assembled from a resumed run; %s). Goal ≤ 30 min on 2 cores.\n"
          % (len(CCS), len(CCS), len(MATRIX_AQMS), ", ".join(MATRIX_AQMS), matrix_runs,
             "the final invocation took %.1f min for its share of the matrix" % (matrix_wall / 60)
             if matrix_wall >= 1 else "every matrix run came from the cache"))
    else:
        w("Full %d×%d matrix with %d AQMs (%s): %d runs in **%.1f min** wall on %d parallel jobs (goal ≤ 30 min on 2 "
          "cores); the whole evaluation (%d runs%s) took %.1f min.\n"
          % (len(CCS), len(CCS), len(MATRIX_AQMS), ", ".join(MATRIX_AQMS), matrix_runs, matrix_wall / 60, runner.jobs(),
             meta["runs"], ", %d of them simulated: the others repeat a run of an earlier section" % meta["executed"]
             if meta["executed"] < meta["runs"] else "", meta["total_s"] / 60))

    # 1. matrix
    w("## 1. Pairwise inter-CC fairness (%d×%d)\n" % (len(CCS), len(CCS)))
    w("Two flows, one of each CC, %g Mbit/s, both RTT %d ms, %d-packet buffer, %d s of which the first %d s are warm-up; JFI of goodput after warm-up; one seed per cell. "
      "The matrix is symmetric by construction (one run per unordered pair).\n"
      % (LINK["rate_mbps"], MATRIX["rtt_ms"], LINK["buffer_pkts"], MATRIX["duration_s"], MATRIX["warmup_s"]))
    w("![JFI matrices](%s)\n" % figs["matrix"])
    rows = [[aqm, fmt(A[aqm]["worst"]), fmt(A[aqm]["mean"]), "%.1f %%" % (100 * A[aqm]["util_mean"]),
             "%.1f" % A[aqm]["p99_mean"], "%.1f" % A[aqm]["p99_max"]] for aqm in MATRIX_AQMS]
    w(md_table(["AQM", "worst JFI", "mean JFI", "mean util.", "mean p99 ms", "worst p99 ms"], rows))
    w("")
    diffs = [(cell(matrix, "fifo", a, b) - seed[SEED_NAMES[a]][SEED_NAMES[b]], a, b) for a, b in pairs(CCS)]
    absd = [abs(d) for d, _, _ in diffs]
    w("### FIFO against the seed, cell by cell\n")
    w("![ns-3 FIFO vs seed](%s)\n" % figs["scatter"])
    w("Over %d cells: mean |ns-3 − seed| = %.3f; %d cells within ±0.05, %d within ±0.10, %d off by more than 0.20. "
      "ns-3 higher than the seed in %d cells, lower in %d.\n"
      % (len(diffs), statistics.mean(absd), sum(x <= 0.05 for x in absd), sum(x <= 0.10 for x in absd),
         sum(x > 0.20 for x in absd), sum(d > 0 for d, _, _ in diffs), sum(d < 0 for d, _, _ in diffs)))
    w("Largest differences:\n")
    rows = []
    for d, a, b in sorted(diffs, key=lambda x: -abs(x[0]))[:10]:
        r = matrix[("fifo", a, b)]
        rows.append(["%s–%s" % (SEED_NAMES[a], SEED_NAMES[b]), fmt(seed[SEED_NAMES[a]][SEED_NAMES[b]]),
                     fmt(r["jfi"]), "%+.2f" % d,
                     " / ".join("%.1f" % f["goodput_mbps"] for f in r["flows"])])
    w(md_table(["pair", "seed", "ns-3", "diff", "goodputs Mbit/s"], rows))
    w("")
    w(DISCUSSION % {"rate": LINK["rate_mbps"], "measured": MATRIX["duration_s"] - MATRIX["warmup_s"]})
    for aqm in [a for a in DETAIL_AQMS if a in MATRIX_AQMS]:
        w("### %s%s\n" % (aqm, " (seed value in parentheses)" if aqm == "fifo" else ""))
        rows = []
        for a in CCS:
            cells = []
            for b in CCS:
                v = fmt(cell(matrix, aqm, a, b))
                cells.append("%s (%s)" % (v, fmt(seed[SEED_NAMES[a]][SEED_NAMES[b]])) if aqm == "fifo" else v)
            rows.append([SEED_NAMES[a]] + cells)
        w(md_table(["cc"] + [SEED_NAMES[c] for c in CCS], rows))
        w("")

    w("### Starved flows\n")
    w("Flows of the matrix runs whose goodput stayed below 5 %% of the fair share (%.1f Mbit/s) after warm-up, per CC "
      "(each CC has %d flows per AQM). Vegas starved by loss-based CCs on a FIFO is the CC effect the seed shows; "
      "a starved flow under per-flow fair queueing (fq_codel) is not what the AQM should produce and would point to "
      "a simulator artefact.\n"
      % (0.05 * LINK["rate_mbps"] / 2, len(CCS) + 1))
    rows = []
    for cc in CCS:
        row = [SEED_NAMES[cc]]
        for aqm in MATRIX_AQMS:
            n = sum(1 for a, b in pairs(CCS) for f in matrix[(aqm, a, b)]["flows"]
                    if f["cc"] == cc and f["goodput_mbps"] < 0.05 * LINK["rate_mbps"] / 2)
            row.append(str(n))
        rows.append(row)
    w(md_table(["cc"] + MATRIX_AQMS, rows))
    w("")

    # 2. RTT fairness
    w("## 2. RTT fairness\n")
    w("Two flows of the same CC, RTT %d ms and %d ms + difference, same link and buffer as above, %d s (warm-up %d s). "
      "The seed does not state its base RTT; its values are shown for orientation.\n"
      % (RTT_BASE_MS, RTT_BASE_MS, RTT_RUN["duration_s"], RTT_RUN["warmup_s"]))
    w("![RTT fairness](%s)\n" % figs["rtt"])
    rows = [[str(d)] + [fmt(statistics.mean(rtt[(aqm, cc, d)]["jfi"] for cc in CCS)) for aqm in RTT_AQMS]
            + [fmt(statistics.mean(rtt_fifo_ref[str(d)][SEED_NAMES[c]] for c in CCS)) if str(d) in rtt_fifo_ref else "–"]
            for d in RTT_DIFFS]
    w(md_table(["RTT diff ms"] + ["mean JFI " + a for a in RTT_AQMS] + ["seed FIFO mean"], rows))
    w("")
    dmax = RTT_DIFFS[-1]
    w("Per CC at %d ms difference:\n" % dmax)
    rows = [[SEED_NAMES[cc]] + [fmt(rtt[(aqm, cc, dmax)]["jfi"]) for aqm in RTT_AQMS]
            + [fmt(rtt_fifo_ref.get(str(dmax), {}).get(SEED_NAMES[cc]))] for cc in CCS]
    w(md_table(["cc"] + RTT_AQMS + ["seed FIFO"], rows))
    w("")

    # 3. mixes
    w("## 3. P4air's %d-flow mixes\n" % MIX_RUN["flows"])
    w("%d flows, all RTT %d ms, %g Mbit/s, %d-packet buffer (1 BDP), %d s (warm-up %d s); all flows start within 10 ms. "
      "P4air's values are from its Tofino testbed (no AQM → P4air), shown for orientation only: different testbed, "
      "Linux CCs, and its own per-group actions.\n"
      % (MIX_RUN["flows"], MIX_RUN["rtt_ms"], MIX_LINK["rate_mbps"], MIX_LINK["buffer_pkts"],
         MIX_RUN["duration_s"], MIX_RUN["warmup_s"]))
    w("![mixes](%s)\n" % figs["mixes"])
    rows = []
    for label, _, (p_no, p_p4) in MIXES:
        rs = [mixes[(label, a)] for a in MIX_AQMS]
        rows.append([label] + [fmt(r["jfi"]) for r in rs]
                    + [" / ".join("%.1f" % (100 * r["utilization"]) for r in rs),
                       " / ".join("%.1f" % r["qdelay_p99_ms"] for r in rs), "%.2f → %.2f" % (p_no, p_p4)])
    w(md_table(["mix"] + ["JFI " + a for a in MIX_AQMS]
               + ["util. %% %s" % " / ".join(MIX_AQMS), "p99 ms %s" % " / ".join(MIX_AQMS), "P4air reported"], rows))
    w("")

    # 4. asymmetric populations
    w("## 4. Asymmetric populations\n")
    w("A crowd of one CC family against a few flows of another (scenarios of our own design; no published reference). "
      "%g Mbit/s, %d-packet buffer (1 BDP at 80 ms), %d s (warm-up %d s); each population is split over the RTTs "
      "given. *minority share* = the minority's mean goodput per flow divided by the fair share (rate / flows): "
      "1.00 is fair, below 1 the crowd starves it, above 1 it takes from the crowd.\n"
      % (ASYM_LINK["rate_mbps"], ASYM_LINK["buffer_pkts"], ASYM_RUN["duration_s"], ASYM_RUN["warmup_s"]))
    w("![asymmetric populations](%s)\n" % figs["asym"])
    rows = []
    for label, crowd, few in ASYM:
        rs = [asym[(label, a)] for a in ASYM_AQMS]
        desc = ", ".join("%d %s @ %d ms" % (n, cc, rtt) for cc, n, rtt in crowd + few)
        rows.append([label, desc] + [fmt(r["jfi"]) for r in rs]
                    + [" / ".join("%.2f" % minority_share(label, r) for r in rs),
                       " / ".join("%.1f" % (100 * r["utilization"]) for r in rs),
                       " / ".join("%.1f" % r["qdelay_p99_ms"] for r in rs)])
    w(md_table(["scenario", "flows"] + ["JFI " + a for a in ASYM_AQMS]
               + ["minority share %s" % " / ".join(ASYM_AQMS), "util. %% %s" % " / ".join(ASYM_AQMS),
                  "p99 ms %s" % " / ".join(ASYM_AQMS)], rows))
    w("")

    # 5. classification
    w("## 5. Classification accuracy (ccfair runs)\n")
    w("From the group timelines of every ccfair flow of sections 1 and 2 (%d flows). *share* = fraction of the flow's lifetime "
      "(start to end of run) spent in the group its CC is expected in (table in eval/pylib/ccfair_eval.py: loss-based → loss0/1, "
      "Vegas → delay0/1, Illinois/Veno/YeAH → hybrid0, BBR → hybrid1; DCTCP counted as loss-based; since D11 the program classifies no flow "
      "loss-delay, so the three loss-delay CCs score 0 %% by construction: docs/algorithm.md D11 says why); *reached* = flows ever in that group; "
      "*RTTs to first correct* = median over the flows that reached it. P4air reports BBR correct after ~48 RTTs, Cubic after ~60, "
      "and only 30 %% of NewReno and 80 %% of BIC flows reaching \"purely loss\". "
      "For context, the last columns give the CC's mean pairwise JFI in the matrix under fq_codel (which needs no "
      "classification) and under ccfair: a CC that ccfair misclassifies but still shares fairly costs less than one "
      "it misclassifies and starves.\n"
      % sum(d["n"] for d in cls.values()))
    w("![classification](%s)\n" % figs["class"])
    ctx = [a for a in ("fq_codel", "ccfair") if a in MATRIX_AQMS]
    rows = []
    for cc in CCS:
        d = cls.get(cc)
        if not d:
            continue
        rows.append([SEED_NAMES[cc], " / ".join(sorted(ce.expected_groups(cc))), d["n"],
                     "%.0f %%" % (100 * statistics.mean(d["share"])), "%.0f %%" % (100 * d["ever"] / d["n"]),
                     fmt(statistics.median(d["rtts"]), 0) if d["rtts"] else "never"]
                    + [fmt(statistics.mean(cell(matrix, a, cc, o) for o in CCS)) for a in ctx])
    w(md_table(["cc", "expected group", "flows", "share", "reached", "RTTs to first correct"]
               + ["mean JFI " + a for a in ctx], rows))
    w("")
    w("### Confusion matrix after the first %d RTTs\n" % CONF_SKIP_RTTS)
    w("Share of each flow's lifetime from %d base RTTs after its start to the end of the run, per family of "
      "groups (K sub-groups merged: delay = delay0/1, loss = loss0/1, loss-delay = hybrid0, model = hybrid1), "
      "time-weighted over every ccfair flow of the CC; **bold**: the expected family. P4air reports BBR correct "
      "after ~48 RTTs and Cubic after ~60, and 30 %% of NewReno and 80 %% of BIC flows reaching \"purely loss\" "
      "(../shared/seeds, 000); the median RTTs to the first correct group are in the table above.\n"
      % CONF_SKIP_RTTS)
    w("Sections 1 and 2 (two flows, and two flows at different RTTs):\n")
    w(confusion_table(confusion([(r, MATRIX["duration_s"]) for (a, _, _), r in matrix.items() if a == "ccfair"]
                                + [(r, RTT_RUN["duration_s"]) for (a, _, _), r in rtt.items() if a == "ccfair"])))
    w("")
    w("Section 3's %d-flow mixes, where 127 other flows move the queue:\n" % MIX_RUN["flows"])
    w(confusion_table(confusion([(mixes[(m[0], "ccfair")], MIX_RUN["duration_s"]) for m in MIXES
                                 if (m[0], "ccfair") in mixes])))
    w("")

    # 6. short flows; 7. unseen scenarios; 8. seed spread; diagnostics per section
    L += short_section(short)
    L += unseen_section(unseen)
    L += seed_section(seeds, fresh1=meta.get("seeds_fresh1"))
    L += weighted_section(weighted)
    L += fabric_section(fabric)
    L += diag_section([("1. pairwise matrix", [r for (a, _, _), r in matrix.items() if a == "ccfair"]),
                       ("2. RTT fairness", [r for (a, _, _), r in rtt.items() if a == "ccfair"]),
                       ("3. %d-flow mixes" % MIX_RUN["flows"], [mixes[(m[0], "ccfair")] for m in MIXES]),
                       ("4. asymmetric populations", [asym[(x[0], "ccfair")] for x in ASYM]),
                       ("6. short flows", [short[(x[0], "ccfair")] for x in SHORT]),
                       ("7. unseen scenarios", [r for (_, a), r in unseen.items() if a == "ccfair"]),
                       ("8. seed spread (seeds %s)" % ", ".join(str(x) for x in SEEDS),
                        [r for (_, a, _), r in seeds.items() if a == "ccfair"]),
                       ("9. weighted intents", list(weighted.values())),
                       ("10. two-switch fabric", [r for (_, a, _), r in fabric.items() if a == "ccfair"])])

    # closing
    w("## Closing note: where ccfair stands against the goals\n")
    if "ccfair" in A:
        c = A["ccfair"]
        checks = [("worst pairwise JFI", "%.2f" % c["worst"], "≥ 0.95", c["worst"] >= 0.95),
                  ("mean link utilisation", "%.1f %%" % (100 * c["util_mean"]), "≥ 95 %", c["util_mean"] >= 0.95),
                  ("worst p99 queuing delay", "%.1f ms" % c["p99_max"], "≤ %.0f ms" % (2 * target_ms), c["p99_max"] <= 2 * target_ms),
                  ("RTT fairness at %d ms (mean)" % dmax, "%.2f" % rtt200["ccfair"], "≥ 0.90", rtt200["ccfair"] >= 0.90),
                  ("%d×%d matrix wall time (%d jobs)" % (len(CCS), len(CCS), runner.jobs()), "not measured in one piece (resumed run)"
                   if was_resumed else "%.1f min" % (matrix_wall / 60), "≤ 30 min",
                   None if was_resumed else matrix_wall <= 1800)]
        w(md_table(["goal", "ccfair measured", "target", "met?"],
                   [[a, b, t, "not measured" if ok is None else "yes" if ok else "**no**"] for a, b, t, ok in checks]))
        w("")
        w("Side by side (" + " / ".join(hl) + "): worst pairwise JFI %s; mean JFI %s; mean utilisation %s; "
          "worst p99 delay %s ms; RTT fairness at %d ms %s."
          % (" / ".join(fmt(A[a]["worst"]) for a in hl), " / ".join(fmt(A[a]["mean"]) for a in hl),
             " / ".join("%.1f %%" % (100 * A[a]["util_mean"]) for a in hl),
             " / ".join("%.1f" % A[a]["p99_max"] for a in hl), dmax,
             " / ".join(fmt(rtt200.get(a)) for a in hl)))
        missed = [a for a, _, _, ok in checks if ok is False]
        w("\nccfair falls short on: %s.\n" % (", ".join(missed) if missed else "none of the goals"))
        # Every multi-flow run with a reference beside it: sections 3, 4, 6 (long-lived JFI), 7 and
        # 8's other seeds, each as (shown label, results, its key under an AQM).
        others = ([("mix " + m[0], mixes, lambda a, m=m: (m[0], a)) for m in MIXES]
                  + [(x[0], asym, lambda a, x=x: (x[0], a)) for x in ASYM]
                  + [("short flows, %s (long-lived)" % x[0], short, lambda a, x=x: (x[0], a)) for x in SHORT]
                  + [("`%s`" % k[0], unseen, lambda a, k=k: (k[0], a)) for k in unseen if k[1] == "ccfair"]
                  + [("%s, seed %d" % (k[0], k[2]), seeds, lambda a, k=k: (k[0], a, k[2]))
                     for k in seeds if k[1] == "ccfair" and k[2] != 1])

        def below(ref, margin):
            """(label, ccfair JFI, ref JFI) of the multi-flow runs where ccfair is below ref."""
            out = []
            for label, res, key in others:
                mine, theirs = res.get(key("ccfair")), res.get(key(ref))
                if mine and theirs and mine["jfi"] < theirs["jfi"] - margin:
                    out.append((label, mine["jfi"], theirs["jfi"]))
            return out
        # Not a goal of its own, but ccfair must not be less fair than no AQM at all.
        worse = ["%s (%.2f vs FIFO %.2f)" % b for b in below("fifo", 0)]
        if worse:
            w("Multi-flow scenarios where ccfair is less fair than FIFO: %s.\n" % "; ".join(worse))
        # Where ccfair is behind software per-flow fair queueing, stated as plainly as where it is ahead.
        behind = []
        for key, label in (("worst", "worst pairwise JFI"), ("mean", "mean pairwise JFI")):
            if A["ccfair"][key] < A["fq_codel"][key] - 0.005:
                behind.append("%s %.2f vs %.2f" % (label, A["ccfair"][key], A["fq_codel"][key]))
        behind += ["%s %.2f vs %.2f" % b for b in below("fq_codel", 0.005)]
        if rtt200["ccfair"] < rtt200["fq_codel"] - 0.005:
            behind.append("RTT fairness at %d ms %.2f vs %.2f" % (dmax, rtt200["ccfair"], rtt200["fq_codel"]))
        w("Where ccfair is less fair than fq_codel (JFI, ccfair vs fq_codel): %s.\n"
          % ("; ".join(behind) if behind else "nowhere in this run"))
        worst_pairs = sorted(pairs(CCS), key=lambda ab: cell(matrix, "ccfair", *ab))[:5]
        w("Worst ccfair pairs: %s.\n" % "; ".join(
            "%s–%s %.2f (goodputs %s Mbit/s)" % (SEED_NAMES[a], SEED_NAMES[b], cell(matrix, "ccfair", a, b),
                                                " / ".join("%.1f" % f["goodput_mbps"] for f in matrix[("ccfair", a, b)]["flows"]))
            for a, b in worst_pairs))
    # a resumed run's section whose runs all came from the cache took no wall time here
    took = lambda t: "%.0f s" % t if t >= 1 else "from the cache"  # noqa: E731
    w("Timing: matrix %s, RTT sweep %s, mixes %s, asymmetric populations %s, short flows %s, "
      "unseen scenarios %s, seed spread %s, weighted intents %s, fabric %s (wall, %d jobs).\n"
      % tuple([took(t) for t in (matrix_wall, rtt_wall, mix_wall, asym_wall, short_wall, unseen_wall, seeds_wall,
                                 weighted_wall, fabric_wall)] + [runner.jobs()]))

    path = os.path.join(DOCS, "results.md")
    kept = carried_sections(path)
    with open(path, "w") as fh:
        fh.write("\n".join(L) + "\n" + kept)
    print("wrote docs/results.md and %d figures in docs/figures/ (%.0f s)" % (len(figs), time.time() - t_start))
    return 0


DISCUSSION = """Why the ns-3 FIFO matrix differs from the seed (read with the tables above and the starvation table below):

- **Scale.** %(rate)g Mbit/s instead of 100 Mbit/s (same RTT, buffer 1.2 BDP), %(measured)g s measured, one seed per cell, so single
  runs of loss-synchronised pairs are noisy; cell-level agreement within a few hundredths is not to be expected.
- **ns-3 TCP models are not the Linux modules** the seed ran: no TSQ, no pacing for loss-based CCs, and ns-3's own
  implementations of Hybla, Westwood+, HighSpeed, etc. Illinois is the harness's own (eval/sim/tcp-illinois-linux.h):
  ns-3's stops growing its window whenever its α falls below 1 (an integer truncation); Vegas is ns-3's with Linux's loss
  response (eval/sim/tcp-vegas-linux.h): ns-3's cuts its window by at most a quarter on a loss, Linux's halves
  (docs/eval.md "TCP settings and their evidence").
- **Every segment is ACKed.** With ns-3's fixed 200 ms delayed-ACK timer, a flow whose window an RTO cut to one
  segment times out on every segment for the rest of the run, and a lone Vegas flow uses 38 %% of an idle path; the
  harness therefore ACKs every segment (docs/eval.md, "TCP settings and their evidence"). The seed's Linux receivers
  delay ACKs with an adaptive timer of at least 40 ms.
- **DCTCP** negotiates ECN but under FIFO never sees a mark. Linux DCTCP (the seed) then halves on loss like Reno;
  ns-3's `TcpDctcp` cuts to (1 − α/2)·cwnd on loss too, and with α decayed towards 0 it hardly backs off,
  so DCTCP cells can read more unfair than the seed's.
"""

if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
