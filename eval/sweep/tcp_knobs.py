# SPDX-License-Identifier: Apache-2.0
"""Re-measure the TCP settings in which the harness departs from ns-3's defaults.

Runs every pair of the 13x13 matrix (same link, RTT and durations as `make eval`) under
FIFO and fq_codel, once with ns-3's own defaults and once per departure (each setting is
given in full, whatever the simulator's own defaults are), and prints per
setting: starved flows (goodput < 5 % of the fair share), mean and worst JFI, and a lone
Vegas flow's goodput. docs/eval.md quotes its output as the evidence for each setting.
  .venv/bin/python eval/sweep/tcp_knobs.py [AQM,AQM... [SETTING,SETTING...]]
SETTING indexes SETTINGS (default: all).
"""
import statistics
import sys

import make_results as mr
import runner
from runner import ce

DEFAULTS = {"recovery": "prr", "timestamps": "true", "delack": 2, "delack_timeout_ms": 200}
SETTINGS = [("ns-3 defaults", {}), ("classic recovery", {"recovery": "classic"}),
            ("timestamps off", {"timestamps": "false"}), ("delack 1", {"delack": 1}),
            ("all three (ns-3.37 harness)", {"recovery": "classic", "timestamps": "false", "delack": 1}),
            ("delack timer 40 ms (Linux)", {"delack_timeout_ms": 40})]


def main():
    aqms = sys.argv[1].split(",") if len(sys.argv) > 1 else ["fifo", "fq_codel"]
    pick = [int(i) for i in sys.argv[2].split(",")] if len(sys.argv) > 2 else range(len(SETTINGS))
    fair = mr.LINK["rate_mbps"] / 2
    print("%-30s %-9s %8s %9s %9s %s" % ("setting", "aqm", "starved", "mean JFI", "worst JFI", "lone Vegas Mbit/s"))
    for label, knobs in [SETTINGS[i] for i in pick]:
        tcp = dict(DEFAULTS, **knobs)
        scns = []
        for aqm in aqms:
            for a, b in mr.pairs(mr.CCS):
                s = mr.scenario("knobs-%s-%s" % (a, b), aqm, mr.LINK, mr.MATRIX["duration_s"], mr.MATRIX["warmup_s"],
                                [{"cc": a, "rtt_ms": mr.MATRIX["rtt_ms"]}, {"cc": b, "rtt_ms": mr.MATRIX["rtt_ms"]}])
                s["tcp"] = tcp
                scns.append(s)
            s = mr.scenario("knobs-vegas", aqm, mr.LINK, mr.MATRIX["duration_s"], mr.MATRIX["warmup_s"],
                            [{"cc": "vegas", "rtt_ms": mr.MATRIX["rtt_ms"]}])
            s["tcp"] = tcp
            scns.append(s)
        res, _, _ = runner.run_many(scns, label[:10])
        for aqm in aqms:
            rs = [r for s, r in zip(scns, res) if s["aqm"] == aqm]
            pairs_, lone = rs[:-1], rs[-1]
            starved = sum(f["goodput_mbps"] < 0.05 * fair for r in pairs_ for f in r["flows"])
            jf = [r["jfi"] for r in pairs_]
            print("%-30s %-9s %8d %9.3f %9.3f %.2f" % (label, aqm, starved, statistics.mean(jf), min(jf),
                                                      lone["flows"][0]["goodput_mbps"]))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
