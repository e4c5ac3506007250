#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes testdata/vectors/*.json. Expected values are derived by hand from the
# rules (see each description); this script only spells the packet trains out.
import json, os
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors")
A = {"A": {"src": "10.0.0.1", "sport": 40000, "dst": "10.0.1.1", "dport": 5201}}
D = dict(size=1500, payload=1448)

def pk(t, **kw):
    s = {"t_us": t, "flow": kw.pop("flow", "A")}
    s.update(kw)
    return s

def hs(rtt=10000):
    return [pk(0, flags="S", size=60, payload=0, expect={"verdict": "enqueued", "group": "mouse", "pv": [65535, 65535]}),
            pk(rtt, flags="A", size=52, payload=0, drain=True)]

def interval(start, n, every, group=None, drain=True, **kw):
    s = pk(start, flags="A", repeat=n, every_us=every, drain=drain, **D, **kw)
    if group:
        s["expect"] = {"group": group}
    return s

def write(name, desc, steps, config=None, flows=A):
    v = {"name": name, "description": desc}
    if config:
        v["config"] = config
    v["flows"] = flows
    v["steps"] = steps
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(v, f, indent=1)
        f.write("\n")

write("handshake-rtt",
      "RTT = time of the first packet after the SYN in the SYN's direction minus the SYN's time (architecture §2). "
      "SYN at 0, SYN-ACK (reverse) at 15 ms must not end the handshake, the client's ACK at 20 ms does: RTT 20000 us "
      "(range allows Tofino's ns>>10 microseconds, 2.4% low). A SYN makes the flow a mouse; no rate yet, so every PV is pv_max. "
      "The handshake interval is not classified: counters restart at the ACK (1 pure ACK, 0 data packets).",
      hs(20000)[:1] + [
          pk(15000, dir="rev", flags="SA", size=60, payload=0),
          {"op": "check", "t_us": 15000, "flow": "A", "expect": {"group": "mouse", "rtt_us": [50000, 50000]},
           "note": "still pending: the default RTT"},
          pk(20000, flags="A", size=52, payload=0, drain=True),
          {"op": "check", "t_us": 20000, "flow": "A", "expect": {"rtt_us": [19500, 20100], "interval_pkts": 0, "interval_acks": 1, "intervals": 0}},
          interval(21000, 10, 100, expect={"verdict": "enqueued", "group": "mouse", "pv": [65535, 65535]}),
          {"op": "check", "t_us": 22000, "flow": "A", "expect": {"interval_pkts": 10, "group": "mouse"}},
      ], config={"default_rtt_us": 50000})

write("mid-connection-default-rtt",
      "A flow first seen mid-connection (no SYN) gets the controller-set default RTT (flow.default_rtt_us; pinned to "
      "30000 here to show it is a knob) and starts as a mouse.",
      [pk(0, flags="A", **D, expect={"verdict": "enqueued", "group": "mouse"}),
       {"op": "check", "t_us": 0, "flow": "A", "expect": {"rtt_us": [30000, 30000], "interval_pkts": 1, "intervals": 0}}],
      config={"default_rtt_us": 30000})

# Flows that start mid-connection with a default RTT of 10 ms: the interval clock of the program and
# the model is then the same rule (first packet + RTT, then each roll-over packet + RTT); the
# handshake's own interval is the subject of handshake-rtt. Intervals are 12 ms apart
# (roll-over packets 2 ms after the deadline, last packets >= 2 ms before it), so a replay on a
# real-time switch with a few milliseconds of timing noise cannot move a packet across a boundary.
MID = {"default_rtt_us": 10000}
P = 12000  # interval period


def first(**kw):
    e = {"verdict": "enqueued", "group": "mouse", "pv": [65535, 65535]}
    return pk(0, flags="A", **D, expect=e, **kw)


write("interval-rollover",
      "An interval ends when a packet arrives at least one RTT after the interval started; that packet opens the next "
      "interval (architecture §2). A flow first seen mid-connection with the default RTT 10 ms: its first packet (t=0) "
      "opens interval 1. Packets at 1.5, 3, 4.5, 6 and 8 ms stay in it (6 data packets); the packet at 12 ms (>= 10 ms) "
      "rolls over: counters restart with it (1 packet), one interval completed. Six data packets > ant_max (2): the "
      "flow stays a mouse.",
      [first(),
       interval(1500, 4, 1500),
       {"op": "check", "t_us": 7000, "flow": "A", "expect": {"interval_pkts": 5, "interval_acks": 0}},
       interval(8000, 1, 0),
       {"op": "check", "t_us": 8000, "flow": "A", "expect": {"interval_pkts": 6, "intervals": 0}},
       interval(12000, 1, 0, group="mouse"),
       {"op": "check", "t_us": 12000, "flow": "A", "expect": {"interval_pkts": 1, "interval_acks": 0, "intervals": 1}}],
      config=MID)

write("ants",
      "At most ant_max_pkts_per_interval (2) packets in an interval make a mouse an ant; more than that make an ant a "
      "mouse again. Mid-connection flow, default RTT 10 ms. Interval 1 (from 0) holds one data packet -> ant at the "
      "roll-over packet (t=12 ms). Interval 2 (from 12 ms) holds 6 packets -> mouse at t=24 ms. Non-TCP packets are "
      "never tracked and go to the ant queue (queue 0).",
      [first(),
       interval(12000, 1, 0, group="ant"),
       interval(13000, 5, 1000, group="ant"),
       interval(24000, 1, 0, group="mouse"),
       {"op": "packet", "t_us": 26000, "flow": "B", "proto": "udp", "size": 100, "payload": 72, "drain": True,
        "expect": {"verdict": "enqueued", "queue": 0}},
       {"op": "check", "t_us": 26000, "flow": "B", "expect": {"group": "untracked"}}],
      config=MID, flows={**A, "B": {"src": "10.0.0.2", "sport": 5353, "dst": "10.0.1.1", "dport": 53}})


def ss_prefix(last=8):
    """Slow start, 4 intervals of 4, 8, 16, `last` data packets from t=0 (mouse throughout)."""
    return [first(), interval(1000, 3, 1000, group="mouse"),
            interval(P, 8, 1000, group="mouse"),
            interval(2 * P, 16, 500, group="mouse"),
            interval(3 * P, last, 1000 if last <= 8 else 500, group="mouse")]


write("mouse-to-delay-rate-drop",
      "Slow start ends when the packets per interval fall; the mouse becomes delay-based (architecture §3). Fair rate "
      "10 Gbit/s so the fair BDP is never reached. Mid-connection flow, default RTT 10 ms; data packets per interval "
      "4, 8, 16, 8 (intervals from 0, 12, 24, 36 ms): the roll-over at t=48 ms sees 8 < 16 -> delay0 (sub-group 0: no "
      "RTT boundary set). Queues are drained after every packet.",
      ss_prefix() + [interval(4 * P, 1, 0, group="delay0"),
                     {"op": "check", "t_us": 4 * P, "flow": "A", "expect": {"group": "delay0", "intervals": 4}}],
      config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

write("mouse-to-delay-fair-bdp",
      "Slow start also ends when the interval's bytes reach the fair BDP = fair rate x RTT (>> bdp_shift = 0); that "
      "packet is dropped on purpose, once, and the flow becomes delay-based. Fair rate 10 Mbit/s, RTT 10 ms (default, "
      "mid-connection): BDP 12500 B. Interval 1 (from 0) carries 4 x 1500 B (below the BDP, slow start goes on). "
      "Interval 2 (from 12 ms): after 8 packets it holds 12000 B (< BDP), the 9th (16 ms) brings 13500 B (>= BDP) -> "
      "drop_proactive and delay0; the next packets pass (one drop only), also after the roll-over at 24 ms. "
      "(The P4 program decides at the interval end, docs/dataplane.md: it drops the packet that ends interval 2, "
      "the one at 24 ms; the PTF replay checks that instead, lib/vectors.py.)",
      [first(), interval(500, 3, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(P, 8, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(P + 4000, 1, 0, expect={"verdict": "drop_proactive", "group": "delay0"}),
       interval(P + 4500, 2, 500, expect={"verdict": "enqueued", "group": "delay0"}),
       interval(2 * P, 5, 500, expect={"verdict": "enqueued", "group": "delay0"})],
      config={**MID, "link_rate_bps": 10000000, "fair_rate_bps": 10000000})

write("mouse-to-delay-fair-bdp-first-interval",
      "As mouse-to-delay-fair-bdp, but the fair BDP is reached in the flow's first interval: a flow first seen "
      "mid-connection (default RTT 10 ms, fair rate 10 Mbit/s: BDP 12500 B) sends 1500-byte packets every 500 us "
      "from t=0; the 9th (4 ms) brings 13500 B >= BDP -> drop_proactive and delay0; the following packets pass, also "
      "after the roll-over at 12 ms. (The P4 program decides at the interval end: it drops the packet at 12 ms that "
      "ends interval 1, lib/vectors.py.)",
      [first(), interval(500, 7, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(4000, 1, 0, expect={"verdict": "drop_proactive", "group": "delay0"}),
       interval(4500, 2, 500, expect={"verdict": "enqueued", "group": "delay0"}),
       interval(P, 5, 500, expect={"verdict": "enqueued", "group": "delay0"})],
      config={**MID, "link_rate_bps": 10000000, "fair_rate_bps": 10000000})

# aggressiveness: interval k (k >= 5, from (k-1) x 12 ms) carries 3(k-1) packets that queue up, drained 10 ms in
steps = ss_prefix()
for k in range(5, 18):
    n = 3 * (k - 1)
    t = (k - 1) * P
    g = "delay0" if k <= 8 else ("hybrid0" if k <= 16 else "loss0")
    steps.append(interval(t, n, 200, drain=False, expect={"group": g}))
    if k == 8:
        steps.append({"op": "check", "t_us": t, "flow": "A", "expect": {"aggr": 3, "group": "delay0"}})
    if k == 9:
        steps.append({"op": "check", "t_us": t, "flow": "A", "expect": {"aggr": 4, "group": "hybrid0"}})
    if k == 16:
        steps.append({"op": "check", "t_us": t, "flow": "A", "expect": {"aggr": 11, "group": "hybrid0"}})
    if k == 17:
        steps.append({"op": "check", "t_us": t, "flow": "A", "expect": {"aggr": 12, "group": "loss0"}})
    steps.append({"op": "dequeue", "t_us": t + 10000, "count": "all", "expect": {"count": n}})
write("aggressiveness-delay-lossdelay-loss",
      "Every interval whose maximum enqueue depth (seen in egress) grows by at least classifier.aggr_min_steps (2) "
      "log_depth buckets increments aggressiveness (a bucket is one cell, or one packet on BMv2, below 256); m_ld (4) makes a delay flow loss-delay (hybrid0), m_pl (12) purely loss "
      "(loss0). The flow (mid-connection, RTT 10 ms) becomes delay0 by rate drop at t=48 ms (as in "
      "mouse-to-delay-rate-drop, queues drained, depth 0). Then interval k (from (k-1) x 12 ms, k = 5..17) sends "
      "3(k-1) packets 200 us apart that queue up and are drained 10 ms in, so the interval's max enqueue depth is "
      "3k-4 packets of 1500 B: three packets more every interval (one more than aggr_min_steps, so a switch that "
      "forwards one held packet early still sees growth). Roll-overs at 60..96 ms give aggr 1..4 -> hybrid0 at t=96 ms; a "
      "group change moves the flow to another queue, so its depth history restarts at 0 and the next interval still "
      "counts as growth; aggr 12 at t=192 ms -> loss0. Packet counts rise every interval and never fall, so no BwEst "
      "down follows an up and BwEst stays 0.",
      steps, config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

# BBR-like: base 30 packets, probe 39 (>= 1.125x), drain 24 (<= 0.75 x 39), cycle of 8 intervals. The slow-start
# prefix ends with 14 < 16 packets (slow start ends) without a BwEst "down" (14/16 > 0.75).
steps = ss_prefix(14)
cyc = [39, 24, 30, 30, 30, 30, 30, 30]
counts = [30] + cyc * 4  # intervals 5 .. 37
bw = 0
for i, n in enumerate(counts):
    k = 5 + i
    g = "delay0" if bw < 4 else "hybrid1"
    steps.append(interval((k - 1) * P, n, 200, expect={"group": g}))
    if n == 24:
        bw += 1  # counted at the next roll-over
        steps.append({"op": "check", "t_us": (k - 1) * P, "flow": "A", "expect": {"bwest": bw - 1}})
write("bwest-model-based",
      "BwEst: an interval whose rate is >= (1 + 2^-bwest_up_shift) = 1.125x the previous one, followed within two "
      "intervals by one <= (1 - 2^-bwest_down_shift) = 0.75x of that probe, is one pattern; m_m (4) patterns make the "
      "flow model-based (hybrid1), like BBR's 1.25x probe / 0.75x drain every 8 RTTs. Only intervals of at least "
      "2^(up_shift+1) + 2 = 18 data packets count (one packet of jitter must not look like a probe). Mid-connection "
      "flow, RTT 10 ms, intervals 12 ms apart; slow start 4, 8, 16, 14 packets -> delay0 at 48 ms (14 < 16, no "
      "BwEst down: 14/16 > 0.75). Then packets per interval: 30, then 4 cycles of [39, 24, 30 x 6]. 39 after 30 is a "
      "probe (1.3x), 24 after 39 a drain (0.62x) -> BwEst +1 at the roll-over after each 24-interval; 30 after 24 is a "
      "probe (1.25x) but no drain follows. The 4th pattern completes at the roll-over of t=384 ms -> hybrid1 from "
      "then on. Queues drained: aggressiveness stays 0.",
      steps, config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

steps = ss_prefix(14)
small = [10, 13, 8, 10] * 6
for i, n in enumerate(small):
    steps.append(interval((4 + i) * P, n, 600, expect={"group": "delay0"}))
steps.append({"op": "check", "t_us": (4 + len(small)) * P - 1000, "flow": "A", "expect": {"bwest": 0, "group": "delay0"}})
write("bwest-needs-enough-packets",
      "The BBR-like pattern of bwest-model-based, six times over, but with 8..13 packets per interval: below the "
      "2^(bwest_up_shift+1) + 2 = 18 packets an interval needs to count for BwEst (with n packets one packet of jitter "
      "is a factor (n+1)/(n-1) >= 1.125 for n <= 17), so BwEst stays 0 and the flow stays delay0.",
      steps, config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

write("symmetric-flow-id",
      "Both directions of a connection hash to the same slot and signature (architecture §1): the reverse SYN-ACK and "
      "reverse pure ACKs land in the forward flow's slot. The SYN-ACK is not 'the first packet after the SYN in the "
      "same direction', so the RTT comes from the forward ACK (10 ms). Reverse pure ACKs count as interval ACKs.",
      [pk(0, flags="S", size=60, payload=0),
       pk(5000, dir="rev", flags="SA", size=60, payload=0),
       {"op": "check", "t_us": 5000, "flow": "A", "dir": "rev", "expect": {"group": "mouse", "rtt_us": [50000, 50000]}},
       pk(10000, flags="A", size=52, payload=0, drain=True),
       interval(10100, 3, 100),
       pk(11000, dir="rev", flags="A", size=52, payload=0, repeat=2, every_us=100, drain=True),
       {"op": "check", "t_us": 11200, "flow": "A", "dir": "rev",
        "expect": {"group": "mouse", "rtt_us": [9700, 10100], "interval_pkts": 3, "interval_acks": 3}}],
      config={"default_rtt_us": 50000})

pv_pre = [interval(0, 10, 800), {"op": "check", "t_us": 8000, "flow": "A", "expect": {"interval_pkts": 10}}]
# Interval 1 reaches the fair BDP (15000 B >= 12500 B): the proactive drop is off in the PV and AQM vectors so
# that the slow-start end (mouse-to-delay-fair-bdp's subject) neither drops nor changes a PV here (every group
# has the same TVF).
PV_CFG = {"default_rtt_us": 10000, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000, "ss_proactive_drop": False}
write("pv-drawing",
      "PV = TVF(u x rate) (architecture §5). Mid-connection flow, default RTT 10 ms; interval 1 carries 10 x 1500 B -> "
      "rate 15000 B / 10 ms = 12 Mbit/s = 12000 kbps. TVF for the per-flow objective at fair rate 10 Mbit/s: with "
      "x = 16 log10(kbps / 10) (bin i = floor(x)), PV = 32767.5 - (x - 48) x 2048 clamped to [0, 65535] (pv_max/2 at "
      "the fair rate's bin 48, one decade = 16 bins either way spans the PV range; 16 sub-steps per bin). u = u16 / 65536. "
      "Interval 2 starts at 12 ms. u16 65535: 12000 kbps, x 49.27 -> 30167; u16 32768: 6000 kbps, x 44.45 -> 40038; "
      "u16 6554: 1200 kbps, x 33.27 -> 62935; u16 1: 0.18 kbps -> 65535 (clamped). Ranges allow half a bin (1024) "
      "either way for the log tables. Random u (hardware): every PV lies in [29143, 65535] (at or above the PV of the "
      "flow's own rate). The proactive slow-start drop is off (interval 1 reaches the fair BDP).",
      pv_pre + [
          interval(12000, 1, 0, u16=65535, expect={"pv": [29143, 31191]}),
          interval(12100, 1, 0, u16=32768, expect={"pv": [39014, 41062]}),
          interval(12200, 1, 0, u16=6554, expect={"pv": [61911, 63959]}),
          interval(12300, 1, 0, u16=1, expect={"pv": [65535, 65535]}),
          interval(12400, 30, 100, expect={"pv": [29143, 65535]})],
      config=PV_CFG)

aqm_pre = pv_pre + [{"op": "set", "t_us": 12000, "queue": "all", "ctv": 46000, "ctv_lo": 46000, "ctv_hi": 46000,
                     "note": "controller pins every queue's CTV at 46000"}]
write("aqm-drop-and-mark",
      "Packet-value AQM (architecture §6): a packet with PV < CTV is dropped, or CE-marked if ECN-capable (aqm.ecn on). "
      "Same flow and TVF as pv-drawing (12 Mbit/s, fair rate 10 Mbit/s): u16 65535 draws PV in [29143, 31191] < CTV 46000 -> drop; u16 1 draws 65535 "
      ">= CTV -> forward; ECT with u16 65535 -> mark. Decisions are taken in egress (dequeue). The drop is the flow's "
      "first PV drop of interval 2 (one per flow per interval); marks are not limited.",
      aqm_pre + [
          interval(12000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 12000, "count": "all", "expect": {"actions": ["drop"], "ctv": [46000, 46000]}},
          interval(12100, 1, 0, u16=1, drain=False),
          {"op": "dequeue", "t_us": 12100, "count": "all", "expect": {"actions": ["forward"]}},
          interval(12200, 1, 0, u16=65535, ect=True, drain=False),
          {"op": "dequeue", "t_us": 12200, "count": "all", "expect": {"actions": ["mark"]}}],
      config={**PV_CFG, "ecn": True})

write("aqm-ecn-off",
      "With aqm.ecn off an ECN-capable packet below the CTV is dropped, never marked. Otherwise as aqm-drop-and-mark.",
      aqm_pre + [
          interval(12000, 1, 0, u16=65535, ect=True, drain=False),
          {"op": "dequeue", "t_us": 12000, "count": "all", "expect": {"actions": ["drop"]}}],
      config={**PV_CFG, "ecn": False})

write("ctv-toward-target",
      "The CTV moves up by ctv_step_up (64) when the dequeued packet's queuing delay is above the target (5 ms), down by "
      "ctv_step_down (32) below it, at most once per ctv_update_interval_us (1 ms). CTV set to 30000 (range 0..65535). "
      "Six packets queued at t=0 (no rate yet: PV 65535, all forwarded). Dequeues at 10, 12, 14 ms (sojourn >= 10 ms): "
      "30064, 30128, 30192; the other three at 16 ms: one step for the three (30256: at most once per interval). The "
      "controller sets the CTV back to 30000 at 18 ms; a packet queued at 20 ms and dequeued at 20.1 ms (0.1 ms < "
      "target): 29968; again at 23/23.1 ms: 29936.",
      [{"op": "set", "t_us": 0, "queue": "all", "ctv": 30000, "ctv_lo": 0, "ctv_hi": 65535},
       interval(0, 6, 0, drain=False),
       {"op": "dequeue", "t_us": 10000, "count": 1, "expect": {"actions": ["forward"], "ctv": [30064, 30064], "sojourn_us": [10000, 10000]}},
       {"op": "dequeue", "t_us": 12000, "count": 1, "expect": {"ctv": [30128, 30128]}},
       {"op": "dequeue", "t_us": 14000, "count": 1, "expect": {"ctv": [30192, 30192]}},
       {"op": "dequeue", "t_us": 16000, "count": "all", "expect": {"count": 3, "ctv": [30256, 30256]}},
       {"op": "set", "t_us": 18000, "queue": "all", "ctv": 30000},
       interval(20000, 1, 0, drain=False),
       {"op": "dequeue", "t_us": 20100, "count": "all", "expect": {"actions": ["forward"], "ctv": [29968, 29968]}},
       interval(23000, 1, 0, drain=False),
       {"op": "dequeue", "t_us": 23100, "count": "all", "expect": {"ctv": [29936, 29936]}}],
      config={"default_rtt_us": 50000, "target_delay_us": 5000, "ctv_update_interval_us": 1000, "ctv_step_up": 64, "ctv_step_down": 32})

U = {"U": {"src": "10.0.0.1", "sport": 4000, "dst": "10.0.1.1", "dport": 4001}}
write("cocoa-initial-limit",
      "Each queue starts with Cocoa's initial buffer limit (cocoa.initial_limit_pkts, 100 here): with nothing dequeued, "
      "packets 1..100 of a burst are queued, the 101st and 102nd are tail-dropped. The burst is UDP (untracked, the "
      "ant queue): the limit is the queue's, whatever the flow.",
      [pk(0, flow="U", proto="udp", size=1500, payload=1472, repeat=100, every_us=0, drain=False,
          expect={"verdict": "enqueued"}),
       pk(0, flow="U", proto="udp", size=1500, payload=1472, repeat=2, every_us=0, drain=False,
          expect={"verdict": "drop_limit"})],
      config={"initial_limit_pkts": 100}, flows=U)
print(sorted(os.listdir(OUT)))
