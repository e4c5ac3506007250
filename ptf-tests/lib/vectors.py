# SPDX-License-Identifier: Apache-2.0
"""Translation of the shared test vectors (testdata/vectors/*.json) into a PTF replay.

The ns-3 model runs the vectors on its simulated clock; the PTF suite replays the same
packet sequences through a switch's real ports, so the P4 program and the model are held to
the same cases. A vector states each expectation once; ``translate`` turns it into a plan of
timed actions and per-packet expectations for the switch, and lists everything it does not
check with the reason, in two lists:

- ``unsupported``: what no switch can reproduce: a fixed ``u16`` draw of a PV (the switch
  draws its own bits; PV ranges that hold for any u are checked), the PV behind an edge port
  (popped with the shim), queue ids (no register holds them), controller ``tick``s, compile-time constants a
  vector changes, the CTV after a release of several packets at once (BMv2 forwards about one
  packet per millisecond, the program's CTV period is ~1 ms and aligned to the clock), and on
  targets that cannot hold a queue (tofino-model) everything that needs packets held;
- ``divergences``: expectations that follow a rule of the model that the P4 program does not
  have (DIVERGENCES below). The model transliterates the program (docs/eval-model.md), so the
  vectors state the program's values and the list is empty; it stays for a rule that must
  differ again, reported, not a switch limit.

Time: vector times are multiplied by a per-vector scale (at least the test parameter
``vector_time_scale``, default 10) because packets sent from Python through a software switch
cannot be placed with sub-millisecond accuracy; RTTs, the fair rate and the AQM target scale
with it, so rates (bytes per RTT) shrink by the same factor and every rate bin relation holds.
The scale is raised for vectors whose packets are closer than BMv2 can forward and bounded by
the flow expiry and the largest RTT (``_scale``). Times the switch takes as table data are
converted to its 1.024 us units exactly. The interval floor (flow.min_interval_us, W: an
interval lasts max(RTT, W)) is compiled in and does not scale: where a vector's floor (config
``min_interval_us``, else W) is out of the way (at or below its flows' RTTs) the scale is kept at
or above W / the smallest RTT, so the switch's is out of the way too; where it binds, the scale
is pinned at W / the vector's floor, which makes the switch's floor the vector's (``_scale``).
The target delay scales with the time (aqm_cfg takes it as table data), so the PV gate (sojourn
<< aqm.pv_gate_shift > target) holds scaled.

Held packets (``drain: false``, released by a ``dequeue`` step or the next drained packet)
are held on BMv2 by the queue's rate limit (``hold`` in the plan; tests/test_vectors.py)."""
import copy
import glob
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VECTOR_DIR = os.path.join(REPO, "testdata", "vectors")
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccfair import params as P  # noqa: E402

DEFAULT_SCALE = 10
MISSING = object()          # no group expectation
TS_UNIT_NS = 1024           # the data plane's "us" (docs/dataplane.md, Conventions)
SEEN_UNIT_NS = 1 << 18      # flow_sig's last-seen clock (p4/gen_tables.py)
MIN_GAP_REAL_US = 6000      # BMv2 with its trace log takes 1 ms per packet, 3-5 ms on two busy cores
MIN_MARGIN_REAL_US = 40000  # a packet's distance to its flow's interval deadline, in real time: what a
                            # software switch on two busy cores can lag behind Python's schedule
EXPIRE_SHARE = 0.8          # idle gaps stay below this share of the flow expiry
RTT_MAX_SHARE = 0.95        # scaled RTTs stay below this share of flow.max_rtt_us (rtt_fix clamps)
HOLD_MIN_REAL_US = 20000    # shorter holds are not worth holding: the packet is sent as drained
READ_GAP_REAL_US = 15000    # a register read after a release needs this long before the queue's next departure
BURST_PACE_REAL_US = 5000   # packets of a burst are sent this far apart: a switch's receive buffer
                            # overflows if ~100 arrive while BMv2 takes 3-5 ms per packet
MARGIN_SHARE = 0.05         # packets keep this share of the RTT from their flow's interval deadline
COMPILE_TIME = {"ctv_step_up": ("aqm", "ctv_step_up"), "ctv_step_down": ("aqm", "ctv_step_down"),
                "ctv_update_interval_us": ("aqm", "ctv_update_interval_us")}

# Known disagreements between the model's rules and the program's documented ones:
# vector -> [(step index or None, expectation key or None, packet index in the step or None, why)].
# (None, None, None, why) makes the whole vector a divergence.
DIVERGENCES = {}


class VectorError(ValueError):
    """A vector the translator cannot read (it names the vector and the step)."""


def vector_files(directory=VECTOR_DIR):
    return sorted(p for p in glob.glob(os.path.join(directory, "*.json")) if not p.endswith("schema.json"))


def load(path):
    with open(path) as f:
        return json.load(f)


def rate_bin(bps, params):
    """TVF rate bin of a rate: bin i covers [min * 10^(i/spd), min * 10^((i+1)/spd)) kbit/s."""
    t = params["tvf"]
    kbps = bps / 1000.0
    if kbps < t["rate_min_kbps"]:
        return 0
    return min(t["rate_steps"] - 1, int(math.floor(t["steps_per_decade"] * math.log10(kbps / t["rate_min_kbps"]))))


def _trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def scale_tvf(params, sc=1.0):
    """The per-flow TVF the vectors assume for every group (eval/model, Pipeline::CentreCurves):
    the fabric's one scale (docs/algorithm.md D22), pv_max/2 at the bin of tvf.centre_kbps,
    tvf.half_span_decades either side spanning 0..pv_max. The switch and the model look up whole
    bins. A replay whose rates run `sc` times slower (a power of 10^(1/steps_per_decade): k whole
    bins) writes each switch bin b the PV of vector bin b + k, so every packet's PV is the
    vector's; switch bin 0 also holds every position at or below it (the marker's position
    saturates at 0, as the model's does at its bin 0), so it gets vector bin 0's PV. A draw whose
    vector position lies in bins 1 .. k therefore reads bin 0's PV on the switch: no vector
    expects a PV there at the scales they replay at (k <= 24; pv-drawing's lowest fixed draw,
    u16 6554, is at bin 23 with k = 16)."""
    t = params["tvf"]
    spd, pv = t["steps_per_decade"], t["pv_max"]
    centre = rate_bin(t["centre_kbps"] * 1000.0, params)
    span = 2 * spd * t["half_span_decades"]
    k = int(round(spd * math.log10(sc)))

    def at(i):
        return max(0, min(pv, pv // 2 - _trunc_div((i - centre) * (pv + 1), span)))

    return [at(0)] + [at(i + k) for i in range(1, t["rate_steps"])]


def units(us):
    """Microseconds as the data plane's 1.024 us units (what its tables and registers take)."""
    return int(round(us * 1000.0 / TS_UNIT_NS))


def expire_us(params):
    """The flow expiry the program was compiled with (p4/gen_tables.py EXPIRE_UNITS)."""
    f = params["flow"]
    units_ = math.ceil(f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1000.0 / SEEN_UNIT_NS)
    return units_ * SEEN_UNIT_NS / 1000.0


def ctv_period_us(params):
    return (1 << int(math.ceil(math.log2(params["aqm"]["ctv_update_interval_us"] * 1000.0)))) / 1000.0


class Pkt:
    """One packet of the replay. Times in scaled microseconds (what the switch sees)."""

    def __init__(self, k, step, j, t_vec, spec):
        self.k, self.step, self.j = k, step, j
        self.t_vec = t_vec                 # vector time (us, unscaled)
        self.t = None                      # scaled us, set by translate
        self.flow, self.dir, self.flags = spec["flow"], spec["dir"], spec["flags"]
        self.size, self.payload, self.proto = spec["size"], spec["payload"], spec["proto"]
        self.ect, self.u16, self.drain = spec["ect"], spec["u16"], spec["drain"]
        self.retx = spec["retx"]           # repeats its direction's last data segment's seq
        self.seq = None                    # TCP sequence number (_sequence_numbers)
        self.release_vec = None            # vector time it leaves the queue (held packets), None: at once
        self.release = None                # scaled us, or None: not held on the switch
        self.verdict = None                # "forward", "drop", "mark", or None (not checked)
        self.pv = None                     # [lo, hi] checked on the fabric port, or None
        self.force_pv = None               # PV the replay makes the switch give this packet (TVF profile)
        self.rollover = False              # ends its flow's interval (program rule)
        self.counters = None               # (flow_pkts, flow_bytes) of its slot once it passed ingress
        self.limit = False                 # the expected drop is the Cocoa limit's (q_limit_drops)
        self.proactive = False             # the expected drop is the slow-start end's

    @property
    def tcp(self):
        return self.proto == "tcp"

    @property
    def data(self):
        """Not a pure ACK (ACK without SYN/FIN/RST and without payload): ends and counts in intervals."""
        f = set(self.flags)
        return not ("A" in f and not f & set("SFR") and self.payload == 0)


class Plan:
    """What the PTF test does for one vector: switch config, timed actions, packets, skips."""

    def __init__(self, name):
        self.name = name
        self.scale = DEFAULT_SCALE
        self.default_rtt_units = None     # ingress port_cfg default_rtt_us (data-plane units)
        self.egress = {}                  # EgressPipe port_cfg overrides
        self.aqm = {}                     # target_delay_units / ecn / limit_pkts for the out port's queue 0
        self.rtt_boundary_units = None
        self.tvf = None                   # PV per rate bin written for every group, or None (default pv_max)
        self.fabric_out = False           # out port keeps the shim (PVs visible); only without reverse traffic
        self.flows = {}                   # name -> (src ip, sport, dst ip, dport)
        self.flow_proto = {}              # name -> "tcp" / "udp"
        self.packets = []                 # [Pkt]
        self.actions = []                 # (t_scaled_us, kind, args)
        self.forced_pvs = []              # PVs of the TVF profiles 1.. (flat), in profile order
        self.max_held = 0                 # most packets held at once
        self.unsupported = []             # (step index or "config", what, why)
        self.divergences = []             # (step index or "vector", what, why)
        self.translated = []              # (step index, what, how): checked with the program's timing
        self.checks = 0                   # expectations the PTF test verifies
        self.notes = []                   # how the replay differs in timing (logged)
        self.too_tight = None             # why a replay could not keep to the vector's schedule
        self.paced_apart = set()          # flows whose paced roll-overs differ from the vector's
        self.floor_us = None              # the vector's interval floor (vector us)
        self.floor_pinned = False         # the floor binds: the scale maps it onto the compiled one

    def skip(self, where, what, why):
        self.unsupported.append((where, what, why))

    def diverge(self, where, what, why):
        self.divergences.append((where, what, why))

    @property
    def whole_divergence(self):
        return next((why for where, what, why in self.divergences if where == "vector"), None)


def _frame_spec(step, flows, name, i):
    if step.get("flow") not in flows:
        raise VectorError("vector %s step %d: unknown flow %r" % (name, i, step.get("flow")))
    size = step.get("size", 60)
    payload = step.get("payload", 0)
    proto = step.get("proto", "tcp")
    hdr = size - 20 - payload
    if proto == "tcp" and not 20 <= hdr <= 60:
        raise VectorError("vector %s step %d: size %d with payload %d leaves a %d-byte TCP header"
                          % (name, i, size, payload, hdr))
    return {"flow": step["flow"], "dir": step.get("dir", "fwd"), "flags": step.get("flags", "A"),
            "size": size, "payload": payload, "proto": proto, "ect": bool(step.get("ect", False)),
            "u16": step.get("u16"), "drain": bool(step.get("drain", False)), "retx": bool(step.get("retx", False))}


_PACED_APART = ("the flow's paced packets end intervals elsewhere than its vector times (the time scale could not "
                "rise far enough: plan notes), and this is decided at interval ends")


def _divergence(name, step, key, j=None):
    """The reason an expectation is a known model/program divergence, or None."""
    for s, k, jj, why in DIVERGENCES.get(name, ()):
        if s is None and k is None:
            return why
        if (s is None or s == step) and k == key and (jj is None or jj == j):
            return why
    return None


def floor_us(vec, params):
    """The vector's interval floor W (vector us): its config's min_interval_us, else the params one
    (flow.min_interval_us, compiled into the program). An interval lasts max(RTT, W)."""
    return vec.get("config", {}).get("min_interval_us", params["flow"]["min_interval_us"])


def interval_us(rtt_us, floor):
    """How long an interval on RTT `rtt_us` lasts, and what its rate divides by: max(RTT, W), as the
    program compares them (flow_tracker's interval_floor on the RTT in 1.024 us units)."""
    return floor if units(rtt_us) < units(floor) else rtt_us


def program_intervals(packets, default_rtt_us, params, floor=None):
    """The program's interval clock per TCP flow (docs/dataplane.md, Ingress 3-5) over `packets`
    (time-ordered, vector times): marks each roll-over packet and returns, per packet index, the
    state after it: (flow, interval start, deadline, data packets, bytes, effective RTT us,
    interval length us, bytes and RTT of the interval it ended or None, the log-rate label's
    rates). A SYN starts a flow (again); the RTT is the first packet after it that is neither a
    SYN nor a SYN-ACK, minus the SYN (the default until then), and that packet restarts the
    interval (INTERVAL_RESTART: the handshake is not an interval; its counters restart with it).
    An interval lasts max(RTT, `floor`) (default: flow.min_interval_us), the rate divides by the
    same. A pure ACK of a known flow neither ends its interval nor counts in it (INTERVAL_ACK).
    ``rates``: the rates (kbit/s) of the flow's last two finished intervals, oldest first, that
    the marker's label averages in the log domain (classifier.rate_smooth_intervals)."""
    if floor is None:
        floor = params["flow"]["min_interval_us"]
    smooth = params["classifier"].get("rate_smooth_intervals", 1)
    min_rtt = params["flow"]["min_rtt_us"]
    max_rtt = params["flow"]["max_rtt_us"]
    st, out = {}, {}
    for p in packets:
        if not p.tcp:
            continue
        t, f = p.t_vec, st.get(p.flow)
        syn_only = "S" in p.flags and "A" not in p.flags
        syn_ack = "S" in p.flags and "A" in p.flags
        ended = None
        if f is None or syn_only:
            f = st[p.flow] = {"syn": t if syn_only else None, "rtt": None, "pkts": 0, "bytes": 0, "rates": ()}
            rtt = default_rtt_us
            f["start"], f["deadline"] = t, t + interval_us(rtt, floor)
            f["pkts"], f["bytes"] = int(p.data), p.size if p.data else 0   # set_pure_ack zeroes the length
        elif f["syn"] is not None and not syn_ack:
            # the packet completing the handshake sample restarts the interval (and the label)
            f["rtt"], f["syn"] = t - f["syn"], None
            rtt = min(max(f["rtt"], min_rtt), max_rtt)
            f["start"], f["deadline"] = t, t + interval_us(rtt, floor)
            f["pkts"], f["bytes"], f["rates"] = int(p.data), p.size if p.data else 0, ()
        else:
            rtt = default_rtt_us if f["rtt"] is None else min(max(f["rtt"], min_rtt), max_rtt)
            if not p.data:
                pass
            elif t >= f["deadline"]:
                span = interval_us(rtt, floor)
                ended = (f["bytes"], f["pkts"], rtt)
                f["rates"] = (f["rates"] + (f["bytes"] * 8.0 / span * 1000.0,))[-smooth:]
                p.rollover = True
                f["start"], f["deadline"] = t, t + span
                f["pkts"], f["bytes"] = int(p.data), p.size
            else:
                f["pkts"] += int(p.data)
                f["bytes"] += p.size
        f["rtt_eff"] = rtt
        f["span"] = interval_us(rtt, floor)
        if ended:
            f["last"] = ended
        out[p.k] = dict(f)
    return out


def label_kbps(state):
    """The rate (kbit/s) behind the marker's label after a packet (`state`: program_intervals' entry):
    the log-domain average of the last two finished intervals' rates (the first interval end
    averages its rate with itself), None before the first interval end."""
    rates = state.get("rates") if state else None
    if not rates:
        return None
    return math.exp(sum(math.log(max(r, 1e-9)) for r in rates) / len(rates))


def margins(vec, params=None):
    """[(packet, distance to its flow's interval deadline in vector us, interval length us)] for
    every TCP packet but a flow's first, SYNs, pure ACKs (which end no interval: INTERVAL_ACK) and
    the packet completing a handshake sample (it restarts the interval whenever it comes), by the
    program's interval rule with the vector's interval floor: the replay's timing noise must stay
    below these."""
    params = params or P.load()
    flows = {k: (f["src"], f["sport"], f["dst"], f["dport"]) for k, f in vec["flows"].items()}
    pkts = _packets(vec, vec["name"], flows)
    rtt = vec.get("config", {}).get("default_rtt_us", params["flow"]["default_rtt_us"])
    prev, out = {}, []
    state = program_intervals(pkts, rtt, params, floor_us(vec, params))
    for p in pkts:
        if p.k in state:
            p.counters = (state[p.k]["pkts"], state[p.k]["bytes"])
    for p in pkts:
        if not p.tcp:
            continue
        s = state[p.k]
        before = prev.get(p.flow)
        syn_only = "S" in p.flags and "A" not in p.flags
        restart = before is not None and before["syn"] is not None and "S" not in p.flags
        if before is not None and p.data and not syn_only and not restart:
            out.append((p, abs(p.t_vec - before["deadline"]), before["span"]))
        prev[p.flow] = s
    return out


def _packets(vec, name, flows):
    pkts = []
    for i, s in enumerate(vec["steps"]):
        if s.get("op", "packet") != "packet":
            continue
        spec = _frame_spec(s, flows, name, i)
        n, every = s.get("repeat", 1), s.get("every_us", 0)
        for j in range(n):
            pkts.append(Pkt(len(pkts), i, j, s.get("t_us", 0) + j * every, spec))
    _sequence_numbers(pkts, name)
    return pkts


def _sequence_numbers(pkts, name):
    """TCP seqs as a sender numbers its segments, per flow and direction in time order: the
    program's flow_seq takes a data segment (not a pure ACK) whose seq is not above the highest its
    direction sent for a retransmission. A SYN carries ISN 0 (a SYN without ACK starts both
    directions anew); a direction's first segment after it, or of a flow first seen
    mid-connection, has seq 1; each segment advances its direction by its payload, a FIN by one
    more. A `retx` packet carries the seq of its direction's last segment with payload and
    advances nothing: a retransmission."""
    nxt, last = {}, {}
    for p in sorted(pkts, key=lambda q: (q.t_vec, q.k)):
        if not p.tcp:
            continue
        key = (p.flow, p.dir)
        if "S" in p.flags:
            ends = [key] if "A" in p.flags else [(p.flow, "fwd"), (p.flow, "rev")]
            for e in ends:
                nxt[e], last[e] = 1, None
            if p.retx:
                raise VectorError("vector %s step %d: a SYN cannot be a retransmission" % (name, p.step))
            p.seq = 0
            continue
        if p.retx:
            if last.get(key) is None:
                raise VectorError("vector %s step %d: retx, but flow %s (%s) sent no segment with payload before"
                                  % (name, p.step, p.flow, p.dir))
            p.seq = last[key]
            continue
        p.seq = nxt.get(key, 1)
        if p.payload:
            last[key] = p.seq
        nxt[key] = (p.seq + p.payload + ("F" in p.flags)) & 0xFFFFFFFF


def _pace(pkts, sc):
    """Scaled send times: vector times x `sc`, packets of a burst (the same vector time) paced."""
    for p in pkts:
        p.t = int(round(p.t_vec * sc))
        if p.k:
            prev = pkts[p.k - 1]
            if p.t_vec == prev.t_vec:
                p.t = max(p.t, prev.t + BURST_PACE_REAL_US)
            p.t = max(p.t, prev.t)


def switch_floor_us(sc, params):
    """The program's compiled interval floor (flow.min_interval_us, real us) in vector us at time
    scale `sc`: what the switch's intervals are floored at, seen on the vector's clock."""
    return params["flow"]["min_interval_us"] / float(sc)


def _paced(pkts, sc, vec, params):
    """Copies of `pkts` at their paced times (in vector us: t / sc) and the program's interval
    state over them (program_intervals, with the switch's compiled floor at this scale): what the
    switch sees, roll-overs marked."""
    rtt = vec.get("config", {}).get("default_rtt_us", params["flow"]["default_rtt_us"])
    real = [copy.copy(p) for p in pkts]
    for q in real:
        q.t_vec, q.rollover = q.t / float(sc), False
    return real, program_intervals(real, rtt, params, switch_floor_us(sc, params))


def _real_margin(pkts, sc, vec, params):
    """The smallest distance (real us) of a paced TCP packet that can end an interval (not a
    SYN, a pure ACK or the packet completing a handshake sample) to its flow's interval deadline."""
    real, state = _paced(pkts, sc, vec, params)
    prev, best = {}, float("inf")
    for q in real:
        if not q.tcp:
            continue
        before = prev.get(q.flow)
        restart = before is not None and before["syn"] is not None and "S" not in q.flags
        if before is not None and q.data and not ("S" in q.flags and "A" not in q.flags) and not restart:
            best = min(best, abs(q.t_vec - before["deadline"]) * sc)
        prev[q.flow] = state[q.k]
    return best


def _scale_upper(vec, pkts, params):
    """The largest scale the flow expiry and flow.max_rtt_us allow."""
    upper = float("inf")
    last = {}
    for p in pkts:
        if p.tcp:
            if p.flow in last and p.t_vec > last[p.flow]:
                upper = min(upper, EXPIRE_SHARE * expire_us(params) / (p.t_vec - last[p.flow]))
            last[p.flow] = p.t_vec
    rtt = vec.get("config", {}).get("default_rtt_us", params["flow"]["default_rtt_us"])
    return min(upper, RTT_MAX_SHARE * params["flow"]["max_rtt_us"] / rtt)


def _rtts(vec, pkts, params):
    """The RTTs (vector us) the vector's flows run on (the default, handshake samples)."""
    rtt = vec.get("config", {}).get("default_rtt_us", params["flow"]["default_rtt_us"])
    state = program_intervals([copy.copy(p) for p in pkts], rtt, params, floor_us(vec, params))
    return sorted({s["rtt_eff"] for s in state.values()}) or [rtt]


def floor_binds(vec, pkts, params):
    """Whether the vector's interval floor is above an RTT its flows run on (in the program's units)."""
    w = floor_us(vec, params)
    return bool(w) and any(units(r) < units(w) for r in _rtts(vec, pkts, params))


def floor_faithful(vec, pkts, sc, params):
    """Whether the switch's compiled interval floor, at time scale `sc`, gives the vector's packets
    (at their vector times) the roll-overs and the interval rates (bytes per max(RTT, floor))
    the vector's floor gives them: then nothing the vector checks can tell the two floors apart."""
    rtt = vec.get("config", {}).get("default_rtt_us", params["flow"]["default_rtt_us"])
    outcome = []
    for floor in (floor_us(vec, params), switch_floor_us(sc, params)):
        cp = [copy.copy(p) for p in pkts]
        for q in cp:
            q.rollover = False
        st = program_intervals(cp, rtt, params, floor)
        outcome.append([(q.rollover, tuple(round(r, 6) for r in st[q.k]["rates"])) for q in cp if q.k in st])
    return outcome[0] == outcome[1]


def _scale(plan, vec, pkts, base, params):
    """The vector's time scale: at least `base`; raised until consecutive packets the switch must
    forward at once are MIN_GAP_REAL_US apart and every packet is MIN_MARGIN_REAL_US away from
    its flow's interval deadline; bounded (even below `base`) by the flow expiry
    (idle gaps of a flow) and by flow.max_rtt_us (the largest RTT), which the program compiles
    in; a power of 10^(1/tvf.steps_per_decade), so that rates keep their place in their TVF bins.

    The interval floor W (flow.min_interval_us) is compiled in and does not scale: on the
    switch it is W / scale in vector time, the vector's is its config's min_interval_us, else W.
    Where the two give the vector's packets different roll-overs or interval rates
    (floor_faithful), the scale changes: where the vector's floor binds (an RTT below it), it is
    pinned at W / the vector's floor, whatever `base` says, so that the switch's floor is the
    vector's; where it does not, it is raised until the switch's is at or below every RTT too
    (W / the smallest RTT). A vector whose timing cannot have that scale, or whose pinned scale is
    not a whole number of rate bins per decade, is rejected (VectorError).
    Returns (scale, note or None)."""
    times = sorted(p.t_vec for p in pkts if p.release_vec is None or p.release_vec - p.t_vec <= 0)
    gaps = [b - a for a, b in zip(times, times[1:]) if b > a]
    timing = [MIN_GAP_REAL_US / g for g in gaps] + [MIN_MARGIN_REAL_US / d for _p, d, _r in margins(vec, params)
                                                    if d > 0]
    upper = _scale_upper(vec, pkts, params)
    spd = params["tvf"]["steps_per_decade"]

    def bins(x, up):
        # a whole number of rate bins per decade of scale (10^(k/steps_per_decade)): every rate keeps
        # its place within its bin, so bin relations (one bin above the fair rate) hold scaled
        if x == float("inf"):
            return x
        k = spd * math.log10(x)
        return 10 ** ((math.ceil(k - 1e-9) if up else math.floor(k + 1e-9)) / float(spd))

    name = vec["name"]
    w_prog, w_vec = params["flow"]["min_interval_us"], floor_us(vec, params)
    plan.floor_us, plan.floor_pinned = w_vec, False
    lower, upper = bins(max([base] + timing), True), bins(upper, False)
    sc, note = (lower, None) if lower <= upper else (upper, (
        "the vector's timing needs a scale of %.1f, the flow expiry and the largest RTT allow %.1f" % (lower, upper)))
    if floor_faithful(vec, pkts, sc, params):
        return sc, note
    if floor_binds(vec, pkts, params):
        pinned = w_prog / float(w_vec) if w_prog else 0.0
        k = spd * math.log10(pinned) if pinned else 0.5
        if abs(k - round(k)) > 1e-6:
            raise VectorError("vector %s: its interval floor (%d us) binds; the switch's (%d us) is the vector's only at "
                              "scale %.4g, not a whole number of rate bins per decade" % (name, w_vec, w_prog, pinned))
        need = max(timing or [0])
        if need > pinned * (1 + 1e-9) or pinned > upper * (1 + 1e-9):
            raise VectorError("vector %s: its interval floor (%d us) binds, which pins the time scale at %.2f (the "
                              "switch's floor is %d us), but its timing needs %.2f and the flow expiry and the largest "
                              "RTT allow %.2f" % (name, w_vec, pinned, w_prog, need, upper))
        plan.floor_pinned = True
        return pinned, ("pinned by the interval floor: the vector's %d us floor binds (an RTT below it); the switch's "
                        "compiled %d us floor is that at this scale" % (w_vec, w_prog))
    raised = bins(max(sc, w_prog / float(min(_rtts(vec, pkts, params)))), True)
    if raised > upper * (1 + 1e-9) or not floor_faithful(vec, pkts, raised, params):
        raise VectorError("vector %s: its interval floor (%d us) is out of the way of its RTTs, but at the largest "
                          "scale its flow expiry and RTTs allow (%.2f) the switch's compiled %d us floor is not"
                          % (name, w_vec, upper, w_prog))
    return raised, note


def translate(vec, params=None, scale=DEFAULT_SCALE, can_hold=True):
    """Plan for vector `vec` (already schema-valid). `can_hold`: the target can hold a queue and
    release it at a given time (BMv2: tests/test_vectors.py); tofino-model cannot."""
    params = params or P.load()
    name = vec["name"]
    plan = Plan(name)
    groups = P.group_names(params)
    cfg = vec.get("config", {})
    steps = vec["steps"]
    plan.flows = {k: (f["src"], f["sport"], f["dst"], f["dport"]) for k, f in vec["flows"].items()}
    why = _divergence(name, None, None)
    if why:
        plan.diverge("vector", "every expectation", why)

    pkts = _packets(vec, name, plan.flows)
    plan.packets = pkts
    for p in pkts:
        plan.flow_proto.setdefault(p.flow, p.proto)
    has_rev = any(p.dir == "rev" for p in pkts)
    plan.fabric_out = not has_rev

    def group_id(gname, i):
        if gname == "untracked":
            return None
        if gname not in groups:
            raise VectorError("vector %s step %d: unknown group %r" % (name, i, gname))
        return groups.index(gname)

    # -- the model's queue: drained packets flush it, dequeue steps release in FIFO order ------------
    queue, by_step = [], {}
    for p in pkts:
        by_step.setdefault(p.step, []).append(p)
    dequeues = {}                                   # step -> [released packets]
    for i, s in enumerate(steps):
        op = s.get("op", "packet")
        if op == "packet":
            for p in by_step[i]:
                if p.drain:
                    for q in queue:
                        q.release_vec = p.t_vec
                    queue = []
                else:
                    queue.append(p)
        elif op == "dequeue":
            c = s.get("count", "all")
            n = len(queue) if c == "all" else min(int(c), len(queue))
            rel, queue = queue[:n], queue[n:]
            for q in rel:
                q.release_vec = s["t_us"]
            dequeues[i] = rel
    never = list(queue)                              # held to the end of the vector

    sc, note = _scale(plan, vec, pkts, scale, params)
    plan.scale = sc
    if note:
        plan.notes.append("time scale %.1f: %s" % (sc, note))

    def us(t):
        """A vector time scaled, in whole microseconds."""
        return int(round(t * sc))

    end_vec = max([p.t_vec for p in pkts] + [s.get("t_us", 0) for s in steps])
    _pace(pkts, sc)
    # the pacing stretches bursts: raise the scale until the paced packets keep their margins too
    step = 10 ** (1.0 / params["tvf"]["steps_per_decade"])
    while _real_margin(pkts, sc, vec, params) < MIN_MARGIN_REAL_US and not note:
        if _scale_upper(vec, pkts, params) < sc * step:
            plan.notes.append("time scale %.1f: a paced burst comes closer than %d us to an interval end"
                              % (sc, MIN_MARGIN_REAL_US))
            break
        sc *= step
        _pace(pkts, sc)
    if plan.floor_pinned and _real_margin(pkts, sc, vec, params) < MIN_MARGIN_REAL_US:
        raise VectorError("vector %s: at the time scale its interval floor pins (%.2f) a paced burst comes closer "
                          "than %d us to an interval end" % (name, sc, MIN_MARGIN_REAL_US))
    if not floor_faithful(vec, pkts, sc, params):
        raise VectorError("vector %s: at time scale %.2f the switch's compiled interval floor (%d us) gives its packets "
                          "other roll-overs or interval rates than its own floor (%d us)"
                          % (name, sc, params["flow"]["min_interval_us"], plan.floor_us))
    plan.scale = sc
    # A replay whose packets come this close to their interval deadlines in real time measures the
    # host's scheduling, not the program: one stall of a few tens of ms moves a deadline (seen in
    # full-suite runs of the former aggressiveness vector, 19 ms of margin at its capped scale).
    real = _real_margin(pkts, sc, vec, params)
    if real < MIN_MARGIN_REAL_US / 2:
        plan.too_tight = ("its packets come %.0f ms from their interval deadlines at the time scale the flow "
                          "expiry allows (%.1f), under the %.0f ms a software switch needs; the ns-3 model "
                          "checks it in full" % (real / 1000.0, sc, MIN_MARGIN_REAL_US / 2000.0))
    for p in pkts:
        if p.release_vec is not None and us(p.release_vec) - p.t >= HOLD_MIN_REAL_US:
            p.release = us(p.release_vec)
    if never:
        # nothing releases them: held until the vector is over (enough for every push to arrive)
        # the pushes may lag behind (BMv2 takes 3-5 ms per packet on busy cores)
        t_end = max(us(end_vec), max(p.t for p in pkts)) + 300000 + 5000 * len(never)
        for p in never:
            p.release = t_end
    # Packets are held only where the vector queues on purpose (dequeue steps, buffer-limit
    # verdicts), only in the out port's queue (forward direction); elsewhere drain: false is the
    # format's default and nothing depends on how long the packet waits.
    queues_on_purpose = bool(dequeues) or any(
        e.get("verdict") == "drop_limit" for s in steps for e in (s.get("expect", {}), s.get("expect_last", {})))
    for p in pkts:
        if not queues_on_purpose or p.dir != "fwd":
            p.release = None
    held_any = any(p.release is not None for p in pkts)
    if held_any and not can_hold:
        plan.skip("config", "held packets", "the target cannot hold a queue and release it on command "
                  "(tofino-model's shaper dequeues on its own clock): held packets are sent at once and no "
                  "expectation that depends on their queueing is checked")
        for p in pkts:
            p.release = None
    plan.max_held = 0
    for p in pkts:
        if p.release is not None:
            plan.max_held = max(plan.max_held, sum(1 for q in pkts if q.release is not None and q.t <= p.t < q.release))

    # -- config ---------------------------------------------------------------------------------
    rtt = cfg.get("default_rtt_us", params["flow"]["default_rtt_us"])
    plan.default_rtt_units = units(us(rtt))
    for key, field in (("m_m", "m_m"), ("ant_max_pkts_per_interval", "ant_max_pkts")):
        if key in cfg:
            plan.egress[field] = cfg[key]
    if "ss_proactive_drop" in cfg:
        plan.egress["ss_drop"] = int(cfg["ss_proactive_drop"])
    if "family_forget" in cfg:
        plan.egress["family_forget"] = int(cfg["family_forget"])
    if "fair_rate_bps" in cfg:
        plan.egress["fair_rate_bin"] = rate_bin(cfg["fair_rate_bps"] / sc, params)
    # The model writes its curves when a vector states a fair or link rate; one that states
    # neither keeps the switch's default TVF, pv_max everywhere.
    fair = cfg.get("fair_rate_bps", cfg.get("link_rate_bps"))
    plan.tvf = scale_tvf(params, sc) if fair else None
    plan.aqm["target_delay_units"] = units(us(cfg.get("target_delay_us", params["aqm"]["target_delay_us"])))
    plan.aqm["ecn"] = int(cfg.get("ecn", params["aqm"]["ecn"]))
    if "initial_limit_pkts" in cfg:
        plan.aqm["limit_pkts"] = cfg["initial_limit_pkts"]
    if "rtt_boundary_us" in cfg:
        plan.rtt_boundary_units = units(us(cfg["rtt_boundary_us"]))
    for key, (sec, pkey) in COMPILE_TIME.items():
        if key in cfg and cfg[key] != params[sec][pkey]:
            plan.skip("config", key, "compiled into the program from params/ccfair.json (%s.%s = %s)"
                      % (sec, pkey, params[sec][pkey]))

    # -- the program's interval clock: roll-overs and interval rates --------------------------------
    state = program_intervals(pkts, rtt, params, plan.floor_us)
    for p in pkts:
        if p.k in state:
            p.counters = (state[p.k]["pkts"], state[p.k]["bytes"])
    # The expectations follow the vector's times; the switch sees the paced ones. Where a flow's
    # roll-overs differ between the two (the scale could not rise far enough), its interval
    # counters and everything decided at interval ends (group, family, the loss-ignoring count, the
    # slow-start drop) are not what the vector says: not checked.
    paced, _ = _paced(pkts, sc, vec, params)
    moved = sorted({p.flow for p, q in zip(pkts, paced) if p.rollover != q.rollover})
    plan.paced_apart = set(moved)
    for f in moved:
        ks = [p.k for p, q in zip(pkts, paced) if p.flow == f and p.rollover != q.rollover]
        plan.notes.append("time scale %.1f: flow %s's paced packets end intervals elsewhere than its vector times "
                          "(packets %s): its interval counters, group, family, loss-ignoring count and "
                          "slow-start drop are not checked" % (sc, f, ks))
        for p in pkts:
            if p.flow == f:
                p.counters = None

    # -- per-packet expectations ---------------------------------------------------------------
    group_after = {}                                  # step -> group id (after its last packet)
    for i, s in enumerate(steps):
        if s.get("op", "packet") != "packet":
            continue
        exp, last = s.get("expect", {}), dict(s.get("expect", {}), **s.get("expect_last", {}))
        for key in set(exp) | set(last):
            if key not in ("group", "verdict", "pv", "queue"):
                raise VectorError("vector %s step %d: unknown expectation %r" % (name, i, key))
        ps = by_step[i]
        if "group" in last:
            g = group_id(last["group"], i)
            d = _divergence(name, i, "group")
            if d:
                plan.diverge(i, "group", d)
            elif ps[0].flow in plan.paced_apart:
                plan.skip(i, "group", _PACED_APART)
            else:
                group_after[i] = g
            if "group" in exp and len(ps) > 1:
                plan.skip(i, "group of packets 1..%d" % (len(ps) - 1), "registers are read once per train, after "
                          "its last packet, so that reads do not disturb the train's timing")
        for p in ps:
            e = last if p.j == len(ps) - 1 else exp
            if "verdict" in e:
                v = {"enqueued": "forward", "drop_proactive": "drop", "drop_limit": "drop_limit"}[e["verdict"]]
                d = _divergence(name, i, "verdict", p.j)
                if d:
                    plan.diverge(i, "verdict of packet %d" % p.j, d)
                elif v == "drop_limit" and p.release is None:
                    plan.skip(i, "verdict drop_limit of packet %d" % p.j, "the packet is not held on this target")
                else:
                    p.verdict = "drop" if v == "drop_limit" else v
                    p.limit = v == "drop_limit"
                    p.proactive = e["verdict"] == "drop_proactive"
            if "pv" in e:
                if p.u16 is not None:
                    why = "the range follows from the fixed draw u16=%d; the switch draws its own bits" % p.u16
                elif not plan.fabric_out:
                    why = "the out port stays an edge port (reverse traffic) and pops the shim carrying the PV"
                else:
                    why = None
                    p.pv = list(e["pv"])
                if why and p.j == len(ps) - 1:
                    plan.skip(i, "pv", why)
            if "queue" in e and p.j == len(ps) - 1:
                plan.skip(i, "queue", "the queue id is not visible in the packet or a register (every group "
                          "uses queue_map's default queue here)")

    # dequeue expectations: actions per released packet, count, ctv, sojourn
    period = ctv_period_us(params)
    deq_checks = {}
    for i, rel in dequeues.items():
        e = steps[i].get("expect", {})
        for key in e:
            if key not in ("actions", "count", "ctv", "sojourn_us"):
                raise VectorError("vector %s step %d: unknown dequeue expectation %r" % (name, i, key))
        if "actions" in e:
            acts = e["actions"]
            if len(acts) != len(rel):
                raise VectorError("vector %s step %d: %d actions for %d dequeued packets"
                                  % (name, i, len(acts), len(rel)))
            for p, a in zip(rel, acts):
                if a not in ("forward", "drop", "mark"):
                    raise VectorError("vector %s step %d: unknown action %r" % (name, i, a))
                p.verdict = a
        deq_checks[i] = e

    # PVs the AQM vectors fix with u16 (no pv expectation): the switch gets that PV from a flat TVF
    for p in pkts:
        if p.u16 is None or "pv" in steps[p.step].get("expect", {}) or plan.tvf is None or not p.tcp:
            continue
        label = label_kbps(state.get(p.k))
        if label is None:
            pv = params["tvf"]["pv_max"]
        else:
            kbps = label * p.u16 / 65536.0 / sc     # the label's rate x u, scaled like the TVF
            pv = plan.tvf[rate_bin(kbps * 1000.0, params)]
        if pv not in plan.forced_pvs:
            if len(plan.forced_pvs) >= params["tvf"]["profiles"] - 1:
                plan.skip(p.step, "u16", "more fixed draws than spare TVF profiles")
                continue
            plan.forced_pvs.append(pv)
        p.force_pv = pv

    # -- actions -------------------------------------------------------------------------------
    acts = []   # (t, order, kind, args)
    for i, s in enumerate(steps):
        op = s.get("op", "packet")
        t = us(s.get("t_us", 0))
        if op == "packet":
            ps = by_step[i]
            acts.append((t, i, "train", {"pkts": [p.k for p in ps], "step": i}))
            if i in group_after:
                acts.append((t, i + 0.5, "check", {"flow": ps[0].flow, "dir": ps[0].dir, "step": i,
                                                    "checks": {"group": group_after[i]}, "after": ps[-1].k}))
                plan.checks += 1
        elif op == "check":
            exp = s.get("expect", {})
            checks = {}
            for key, val in exp.items():
                d = _divergence(name, i, key)
                if d:
                    plan.diverge(i, key, d)
                    continue
                if key in ("group", "interval_pkts", "family", "ignore") and s.get("flow") in plan.paced_apart:
                    plan.skip(i, key, _PACED_APART)
                    continue
                if key == "group":
                    checks["group"] = group_id(val, i)
                elif key == "rtt_us":
                    checks["rtt_us"] = list(val)
                elif key == "interval_pkts":
                    checks[key] = val
                elif key in ("family", "ignore"):
                    checks[key] = val
                elif key == "queue_ctv":
                    if val["queue"] != 0:
                        plan.skip(i, key, "every group uses queue_map's default queue 0 here")
                    else:
                        checks["queue_ctv"] = list(val["range"])
                else:
                    raise VectorError("vector %s step %d: unknown check %r" % (name, i, key))
            if checks:
                plan.checks += len(checks)
                last_pkt = max((p.k for p in pkts if p.t_vec <= s["t_us"]), default=None)
                acts.append((t, i, "check", {"flow": s["flow"], "dir": s.get("dir", "fwd"), "step": i,
                                             "checks": checks, "after": last_pkt}))
        elif op == "set":
            if "fair_rate_bps" in s:
                acts.append((t, i, "fair_rate", {"bin": rate_bin(s["fair_rate_bps"] / sc, params)}))
            if any(k in s for k in ("ctv", "ctv_lo", "ctv_hi")):
                if s.get("queue", "all") not in ("all", 0):
                    plan.skip(i, "set ctv", "every group uses queue_map's default queue 0 here")
                else:
                    acts.append((t, i, "set_ctv", {k: s[k] for k in ("ctv", "ctv_lo", "ctv_hi") if k in s}))
        elif op == "dequeue":
            rel = dequeues[i]
            e = deq_checks[i]
            held = [p for p in rel if p.release is not None]
            args = {"pkts": [p.k for p in rel], "step": i, "held": bool(held)}
            if "count" in e:
                if held or not rel:
                    args["count"] = e["count"]
                    plan.checks += 1
                else:
                    plan.skip(i, "dequeue count", "the packets are not held on this target")
            if "actions" in e:
                plan.checks += 1
            for key, rng in (("ctv", e.get("ctv")), ("sojourn_us", e.get("sojourn_us"))):
                if rng is None:
                    continue
                if len(rel) != 1:
                    plan.skip(i, "dequeue " + key, "%d packets leave at once: BMv2 forwards about one packet per "
                              "millisecond and the program steps the CTV once per aligned %.0f us period, so how many "
                              "periods they span is not fixed" % (len(rel), period))
                    args["ctv_unknown"] = True
                elif key == "sojourn_us" and not held:
                    plan.skip(i, "dequeue sojourn_us", "the packet is not held on this target")
                else:
                    args[key] = [rng[0], rng[1]]
                    plan.checks += 1
            acts.append((t, i, "release", args))
        elif op == "tick":
            plan.skip(i, "tick", "no controller runs in the PTF set-up")
        else:
            raise VectorError("vector %s step %d: unknown op %r" % (name, i, op))
    if never and never[0].release is not None:
        acts.append((never[0].release, len(steps), "release", {"pkts": [p.k for p in never], "step": None,
                                                              "held": True}))
    # held packets a drained packet releases (the format: it flushes the queue) have no dequeue step
    covered = {k for _t, _o, kind, a in acts if kind == "release" for k in a["pkts"]}
    flushed = {}
    for p in pkts:
        if p.release is not None and p.k not in covered:
            flushed.setdefault(p.release, []).append(p.k)
    for t, ks in flushed.items():
        acts.append((t, len(steps), "release", {"pkts": ks, "step": None, "held": True}))
    acts.sort(key=lambda a: (a[0], a[1]))
    _ctv_knowledge(plan, acts, pkts, period)
    _defer_checks(plan, acts, pkts)
    plan.actions = [(t, kind, args) for t, _o, kind, args in acts]
    plan.checks += sum(1 for p in pkts if p.verdict is not None) + sum(1 for p in pkts if p.pv is not None)
    if plan.whole_divergence:
        plan.checks = 0
    return plan


def _ctv_knowledge(plan, acts, pkts, period):
    """A CTV expectation is checkable when the CTV was set and every packet of the queue since
    then passed alone, at least two CTV periods after the one before (one step each), or the
    range pins the CTV (ctv_lo = ctv_hi); and (like a sojourn) when the queue's next packet
    leaves at least READ_GAP_REAL_US later, so that the read sees this release alone."""
    events = []   # (t, order, kind, data): egress events of the out queue, sets and CTV checks, in order
    byk = {p.k: p for p in pkts}
    for t, o, kind, args in acts:
        if kind == "set_ctv":
            events.append((t, o, "set", args))
        elif kind == "train":
            for k in args["pkts"]:
                p = byk[k]
                if p.dir == "fwd" and p.release is None:
                    events.append((p.t, o, "pkt", 1))
        elif kind == "release":
            n = sum(1 for k in args["pkts"] if byk[k].release is not None)
            events.append((t, o, "rel", (n, args)))
    events.sort(key=lambda e: (e[0], e[1]))
    departures = [e[0] for e in events if e[2] == "pkt" or (e[2] == "rel" and e[3][0])]
    known, pinned, last_t = False, None, None
    lo_hi = [0, 0xFFFF]
    for t, _o, kind, a in events:
        if kind == "set":
            if "ctv_lo" in a:
                lo_hi[0] = a["ctv_lo"]
            if "ctv_hi" in a:
                lo_hi[1] = a["ctv_hi"]
            pinned = lo_hi[0] if lo_hi[0] == lo_hi[1] else None
            if "ctv" in a:
                known = True
            continue
        n = a if kind == "pkt" else a[0]
        if n:
            alone = n == 1 and (last_t is None or t - last_t >= 2 * period)
            known = known and alone
            last_t = t
        if kind != "rel":
            continue
        args = a[1]
        if args.get("ctv_unknown"):
            known = False
        nxt = next((d for d in departures if d > t), None)
        close = nxt is not None and nxt - t < READ_GAP_REAL_US
        if "ctv" in args and pinned is None and (close or not known):
            rng = args.pop("ctv")
            plan.checks -= 1
            plan.skip(args["step"], "dequeue ctv %s" % rng, (
                "the queue's next packet leaves %.1f ms later: too soon to read the register after this one on a "
                "software switch" % ((nxt - t) / 1000.0)) if close else (
                "the CTV is not known on the switch here: since the last controller write, packets passed together "
                "or within two CTV periods (one step per aligned period; BMv2 forwards ~1 packet per ms)"))
        if "sojourn_us" in args and close:
            rng = args.pop("sojourn_us")
            plan.checks -= 1
            plan.skip(args["step"], "dequeue sojourn_us %s" % rng, "the queue's next packet leaves %.1f ms later: too "
                      "soon to read q_max_delay after this one on a software switch" % ((nxt - t) / 1000.0))


def _defer_checks(plan, acts, pkts):
    """The program classifies in egress (docs/dataplane.md: the group comes back through a
    mirrored update): registers of a flow whose packets are held are read once they are released.
    A check waits for the release of the last held packet sent before it."""
    releases = [(i, a) for i, a in enumerate(acts) if a[2] == "release"]
    moved = []
    for idx, (t, o, kind, args) in enumerate(acts):
        if kind != "check" or args.get("after") is None:
            continue
        held = [p for p in pkts if p.k <= args["after"] and p.release is not None and p.release > t]
        if not held:
            continue
        last = max(held, key=lambda p: p.release)
        rel = next(((i, a) for i, a in releases if last.k in a[3]["pkts"] and a[3]["held"]), None)
        if rel is None:
            continue
        moved.append((idx, rel[1][0], rel[1][1] + 0.25))
    for idx, t, o in moved:
        _t, _o, kind, args = acts[idx]
        acts[idx] = (t, o, kind, args)
    acts.sort(key=lambda a: (a[0], a[1]))
