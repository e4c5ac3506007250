#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Extract ccfair's resource usage from bf-p4c outputs.

  resources.py PROFILE COMPILER_OUTDIR          -> JSON on stdout
  resources.py --markdown RESOURCES_JSON...       -> the table of RESOURCES.md

Reads COMPILER_OUTDIR/pipe/logs/{resources.json,metrics.json} and
COMPILER_OUTDIR/bfrt.json. Percentages are of what the target has: the
capacity is read from resources.json (rows x columns of each stage's SRAM /
TCAM arrays, PHV containers), not assumed.
"""
import json
import os
import sys

FLOW_REGISTER = "IngressPipe.flow_tracker.flow_sig"


def load(path):
    with open(path) as f:
        return json.load(f)


def pct(used, total):
    return round(100.0 * used / total, 1) if total else None


def mau_usage(res):
    mau = res["resources"]["mau"]
    stages = mau["mau_stages"]
    used = {"sram": 0, "tcam": 0}
    cap = {"sram": 0, "tcam": 0}
    used_stages = 0
    for st in stages:
        rams = st.get("rams") or {}
        tc = st.get("tcams") or {}
        n_sram = len(rams.get("srams", []))
        n_tcam = len(tc.get("tcams", []))
        used["sram"] += n_sram
        used["tcam"] += n_tcam
        cap["sram"] += rams.get("nRows", 0) * rams.get("nColumns", 0)
        cap["tcam"] += tc.get("nRows", 0) * tc.get("nColumns", 0)
        if n_sram or n_tcam or (st.get("logical_tables") or {}).get("ids"):
            # The pipeline is as long as its last used stage.
            used_stages = max(used_stages, st.get("stage_number", 0) + 1)
    n = mau["nStages"]
    # Stages absent from mau_stages have the same arrays as the ones present.
    if stages and len(stages) < n:
        cap = {k: v * n // len(stages) for k, v in cap.items()}
    return n, used_stages, used, cap


def phv_usage(res, metrics):
    """Normal PHV containers occupied (metrics.json) of those the target has."""
    total = sum(ct.get("units", 0) for ct in res["resources"].get("phv_containers", {}).get("normal", []))
    used = sum(ct.get("containers_occupied", 0) for ct in (metrics or {}).get("phv", {}).get("normal", []))
    return used, total


def flows_per_pipe(bfrt):
    for t in bfrt.get("tables", []):
        name = t.get("name", "")
        if name.endswith(FLOW_REGISTER) or name == "pipe." + FLOW_REGISTER:
            return t.get("size")
    return None


def markdown(paths):
    rows = [load(p) for p in paths]
    cols = [("profile", "profile"), ("stages", None), ("SRAM blocks", None), ("TCAM blocks", None),
            ("PHV containers", None), ("flows per pipe", "flows_per_pipe")]
    out = ["| " + " | ".join(c[0] for c in cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        out.append("| %s | %d / %d | %d / %d (%s %%) | %d / %d (%s %%) | %d / %d (%s %%) | %s |" % (
            r["profile"], r["stages_used"], r["stages_available"],
            r["sram_used"], r["sram_available"], r["sram_pct"],
            r["tcam_used"], r["tcam_available"], r["tcam_pct"],
            r["phv_containers_used"], r["phv_containers_available"], r["phv_pct"],
            "{:,}".format(r["flows_per_pipe"])))
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) >= 3 and argv[1] == "--markdown":
        sys.stdout.write(markdown(argv[2:]))
        return 0
    if len(argv) != 3:
        sys.stderr.write("usage: resources.py PROFILE COMPILER_OUTDIR\n")
        return 2
    profile, out = argv[1], argv[2]
    logs = os.path.join(out, "pipe", "logs")
    res = load(os.path.join(logs, "resources.json"))
    mpath = os.path.join(logs, "metrics.json")
    metrics = load(mpath) if os.path.exists(mpath) else {}
    n, stages_used, used, cap = mau_usage(res)
    phv_used, phv_total = phv_usage(res, metrics)
    mm = metrics.get("mau", {})
    sram_used = mm.get("srams", used["sram"])
    tcam_used = mm.get("tcams", used["tcam"])
    r = {
        "profile": profile,
        "stages_used": stages_used,
        "stages_available": n,
        "sram_used": sram_used,
        "sram_available": cap["sram"],
        "sram_pct": pct(sram_used, cap["sram"]),
        "tcam_used": tcam_used,
        "tcam_available": cap["tcam"],
        "tcam_pct": pct(tcam_used, cap["tcam"]),
        "phv_containers_used": phv_used,
        "phv_containers_available": phv_total,
        "phv_pct": pct(phv_used, phv_total),
        "flows_per_pipe": flows_per_pipe(load(os.path.join(out, "bfrt.json"))),
    }
    json.dump(r, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
