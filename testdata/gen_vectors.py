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
      "RTT = time of the first packet of the slot after the SYN that is neither a SYN nor a SYN-ACK, minus the SYN's "
      "time (docs/algorithm.md §6). SYN at 0, SYN-ACK (reverse) at 15 ms does not take the sample (the RTT in effect is "
      "still the default, 50 ms), the client's ACK at 20 ms does: RTT 20000 us (19531 units of 1.024 us). A SYN makes "
      "the flow a mouse and opens a provisional interval with the default RTT; the packet completing the sample (the "
      "pure ACK) restarts it (§7.1, INTERVAL_RESTART): the counters restart with the ACK, which is not a data packet "
      "(0), and the 10 data packets at 21 ms make 10. No interval has ended, so the marker uses rate 0 (bin 0 of the "
      "fabric's one TVF scale, D22): PV pv_max.",
      hs(20000)[:1] + [
          pk(15000, dir="rev", flags="SA", size=60, payload=0),
          {"op": "check", "t_us": 15000, "flow": "A", "expect": {"group": "mouse", "rtt_us": [50000, 50000]},
           "note": "still pending: the default RTT"},
          pk(20000, flags="A", size=52, payload=0, drain=True),
          {"op": "check", "t_us": 20000, "flow": "A", "expect": {"rtt_us": [19500, 20100], "interval_pkts": 0}},
          interval(21000, 10, 100, expect={"verdict": "enqueued", "group": "mouse", "pv": [65535, 65535]}),
          {"op": "check", "t_us": 22000, "flow": "A", "expect": {"interval_pkts": 10, "group": "mouse"}},
      ], config={"default_rtt_us": 50000})

write("mid-connection-default-rtt",
      "A flow first seen mid-connection (no SYN) gets the controller-set default RTT (flow.default_rtt_us; pinned to "
      "30000 here to show it is a knob) and starts as a mouse.",
      [pk(0, flags="A", **D, expect={"verdict": "enqueued", "group": "mouse"}),
       {"op": "check", "t_us": 0, "flow": "A", "expect": {"rtt_us": [30000, 30000], "interval_pkts": 1}}],
      config={"default_rtt_us": 30000})

# Flows that start mid-connection with a default RTT of 10 ms: the interval clock of the program and
# the model is then the same rule (first packet + RTT, then each roll-over packet + RTT); the
# handshake's own interval is the subject of handshake-rtt. Intervals are 12 ms apart
# (roll-over packets 2 ms after the deadline, last packets >= 2 ms before it), so a replay on a
# real-time switch with a few milliseconds of timing noise cannot move a packet across a boundary.
# The interval floor (flow.min_interval_us, 50 ms: an interval lasts max(RTT, floor)) would make
# these intervals 50 ms; it is not these vectors' subject (interval-floor's is), so they set it to
# 5 ms, below their RTT. The PTF replay runs them at a time scale >= 10 (at least the compiled
# 50 ms floor / the 10 ms RTT = 5), where the program's floor is <= 5 ms of vector time too.
MID = {"default_rtt_us": 10000, "min_interval_us": 5000}
FLOOR_ASIDE = (" The interval floor (flow.min_interval_us: an interval lasts max(RTT, floor) and its rate divides by "
               "the same) is not this vector's subject (interval-floor's is): config min_interval_us 5 ms, below the "
               "10 ms RTT, keeps it out of the way, so every interval here lasts the RTT (the PTF replay's time "
               "scale, >= 10, puts the program's compiled 50 ms floor at <= 5 ms of vector time as well).")
P = 12000  # interval period


def first(**kw):
    e = {"verdict": "enqueued", "group": "mouse", "pv": [65535, 65535]}
    return pk(0, flags="A", **D, expect=e, **kw)


write("interval-rollover",
      "An interval ends when a data packet arrives at least one interval length after the interval started, an "
      "interval lasting max(RTT, W), W = flow.min_interval_us = 50 ms (docs/algorithm.md §7.1); that packet opens "
      "the next interval (architecture §2). A flow first seen mid-connection with the default RTT 60 ms (above W, so "
      "its intervals last the RTT; an RTT below W is interval-floor's subject): its first packet (t=0) opens "
      "interval 1, deadline 60 ms. Packets at 9, 18, 27, 36 and 48 ms stay in it (6 data packets); the packet at "
      "72 ms (>= 60 ms) rolls over: counters restart with it (1 packet). Six data packets > ant_max (2): the flow "
      "stays a mouse.",
      [first(),
       interval(9000, 4, 9000),
       {"op": "check", "t_us": 40000, "flow": "A", "expect": {"interval_pkts": 5}},
       interval(48000, 1, 0),
       {"op": "check", "t_us": 48000, "flow": "A", "expect": {"interval_pkts": 6}},
       interval(72000, 1, 0, group="mouse"),
       {"op": "check", "t_us": 72000, "flow": "A", "expect": {"interval_pkts": 1}}],
      config={"default_rtt_us": 60000})

write("ants",
      "At most ant_max_pkts_per_interval (2) packets in an interval make a mouse an ant; more than that make an ant a "
      "mouse again. Mid-connection flow, default RTT 10 ms. Interval 1 (from 0) holds one data packet -> ant at the "
      "roll-over packet (t=12 ms). Interval 2 (from 12 ms) holds 6 packets -> mouse at t=24 ms. Non-TCP packets are "
      "never tracked and go to the ant queue (queue 0)." + FLOOR_ASIDE,
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
      "4, 8, 16, 8 (intervals from 0, 12, 24, 36 ms): at the roll-over at t=48 ms the egress classifier sees ss_in = "
      "8 + 1 < 16 + 1 -> slow start ended, delay0 (band 0: RTT below the 20000-unit boundary); the update reaches "
      "ingress as the packet leaves (drained). Queues are drained after every packet." + FLOOR_ASIDE,
      ss_prefix() + [interval(4 * P, 1, 0, group="delay0"),
                     {"op": "check", "t_us": 4 * P, "flow": "A", "expect": {"group": "delay0"}}],
      config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

write("mouse-to-delay-fair-bdp",
      "Slow start also ends at an interval end whose rate reaches the lower edge of the port's fair-rate bin "
      "(docs/algorithm.md §8.5: bdp_gap = fair_rate_bin x 4 |-| lrate = 0, i.e. the interval's bytes reach the fair "
      "BDP); the packet that ends that interval is dropped on purpose, once, and the flow becomes delay-based. Fair "
      "rate 10 Mbit/s: fair_rate_bin 48 (192 fine units). Mid-connection flow, default RTT 10 ms. Interval 1 (0 .. "
      "the roll-over at 12 ms) carries 4 x 1500 B: 4.8 Mbit/s, below the bin edge: slow start goes on (ss_in 5 is not "
      "below lo = 1). Interval 2 (12 ms .. 24 ms) carries 11 x 1500 B = 16500 B in an RTT of 10 ms: 13.2 Mbit/s >= 10 "
      "Mbit/s: the packet at 24 ms that ends it is dropped (drop_proactive) and the flow becomes delay0 (the update "
      "lands as that packet leaves egress); every other packet passes, the mouse's before it too." + FLOOR_ASIDE,
      [first(), interval(500, 3, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(P, 8, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(P + 4000, 1, 0, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(P + 4500, 2, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(2 * P, 1, 0, expect={"verdict": "drop_proactive", "group": "delay0"}),
       interval(2 * P + 500, 4, 500, expect={"verdict": "enqueued", "group": "delay0"})],
      config={**MID, "link_rate_bps": 10000000, "fair_rate_bps": 10000000})

write("mouse-to-delay-fair-bdp-first-interval",
      "As mouse-to-delay-fair-bdp, but the fair BDP is reached in the flow's first interval (fixed defect 1: a new "
      "flow starts with lo = 1, so ss_in 0 < 1 ends slow start at its first interval end): a flow first seen "
      "mid-connection (default RTT 10 ms, fair rate 10 Mbit/s, bin 48) sends 1500-byte packets every 500 us from "
      "t=0 to 5 ms: 11 x 1500 B = 13.2 Mbit/s in interval 1. The packet at 12 ms that ends interval 1 is dropped "
      "(drop_proactive) and the flow becomes delay0; every other packet passes." + FLOOR_ASIDE,
      [first(), interval(500, 7, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(4000, 1, 0, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(4500, 2, 500, expect={"verdict": "enqueued", "group": "mouse"}),
       interval(P, 1, 0, expect={"verdict": "drop_proactive", "group": "delay0"}),
       interval(P + 500, 4, 500, expect={"verdict": "enqueued", "group": "delay0"})],
      config={**MID, "link_rate_bps": 10000000, "fair_rate_bps": 10000000})

# A loss-ignoring flow (BBR under ccfair's drops): 30 data packets every interval, one of them a
# retransmission (the second packet: the re-sent segment is not above the highest sequence number).
LI_DOC = ("Loss-ignoring intervals (docs/algorithm.md §8.4): ingress marks a data segment whose sequence number is "
          "not above the highest its direction has sent as a retransmission (flow_seq); flow_retx counts the "
          "intervals in a row that had one (the packet ending an interval counts in the next, as for "
          "interval_pkts) and hands the run to egress at the interval end (int_retx). An interval end of a "
          "long-lived flow with a run >= classifier.retx_run (3) and a rate not fallen to <= 0.866x the previous "
          "interval's (FALL_FINE, 4 fine units: x0.866) adds classifier.ignore_up (2) to the loss-ignoring count "
          "(flow_ignore); a fall (a back-off) or an interval without a retransmission takes one off (D15); a count "
          ">= m_m (4) makes the flow model-based (hybrid1). ")
steps = ss_prefix(14)
def li_interval(k, n, retx, group):
    """Interval k (from (k-1) x P): its roll-over packet (classified: the group after it), then a
    retransmission of that packet's segment if `retx`, then the rest, n data packets in all."""
    out = [interval((k - 1) * P, 1, 0, group=group)]
    if retx:
        out.append(pk((k - 1) * P + 200, flags="A", retx=True, drain=True, **D))
    out.append(interval((k - 1) * P + 400, n - 1 - (1 if retx else 0), 200))
    return out
# Intervals 5 .. 10: 30 packets with a retransmission. The end of interval j has run j - 4 and count
# 2 x max(0, j - 6); the roll-over of interval k classifies the end of k - 1 (checked after it).
for k in range(5, 11):
    steps += li_interval(k, 30, True, "delay0" if k <= 8 else "hybrid1")
    steps.append({"op": "check", "t_us": (k - 1) * P + 9000, "flow": "A", "expect": {"ignore": 2 * max(0, k - 7)}})
# (interval, packets, a retransmission, group and count after its roll-over)
plan = [(11, 15, False, "hybrid1", 8), (12, 30, False, "hybrid1", 7), (13, 15, False, "hybrid1", 6),
        (14, 30, True, "hybrid1", 5), (15, 15, True, "hybrid1", 5), (16, 30, False, "hybrid1", 4),
        (17, 15, False, "delay0", 3)]
for k, n, retx, g, ign in plan:
    steps += li_interval(k, n, retx, g)
    e = {"ignore": ign}
    if k >= 16:
        e["family"] = 1  # one back-off after a loss (D16); at 16 hybrid1: the model-based count decides first
    steps.append({"op": "check", "t_us": (k - 1) * P + 9000, "flow": "A", "expect": e})
write("loss-ignoring-model-based",
      LI_DOC + "Mid-connection flow, RTT 10 ms, intervals 12 ms apart; slow start 4, 8, 16, 14 packets -> delay0 at "
      "48 ms (14 < 16; the count is cleared while a mouse). Intervals 5 .. 10 (from 48 ms) carry 30 data packets, "
      "the second a retransmission of the first: the end of interval j has run j - 4 and, from j = 7 (run 3), "
      "adds 2 (count 2 (j - 6), read after the roll-over that ends it); the end of interval 8 makes it 4 -> hybrid1 "
      "(after the roll-over at 96 ms), 10 makes it 8. Then, with retransmissions only in intervals 14 and 15: "
      "15 packets in interval 11 (a fall without a retransmission: 7; before D15 it kept the count), 30 (no "
      "retransmission: 6; before D15 kept), 15 (a fall without one: 5), 30 with one (run 1 < 3, no fall: kept), "
      "15 with one (a fall in an interval with a retransmission: 4, still hybrid1; the same event is the flow's "
      "first back-off after a loss, flow_family 1, still delay-based: loss-backoff-makes-loss-based), 30 without "
      "(3 < m_m: delay0 after the roll-over at 192 ms; before D16 loss0)." + FLOOR_ASIDE,
      steps, config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

# The loss-ignoring count on a port with family_forget (the isolated layout, D20): a flow queued
# model-based does not read the fall, so a fall in a run >= retx_run adds and a fall in a shorter
# run keeps the count; a flow queued in any other group reads it as everywhere.
steps = ss_prefix(14)
# (interval, packets, a retransmission, group, count and family after its roll-over, i.e. after
# the end of the interval before it)
plan = [(5, 30, True, "delay0", 0, 0), (6, 30, True, "delay0", 0, 0), (7, 30, True, "delay0", 0, 0),
        (8, 15, True, "delay0", 2, 0), (9, 30, True, "delay0", 1, 1), (10, 30, True, "delay0", 3, 1),
        (11, 15, True, "hybrid1", 5, 1), (12, 30, True, "hybrid1", 7, 2), (13, 15, False, "hybrid1", 9, 2),
        (14, 15, True, "hybrid1", 8, 6), (15, 8, True, "hybrid1", 8, 2), (16, 30, False, "hybrid1", 8, 2)]
for k, n, retx, g, ign, fam in plan:
    steps += li_interval(k, n, retx, g)
    steps.append({"op": "check", "t_us": (k - 1) * P + 9000, "flow": "A", "expect": {"ignore": ign, "family": fam}})
steps += [interval(16 * P, 1, 0, group="hybrid1"),   # the roll-over that ends interval 16
          {"op": "check", "t_us": 16 * P + 1000, "flow": "A", "expect": {"ignore": 7, "family": 6}}]
write("loss-ignoring-isolated-model-keeps-count-on-fall",
      LI_DOC + "On a port with family_forget (port_cfg; the controller sets it where the queue layout is isolated) "
      "a flow queued model-based (hybrid1) does not read the fall (D20): its interval end with a run >= retx_run "
      "adds 2 whether its rate fell or not, one without a retransmission takes one off, a shorter run keeps it; "
      "a flow queued in another group reads the fall as on any port. Mid-connection flow, RTT 10 ms, intervals "
      "12 ms apart, family_forget on; slow start 4, 8, 16, 14 packets -> delay0 at 48 ms. Every interval from 5 "
      "has its second packet re-send the first's segment (a retransmission) unless said: 30 packets in 5, 6, 7 "
      "(runs 1, 2, 3: count 0, 0, 2); 15 in 8 (a fall in run 4, queued delay0: the fall counts, 1, and the first back-off "
      "after a loss, family 1); 30 in 9 and 10 (3, then 5 >= m_m: hybrid1 after the roll-over at 120 ms); 15 in "
      "11 (a fall in run 7, queued hybrid1: not read, 7; without family_forget 4; the second back-off, family 2, "
      "which the model-based row outranks); 30 in 12 (9; a retransmission without a fall restarts the family's "
      "clean run, 2); 15 without one in 13 (a fall, a clean end: 8; the loss-based family counts it, 6); 15 with "
      "one in 14 (no fall, run 1: kept, 8; family 2); 8 in 15 (a fall in run 2 < 3, queued hybrid1: kept, 8, "
      "where a port without family_forget takes one off; a back-off, family 2); 30 without one in 16 (clean: 7; "
      "family 6, read at the roll-over at 192 ms)." + FLOOR_ASIDE,
      steps, config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000, "family_forget": True})

# The loss response: slow start (4, 8, 16, 8), then 30, 15, 30, 15, 30, 15, 30, 15 packets; intervals 7, 8,
# 10 and 12 have a retransmission. (interval, packets, a retransmission, group and family after its roll-over)
steps = ss_prefix()
plan = [(5, 30, False, "delay0", 0), (6, 15, False, "delay0", 0), (7, 30, True, "delay0", 0),
        (8, 15, True, "delay0", 0), (9, 30, False, "delay0", 1), (10, 15, True, "delay0", 1),
        (11, 30, False, "loss0", 2), (12, 15, True, "loss0", 2)]
for k, n, retx, g, fam in plan:
    steps += li_interval(k, n, retx, g)
    steps.append({"op": "check", "t_us": (k - 1) * P + 9000, "flow": "A", "expect": {"family": fam}})
steps += [interval(12 * P, 1, 0, group="loss0"),
          {"op": "check", "t_us": 12 * P + 1000, "flow": "A", "expect": {"family": 2, "ignore": 0}}]
write("loss-backoff-makes-loss-based",
      "Loss response (docs/algorithm.md D11, D16): a long-lived flow is delay-based (flow_family 0) until the "
      "second interval end whose interval had a retransmission (ingress marks a data segment not above the highest "
      "its direction has sent; flow_retx hands the interval's run to egress, int_retx != 0) and whose rate fell to "
      "<= 0.866x the previous interval's (FALL_FINE, 4 fine units): the first such back-off makes flow_family 1 "
      "(still delay-based), the second 2 (loss-based) until it is a mouse again or restarts; a fall or a "
      "retransmission alone keeps the family, and a mouse's interval end clears it. Mid-connection flow, RTT 10 ms, intervals 12 ms apart, fair rate 10 Gbit/s (the fair BDP is never "
      "reached); slow start 4, 8, 16, 8 packets -> delay0 at the roll-over at 48 ms (8 < 16; that end is queued as a "
      "mouse: family 0). Intervals 5 .. 12 (from 48 ms) carry 30, 15, 30, 15, 30, 15, 30, 15 data packets of 1500 B; in 7, "
      "8, 10 and 12 the second packet re-sends the first's segment (a retransmission). The roll-over of interval k (its "
      "first packet, drained) classifies the end of interval k - 1 (group after it, family checked 9 ms in): at 60 "
      "ms 30 after 8 (a rise): delay0, family 0; at 72 ms 15 after 30 (a fall to half, 19 fine units) without a "
      "retransmission: delay0, family 0; at 84 ms 30 after 15 with one (a rise): delay0, family 0; at 96 ms 15 "
      "after 30 with one: the first back-off after a loss, family 1, still delay0 (before D16 this made it "
      "loss0); at 108 ms 30 (a rise, no retransmission): delay0, family 1; at 120 ms 15 after 30 with one: the "
      "second back-off, loss0 (band 0, as delay0: the 10 ms RTT), family 2; at 132 ms 30 (a rise): loss0, family 2 "
      "(sticky); at 144 ms 15 after 30 with a retransmission, a third back-off: loss0, family 2 (saturated). The "
      "retransmission runs (1 at the end of interval 7, 2 at 8, 0 at 9, 1 at 10, 0 at 11, 1 at 12) stay below "
      "classifier.retx_run (3) and the falls at the ends of 8, 10 and 12, in intervals with a retransmission, take "
      "nothing off a count of 0: the loss-ignoring count stays 0." + FLOOR_ASIDE,
      steps, config={**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000})

# Forgetting a back-off (D19): the port's family_forget (port_cfg, set where the queue layout is
# isolated) lets a loss-based flow's flow_family count its interval ends without a retransmission
# (2 + 4n) and forget one back-off (-> 1) after M = classifier.family_forget_intervals (64, compiled
# in: no vector can shrink it) of them in a row. A vector must therefore run 64+ interval ends: short
# trains (at most 4 packets, 1 ms apart, from the roll-over) on the 10 ms RTT, intervals FQ = 20 ms
# apart: packets 7 ms before and roll-overs 10 ms after each deadline. The PTF replay runs that at its
# base time scale 10 (200 ms of real time an interval, ~15 s for 75 intervals), with 70 and 100 ms of
# real margin: a long vector meets every deadline 75 times, and with 15 ms intervals (50 ms of real
# margin after each deadline) a loaded two-core host lost a roll-over in two of three runs.
FQ = 20000
FORGET_M = 64


def ms(t_us):
    return "%g ms" % (t_us / 1000.0)


def ff_interval(k, n, retx=False, group=None, family=None):
    """Interval k (from (k-1) x FQ): its roll-over packet (classified: the group after it), then a
    retransmission of that packet's segment 1 ms later if `retx`, the rest 1 ms apart, n data
    packets in all (n <= 4); `family`: flow_family read 6 ms in (after the interval k - 1 end)."""
    t0 = (k - 1) * FQ
    out = [first()] if k == 1 else [interval(t0, 1, 0, group=group)]
    if retx:
        out.append(pk(t0 + 1000, flags="A", retx=True, drain=True, **D))
    rest = n - 1 - (1 if retx else 0)
    if rest:
        out.append(interval(t0 + 1000 * (2 if retx else 1), rest, 1000))
    if family is not None:
        out.append({"op": "check", "t_us": t0 + 6000, "flow": "A", "expect": {"family": family}})
    return out


# (k, data packets, a retransmission, group and family after the end of k - 1, checked in interval k)
FF_PREFIX_PLAN = [(1, 3, False, None, None), (2, 4, False, "mouse", None), (3, 3, False, "mouse", None),
                  (4, 4, False, "delay0", 0), (5, 2, True, "delay0", 0), (6, 4, False, "delay0", 1),
                  (7, 2, True, "delay0", 1)]
FF_PREFIX_DOC = (
    "Mid-connection flow, RTT 10 ms, intervals %s apart (interval k from (k - 1) x %s; its first packet, drained, "
    "ends interval k - 1 and is classified: the group after it, flow_family read 6 ms in), 1500-byte packets 1 ms "
    "apart, fair rate 10 Gbit/s (the fair BDP is never reached: no slow-start drop). Slow start 3, 4, 3 data "
    "packets (3 > ant_max 2: a mouse, not an ant; ss_in 4 >= lo 1, 5 >= 4): the end of interval 3 (at %s) has ss_in "
    "4 < 5, slow start ends, delay0; that end is queued as a mouse: family 0. Interval 4: 4 packets (a rise), no "
    "retransmission: family 0. Interval 5: 2 packets, the second re-sending the first's segment (a "
    "retransmission): its end (at %s) is a fall to half (19 fine units >= FALL_FINE 4) in an interval with a "
    "retransmission, the first back-off: family 1, delay0. Interval 6: 4 packets, none: family 1. Interval 7: 2 "
    "with a retransmission: the second back-off (at %s): family 2, loss0 (band 0, the 10 ms RTT). The "
    "retransmission runs (1, 0, 1) stay below classifier.retx_run (3) and the falls take nothing off a count of "
    "0: the loss-ignoring count stays 0 (t_mm 0), so the family decides the group throughout. "
    % (ms(FQ), ms(FQ), ms(3 * FQ), ms(5 * FQ), ms(7 * FQ)))


def ff_steps(plan):
    steps = []
    for k, n, retx, g, fam in FF_PREFIX_PLAN + plan:
        steps += ff_interval(k, n, retx, g, fam)
    steps[-1]["expect"]["ignore"] = 0           # the last check: the loss-ignoring count too
    return steps


def ff_long_run(forget):
    """Intervals 1..7 (loss-based at the end of 7), 64 intervals of 2 packets without a
    retransmission (8 .. 71), then 4 packets (72), 2 with a retransmission (73: a back-off), 2
    (74), and the roll-over at 74 x FQ that ends 74."""
    plan = []
    for k in range(8, 8 + FORGET_M):            # the end of interval k - 1 = 7 + j, j = k - 8 clean ends before
        plan.append((k, 2, False, "loss0", 2 + 4 * (k - 8) if forget else 2))
    k = 8 + FORGET_M                             # 72: the end of 71, the M-th clean end in a row
    plan.append((k, 4, False, "delay0" if forget else "loss0", 1 if forget else 2))
    plan.append((k + 1, 2, True, "delay0" if forget else "loss0", 1 if forget else 2))   # end of 72: clean
    plan.append((k + 2, 2, False, "loss0", 2))                                            # end of 73: a back-off
    plan.append((k + 3, 1, False, "loss0", 6 if forget else 2))                           # end of 74: clean
    return ff_steps(plan)


FF_CFG = {**MID, "link_rate_bps": 10000000000, "fair_rate_bps": 10000000000}
FF_RULE = (
    "Forgetting a back-off (docs/algorithm.md D19): with the port's family_forget on (port_cfg; the controller "
    "sets it where the queue layout is isolated) flow_family holds 0 and 1 for a delay-based flow (back-offs so "
    "far) and 2 + 4n for a loss-based one, n = its interval ends in a row without a retransmission (int_retx 0): "
    "each such end adds 4 (family_clean; a rate fall without a retransmission counts as one too), and the one that "
    "finds 2 + 4 (M - 1) = 254 (FORGET_AT, M = classifier.family_forget_intervals = 64, compiled in) makes it 1: "
    "one back-off forgotten, delay-based again (group_of reads bit 1 only). An end with a retransmission but no "
    "fall makes a loss-based flow's value 2 (family_dirty: the run restarts), a back-off (a fall in an interval "
    "with a retransmission) 0 -> 1 -> 2 and a loss-based flow's value 2 (family_loss). With family_forget off "
    "(the default) no end adds 4: 0, 1 and 2 only, as before D19. ")
FF_TIMING = (" 64 clean interval ends take 64 intervals whatever the replay does (M is compiled in), so the "
             "intervals are short trains, at most 3 ms after their roll-over, %s apart: the PTF replay runs them "
             "at its base time scale 10 (%s of real time an interval, 70 and 100 ms of real margin before and "
             "after each deadline)." % (ms(FQ), ms(10 * FQ)))

write("family-forget-after-m-clean-intervals",
      "With family_forget on, a loss-based flow forgets one back-off after M = 64 interval ends in a row without a "
      "retransmission (family 2, 6, ..., 254, then 1: delay0), and one more back-off makes it loss-based again. " +
      FF_RULE + FF_PREFIX_DOC + "family_forget on (config). Intervals 8 .. 71: 2 packets each, no retransmission "
      "(the rate stays, no fall): the end of interval 7 + j (the roll-over at (7 + j) x %s) is the j-th clean end "
      "in a row: family 2 + 4j, loss0 (bit 1 set), for j = 1 .. 63: 6 (at %s), 10, 14, ..., 254 (j = 63, at %s); "
      "the end of interval 71 (j = 64, at %s) finds 254 = FORGET_AT: family 1, delay0. Interval 72: 4 packets (a "
      "rise), none: a delay-based flow's clean end changes nothing: family 1, delay0 (at %s). Interval 73: 2 "
      "packets with a retransmission: a fall to half in an interval with one, one more back-off: family 1 + 1 = 2, "
      "loss0 again (at %s). Interval 74: 2 packets, none: the run starts over, family 6 (at %s, the last packet). "
      "The retransmission runs (1 at the ends of 5, 7 and 73) stay below retx_run: the loss-ignoring count stays 0."
      % (ms(FQ), ms(8 * FQ), ms(70 * FQ), ms(71 * FQ), ms(72 * FQ), ms(73 * FQ), ms(74 * FQ)) + FF_TIMING
      + FLOOR_ASIDE,
      ff_long_run(True), config={**FF_CFG, "family_forget": True})

write("family-forget-off-keeps-loss-based",
      "With family_forget off (the default) a loss-based flow stays loss-based (family 2, loss0) through 65 interval "
      "ends without a retransmission, as before D19. " + FF_RULE + FF_PREFIX_DOC + "family_forget off (the "
      "default: not in config), the regression guard: the same packets as family-forget-after-m-clean-intervals. "
      "Intervals 8 .. 71: 2 packets each without a retransmission: no end adds 4, family 2, loss0 after every one, "
      "the 64th (at %s) and 65th (%s) too (with family_forget on the 64th makes it 1). Interval 73's fall in an "
      "interval with a retransmission is a back-off of a loss-based flow: 2 (saturated); interval 74's clean end: "
      "2. The loss-ignoring count stays 0." % (ms(71 * FQ), ms(72 * FQ)) + FF_TIMING + FLOOR_ASIDE,
      ff_long_run(False), config=FF_CFG)

write("family-forget-run-restarts",
      "With family_forget on, a rate fall without a retransmission counts as a clean interval end, while an end with "
      "a retransmission but no fall, or a back-off, restarts a loss-based flow's run (family 2). " + FF_RULE +
      FF_PREFIX_DOC + "family_forget on (config). Then (the end of interval k at the roll-over at k x %s): "
      "interval 8, 2 packets without a retransmission: 2 + 4 = 6; 9, 2 packets: 10; 10, 4 packets (a rise): 14; "
      "11, 2 packets after 4 (a fall to half, 19 fine units, but no retransmission: not a back-off, a clean end): "
      "18; 12, 2 packets after 2, the second a retransmission (no fall: the same bytes): the run restarts, 2 (not "
      "22), loss0; 13, 2 packets: 6; 14, 4 packets (a rise): 10; 15, 2 packets with a retransmission (a fall to "
      "half in an interval with one: a back-off of a loss-based flow): 2, loss0; 16, 2 packets: 6 (at %s, the "
      "last packet). Loss-based (loss0) from the end of 7 on. The retransmission runs (1 at the ends of 5, 7, 12 "
      "and 15, 0 between) stay below retx_run (3) and no end adds to the loss-ignoring count: 0."
      % (ms(FQ), ms(16 * FQ)) + FLOOR_ASIDE,
      ff_steps([(8, 2, False, "loss0", 2), (9, 2, False, "loss0", 6), (10, 4, False, "loss0", 10),
                (11, 2, False, "loss0", 14), (12, 2, True, "loss0", 18), (13, 2, False, "loss0", 2),
                (14, 4, False, "loss0", 6), (15, 2, True, "loss0", 10), (16, 2, False, "loss0", 2),
                (17, 1, False, "loss0", 6)]),
      config={**FF_CFG, "family_forget": True})

write("symmetric-flow-id",
      "Both directions of a connection hash to the same slot and signature (architecture §1): the reverse SYN-ACK and "
      "reverse pure ACKs land in the forward flow's slot. The SYN-ACK is not 'the first packet after the SYN in the "
      "same direction' (it reads the pending sample: the default RTT is in effect), so the RTT comes from the forward "
      "ACK (10 ms), which restarts the interval (INTERVAL_RESTART: the handshake is not an interval); the reverse "
      "pure ACKs do not count (INTERVAL_ACK): 3 data packets.",
      [pk(0, flags="S", size=60, payload=0),
       pk(5000, dir="rev", flags="SA", size=60, payload=0),
       {"op": "check", "t_us": 5000, "flow": "A", "dir": "rev", "expect": {"group": "mouse", "rtt_us": [50000, 50000]}},
       pk(10000, flags="A", size=52, payload=0, drain=True),
       interval(10100, 3, 100),
       pk(11000, dir="rev", flags="A", size=52, payload=0, repeat=2, every_us=100, drain=True),
       {"op": "check", "t_us": 11200, "flow": "A", "dir": "rev",
        "expect": {"group": "mouse", "rtt_us": [9700, 10100], "interval_pkts": 3}}],
      config={"default_rtt_us": 50000})

# The PV and AQM vectors: a mid-connection flow on the default RTT 50 ms (= the interval floor W, so its
# intervals last 50 ms either way). Interval 1 (0 .. the roll-over at 60 ms) carries 12 x 1500 B = 18000 B
# in 50 ms (48828 units): 2.88 Mbit/s, lrate 158 fine units (log_bytes - log_rtt; 64 log10(288) = 157.5),
# rate bin 39 (156..159), one above the 2.5 Mbit/s fair rate's bin 38. Its first interval end labels it
# with that rate: the label averages the last two intervals' log rates and the first end averages its rate
# with itself ((2 x 158) >> 1 = 158). Packets 3 ms apart: 30 ms on a switch replaying at time scale 10.
pv_pre = [interval(0, 12, 3000), {"op": "check", "t_us": 34000, "flow": "A", "expect": {"interval_pkts": 12}}]
# Interval 1 reaches the fair BDP (2.88 >= 2.5 Mbit/s): the proactive drop is off in the PV and AQM vectors so
# that the slow-start end (mouse-to-delay-fair-bdp's subject) neither drops nor changes a PV here (every group
# has the same TVF).
PV_CFG = {"default_rtt_us": 50000, "link_rate_bps": 10000000000, "fair_rate_bps": 2500000, "ss_proactive_drop": False}


def tvf_doc(fair, fair_bin, pvs):
    return ("TVF for the per-flow objective (the model's curve and the one the replay writes; fair rate %s, bin %d, "
            "sets only where the CTV range is read): the fabric's one scale (docs/algorithm.md D22), PV(bin i) = "
            "32767 - (i - 64) x 512 clamped to [0, 65535] ((pv_max + 1) / 128 = 512 PV a bin; pv_max/2 at bin 64, "
            "tvf.centre_kbps = 100 Mbit/s; tvf.half_span_decades = 4 decades = 64 bins either way span the PV range): %s. "
            % (fair, fair_bin, pvs))


TVF_DOC = tvf_doc("2.5 Mbit/s", 38, "bin 40 -> 45055, 39 -> 45567, 38 -> 46079, 36 -> 47103, 35 -> 47615, 34 -> "
                  "48127, 24 -> 53247, 23 -> 53759, 22 -> 54271, 0 -> 65535")
PV_PRE_DOC = ("Mid-connection flow, default RTT 50 ms (= the interval floor W = flow.min_interval_us, so intervals "
              "last 50 ms, 48828 units); interval 1 (from 0; the roll-over packet at 60 ms ends it) carries 12 x 1500 "
              "B -> rate 18000 B / 50 ms = 2.88 Mbit/s, lrate = log_bytes(18000) - log_rtt(48828) = 158 fine units "
              "(64 log10(288) = 157.5; bin 39); the first interval end labels the flow with that rate (the label is "
              "the average of the last two intervals' log rates, the first end averaging its rate with itself: "
              "(2 x 158) >> 1 = 158). ")
write("pv-drawing",
      "PV = TVF(u x rate label) at whole rate bins (docs/algorithm.md §10.1: pos = lr_pv |-| nlog_u, bin = pos / 4, "
      "the sum of logs in 1/64 decade; nlog_u from the log_u table). " + PV_PRE_DOC + TVF_DOC +
      "Interval 2 starts at 60 ms. u16 65535: nlog_u 0, pos 158, bin 39 -> 45567; u16 32768 (u = 1/2): nlog_u 18, "
      "pos 140, bin 35 -> 47615; u16 6554 (u = 0.1): nlog_u 64, pos 94, bin 23 -> 53759; u16 1: nlog_u 308, pos 0, "
      "bin 0 -> 65535. Ranges allow the neighbouring bins (the log tables are within +-2 fine units, half a bin, of "
      "the exact logs). Random u (hardware), 20 packets 1.5 ms apart: every PV lies in [45055, 65535] (at or above "
      "the PV of the bin above the flow's own rate). The proactive slow-start drop is off (interval 1 reaches the "
      "fair BDP).",
      pv_pre + [
          interval(60000, 1, 0, u16=65535, expect={"pv": [45055, 46079]}),
          interval(61000, 1, 0, u16=32768, expect={"pv": [47103, 48127]}),
          interval(62000, 1, 0, u16=6554, expect={"pv": [53247, 54271]}),
          interval(63000, 1, 0, u16=1, expect={"pv": [65535, 65535]}),
          interval(64000, 20, 1500, expect={"pv": [45055, 65535]})],
      config=PV_CFG)

aqm_pre = pv_pre + [{"op": "set", "t_us": 60000, "queue": "all", "ctv": 49400, "ctv_lo": 49400, "ctv_hi": 49400,
                     "note": "controller pins every queue's CTV at 49400"}]
GATE_DOC = ("A PV verdict needs a standing queue (p4/shared/entries/aqm_verdict.p4: the packet's sojourn, egress minus "
            "ingress time, shifted left by aqm.pv_gate_shift (1) must be >= the queue's target delay, i.e. sojourn >= "
            "target / 2; otherwise the packet passes whatever its PV). ")
write("aqm-drop-and-mark",
      "Packet-value AQM (architecture §6): a packet with PV < CTV is dropped, or CE-marked if ECN-capable (aqm.ecn "
      "on). " + GATE_DOC + "Same flow and TVF as pv-drawing (2.88 Mbit/s label, bin 39; fair rate 2.5 "
      "Mbit/s); the controller pins the CTV at 49400 (ctv_lo = ctv_hi) at 60 ms. Each packet is queued 12 ms "
      "(dequeue step): sojourn 12 ms >= 5 ms / 2 (target_delay_us 5000, the default), a standing queue. u16 65535 "
      "draws PV in [45055, 46079] (bin 39, 45567, and its neighbours) < CTV 49400 -> drop; u16 1 draws 65535 >= CTV -> forward; ECT "
      "with u16 65535 -> mark. PVs and decisions are taken in egress (dequeue). Every PV-drop candidate is dropped, whether or not the flow lost a packet earlier in the "
      "interval.",
      aqm_pre + [
          interval(60000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 72000, "count": "all", "expect": {"actions": ["drop"], "ctv": [49400, 49400]}},
          interval(73000, 1, 0, u16=1, drain=False),
          {"op": "dequeue", "t_us": 85000, "count": "all", "expect": {"actions": ["forward"]}},
          interval(86000, 1, 0, u16=65535, ect=True, drain=False),
          {"op": "dequeue", "t_us": 98000, "count": "all", "expect": {"actions": ["mark"]}}],
      config={**PV_CFG, "ecn": True})

write("aqm-ecn-off",
      "With aqm.ecn off an ECN-capable packet below the CTV is dropped, never marked. Otherwise as aqm-drop-and-mark "
      "(queued 12 ms: a standing queue, sojourn >= target / 2 = 2.5 ms).",
      aqm_pre + [
          interval(60000, 1, 0, u16=65535, ect=True, drain=False),
          {"op": "dequeue", "t_us": 72000, "count": "all", "expect": {"actions": ["drop"]}}],
      config={**PV_CFG, "ecn": False})

write("aqm-retransmission-spared",
      "A retransmission (a data segment not above the highest sequence number its direction has sent: flow_seq in "
      "ingress) passes the PV verdict unless its flow is queued as model-based (hybrid1): no PV drop, no CE mark "
      "(p4/shared/entries/aqm_verdict.p4, docs/algorithm.md D9); a drop of a retransmission costs a real sender a "
      "timeout. " + GATE_DOC + "Same flow, TVF and pinned CTV 49400 as aqm-drop-and-mark; each packet queued 12 ms "
      "(a standing queue), u16 65535 (PV in [45055, 46079] < CTV). A new segment at 60 ms: dropped (its "
      "interval-1 end makes the flow delay-based: slow start ended at the fair BDP); its retransmission at "
      "73 ms: forwarded; the same again ECN-capable at 86 ms: forwarded, not marked; a new segment at 99 ms: "
      "dropped.",
      aqm_pre + [
          interval(60000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 72000, "count": "all", "expect": {"actions": ["drop"]}},
          pk(73000, flags="A", retx=True, u16=65535, drain=False, **D),
          {"op": "dequeue", "t_us": 85000, "count": "all", "expect": {"actions": ["forward"]}},
          pk(86000, flags="A", retx=True, u16=65535, ect=True, drain=False, **D),
          {"op": "dequeue", "t_us": 98000, "count": "all", "expect": {"actions": ["forward"]}},
          interval(99000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 111000, "count": "all", "expect": {"actions": ["drop"]}}],
      config={**PV_CFG, "ecn": True})

write("aqm-every-candidate-dropped",
      "No per-flow allowance (docs/algorithm.md §10.3; the one-PV-drop-per-interval token flow_aqm_once is gone): "
      "every packet of a tracked flow whose PV is below the CTV in a standing queue is dropped, however many the "
      "flow loses in one interval. " + GATE_DOC + "Same flow and TVF as pv-drawing (2.88 Mbit/s label, bin 39); CTV "
      "pinned at 49400 at 60 ms. In interval 2 (60 .. 110 ms) the flow sends four packets at 60, 61, 62, 63 ms, "
      "queued until 72 ms (sojourn 12 .. 9 ms >= 2.5 ms), and two at 80, 81 ms queued until 90 ms (10, 9 ms), all "
      "with u16 65535: PV in [45055, 46079] < 49400 -> all six dropped (with the token only the interval's first "
      "candidate was: [drop, forward, forward, forward], [forward, forward]). A packet with u16 1 (PV 65535 >= CTV) "
      "at 92 ms, queued until 99 ms, is forwarded: the flow is not blocked, its low-PV packets are dropped.",
      aqm_pre + [
          interval(60000, 4, 1000, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 72000, "count": "all",
           "expect": {"actions": ["drop", "drop", "drop", "drop"], "count": 4}},
          interval(80000, 2, 1000, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 90000, "count": "all", "expect": {"actions": ["drop", "drop"]}},
          interval(92000, 1, 0, u16=1, drain=False),
          {"op": "dequeue", "t_us": 99000, "count": "all", "expect": {"actions": ["forward"], "ctv": [49400, 49400]}}],
      config={**PV_CFG, "ecn": False})

write("aqm-pv-gate",
      "The PV verdict's standing-queue gate (p4/shared/entries/aqm_verdict.p4, row (0, _, _, _, _, 0): pass): a "
      "packet with PV < CTV is dropped (or CE-marked when ECT and ECN on) only if its sojourn (egress minus ingress "
      "time) shifted left by aqm.pv_gate_shift (1) is >= the queue's target delay, i.e. sojourn >= target / 2; below "
      "that it passes unchanged. Target delay 20 ms here (config target_delay_us 20000): the gate opens at a 10 ms "
      "sojourn. Same flow and TVF as pv-drawing (2.88 Mbit/s label, bin 39), CTV pinned at 49400 at 60 ms (ctv_lo = "
      "ctv_hi: no sojourn here reaches the target, the CTV steps down onto ctv_lo = 49400). Every packet draws u16 "
      "65535: PV in [45055, 46079] < 49400. Sojourn 0 (queued at 60 ms and dequeued at once) -> forward; 5 ms "
      "(queued at 62, dequeued at 67 ms; 2 x 5 = 10 < 20) -> forward; an ECT packet with 5 ms (68 -> 73 ms) -> "
      "forward, not marked; 18 ms (74 -> 92 ms; 36 >= 20, while 18 < the target itself) -> drop; an ECT packet "
      "with 18 ms (93 -> 111 ms) -> mark (ECN on). All arrive in interval 2 (60 .. 110 ms).",
      aqm_pre + [
          interval(60000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 60000, "count": "all", "expect": {"actions": ["forward"]}},
          interval(62000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 67000, "count": "all", "expect": {"actions": ["forward"]}},
          interval(68000, 1, 0, u16=65535, ect=True, drain=False),
          {"op": "dequeue", "t_us": 73000, "count": "all", "expect": {"actions": ["forward"]}},
          interval(74000, 1, 0, u16=65535, drain=False),
          {"op": "dequeue", "t_us": 92000, "count": "all", "expect": {"actions": ["drop"]}},
          interval(93000, 1, 0, u16=65535, ect=True, drain=False),
          {"op": "dequeue", "t_us": 111000, "count": "all", "expect": {"actions": ["mark"], "ctv": [49400, 49400]}}],
      config={**PV_CFG, "ecn": True, "target_delay_us": 20000})

# The rate label: interval 1 carries 6 x 1500 B (1.44 Mbit/s, lrate 138, bin 34), interval 2 24 x 1500 B
# (5.76 Mbit/s, lrate 177, bin 44); from the second interval end on the label is (138 + 177) >> 1 = 157 (bin 39).
write("rate-label-two-intervals",
      "The marker's rate label is the average of the flow's last two interval log rates (docs/algorithm.md §10.1, "
      "flow_rate_s: lo = the last interval's lrate, 0xFFFF before the first end; hi = lo + lrate, or 2 x lrate at "
      "the first end; label lr_pv = hi >> 1), not the last interval's rate. Mid-connection flow, default RTT 50 ms "
      "(= the interval floor: intervals last 50 ms, 48828 units). Interval 1 (0 .. the roll-over at 60 ms): 6 x "
      "1500 B = 9000 B / 50 ms = 1.44 Mbit/s, lrate1 = log_bytes(9000) - log_rtt(48828) = 138 fine units (64 "
      "log10(144) = 138.1; bin 34). Interval 2 (60 .. the roll-over at 120 ms): 24 x 1500 B = 36000 B / 50 ms = "
      "5.76 Mbit/s, lrate2 = 177 (64 log10(576) = 176.6; bin 44). " +
      tvf_doc("3 Mbit/s", 39, "bin 33 -> 48639, 34 -> 48127, 35 -> 47615, 38 -> 46079, 39 -> 45567, 40 -> 45055, "
              "44 -> 43007") +
      "In interval 2 the label is lrate1 ((2 x 138) >> 1 = 138, bin 34): u16 65535 (nlog_u 0) -> PV in [47615, "
      "48639] (bin 34 and its neighbours), and with any u every PV >= PV(bin 35) = 47615. In interval 3 (from 120 "
      "ms) the label is (138 + 177) >> 1 = 157 (bin 39), not lrate2 (bin 44): u16 65535 -> PV in [45055, 46079] "
      "(bin 39 and its neighbours; lrate2 would give 43007), and with any u (25 packets, 1.5 ms apart) every PV >= "
      "PV(bin 40) = 45055 (with lrate2 as the label, every draw with u above about 0.63, nlog_u <= 13, would fall "
      "below it). The "
      "proactive slow-start drop is off (interval 2 reaches the fair BDP: the flow becomes long-lived at 120 ms; "
      "every group has the same TVF).",
      [interval(0, 6, 6000),
       {"op": "check", "t_us": 31000, "flow": "A", "expect": {"interval_pkts": 6}},
       interval(60000, 1, 0, u16=65535, expect={"pv": [47615, 48639]}),
       interval(61800, 23, 1800, expect={"pv": [47615, 65535]}),
       {"op": "check", "t_us": 102000, "flow": "A", "expect": {"interval_pkts": 24}},
       interval(120000, 1, 0, u16=65535, expect={"pv": [45055, 46079]}),
       interval(121500, 25, 1500, expect={"pv": [45055, 65535]})],
      config={**PV_CFG, "fair_rate_bps": 3000000})

# The interval floor at work: a 10 ms RTT under the 50 ms floor (the params default). A replay on a
# switch must run this at time scale 1 (the compiled floor is 50 ms of real time), so packets are at
# least 10 ms apart and 40 ms clear of every (floored) interval end: at most two data packets per
# interval (ant_max_pkts_per_interval 0 keeps such a flow out of the ant group).
write("interval-floor",
      "Interval floor (docs/algorithm.md §7.1, §8.3, §8.7): an interval lasts max(RTT, W), W = flow.min_interval_us "
      "= 50 ms (48828 units), and its rate divides by the same max, while the RTT itself (the RTT in effect, and "
      "the RTT band) stays raw. A flow first seen mid-connection with the default RTT 10 ms; fair rate 1 Mbit/s "
      "(fair_rate_bin 32, lower edge 1000 kbit/s = 128 fine units); RTT band boundary 20 ms (config "
      "rtt_boundary_us); ant_max_pkts_per_interval 0 (no interval makes it an ant: a switch replays this vector in "
      "real time, two packets per interval at most). Its first packet (t=0) opens interval 1 with deadline 0 + 50 "
      "ms, not 0 + 10 ms; the data packet at 10 ms stays in it (interval_pkts 2). The packet at 90 ms ends it: 2 x "
      "1500 B = 3000 B over 50 ms = 480 kbit/s, lrate = log_bytes(3000) - log_rtt(48828) = 107 < 128: below the "
      "fair BDP, and ss_in 3 >= lo 1: slow start goes on, the flow stays a mouse, no proactive drop (a 10 ms "
      "interval ending at 90 ms would hold one or two packets, 1500 or 3000 B per 10 ms = 1.2 or 2.4 Mbit/s, lrate "
      "132 or 151 >= 128: the fair BDP, the slow-start drop and delay0 there). Interval 2 (90 .. 140 ms) holds that "
      "one packet: the packet at 180 ms ends it with ss_in 2 < lo 3 (the packet count fell): slow start ends (240 "
      "kbit/s, below the fair BDP: no drop) and the flow becomes long-lived in the RTT band of its raw 10 ms RTT, "
      "below the 20 ms boundary: band 0, delay0 (the 50 ms interval would be band 1, delay1). The RTT in effect "
      "stays 10 ms. Interval 3 (from 180 ms, deadline 230 ms): the packet at 190 ms stays in it (interval_pkts 2), "
      "the one at 270 ms ends it (interval_pkts 1); the flow stays delay0 (slow start done; "
      "no retransmission: the loss-ignoring count stays 0 and the family delay-based, flow_family 0).",
      [pk(0, flags="A", **D, drain=True, expect={"verdict": "enqueued", "group": "mouse"}),
       {"op": "check", "t_us": 0, "flow": "A", "expect": {"interval_pkts": 1, "rtt_us": [10000, 10000]}},
       pk(10000, flags="A", **D, drain=True, expect={"verdict": "enqueued", "group": "mouse"}),
       {"op": "check", "t_us": 10000, "flow": "A", "expect": {"interval_pkts": 2, "group": "mouse"}},
       pk(90000, flags="A", **D, drain=True, expect={"verdict": "enqueued", "group": "mouse"}),
       {"op": "check", "t_us": 90000, "flow": "A", "expect": {"interval_pkts": 1, "group": "mouse"}},
       pk(180000, flags="A", **D, drain=True, expect={"verdict": "enqueued", "group": "delay0"}),
       {"op": "check", "t_us": 180000, "flow": "A", "expect": {"interval_pkts": 1, "group": "delay0",
                                                                 "rtt_us": [10000, 10000]}},
       pk(190000, flags="A", **D, drain=True, expect={"verdict": "enqueued", "group": "delay0"}),
       {"op": "check", "t_us": 190000, "flow": "A", "expect": {"interval_pkts": 2}},
       pk(270000, flags="A", **D, drain=True, expect={"verdict": "enqueued", "group": "delay0"}),
       {"op": "check", "t_us": 270000, "flow": "A", "expect": {"interval_pkts": 1, "group": "delay0", "family": 0}}],
      config={"default_rtt_us": 10000, "link_rate_bps": 10000000, "fair_rate_bps": 1000000, "rtt_boundary_us": 20000,
              "ant_max_pkts_per_interval": 0})

write("ctv-toward-target",
      "The CTV moves up by ctv_step_up (16: 1/32 of a bin's PV, D22) when the dequeued packet's queuing delay is above "
      "the target (5 ms), down by ctv_step_down (8) below it, on the queue's first packet in each aligned CTV period (2^20 ns = 1.049 ms for "
      "ctv_update_interval_us 1 ms; periods 9, 11, 13, 15, 19, 22 below). CTV set to 30000 (range 0..65535). "
      "Six packets queued at t=0 (no rate yet: PV 65535, all forwarded). Dequeues at 10, 12, 14 ms (sojourn >= 10 ms): "
      "30016, 30032, 30048; the other three at 16 ms: one step for the three (30064: one period). The "
      "controller sets the CTV back to 30000 at 18 ms; a packet queued at 20 ms and dequeued at 20.1 ms (0.1 ms < "
      "target): 29992; again at 23/23.1 ms: 29984.",
      [{"op": "set", "t_us": 0, "queue": "all", "ctv": 30000, "ctv_lo": 0, "ctv_hi": 65535},
       interval(0, 6, 0, drain=False),
       {"op": "dequeue", "t_us": 10000, "count": 1, "expect": {"actions": ["forward"], "ctv": [30016, 30016], "sojourn_us": [10000, 10000]}},
       {"op": "dequeue", "t_us": 12000, "count": 1, "expect": {"ctv": [30032, 30032]}},
       {"op": "dequeue", "t_us": 14000, "count": 1, "expect": {"ctv": [30048, 30048]}},
       {"op": "dequeue", "t_us": 16000, "count": "all", "expect": {"count": 3, "ctv": [30064, 30064]}},
       {"op": "set", "t_us": 18000, "queue": "all", "ctv": 30000},
       interval(20000, 1, 0, drain=False),
       {"op": "dequeue", "t_us": 20100, "count": "all", "expect": {"actions": ["forward"], "ctv": [29992, 29992]}},
       interval(23000, 1, 0, drain=False),
       {"op": "dequeue", "t_us": 23100, "count": "all", "expect": {"ctv": [29984, 29984]}}],
      config={"default_rtt_us": 50000, "target_delay_us": 5000, "ctv_update_interval_us": 1000, "ctv_step_up": 16, "ctv_step_down": 8})

U = {"U": {"src": "10.0.0.1", "sport": 4000, "dst": "10.0.1.1", "dport": 4001}}
write("cocoa-initial-limit",
      "Each queue starts with Cocoa's initial buffer limit (cocoa.initial_limit_pkts, 100 here), written as "
      "limit_cells = 100 x ceil(1500 / 80) = 1900 cells; egress drops a packet whose enqueue depth exceeds it "
      "(docs/algorithm.md §10.3). With nothing dequeued, packet n of a burst of 1500-byte packets (19 cells each) "
      "finds (n - 1) x 19 cells: packets 1..101 pass (the 101st finds exactly 1900), the 102nd is dropped "
      "(drop_limit) when it reaches egress. The burst is UDP (untracked, the ant queue): the limit is the queue's, "
      "whatever the flow.",
      [pk(0, flow="U", proto="udp", size=1500, payload=1472, repeat=101, every_us=0, drain=False,
          expect={"verdict": "enqueued"}),
       pk(0, flow="U", proto="udp", size=1500, payload=1472, repeat=1, every_us=0, drain=False,
          expect={"verdict": "drop_limit"})],
      config={"initial_limit_pkts": 100}, flows=U)
print(sorted(os.listdir(OUT)))
