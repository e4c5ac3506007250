# SPDX-License-Identifier: Apache-2.0
"""Translation of the shared test vectors (testdata/vectors/*.json) into PTF actions.

The ns-3 model runs the vectors on its simulated clock; the PTF suite replays the same
packet sequences on tofino-model through real ports and P4Runtime, so the P4 program and
the model are held to the same cases. Not everything a vector states can be reproduced on
a switch; each such expectation is listed with the reason (never silently dropped):

- ``dequeue`` steps (the model's scheduler on command) and their exact action
  sequences: tofino-model's shaper releases packets on its own clock;
- ``set`` of a queue's CTV or CTV range: q_ctv is written by the data plane only;
- ``tick`` (a pass of the controller loop): there is no controller in the PTF run;
- ``queue`` ids and ``intervals`` (roll-over counts): no register or header exposes them;
- PV ranges that depend on a fixed ``u16`` draw: the hardware draws its own random bits;
  PVs are read from the shim, so only where the packet leaves through a fabric port;
- config the switch takes at compile time (CTV steps and update period) when the vector
  changes it, and a link rate other than the shaped PTF port's.

Time: vector times are multiplied by ``scale`` (default 10) because packets sent from
Python cannot be placed with sub-millisecond accuracy; RTTs scale with them, so rates
(bytes per RTT) shrink by the same factor and the fair rate is scaled alike.
"""
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
MISSING = object()  # no group expectation
COMPILE_TIME = {"ctv_step_up": ("aqm", "ctv_step_up"), "ctv_step_down": ("aqm", "ctv_step_down"),
                "ctv_update_interval_us": ("aqm", "ctv_update_interval_us")}


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


def fair_rate_tvf(params, fair_bps):
    """The per-flow TVF the vectors assume for every group (eval/model, Pipeline::SetFairRate):
    pv_max/2 at the fair rate's bin, one decade (steps_per_decade bins) either side spans
    0..pv_max. The switch looks up whole bins; the model also interpolates 16 sub-steps, which
    the vectors' PV ranges allow for."""
    t = params["tvf"]
    spd, pv = t["steps_per_decade"], t["pv_max"]
    fair_bin = rate_bin(fair_bps, params)
    return [max(0, min(pv, pv // 2 - _trunc_div((i - fair_bin) * pv, 2 * spd))) for i in range(t["rate_steps"])]


class Plan:
    """What the PTF test does for one vector: switch config, timed actions, skipped checks."""

    def __init__(self, name):
        self.name = name
        self.ingress_default_rtt_us = None
        self.egress = {}          # EgressPipe port_cfg overrides
        self.aqm = {}             # target_delay_us / ecn / limit_cells for the out port's queue 0
        self.rtt_boundary_us = None
        self.tvf = None           # PV per rate bin written for every group, or None (default pv_max)
        self.shaped = False       # some packets must queue: out port is the shaped port
        self.fabric_out = False   # out port keeps the shim (PVs visible); only without reverse traffic
        self.flows = {}           # name -> (src ip, sport, dst ip, dport)
        self.actions = []         # (t_scaled_us, kind, args)
        self.unsupported = []     # (step index or "config", what, why)
        self.checks = 0           # expectations the PTF test verifies

    def skip(self, where, what, why):
        self.unsupported.append((where, what, why))


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
            "size": size, "payload": payload, "proto": proto, "ect": bool(step.get("ect", False))}


def translate(vec, params=None, scale=DEFAULT_SCALE, shaped_rate_bps=None):
    """Plan for vector `vec` (already schema-valid)."""
    params = params or P.load()
    name = vec["name"]

    def us(t):
        """A vector time scaled, in whole microseconds (what the switch's tables take)."""
        return int(round(t * scale))

    plan = Plan(name)
    groups = P.group_names(params)
    cfg = vec.get("config", {})
    steps = vec["steps"]
    plan.flows = {k: (f["src"], f["sport"], f["dst"], f["dport"]) for k, f in vec["flows"].items()}
    has_rev = any(s.get("dir") == "rev" for s in steps if s.get("op", "packet") in ("packet",))
    # Queues only matter where the vector dequeues on command; elsewhere undrained packets are
    # simply forwarded by the unshaped port.
    plan.shaped = any(s.get("op") == "dequeue" for s in steps)
    plan.fabric_out = not has_rev

    # -- config ---------------------------------------------------------------------------
    rtt = cfg.get("default_rtt_us", params["flow"]["default_rtt_us"])
    plan.ingress_default_rtt_us = us(rtt)
    for key, field in (("m_ld", "m_ld"), ("m_pl", "m_pl"), ("m_m", "m_m"),
                       ("ant_max_pkts_per_interval", "ant_max_pkts")):
        if key in cfg:
            plan.egress[field] = cfg[key]
    if "ss_proactive_drop" in cfg:
        plan.egress["ss_drop"] = int(cfg["ss_proactive_drop"])
    if "fair_rate_bps" in cfg:
        plan.egress["fair_rate_bin"] = rate_bin(cfg["fair_rate_bps"] / scale, params)
    # The TVF follows the fair rate (the link rate when no fair rate is given); a vector that
    # states neither keeps the switch's default TVF, pv_max everywhere.
    fair = cfg.get("fair_rate_bps", cfg.get("link_rate_bps"))
    plan.tvf = fair_rate_tvf(params, fair / scale) if fair else None
    if "target_delay_us" in cfg:
        plan.aqm["target_delay_us"] = cfg["target_delay_us"]
    if "ecn" in cfg:
        plan.aqm["ecn"] = int(cfg["ecn"])
    if "initial_limit_pkts" in cfg:
        pol = params.get("policy", {})
        cell = pol.get("cell_bytes_tofino", 80)
        plan.aqm["limit_cells"] = cfg["initial_limit_pkts"] * -(-pol.get("buffer_pkt_bytes", 1500) // cell)
    if "rtt_boundary_us" in cfg:
        plan.rtt_boundary_us = us(cfg["rtt_boundary_us"])
    for key, (sec, pkey) in COMPILE_TIME.items():
        if key in cfg and cfg[key] != params[sec][pkey]:
            plan.skip("config", key, "compiled into the program from params/ccfair.json (%s.%s = %s)"
                      % (sec, pkey, params[sec][pkey]))
    if plan.shaped and "link_rate_bps" in cfg and shaped_rate_bps and cfg["link_rate_bps"] != shaped_rate_bps:
        plan.skip("config", "link_rate_bps", "the shaped PTF port runs at %d bit/s" % shaped_rate_bps)

    # -- steps --------------------------------------------------------------------------------
    def group_id(gname, i):
        if gname == "untracked":
            return None
        if gname not in groups:
            raise VectorError("vector %s step %d: unknown group %r" % (name, i, gname))
        return groups.index(gname)

    for i, s in enumerate(steps):
        op = s.get("op", "packet")
        t = us(s.get("t_us", 0))
        if op == "packet":
            spec = _frame_spec(s, plan.flows, name, i)
            n, every = s.get("repeat", 1), us(s.get("every_us", 0))
            train = dict(spec, n=n, every_us=every, drain=s.get("drain", False),
                         verdicts={}, group_after=MISSING, pvs=[None] * n)
            exp, last = s.get("expect", {}), dict(s.get("expect", {}), **s.get("expect_last", {}))
            for key in set(exp) | set(last):
                if key not in ("group", "verdict", "pv", "queue"):
                    raise VectorError("vector %s step %d: unknown expectation %r" % (name, i, key))
            if "group" in last:
                train["group_after"] = group_id(last["group"], i)
                plan.checks += 1
                if "group" in exp and n > 1:
                    plan.skip(i, "group of packets 1..%d" % (n - 1), "registers are read once per train, after "
                              "its last packet, so that reads do not disturb the train's timing")
            for k in range(n):
                e = last if k == n - 1 else exp
                if "verdict" in e and e["verdict"] == "drop_limit":
                    if k == n - 1:
                        plan.skip(i, "verdict drop_limit", "which packet meets a full queue depends on how many the "
                                  "shaper drained while Python was still sending")
                elif "verdict" in e:
                    train["verdicts"][e["verdict"]] = train["verdicts"].get(e["verdict"], 0) + 1
                if "pv" in e:
                    if "u16" in s:
                        why = "the range follows from the fixed draw u16=%d; the switch draws its own bits" % s["u16"]
                    elif not plan.fabric_out:
                        why = "the out port stays an edge port (reverse traffic) and pops the shim carrying the PV"
                    elif not train["drain"] and plan.shaped:
                        why = "the packet waits in the shaped queue behind others; PVs are matched in send order only when drained"
                    else:
                        why = None
                        train["pvs"][k] = list(e["pv"])
                        plan.checks += 1
                    if why and k == n - 1:
                        plan.skip(i, "pv", why)
                if "queue" in e and k == n - 1:
                    plan.skip(i, "queue", "the queue id is not visible in the packet or a register")
            if train["verdicts"]:
                plan.checks += 1
            plan.actions.append((t, "train", train))
        elif op == "check":
            exp = s.get("expect", {})
            checks = {}
            for key, val in exp.items():
                if key == "group":
                    checks["group"] = group_id(val, i)
                elif key == "rtt_us":
                    checks["rtt_us"] = [us(val[0]), us(val[1])]
                elif key == "interval_pkts":
                    checks[key] = val
                elif key == "interval_acks":
                    plan.skip(i, key, "the program keeps no per-flow pure-ACK count (docs/dataplane.md, Registers)")
                elif key == "aggr":
                    checks["aggr"] = val
                elif key == "bwest":
                    checks["bwest"] = val
                elif key == "queue_ctv":
                    checks["queue_ctv"] = (val["queue"], list(val["range"]))
                elif key == "intervals":
                    plan.skip(i, key, "no register of the program counts roll-overs (docs/dataplane.md, Registers)")
                else:
                    raise VectorError("vector %s step %d: unknown check %r" % (name, i, key))
            plan.checks += len(checks)
            plan.actions.append((t, "check", {"flow": s["flow"], "dir": s.get("dir", "fwd"), "checks": checks}))
        elif op == "set":
            if "fair_rate_bps" in s:
                plan.actions.append((t, "fair_rate", {"bin": rate_bin(s["fair_rate_bps"] / scale, params)}))
            for key in ("ctv", "ctv_lo", "ctv_hi"):
                if key in s:
                    plan.skip(i, "set " + key, "q_ctv is written by the data plane only; the program has no "
                              "controller-set CTV range")
        elif op == "dequeue":
            for key in s.get("expect", {}):
                plan.skip(i, "dequeue " + key, "tofino-model's shaper dequeues on its own clock, not on command")
            if not s.get("expect"):
                plan.skip(i, "dequeue", "tofino-model's shaper dequeues on its own clock, not on command")
        elif op == "tick":
            plan.skip(i, "tick", "no controller runs in the PTF set-up")
        else:
            raise VectorError("vector %s step %d: unknown op %r" % (name, i, op))
    plan.actions.sort(key=lambda a: a[0])
    return plan
