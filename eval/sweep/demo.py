# SPDX-License-Identifier: Apache-2.0
"""`make run`: the demo scenario with FIFO, fq_codel and ccfair side by side.

Prints a per-flow table (goodput, JFI, utilisation, p99 queuing delay) and writes
eval/build/demo/throughput.png (per-flow throughput over time, one panel per AQM).
"""
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

import runner  # noqa: E402
from runner import ce  # noqa: E402

SCENARIO = os.path.join(ce.EVAL, "scenarios", "demo.json")
OUT = os.path.join(ce.EVAL, "build", "demo")
TIMELINE_MS = 500
AQMS = ["fifo", "fq_codel", "ccfair"]
# Colour per CC, line style per RTT rank, marker per flow: overlapping lines stay distinguishable.
COLOURS = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "v", "D", "x", "+", "*"]


def plot(scn, res, path):
    flows = scn["flows"]
    ccs = list(dict.fromkeys(f["cc"] for f in flows))
    rtts = sorted({f["rtt_ms"] for f in flows})
    fig, axes = plt.subplots(1, len(res), figsize=(4.6 * len(res), 4.2), sharey=True)
    w = max(1, int(2000 / TIMELINE_MS))  # 2 s moving average: 500 ms samples of in-order delivery are bursty
    for ax, r in zip(axes, res):
        for i, f in enumerate(r["flows"]):
            y = f["timeline_mbps"]
            t = [(k + 1) * TIMELINE_MS / 1000 for k in range(len(y))]
            sm = [sum(y[max(0, k - w + 1):k + 1]) / len(y[max(0, k - w + 1):k + 1]) for k in range(len(y))]
            ax.plot(t, sm, lw=1.3, color=COLOURS[ccs.index(f["cc"]) % len(COLOURS)],
                    ls=STYLES[rtts.index(f["rtt_ms"]) % len(STYLES)], marker=MARKERS[i % len(MARKERS)],
                    markevery=max(1, len(t) // 8), ms=4)
        ax.axvline(scn["warmup_s"], color="grey", ls=":", lw=1)
        ax.text(scn["warmup_s"], 0.98, " warm-up ends:\n measured from here", transform=ax.get_xaxis_transform(),
                fontsize=7, va="top", color="grey")
        ax.set_title("%s: JFI %.2f, util %.0f%%, p99 %.0f ms"
                     % (r["aqm"], r["jfi"], 100 * r["utilization"], r["qdelay_p99_ms"]), fontsize=10)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("throughput (Mbit/s, 2 s average)")
    handles = [Line2D([], [], color=COLOURS[ccs.index(f["cc"]) % len(COLOURS)],
                      ls=STYLES[rtts.index(f["rtt_ms"]) % len(STYLES)], marker=MARKERS[i % len(MARKERS)], ms=4,
                      label="%s, %g ms" % (f["cc"], f["rtt_ms"])) for i, f in enumerate(flows)]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 8), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    scns = [ce.load(SCENARIO, a) for a in AQMS]
    s0 = scns[0]
    print("ccfair demo: %s (%d flows, %g Mbit/s, %g s simulated; %s run in parallel)"
          % (s0["name"], len(s0["flows"]), s0["rate_mbps"], s0["duration_s"], ", ".join(AQMS)))
    try:
        res, wall, executed = runner.run_many(scns, "demo", TIMELINE_MS)
    except ce.SimError as e:
        sys.stderr.write("demo: %s\n" % e)
        return 2
    print()
    print("%-10s %7s  %s" % ("flow", "RTT ms", "  ".join("%15s" % ("%s Mbit/s" % a) for a in AQMS)))
    for i, f in enumerate(s0["flows"]):
        print("%-10s %7g  %s" % (f["cc"], f["rtt_ms"],
                                 "  ".join("%15.2f" % r["flows"][i]["goodput_mbps"] for r in res)))
    print("%-18s  %s" % ("JFI", "  ".join("%15.3f" % r["jfi"] for r in res)))
    print("%-18s  %s" % ("utilisation", "  ".join("%14.1f%%" % (100 * r["utilization"]) for r in res)))
    print("%-18s  %s" % ("p99 queue delay ms", "  ".join("%15.1f" % r["qdelay_p99_ms"] for r in res)))
    cached = len(scns) - executed
    if cached:
        print("(goodput and JFI over t >= %g s; %d of %d runs from the cache %s, same simulator binary: "
              "`make clean` re-simulates)" % (s0["warmup_s"], cached, len(scns), os.path.relpath(runner.CACHE, ce.REPO)))
    else:
        print("(goodput and JFI over t >= %g s; simulated in %.0f s wall, ns-3 %s)" % (s0["warmup_s"], wall, res[0]["ns3"]))

    os.makedirs(OUT, exist_ok=True)
    png = os.path.join(OUT, "throughput.png")
    plot(s0, res, png)
    print("figure: %s" % os.path.relpath(png, ce.REPO))
    return 0


if __name__ == "__main__":
    sys.exit(main())
