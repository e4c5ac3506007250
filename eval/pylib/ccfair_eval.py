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
    "vegas": ("ns3::TcpVegas", "delay"),
    "veno": ("ns3::TcpVeno", "hybrid:loss_delay"),
    "illinois": ("ns3::TcpIllinois", "hybrid:loss_delay"),
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

LIMITS = {  # field -> (min, max, integer?)
    "seed": (0, 2**31 - 1, True),
    "link.rate_mbps": (0.1, 1000.0, False),
    "link.buffer_pkts": (1, 100000, True),
    "duration_s": (0.1, 3600.0, False),
    "warmup_s": (0.0, 3600.0, False),
    "flows[].count": (1, 1000, True),
    "flows[].rtt_ms": (2.0, 1000.0, False),  # 2 ms = twice the bottleneck's own delay
    "flows[].start_s": (0.0, 3600.0, False),
}
MAX_FLOWS = 1000


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
          ["seed", "warmup_s", "aqm", "description", "queue_layout"])
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
    flows = scn["flows"]
    if not isinstance(flows, list) or not flows:
        raise ScenarioError("flows: expected a non-empty list")
    expanded = []
    for i, f in enumerate(flows):
        field = "flows[%d]" % i
        _keys(f, field, ["cc", "rtt_ms"], ["count", "start_s"])
        if f["cc"] not in CCS:
            raise ScenarioError("%s.cc: unknown congestion control %s (known: %s)"
                                % (field, json.dumps(f["cc"]), ", ".join(CCS)))
        count = _number(f.get("count", 1), field + ".count", "flows[].count")
        rtt = _number(f["rtt_ms"], field + ".rtt_ms", "flows[].rtt_ms")
        start = _number(f.get("start_s", 0), field + ".start_s", "flows[].start_s")
        if start >= out["duration_s"]:
            raise ScenarioError("%s.start_s: %s is not before duration_s (%s)"
                                % (field, start, out["duration_s"]))
        expanded += [{"cc": f["cc"], "rtt_ms": rtt, "start_s": start}] * count
    if len(expanded) > MAX_FLOWS:
        raise ScenarioError("flows: %d flows in total, at most %d" % (len(expanded), MAX_FLOWS))
    out["flows"] = expanded
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


def jfi(xs):
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1.0 for all-zero input is not meaningful -> 0."""
    s2 = sum(x * x for x in xs)
    return (sum(xs) ** 2) / (len(xs) * s2) if s2 > 0 else 0.0


@functools.lru_cache(maxsize=1)
def _params():
    return ccparams.load()


def default_queue_layout():
    """params queues.layout: ccfair's queue layout when a scenario names none."""
    return _params()["queues"]["layout"]


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
    flows = ";".join("%s,%g,%g" % (CCS[f["cc"]][0], f["rtt_ms"], f["start_s"]) for f in s["flows"])
    return [sim, "--rate_mbps=%g" % s["rate_mbps"], "--buffer_pkts=%d" % s["buffer_pkts"],
            "--duration_s=%g" % s["duration_s"], "--warmup_s=%g" % s["warmup_s"],
            "--seed=%d" % s["seed"], "--aqm=%s" % s["aqm"], "--flows=%s" % flows,
            "--timeline_ms=%g" % timeline_ms] + (
            ["--queue_layout=%s" % s["queue_layout"]] if s["aqm"] == "ccfair" and "queue_layout" in s else []) + [
            "--%s=%s" % kv for kv in sorted(s.get("tcp", {}).items())]


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


def summarise(s, raw, timeline_ms=0):
    measure_s = raw["measure_s"]
    names = group_names() if s["aqm"] == "ccfair" else None
    flows = []
    for spec, rf in zip(s["flows"], raw["flows"]):
        f = {"cc": spec["cc"], "rtt_ms": spec["rtt_ms"], "start_s": spec["start_s"],
             "goodput_mbps": rf["rx_bytes_measured"] * 8 / measure_s / 1e6}
        if names is not None:
            # [t_s, group] at every change; the flow is in "ant" (group 0) before the first.
            f["group_timeline"] = [[round(t, 4), names[new]] for t, _old, new in rf["group_changes"]]
        if timeline_ms:
            f["timeline_mbps"] = rf["timeline_mbps"]
        flows.append(f)
    out = {
        "name": s["name"], "aqm": s["aqm"], "ns3": raw.get("ns3", "?"),
        "jfi": jfi([f["goodput_mbps"] for f in flows]),
        "utilization": raw["bottleneck_busy_s"] / measure_s,
        "qdelay_p50_ms": raw["qdelay_p50_ms"], "qdelay_p99_ms": raw["qdelay_p99_ms"],
        "drops": raw["drops"], "marks": raw["marks"],
        "qdelay_samples": raw["qdelay_samples"], "tx_packets": raw["tx_packets"],
        "max_queued_pkts": raw["max_queued_pkts"],
        "flows": flows,
    }
    if s["aqm"] == "ccfair" and "queue_layout" in s:
        out["queue_layout"] = s["queue_layout"]
    if timeline_ms:
        out["timeline_ms"] = timeline_ms
    return out
