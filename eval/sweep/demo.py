# SPDX-License-Identifier: Apache-2.0
"""`make run`: the demo scenario with FIFO and ccfair side by side.

Prints a short per-flow table (goodput, JFI, utilisation, p99 queuing delay) and
writes eval/build/demo/throughput.png (per-flow throughput over time, one panel per AQM).
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import runner  # noqa: E402
from runner import ce  # noqa: E402

SCENARIO = os.path.join(ce.EVAL, "scenarios", "demo.json")
OUT = os.path.join(ce.EVAL, "build", "demo")
TIMELINE_MS = 500


def main():
    aqms = ["fifo", "ccfair"]
    scns = [ce.load(SCENARIO, a) for a in aqms]
    print("ccfair demo: %s (%d flows, %g Mbit/s, %g s simulated; FIFO and ccfair run in parallel)"
          % (scns[0]["name"], len(scns[0]["flows"]), scns[0]["rate_mbps"], scns[0]["duration_s"]))
    try:
        res, wall, _ = runner.run_many(scns, "demo", TIMELINE_MS)
    except ce.SimError as e:
        sys.stderr.write("demo: %s\n" % e)
        return 2
    print()
    print("%-10s %7s  %s" % ("flow", "RTT ms", "  ".join("%12s" % ("%s Mbit/s" % a) for a in aqms)))
    for i, f in enumerate(scns[0]["flows"]):
        print("%-10s %7g  %s" % (f["cc"], f["rtt_ms"],
                                 "  ".join("%12.2f" % r["flows"][i]["goodput_mbps"] for r in res)))
    print("%-18s  %s" % ("JFI", "  ".join("%12.3f" % r["jfi"] for r in res)))
    print("%-18s  %s" % ("utilisation", "  ".join("%11.1f%%" % (100 * r["utilization"]) for r in res)))
    print("%-18s  %s" % ("p99 queue delay ms", "  ".join("%12.1f" % r["qdelay_p99_ms"] for r in res)))
    print("(goodput and JFI over t >= %g s; %.0f s wall)" % (scns[0]["warmup_s"], wall))

    os.makedirs(OUT, exist_ok=True)
    fig, axes = plt.subplots(1, len(aqms), figsize=(12, 4), sharey=True)
    for ax, r, a in zip(axes, res, aqms):
        for f in r["flows"]:
            t = [(k + 1) * TIMELINE_MS / 1000 for k in range(len(f["timeline_mbps"]))]
            # 2 s moving average: per-500 ms samples of in-order delivery are bursty.
            w = max(1, int(2000 / TIMELINE_MS))
            y = f["timeline_mbps"]
            sm = [sum(y[max(0, k - w + 1):k + 1]) / len(y[max(0, k - w + 1):k + 1]) for k in range(len(y))]
            ax.plot(t, sm, label="%s %g ms" % (f["cc"], f["rtt_ms"]), lw=1.2)
        ax.axvline(scns[0]["warmup_s"], color="grey", ls=":", lw=1)
        ax.set_title("%s: JFI %.2f, util %.0f%%, p99 %.0f ms"
                     % (a, r["jfi"], 100 * r["utilization"], r["qdelay_p99_ms"]))
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("throughput (Mbit/s, 2 s average)")
    axes[-1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    png = os.path.join(OUT, "throughput.png")
    fig.savefig(png, dpi=90)
    print("figure: %s" % os.path.relpath(png, os.getcwd()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
