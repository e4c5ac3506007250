# SPDX-License-Identifier: Apache-2.0
"""Scenario files, the ns-3 dumbbell runner and the metrics every eval script shares.

eval/run, the sweeps and the tests all go through validate() and run(); the C++
simulator (eval/sim/dumbbell.cc) only measures, everything derived (goodput, JFI,
utilisation, group timelines) is computed here once.
"""
import functools
import json
import os
import subprocess
import sys

EVAL = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(EVAL)
SIM = os.path.join(EVAL, "build", "dumbbell")
sys.path.insert(0, os.path.join(REPO, "tools"))
from ccfair import params as ccparams  # noqa: E402  (the single parameter source)

# Scenario name -> (ns-3 TypeId, expected ccfair family). Families follow P4air's
# taxonomy as written in docs/architecture.md; "hybrid:<kind>" names the hybrid kind.
CCS = {
    "reno": ("ns3::TcpLinuxReno", "loss"),
    "bic": ("ns3::TcpBic", "loss"),
    "cubic": ("ns3::TcpCubic", "loss"),
    "highspeed": ("ns3::TcpHighSpeed", "loss"),
    "htcp": ("ns3::TcpHtcp", "loss"),
    "hybla": ("ns3::TcpHybla", "loss"),
    "westwood": ("ns3::TcpWestwoodPlus", "loss"),  # Linux tcp_westwood is Westwood+
    "vegas": ("ns3::TcpVegasLinux", "delay"),  # eval/sim/tcp-vegas-linux.h
    "veno": ("ns3::TcpVeno", "hybrid:loss_delay"),
    "illinois": ("ns3::TcpIllinoisLinux", "hybrid:loss_delay"),  # eval/sim/tcp-illinois-linux.h
    "yeah": ("ns3::TcpYeah", "hybrid:loss_delay"),
    "bbr": ("ns3::TcpBbr", "hybrid:model"),
    # DCTCP negotiates ECN; without ECN marks (FIFO) it only sees losses and behaves like Reno.
    "dctcp": ("ns3::TcpDctcp", "loss"),
    "scalable": ("ns3::TcpScalable", "loss"),
    "ledbat": ("ns3::TcpLedbat", "delay"),
    "lp": ("ns3::TcpLp", "delay"),
}
AQMS = ["fifo", "red", "codel", "fq_codel", "pie", "fq_pie", "ccfair"]
# The ccfair controller's queue layouts (params queues.layout; the ONOS app's intent field
# queue_layout): shared = every long-lived group in one queue, isolated = per-group queues.
QUEUE_LAYOUTS = ["shared", "isolated"]
# The ccfair controller's objective (the ONOS app's intent field objective, docs/policy-api.md):
# per-flow = every long-lived flow one share; weighted-groups = each CC family (params
# groups.families) weights[family] shares, unlisted families 1.
OBJECTIVES = ["per-flow", "weighted-groups"]

LIMITS = {  # field -> (min, max, integer?)
    "seed": (0, 2**31 - 1, True),
    "link.rate_mbps": (0.1, 1000.0, False),
    "link.buffer_pkts": (1, 100000, True),
    "duration_s": (0.1, 3600.0, False),
    "warmup_s": (0.0, 3600.0, False),
    "flows[].count": (1, 1000, True),
    "flows[].rtt_ms": (2.0, 1000.0, False),  # 2 ms = twice the bottleneck's own delay
    "flows[].start_s": (0.0, 3600.0, False),
    "flows[].app_rate_mbps": (0.01, 1000.0, False),
    "flows[].edge": (0, 15, True),
    "fabric.uplink_mbps": (0.1, 10000.0, False),
    "short_flows.rtt_ms": (2.0, 1000.0, False),
    "short_flows.arrival_per_s": (0.01, 2000.0, False),
    "short_flows.start_s": (0.0, 3600.0, False),
    "short_flows.stop_s": (0.0, 3600.0, False),
}
MAX_FLOWS = 1000
# Short flows are connections from one sender's ephemeral ports (16,384 in ns-3): the expected
# number, arrival_per_s x (stop_s - start_s), stays well below.
MAX_SHORT_FLOWS = 10000

# Short-flow size distributions (the simulator draws them; eval/sim/dumbbell.cc kWeb*).
# "web": bounded Pareto, tail index 0.63 (the upper end of the 0.40-0.63 Arlitt and Williamson,
# "Web Server Workload Characterization: The Search for Invariants", SIGMETRICS 1996, measured
# for transferred file sizes), bounded to [2 KB, 10 MB].
WEB_SIZES = {"alpha": 0.63, "min_bytes": 2e3, "max_bytes": 1e7}
SIZE_DISTS = ["web"]
SMALL_FLOW_BYTES = 100e3  # FCT buckets: < 100 KB and >= 100 KB


def web_mean_bytes(d=WEB_SIZES):
    """Mean of the bounded Pareto: a/(1-a) (L^a H^(1-a) - L) / (1 - (L/H)^a) for a != 1."""
    a, lo, hi = d["alpha"], d["min_bytes"], d["max_bytes"]
    return a / (1 - a) * (lo ** a * hi ** (1 - a) - lo) / (1 - (lo / hi) ** a)


def web_share_at_least(x, d=WEB_SIZES):
    """P(size >= x) of the bounded Pareto."""
    a, lo, hi = d["alpha"], d["min_bytes"], d["max_bytes"]
    return ((lo / x) ** a - (lo / hi) ** a) / (1 - (lo / hi) ** a)


def arrival_for_load(load, rate_mbps, d=WEB_SIZES):
    """Poisson arrival rate (1/s) at which web flows offer `load` x the link rate on average."""
    return load * rate_mbps * 1e6 / (8 * web_mean_bytes(d))


class ScenarioError(ValueError):
    """A scenario file is wrong; the message names the field."""


def _number(value, field, limit_key=None):
    lo, hi, integer = LIMITS[limit_key or field]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError("%s: expected a number, got %s" % (field, json.dumps(value)))
    if integer and value != int(value):
        raise ScenarioError("%s: expected an integer, got %s" % (field, value))
    if not lo <= value <= hi:
        raise ScenarioError("%s: %s is out of range [%s, %s]" % (field, value, lo, hi))
    return int(value) if integer else float(value)


def _keys(obj, field, required, optional):
    if not isinstance(obj, dict):
        raise ScenarioError("%s: expected an object, got %s" % (field or "scenario", json.dumps(obj)))
    prefix = field + "." if field else ""
    unknown = sorted(set(obj) - set(required) - set(optional))
    if unknown:
        raise ScenarioError("%s%s: unknown field (allowed: %s)"
                            % (prefix, unknown[0], ", ".join(sorted(required + optional))))
    for k in required:
        if k not in obj:
            raise ScenarioError("%s%s: required field missing" % (prefix, k))


def validate(scn, aqm_override=None):
    """Check a parsed scenario; return a normalised copy (defaults filled, flows expanded)."""
    _keys(scn, "", ["name", "link", "duration_s", "flows"],
          ["seed", "warmup_s", "aqm", "description", "short_flows", "queue_layout", "intent", "fabric"])
    if not isinstance(scn["name"], str) or not scn["name"].strip():
        raise ScenarioError("name: expected a non-empty string")
    if "description" in scn and not isinstance(scn["description"], str):
        raise ScenarioError("description: expected a string")
    _keys(scn["link"], "link", ["rate_mbps", "buffer_pkts"], [])
    out = {
        "name": scn["name"],
        "seed": _number(scn.get("seed", 1), "seed"),
        "rate_mbps": _number(scn["link"]["rate_mbps"], "link.rate_mbps"),
        "buffer_pkts": _number(scn["link"]["buffer_pkts"], "link.buffer_pkts"),
        "duration_s": _number(scn["duration_s"], "duration_s"),
        "warmup_s": _number(scn.get("warmup_s", 0), "warmup_s"),
    }
    if out["warmup_s"] >= out["duration_s"]:
        raise ScenarioError("warmup_s: %s must be below duration_s (%s)"
                            % (out["warmup_s"], out["duration_s"]))
    aqm = aqm_override if aqm_override is not None else scn.get("aqm", "fifo")
    where = "--aqm" if aqm_override is not None else "aqm"
    if aqm not in AQMS:
        raise ScenarioError("%s: unknown AQM %s (known: %s)" % (where, json.dumps(aqm), ", ".join(AQMS)))
    out["aqm"] = aqm
    # Only ccfair has queues to lay out; other AQMs accept and ignore the field, so one
    # scenario can be run with --aqm overrides.
    layout = scn.get("queue_layout", default_queue_layout())
    if layout not in QUEUE_LAYOUTS:
        raise ScenarioError("queue_layout: unknown queue layout %s (allowed: %s)"
                            % (json.dumps(layout), ", ".join(QUEUE_LAYOUTS)))
    out["queue_layout"] = layout
    # Like queue_layout: only ccfair has a controller; other AQMs accept and ignore the intent.
    if "intent" in scn:
        out["intent"] = _intent(scn["intent"])
    flows = scn["flows"]
    if not isinstance(flows, list) or not flows:
        raise ScenarioError("flows: expected a non-empty list")
    expanded = []
    for i, f in enumerate(flows):
        field = "flows[%d]" % i
        _keys(f, field, ["cc", "rtt_ms"], ["count", "start_s", "app_rate_mbps", "edge"])
        if f["cc"] not in CCS:
            raise ScenarioError("%s.cc: unknown congestion control %s (known: %s)"
                                % (field, json.dumps(f["cc"]), ", ".join(CCS)))
        count = _number(f.get("count", 1), field + ".count", "flows[].count")
        rtt = _number(f["rtt_ms"], field + ".rtt_ms", "flows[].rtt_ms")
        start = _number(f.get("start_s", 0), field + ".start_s", "flows[].start_s")
        if start >= out["duration_s"]:
            raise ScenarioError("%s.start_s: %s is not before duration_s (%s)"
                                % (field, start, out["duration_s"]))
        one = {"cc": f["cc"], "rtt_ms": rtt, "start_s": start}
        if "app_rate_mbps" in f:  # only when given: scenarios without it keep their cache keys
            one["app_rate_mbps"] = _number(f["app_rate_mbps"], field + ".app_rate_mbps", "flows[].app_rate_mbps")
        if "edge" in f:
            if "fabric" not in scn:
                raise ScenarioError("%s.edge: only with a \"fabric\" object (the edge switches' uplinks)" % field)
            one["edge"] = _number(f["edge"], field + ".edge", "flows[].edge")
        expanded += [one] * count
    if len(expanded) > MAX_FLOWS:
        raise ScenarioError("flows: %d flows in total, at most %d" % (len(expanded), MAX_FLOWS))
    out["flows"] = expanded
    if "fabric" in scn:
        # Senders behind edge switches (flows[].edge, default 0), each with an uplink into the
        # bottleneck's switch, which receives on fabric ports (docs/eval.md, "Fabric").
        _keys(scn["fabric"], "fabric", ["uplink_mbps"], [])
        up = _number(scn["fabric"]["uplink_mbps"], "fabric.uplink_mbps")
        if up < out["rate_mbps"]:
            raise ScenarioError("fabric.uplink_mbps: %s is below link.rate_mbps (%s): the bottleneck must be the "
                                "link, not an uplink" % (up, out["rate_mbps"]))
        for f in expanded:
            f.setdefault("edge", 0)
        out["fabric"] = {"uplink_mbps": up, "edges": 1 + max(f["edge"] for f in expanded)}
    if "short_flows" in scn:
        out["short_flows"] = _short_flows(scn["short_flows"], out["duration_s"])
    return out


def _intent(it):
    """The optional "intent" object: the governing intent's objective and weights, checked as the
    ONOS app's IntentJson / IntentValidator check them (same names, families and limits)."""
    field = "intent"
    _keys(it, field, ["objective"], ["weights"])
    obj = it["objective"]
    if obj not in OBJECTIVES:
        raise ScenarioError("intent.objective: %s is not 'per-flow' or 'weighted-groups'" % json.dumps(obj))
    out = {"objective": obj}
    if obj == "per-flow":
        if "weights" in it:
            raise ScenarioError("intent.weights: only allowed with objective 'weighted-groups' "
                                "(per-flow gives every flow one share)")
        return out
    fams = families()
    w = it.get("weights")
    if not isinstance(w, dict) or not w:
        raise ScenarioError("intent.weights: objective 'weighted-groups' needs an object {family: weight} with at "
                            "least one family weight %s, got %s" % (json.dumps(fams), json.dumps(w)))
    lo, hi = weight_limits()
    weights = {}
    for fam in sorted(w):
        v = w[fam]
        where = "intent.weights.%s" % fam
        if fam not in fams:
            raise ScenarioError("%s: unknown family (known: %s)" % (where, ", ".join(fams)))
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ScenarioError("%s: expected a number, got %s" % (where, json.dumps(v)))
        if not lo <= v <= hi:
            raise ScenarioError("%s: %s is out of range [%s, %s]" % (where, v, lo, hi))
        weights[fam] = float(v)
    out["weights"] = weights
    return out


def family_weight(intent, cc):
    """The weight a flow of `cc` is due under a validated intent (None: per-flow): its family's
    weight, unlisted families 1 (the app's FairnessIntent.weight)."""
    if not intent or intent["objective"] != "weighted-groups":
        return 1.0
    return intent["weights"].get(CCS[cc][1].split(":")[0], 1.0)


def _short_flows(sf, duration_s):
    """The optional "short_flows" object: Poisson arrivals of web-size TCP transfers."""
    field = "short_flows"
    _keys(sf, field, ["cc", "rtt_ms", "arrival_per_s"], ["size_dist", "start_s", "stop_s"])
    if sf["cc"] not in CCS:
        raise ScenarioError("%s.cc: unknown congestion control %s (known: %s)"
                            % (field, json.dumps(sf["cc"]), ", ".join(CCS)))
    dist = sf.get("size_dist", "web")
    if dist not in SIZE_DISTS:
        raise ScenarioError("%s.size_dist: unknown size distribution %s (known: %s)"
                            % (field, json.dumps(dist), ", ".join(SIZE_DISTS)))
    out = {"cc": sf["cc"], "size_dist": dist}
    for k in ("rtt_ms", "arrival_per_s"):
        out[k] = _number(sf[k], "%s.%s" % (field, k))
    out["start_s"] = _number(sf.get("start_s", 0), field + ".start_s")
    out["stop_s"] = _number(sf.get("stop_s", duration_s), field + ".stop_s")
    if out["start_s"] >= duration_s:
        raise ScenarioError("%s.start_s: %s is not before duration_s (%s)" % (field, out["start_s"], duration_s))
    if not out["start_s"] < out["stop_s"] <= duration_s:
        raise ScenarioError("%s.stop_s: %s must be above start_s (%s) and at most duration_s (%s)"
                            % (field, out["stop_s"], out["start_s"], duration_s))
    expected = out["arrival_per_s"] * (out["stop_s"] - out["start_s"])
    if expected > MAX_SHORT_FLOWS:
        raise ScenarioError("%s.arrival_per_s: %g/s over %g s is %d flows expected, at most %d"
                            % (field, out["arrival_per_s"], out["stop_s"] - out["start_s"], expected,
                               MAX_SHORT_FLOWS))
    return out


def load(path, aqm_override=None):
    try:
        with open(path) as fh:
            scn = json.load(fh)
    except OSError as e:
        raise ScenarioError("cannot read scenario: %s" % e.strerror)
    except json.JSONDecodeError as e:
        raise ScenarioError("not valid JSON: %s" % e)
    return validate(scn, aqm_override)


def timeline_time(tl, lo, hi):
    """{group: seconds of [lo, hi)} of a [[t, group]] timeline, each entry holding until the next
    (the last until hi), e.g. a ccfair flow's group_timeline; groups with no time are left out."""
    out = {}
    for i, (t, g) in enumerate(tl):
        end = tl[i + 1][0] if i + 1 < len(tl) else hi
        ov = min(end, hi) - max(t, lo)
        if ov > 0:
            out[g] = out.get(g, 0.0) + ov
    return out


def jfi(xs):
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1.0 for all-zero input is not meaningful -> 0."""
    s2 = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * s2) if s2 > 0 else 0.0


def maxmin_shares(total, demands):
    """Max-min fair split of `total` among flows wanting `demands` (None: unlimited), water-filling."""
    share = [0.0] * len(demands)
    left, open_ = total, list(range(len(demands)))
    while open_ and left > 1e-12:
        each = left / len(open_)
        capped = [i for i in open_ if demands[i] is not None and demands[i] <= each]
        if not capped:  # every flow left wants more than an equal split of what is left
            for i in open_:
                share[i] = each
            break
        for i in capped:  # satisfied in full; the rest is split again
            left -= demands[i]
            share[i] = demands[i]
            open_.remove(i)
    return share


def fairness(flows):
    """Jain's index of goodput over each flow's max-min share of the total goodput (Jain's
    normalised allocation); with no application-limited flow every share is equal and it is the
    plain JFI of goodput."""
    if not any("app_rate_mbps" in f for f in flows):
        return jfi([f["goodput_mbps"] for f in flows])
    shares = maxmin_shares(sum(f["goodput_mbps"] for f in flows), [f.get("app_rate_mbps") for f in flows])
    for f, sh in zip(flows, shares):
        f["maxmin_share_mbps"] = sh
    return jfi([f["goodput_mbps"] / f["maxmin_share_mbps"] if f["maxmin_share_mbps"] > 0 else 0.0 for f in flows])


@functools.lru_cache(maxsize=1)
def _params():
    return ccparams.load()


def default_queue_layout():
    """params queues.layout: ccfair's queue layout when a scenario names none."""
    return _params()["queues"]["layout"]


def families():
    """params groups.families: the names an intent's weights may use."""
    return list(_params()["groups"]["families"])


def weight_limits():
    """(policy.weight_min, policy.weight_max): an intent weight's range."""
    return _params()["policy"]["weight_min"], _params()["policy"]["weight_max"]


def group_names():
    return ccparams.group_names(_params())


def expected_groups(cc):
    """Group names that count as a correct classification of `cc`."""
    p = _params()
    fam = CCS[cc][1]
    if fam.startswith("hybrid:"):
        kind = p["groups"]["hybrid_kinds"].index(fam.split(":")[1])
        return {"hybrid%d" % kind}
    return {"%s%d" % (fam, s) for s in range(p["groups"]["k"])}


def sim_args(s, timeline_ms=0, sim=SIM):
    flows = ";".join("%s,%g,%g" % (CCS[f["cc"]][0], f["rtt_ms"], f["start_s"])
                     + (",%r" % f["app_rate_mbps"] if "app_rate_mbps" in f else "") for f in s["flows"])
    short = []
    if "short_flows" in s:
        sf = s["short_flows"]
        short = ["--short=%s,%r,%r,%s,%r,%r" % (CCS[sf["cc"]][0], sf["rtt_ms"], sf["arrival_per_s"], sf["size_dist"],
                                                sf["start_s"], sf["stop_s"])]
    return [sim, "--rate_mbps=%g" % s["rate_mbps"], "--buffer_pkts=%d" % s["buffer_pkts"],
            "--duration_s=%g" % s["duration_s"], "--warmup_s=%g" % s["warmup_s"],
            "--seed=%d" % s["seed"], "--aqm=%s" % s["aqm"], "--flows=%s" % flows,
            "--timeline_ms=%g" % timeline_ms] + short + (
            ["--queue_layout=%s" % s["queue_layout"]] if s["aqm"] == "ccfair" and "queue_layout" in s else []) + (
            ["--weights=" + ",".join("%s:%r" % kv for kv in sorted(s["intent"]["weights"].items()))]
            if s["aqm"] == "ccfair" and s.get("intent", {}).get("objective") == "weighted-groups" else []) + [
            "--%s=%s" % kv for kv in sorted(s.get("tcp", {}).items())] + (
            ["--edges=%d" % s["fabric"]["edges"], "--uplink_mbps=%g" % s["fabric"]["uplink_mbps"],
             "--flow_edges=" + ",".join(str(f["edge"]) for f in s["flows"])] if "fabric" in s else [])


class SimError(RuntimeError):
    """The simulator failed; returncode 2 means it rejected its input (e.g. ccfair not built)."""

    def __init__(self, message, returncode=1):
        super().__init__(message)
        self.returncode = returncode


def run(s, timeline_ms=0, sim=SIM):
    """Run a validated scenario; return the result record eval/run prints."""
    if not os.access(sim, os.X_OK):
        raise SimError("simulator %s is not built (run `make -C eval sim`)" % sim)
    proc = subprocess.run(sim_args(s, timeline_ms, sim), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SimError(proc.stderr.strip() or "simulator exited with %d" % proc.returncode,
                       2 if proc.returncode == 2 else 1)
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    return summarise(s, raw, timeline_ms)


def percentile(xs, p):
    """Nearest-rank percentile as the simulator computes its delay percentiles; None if empty."""
    if not xs:
        return None
    v = sorted(xs)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


DROP_REASONS = ("pv", "limit", "buffer", "ss")


def _drops(model):
    """The ccfair model's drops of a flow by reason (eval/model: Pipeline's FlowDiag)."""
    return {k: model[k] for k in DROP_REASONS}


def _fct(records):
    """FCT summary of [start_s, bytes, fct_ms or None] records."""
    done = [r[2] for r in records if r[2] is not None]
    return {"started": len(records), "completed": len(done),
            "fct_p50_ms": percentile(done, 0.50), "fct_p99_ms": percentile(done, 0.99)}


def summarise_short(s, raw, measure_s):
    sf, rs = s["short_flows"], raw["short_flows"]
    # [start_s, bytes, completion time ms (to the microsecond) or None: unfinished at the end]
    recs = [[r[0], r[1], round(r[2] * 1e3, 3) if r[2] >= 0 else None] for r in rs["records"]]
    out = {"cc": sf["cc"], "rtt_ms": sf["rtt_ms"], "arrival_per_s": sf["arrival_per_s"],
           "size_dist": sf["size_dist"], "start_s": sf["start_s"], "stop_s": sf["stop_s"]}
    out.update(_fct(recs))
    out["unfinished"] = out["started"] - out["completed"]
    # offered load of the sizes actually drawn, over the arrival window
    out["offered_load"] = (sum(r[1] for r in recs) * 8 / ((sf["stop_s"] - sf["start_s"]) * s["rate_mbps"] * 1e6))
    out["goodput_mbps"] = rs["rx_bytes_measured"] * 8 / measure_s / 1e6
    out["lt_100kB"] = _fct([r for r in recs if r[1] < SMALL_FLOW_BYTES])
    out["ge_100kB"] = _fct([r for r in recs if r[1] >= SMALL_FLOW_BYTES])
    out["drops_total"], out["marks"] = rs["qdisc_drops"], rs["qdisc_marks"]
    if "model" in rs:
        m = rs["model"]
        out["drops"], out["marks"] = _drops(m), m["marks"]
        # the groups the switch queued the short flows' packets as (arrivals after warm-up)
        n = m["pkts"]
        out["groups"] = {"ant": m["pkts_ant"] / n if n else 0.0, "mouse": m["pkts_mouse"] / n if n else 0.0,
                         "long_lived": (n - m["pkts_ant"] - m["pkts_mouse"]) / n if n else 0.0,
                         # connections with packets after warm-up that were never queued as long-lived
                         "flows_only_ant_mouse": m["conns_ant_mouse"] / m["conns"] if m["conns"] else 0.0}
    out["records"] = recs
    return out


def summarise_ccfair(raw, flows, short):
    """Top-level ccfair diagnostics: drops by reason, the CTV at its range edge, R* / fair."""
    d = raw["ccfair_diag"]
    parts = [f["drops"] for f in flows] + ([short["drops"]] if short else []) + [_drops(d["unattributed"])]
    out = {"drops_by_reason": {k: sum(p[k] for p in parts) for k in DROP_REASONS}}
    pkts = sum(q[1] for q in d["queues"])
    for key, col in (("ctv_at_edge_share", 4), ("ctv_at_lo_share", 2), ("ctv_at_hi_share", 3)):
        out[key] = sum(q[col] for q in d["queues"]) / pkts if pkts else None
    out["ctv_queues"] = [{"queue": q[0], "pkts": q[1], "at_edge_share": q[4] / q[1]} for q in d["queues"]]
    r = d["rstar_over_fair"]
    out["rstar_over_fair"] = ({k: r[k] for k in ("p10", "p50", "p90", "mean")} if r["n"] else None)
    out["diag_key_collisions"] = d["key_collisions"]
    # long-lived groups with flows that a policy moved to another queue, and their flows (D18)
    out["queue_moves"] = d["queue_moves"]
    out["queue_moved_flows"] = d["queue_moved_flows"]
    # the controller's share correction (docs/algorithm.md D13): mean applied bins per group that had one
    names = group_names()
    out["correction_mean_bins"] = {names[g]: round(v, 3) for g, v in enumerate(d["correction_mean_bins"])
                                   if v and g < len(names)}
    return out


def summarise(s, raw, timeline_ms=0):
    measure_s = raw["measure_s"]
    names = group_names() if s["aqm"] == "ccfair" else None
    flows = []
    for spec, rf in zip(s["flows"], raw["flows"]):
        f = {"cc": spec["cc"], "rtt_ms": spec["rtt_ms"], "start_s": spec["start_s"],
             **({"app_rate_mbps": spec["app_rate_mbps"]} if "app_rate_mbps" in spec else {}),
             "goodput_mbps": rf["rx_bytes_measured"] * 8 / measure_s / 1e6,
             "drops_total": rf["qdisc_drops"], "marks": rf["qdisc_marks"]}
        if "model" in rf:
            f["drops"], f["marks"] = _drops(rf["model"]), rf["model"]["marks"]
        if names is not None:
            # [t_s, group] at every change; the flow is in "ant" (group 0) before the first.
            f["group_timeline"] = [[round(t, 4), names[new]] for t, _old, new in rf["group_changes"]]
        if timeline_ms:
            f["timeline_mbps"] = rf["timeline_mbps"]
        flows.append(f)
    out = {
        "name": s["name"], "aqm": s["aqm"], "ns3": raw.get("ns3", "?"),
        "jfi": fairness(flows),
        "utilization": raw["bottleneck_busy_s"] / measure_s,
        "qdelay_p50_ms": raw["qdelay_p50_ms"], "qdelay_p99_ms": raw["qdelay_p99_ms"],
        "drops": raw["drops"], "marks": raw["marks"],
        "qdelay_samples": raw["qdelay_samples"], "tx_packets": raw["tx_packets"],
        "max_queued_pkts": raw["max_queued_pkts"],
        "flows": flows,
    }
    short = summarise_short(s, raw, measure_s) if "short_flows" in s else None
    if "ccfair_diag" in raw:
        out.update(summarise_ccfair(raw, flows, short))
    if short:
        out["short_flows"] = short
    if s["aqm"] == "ccfair" and "queue_layout" in s:
        out["queue_layout"] = s["queue_layout"]
    if s["aqm"] == "ccfair" and "intent" in s:
        out["intent"] = s["intent"]
    if timeline_ms:
        out["timeline_ms"] = timeline_ms
    return out
