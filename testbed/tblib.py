# SPDX-License-Identifier: Apache-2.0
"""The testbed's pure logic (no root, no switch): scenario and topology checks, the flow plan
(ports chosen so no two flows share a flow-table slot), the two policy modes derived from the
ONOS app's export, iperf3 JSON parsing, the metrics, and the tear-down plan. testbed.py and
switchctl.py do the I/O; testbed/tests checks this module."""
import copy
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "eval", "pylib"))
sys.path.insert(0, os.path.join(REPO, "ptf-tests", "lib"))
sys.path.insert(0, os.path.join(REPO, "tools"))

import ccfair_eval as ce  # noqa: E402  (the eval scenario format and its validator)
import flowhash  # noqa: E402

TOPOLOGY = os.path.join(HERE, "topology.json")
NS_PREFIX = "cctb-"          # every namespace the testbed creates starts with this
MAX_FLOWS = 16               # iperf3 pairs on 2 cores beside BMv2
MAX_DURATION_S = 600
MODES = ("fifo", "ccfair")
FIRST_SERVER_PORT = 5201
FIRST_CLIENT_PORT = 40001
QUEUE_MAP = "IngressPipe.queueing.queue_map"
AQM_CFG = "EgressPipe.aqm.aqm_cfg"
PORT_CFG = "EgressPipe.port_cfg.port_cfg"
# The scenario fields the testbed uses; eval's others (aqm, queue_layout, intent, seed) would be
# accepted by ce.validate and then silently ignored here, so they are refused.
SCENARIO_FIELDS = ("name", "description", "link", "duration_s", "warmup_s", "flows")
NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")   # the name is a directory under the results directory
# The queue depth BMv2 gets (link.buffer_pkts) must stay below the app's limit_cells (1900 in its
# exports), which the program compares with enq_qdepth, a count of packets on BMv2: at most this
# many packets, the program's limit never binds and the queue depth alone is the buffer.
# prepare_policy checks the actual export's limit_cells too (limit_never_binds).
MAX_BUFFER_PKTS = 1000
STALE_NS_RE = re.compile(r"^" + re.escape(NS_PREFIX) + r"(sw|snd|rcv|dly)-(\d+)$")


class ScenarioError(ValueError):
    """A scenario or topology file is wrong; the message names the field."""


# -- topology and scenarios ------------------------------------------------------------------------
def load_topology(path=TOPOLOGY):
    with open(path) as f:
        t = json.load(f)
    for k in ("rate_mbps", "bmv2_base_rtt_ms", "sender", "receiver"):
        if k not in t:
            raise ScenarioError("%s: %s: required field missing" % (path, k))
    for h in ("sender", "receiver"):
        for k in ("port", "ip", "mac"):
            if k not in t[h]:
                raise ScenarioError("%s: %s.%s: required field missing" % (path, h, k))
    return t


def validate(scn, topo, kernel_ccs):
    """The eval form (ce.validate: names the field) plus what the testbed can run."""
    if isinstance(scn, dict):
        if "short_flows" in scn:
            raise ScenarioError("short_flows: not supported by the testbed (long-lived iperf3 flows only)")
        for k in scn:
            if k not in SCENARIO_FIELDS:
                raise ScenarioError("%s: not used by the testbed (its fields: %s)" % (k, ", ".join(SCENARIO_FIELDS)))
    try:
        s = ce.validate(scn)
    except ce.ScenarioError as e:
        raise ScenarioError(str(e))
    if not NAME_RE.match(s["name"]) or s["name"] in (".", ".."):
        raise ScenarioError("name: %s; the testbed needs letters, digits, '.', '_' or '-' only (it names a "
                            "directory)" % json.dumps(s["name"]))
    if s["buffer_pkts"] > MAX_BUFFER_PKTS or s["buffer_pkts"] < 1 or s["buffer_pkts"] != int(s["buffer_pkts"]):
        raise ScenarioError("link.buffer_pkts: %g; the testbed takes a whole number of packets from 1 to %d (above "
                            "it the program's limit_cells could bind before the queue depth)"
                            % (s["buffer_pkts"], MAX_BUFFER_PKTS))
    if s["rate_mbps"] != topo["rate_mbps"]:
        raise ScenarioError("link.rate_mbps: %g, but the testbed's bottleneck (and the port speed the ONOS app's "
                            "export was computed for, testbed/topology.json) is %g Mbit/s"
                            % (s["rate_mbps"], topo["rate_mbps"]))
    for i, f in enumerate(scn["flows"]):
        if f["cc"] not in kernel_ccs:
            raise ScenarioError("flows[%d].cc: %s is not a kernel congestion control here (available: %s)"
                                % (i, f["cc"], " ".join(sorted(kernel_ccs))))
    if len(s["flows"]) > MAX_FLOWS:
        raise ScenarioError("flows: %d flows in total, the testbed runs at most %d" % (len(s["flows"]), MAX_FLOWS))
    counts = topo.get("export_flow_counts", [])
    if len(s["flows"]) not in counts:
        raise ScenarioError("flows: %d flows in total, but the ONOS app's testbed exports are for %s long-lived "
                            "flows (testbed/topology.json export_flow_counts)"
                            % (len(s["flows"]), ", ".join(str(n) for n in counts)))
    if s["duration_s"] > MAX_DURATION_S:
        raise ScenarioError("duration_s: %g, the testbed runs at most %d s" % (s["duration_s"], MAX_DURATION_S))
    rtts = sorted({f["rtt_ms"] for f in s["flows"]})
    if len(rtts) > 1:
        raise ScenarioError("flows[].rtt_ms: %s; the testbed has one path, so every flow needs the same rtt_ms"
                            % ", ".join("%g" % r for r in rtts))
    if s["duration_s"] != int(s["duration_s"]):
        raise ScenarioError("duration_s: %g, iperf3 takes whole seconds" % s["duration_s"])
    for i, f in enumerate(s["flows"]):
        if s["duration_s"] - f["start_s"] < 2:
            raise ScenarioError("flows: flow %d starts at %g s, less than 2 s before duration_s" % (i, f["start_s"]))
    return s


def one_way_delay_ms(s, topo):
    """The delay line's one-way delay for a validated scenario: (rtt_ms - BMv2's own idle RTT) / 2,
    or 0 (no delay line) when rtt_ms is within 0.5 ms of what BMv2 gives by itself."""
    extra = s["flows"][0]["rtt_ms"] - topo["bmv2_base_rtt_ms"]
    return round(extra / 2, 3) if extra > 0.5 else 0.0


def load_scenario(path, topo, kernel_ccs):
    try:
        with open(path) as f:
            scn = json.load(f)
    except OSError as e:
        raise ScenarioError("%s: cannot read: %s" % (path, e.strerror))
    except json.JSONDecodeError as e:
        raise ScenarioError("%s: not valid JSON: %s" % (path, e))
    try:
        return validate(scn, topo, kernel_ccs)
    except ScenarioError as e:
        raise ScenarioError("%s: %s" % (path, e))


# -- flows -----------------------------------------------------------------------------------------
def flow_plan(flows, topo, idx_bits):
    """Each flow's iperf3 ports and flow-table slot. Client ports are picked upward from
    FIRST_CLIENT_PORT so that no two flows share a slot: a shared slot would make one flow's
    group read back as another's (and the program would track only one of them)."""
    src, dst = topo["sender"]["ip"], topo["receiver"]["ip"]
    used, out, cport = set(), [], FIRST_CLIENT_PORT
    for i, f in enumerate(flows):
        sport = FIRST_SERVER_PORT + i
        while True:
            slot = flowhash.flow_index(src, dst, cport, sport, idx_bits)
            if slot not in used:
                break
            cport += 1
        used.add(slot)
        out.append(dict(f, id=i, cport=cport, sport=sport, slot=slot,
                        sig=flowhash.flow_sig(src, dst, cport, sport)))
        cport += 1
    return out


def decode_group_word(w):
    """flow_group: valid(1) · port unknown(1) · stats index(9) · group(5)."""
    return {"valid": (w >> 15) & 1, "port_unknown": (w >> 14) & 1, "stats_idx": (w >> 5) & 0x1FF, "group": w & 0x1F}


def queue_index(stats_idx, qid, qid_bits=5):
    """Per-queue register index: stats_idx[6:0] ++ qid (docs/dataplane.md)."""
    return ((stats_idx & 0x7F) << qid_bits) | qid


def pps(rate_mbps, frame_bytes=1514):
    """BMv2 limits a queue in packets per second; full-size frames of the scenario's rate."""
    return max(1, int(round(rate_mbps * 1e6 / (frame_bytes * 8))))


# -- policy modes ----------------------------------------------------------------------------------
def _params(rule):
    return {p["name"]: p for p in rule["action"]["params"]}


def _match(rule, field):
    for m in rule["match"]:
        if m["field"] == field:
            return int(m["value"], 16)
    return None


def shared_qid(export, port):
    """The queue the app's queue_map sends the long-lived groups of `port` to (the shared
    layout's common queue): the qid most of the port's entries name."""
    count = {}
    for r in export["flow_rules"]:
        if r["table"] == QUEUE_MAP and _match(r, "eg_port") == port:
            q = int(_params(r)["qid"]["value"], 16)
            count[q] = count.get(q, 0) + 1
    if not count:
        raise ScenarioError("the export has no queue_map entry for port %d" % port)
    return max(sorted(count), key=lambda q: count[q])


def policy_for_mode(export, mode, port):
    """(export copy, [what was changed]) for a mode. Both modes: every queue_map entry of the
    bottleneck port names the port's shared queue, so all traffic is in one BMv2 priority queue
    (BMv2's queues are strict priority and each is rate-limited on its own, so spreading groups
    over queues would give the higher queue precedence and the port more than its rate).
    fifo also sets the port's CTV range to 0..0 (no PV falls below a CTV of 0: no PV drop or
    mark) and ss_drop 0 (no slow-start drop): what is left is the tail drop at the queue depth,
    as in ccfair mode. The program still classifies, and the groups are still read back: port_cfg's
    other fields (family_forget among them, which only moves flows between groups, never drops)
    stay as exported, so fifo's groups are the ones ccfair mode would give."""
    if mode not in MODES:
        raise ScenarioError("mode: %r (allowed: %s)" % (mode, ", ".join(MODES)))
    ex = copy.deepcopy(export)
    q = shared_qid(ex, port)
    width = {}
    changes = {"queue_map qid -> %d" % q: 0}
    for r in ex["flow_rules"]:
        if _match(r, "eg_port") != port:
            continue
        ps = _params(r)
        if r["table"] == QUEUE_MAP:
            v = ps["qid"]["value"]
            width["qid"] = len(v)
            if int(v, 16) != q:
                ps["qid"]["value"] = "%0*x" % (len(v), q)
                changes["queue_map qid -> %d" % q] += 1
        elif mode == "fifo" and r["table"] == AQM_CFG:
            for k in ("ctv_hi", "ctv_lo"):
                ps[k]["value"] = "0" * len(ps[k]["value"])
            changes["aqm_cfg ctv_hi = ctv_lo = 0"] = changes.get("aqm_cfg ctv_hi = ctv_lo = 0", 0) + 1
        elif mode == "fifo" and r["table"] == PORT_CFG:
            ps["ss_drop"]["value"] = "0" * len(ps["ss_drop"]["value"])
            changes["port_cfg ss_drop = 0"] = 1
    return ex, ["%s (%d entries)" % (k, n) for k, n in changes.items()], q


def stale_namespaces(ns_list_text, pid_alive, own_pid=None):
    """The testbed namespaces (cctb-<role>-<pid>) in `ip netns list` output whose runner pid is
    dead (pid_alive(pid) is False): leftovers of an earlier run that was killed before its
    tear-down. Never one of a live run's, nor this run's (own_pid)."""
    out = []
    for line in ns_list_text.splitlines():
        if not line.strip():
            continue
        n = line.split()[0]
        m = STALE_NS_RE.match(n)
        if m and int(m.group(2)) != own_pid and not pid_alive(int(m.group(2))):
            out.append(n)
    return out


def limit_never_binds(export, port, depth_pkts):
    """None when every aqm_cfg entry of `port` has limit_cells above depth_pkts (BMv2's enq_qdepth,
    in packets, can then never exceed it), else what binds."""
    for r in export["flow_rules"]:
        if r["table"] == AQM_CFG and _match(r, "eg_port") == port:
            lim = int(_params(r)["limit_cells"]["value"], 16)
            if lim <= depth_pkts:
                return "aqm_cfg of port %d queue %s: limit_cells %d is not above the queue depth %d packets" % (
                    port, _match(r, "qid"), lim, depth_pkts)
    return None


# -- iperf3 ----------------------------------------------------------------------------------------
class Iperf3Error(ValueError):
    pass


def parse_iperf3(text, what="iperf3"):
    """[(t_start_s, t_end_s, bits_per_second)] of the intervals of one iperf3 --json output,
    relative to its own test start, and the test's absolute start time (s) if it gives one."""
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise Iperf3Error("%s: output is not JSON: %s" % (what, e))
    if d.get("error"):
        raise Iperf3Error("%s: %s" % (what, d["error"]))
    ivs = []
    for iv in d.get("intervals", []):
        s = iv.get("sum") or {}
        if "start" in s and "end" in s and "bits_per_second" in s:
            ivs.append((float(s["start"]), float(s["end"]), float(s["bits_per_second"])))
    if not ivs:
        raise Iperf3Error("%s: no intervals in the output" % what)
    t0 = d.get("start", {}).get("timestamp", {}).get("timesecs")
    return ivs, (float(t0) if t0 is not None else None)


def mean_rate(ivs, lo, hi, offset=0.0):
    """Mean bit/s over [lo, hi) (scenario time) of intervals shifted by `offset`; time not
    covered by any interval counts as 0 (a flow that stalled sent nothing)."""
    if hi <= lo:
        return 0.0
    bits = 0.0
    for a, b, bps in ivs:
        a, b = a + offset, b + offset
        ov = min(b, hi) - max(a, lo)
        if ov > 0:
            bits += bps * ov
    return bits / (hi - lo)


def jfi(xs):
    return ce.jfi(list(xs))


def percentile(xs, p):
    return ce.percentile(list(xs), p)


# -- groups --------------------------------------------------------------------------------------------
def group_shares(samples, names):
    """{group name: share of the samples} of one flow's valid group reads."""
    n = len(samples)
    out = {}
    for g in samples:
        nm = names[g] if 0 <= g < len(names) else "g%d" % g
        out[nm] = out.get(nm, 0) + 1.0 / n
    return out


def shares_by_cc(flows):
    """{cc: {group: share}} averaged over the flows of each CC (each flow weighs the same)."""
    acc = {}
    for f in flows:
        if not f.get("group_shares"):
            continue
        a = acc.setdefault(f["cc"], [0, {}])
        a[0] += 1
        for g, s in f["group_shares"].items():
            a[1][g] = a[1].get(g, 0) + s
    return {cc: {g: round(s / n, 3) for g, s in sorted(d.items(), key=lambda kv: -kv[1])}
            for cc, (n, d) in acc.items()}


# -- tear-down ---------------------------------------------------------------------------------------
def cleanup_plan(made_ns, existing_ns):
    """`ip netns del` commands for the namespaces this run made that still exist (deleting one
    deletes its veths); never a namespace this run did not make."""
    return [["ip", "netns", "del", n] for n in made_ns if n in existing_ns and n.startswith(NS_PREFIX)]


def leftovers(ns_list_text, link_text, pgrep_pids, names, links=()):
    """What survived a tear-down: our namespaces in `ip netns list`, a link of ours (by name, or
    any named with our prefix) in `ip -o link` of the root namespace, processes pgrep found."""
    out = []
    listed = {line.split()[0] for line in ns_list_text.splitlines() if line.strip()}
    out += ["namespace %s" % n for n in names if n in listed]
    for line in link_text.splitlines():
        parts = line.split(":")
        if len(parts) > 1:
            name = parts[1].strip().split("@")[0]
            if name.startswith(NS_PREFIX) or name in links:
                out.append("link %s" % name)
    out += ["process %s" % p for p in pgrep_pids]
    return out


def timeline_shares(tl, lo, hi):
    """{group: share of [lo, hi)} of a [[t, group]] timeline (each entry holds until the next),
    e.g. the ns-3 model's group_timeline; {} when nothing of it falls in the window."""
    out = ce.timeline_time(tl, lo, hi)
    total = sum(out.values())
    return {g: v / total for g, v in out.items()} if total > 0 else {}


def fmt_shares(by_cc, top=2):
    """'cubic: loss0 60 %, hybrid0 30 %; bbr: ...' (the `top` largest groups of each CC)."""
    parts = []
    for cc in sorted(by_cc):
        gs = sorted(by_cc[cc].items(), key=lambda kv: -kv[1])[:top]
        parts.append("%s: %s" % (cc, ", ".join("%s %d %%" % (g, round(100 * s)) for g, s in gs) or "–"))
    return "; ".join(parts)


def _f(x, spec):
    return "–" if x is None else spec % x


def markdown_rows(name, runs, models):
    """Table rows of one scenario: each testbed mode, then the model's run of it."""
    rows = []
    for s in runs:
        rows.append("| %s | testbed %s | %s | %s | %s / %s | %s |" % (
            name, s["mode"], _f(s["jfi"], "%.2f"), _f(100 * s["utilization"], "%.1f %%"),
            _f(s["qdelay_p50_ms"], "%.0f"), _f(s["qdelay_p99_ms"], "%.0f"), fmt_shares(s["shares_by_cc"])))
    for aqm, m in sorted(models.items(), reverse=True):
        if "error" in m:
            rows.append("| %s | model %s | error: %s | | | |" % (name, aqm, m["error"]))
            continue
        rows.append("| %s | model %s | %s | %s | %s / %s | %s |" % (
            name, aqm, _f(m["jfi"], "%.2f"), _f(100 * m["utilization"], "%.1f %%"),
            _f(m.get("qdelay_p50_ms"), "%.0f"), _f(m.get("qdelay_p99_ms"), "%.0f"),
            fmt_shares(m.get("shares_by_cc") or {}) if aqm == "ccfair" else "(FIFO has no groups)"))
    return rows


# The kernel's loss-recovery counters (TcpExt, per network namespace) the testbed keeps: how real
# stacks recovered from the switch's drops, which the model's TCP does its own way.
TCP_EXT_KEYS = ("TCPTimeouts", "TCPLossProbes", "TCPLossProbeRecovery", "TCPFastRetrans", "TCPSlowStartRetrans",
                "TCPSackRecovery", "TCPSpuriousRTOs", "TCPLostRetransmit", "DelayedACKs")


def parse_netstat(text, keys=TCP_EXT_KEYS):
    """{key: value} of /proc/net/netstat's TcpExt lines (a header line of names, then one of values)."""
    rows = [line.split() for line in text.splitlines() if line.startswith("TcpExt:")]
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        return {}
    d = dict(zip(rows[0][1:], rows[1][1:]))
    return {k: int(d[k]) for k in keys if k in d}
