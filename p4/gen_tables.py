#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the derived constants and const table entries of ccfair.p4.

  gen_tables.py OUTDIR        -> OUTDIR/ccfair_gen.p4 and OUTDIR/entries_*.p4
  gen_tables.py --cpp OUT.h   -> the same constants and const tables as C++ for the
                                 ns-3 model (eval/model), which looks them up as the program does

Everything here is computed from params/ccfair.json, so no number of the
program is copied by hand: time-unit shifts, the logarithm tables that turn
bytes / RTT / random bits into rate bins without division, and the group
table (the group layout of params/README.md). Generated files live in the
build directory and are never committed.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from ccfair import params as P  # noqa: E402

HEADER = ("// SPDX-License-Identifier: Apache-2.0\n"
          "// GENERATED from params/ccfair.json by p4/gen_tables.py. Do not edit.\n")

TS_UNIT_NS = 1024          # ingress/egress "us" = global_tstamp[41:10]
SEEN_UNIT_NS = 1 << 18     # last-seen time of a flow: now16 = tstamp[33:20] ++ 2 flag bits
BYTES_MANTISSA = 5         # 1/32 octave (2.2 %) resolution of log(bytes), log(RTT)
U_MANTISSA = 4             # resolution of log(u)
FINE_SHIFT = 2             # internal log unit = 1/4 of a TVF rate bin (finer, for the fall test)


def log2_exact(n, what):
    k = n.bit_length() - 1
    if n <= 0 or (1 << k) != n:
        raise ValueError("%s must be a power of two, got %r" % (what, n))
    return k


def ceil_log2(x):
    return max(0, math.ceil(math.log2(x)))


def buckets(width, mantissa):
    """Ternary (value, mask, lo, hi) buckets covering 1 .. 2^width - 1.

    Bucket = position of the leading one plus the next `mantissa` bits, so
    consecutive buckets differ by a factor <= 1 + 2^-mantissa.
    """
    full = (1 << width) - 1
    out = []
    for p in range(width):
        m = min(mantissa, p)
        for k in range(1 << m):
            lo = (1 << p) | (k << (p - m))
            hi = lo + (1 << (p - m)) - 1
            mask = full & ~((1 << (p - m)) - 1)
            out.append((lo, mask, lo, hi))
    return out


def geo_mid(lo, hi):
    return math.sqrt(lo * (hi + 1)) if hi > lo else float(lo)


def derived(p):
    tvf = p["tvf"]
    fine_per_decade = tvf["steps_per_decade"] << FINE_SHIFT
    c = p["classifier"]
    d = {}
    d["FINE_PER_DECADE"] = fine_per_decade
    d["FINE_SHIFT"] = FINE_SHIFT
    # rate[kbit/s] = bytes * 8 / (rtt_units * 1.024 us) / 1000; bin 0 starts at rate_min.
    off = fine_per_decade * math.log10(8.0 / (TS_UNIT_NS * 1e-9) / 1000.0 / tvf["rate_min_kbps"])
    d["RATE_OFFSET_FINE"] = int(round(off))
    # A "fall": the interval's rate at most 1 - 2^-fall_shift of the previous one (x0.875).
    if not 1 <= c["fall_shift"] <= 8:
        raise ValueError("classifier.fall_shift must be 1..8, got %r" % c["fall_shift"])
    d["FALL_FINE"] = int(round(-fine_per_decade * math.log10(1 - 2.0 ** -c["fall_shift"])))
    # Loss-ignoring interval: the retransmission run (intervals in a row with a retransmission,
    # flow_retx's 8-bit count) has reached retx_run and the rate did not fall (algorithm.md D10).
    if not 1 <= c["retx_run"] <= 255:
        raise ValueError("classifier.retx_run must be 1..255, got %r" % c["retx_run"])
    d["RETX_RUN"] = c["retx_run"]
    # The model-based groups (the v1model port's test for D20's rows of ignore_op).
    d["FIRST_MODEL_GROUP"], d["LAST_MODEL_GROUP"] = model_groups(p)
    # What a loss-ignoring interval adds to flow_ignore's 8-bit count (D15): 0 would make no flow
    # model-based, and the model and the SALU take it as an 8-bit constant.
    if not 1 <= c["ignore_up"] <= 255:
        raise ValueError("classifier.ignore_up must be 1..255, got %r" % c["ignore_up"])
    # The marker's rate label: the last interval's log rate (1) or the average of the last two (2).
    # A stateful ALU cannot shift or scale its memory word, so no decaying average (EWMA) fits
    # Tofino; the average of two is a sum it can keep (docs/dataplane.md, "Rate label").
    if c["rate_smooth_intervals"] not in (1, 2):
        raise ValueError("classifier.rate_smooth_intervals must be 1 or 2, got %r" % c["rate_smooth_intervals"])
    d["RATE_SMOOTH_INTERVALS"] = c["rate_smooth_intervals"]
    # The PV gate scales the 32-bit sojourn by 2^shift (aqm.p4 queue_delay_scaled): a shift of 32
    # or more is 0 in P4 and undefined in C++.
    if not 0 <= p["aqm"]["pv_gate_shift"] <= 8:
        raise ValueError("aqm.pv_gate_shift must be 0..8, got %r" % p["aqm"]["pv_gate_shift"])
    f = p["flow"]
    d["EXPIRE_UNITS"] = int(math.ceil(f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1000.0 / SEEN_UNIT_NS))
    if d["EXPIRE_UNITS"] >= 1 << 15:
        raise ValueError("flow.idle_intervals_to_expire * default_rtt_us exceeds the 8.6 s the 16-bit last-seen time can tell")
    d["RTT_MIN_UNITS"] = int(round(f["min_rtt_us"] * 1000.0 / TS_UNIT_NS))
    d["RTT_MAX_UNITS"] = int(round(f["max_rtt_us"] * 1000.0 / TS_UNIT_NS))
    # Interval floor W: an interval lasts max(RTT, W) and its rate divides by the same; the RTT
    # itself (RTT band) stays raw.
    if not 0 <= f["min_interval_us"] <= f["max_rtt_us"]:
        raise ValueError("flow.min_interval_us must be 0..flow.max_rtt_us, got %r" % f["min_interval_us"])
    d["INTERVAL_MIN_UNITS"] = int(round(f["min_interval_us"] * 1000.0 / TS_UNIT_NS))
    d["DIGEST_PERIOD_SHIFT"] = ceil_log2(1e9 / p["controller"]["digest_max_per_sec"])
    d["UPDATE_PERIOD_SHIFT"] = ceil_log2(1e9 / p["update"]["max_per_sec"])
    d["CTV_PERIOD_SHIFT"] = ceil_log2(p["aqm"]["ctv_update_interval_us"] * 1000.0)
    d["SLOT_MASK"] = (1 << log2_exact(p["queues"]["slots_per_group"], "queues.slots_per_group")) - 1
    d["DEPTH_HIST_BITS"] = log2_exact(p["cocoa"]["depth_hist_buckets"], "cocoa.depth_hist_buckets")
    for name, prof in p["targets"]["profiles"].items():
        d["FLOW_IDX_BITS_%s" % name.upper()] = log2_exact(prof["flows_per_pipe"], "flows_per_pipe of " + name)
    return d


def fine_log(x, fine_per_decade):
    return int(round(fine_per_decade * math.log10(x)))


def log_table(width, mantissa, fn):
    """[(value, mask, result)] of a ternary log table: fn at each bucket's geometric middle."""
    return [(value, mask, fn(geo_mid(lo, hi))) for value, mask, lo, hi in buckets(width, mantissa)]


def entries_log(width, mantissa, action, fn):
    return ["0x%x &&& 0x%x : %s(%d);" % (value, mask, action, r) for value, mask, r in log_table(width, mantissa, fn)]


def group_rows(p):
    """group_of rows: ((sparse_gap, ss_state, t_mm, family, band) as (value, mask) pairs, group); first match wins."""
    k = p["groups"]["k"]
    fam = p["groups"]["families"]
    ant, mouse = p["groups"]["ant"], p["groups"]["mouse"]
    base = {f: P.group_id(p, f, 0) for f in fam}
    first_model, last_model = model_groups(p)
    # register values of flow_family (define.p4 FLOW_FAMILY_*): back-offs after a loss, 0 and 1
    # delay, 2 + 4n loss (n: clean interval ends in a row, D19); the rows match bit 1 (D16). No
    # flow is classified loss-delay (hybrid 0): under ccfair's AQM no per-flow signal tells it
    # from loss (D11).
    by_family = {0: lambda b: base["delay"] + b,
                 2: lambda b: base["loss"] + b}
    fam_mask = 0x02

    def model(b):
        return min(first_model + b, last_model)

    rows = []  # (sparse_gap, ss_state, t_mm, family, band) as (value, mask) pairs; priority = order
    any_ = (0, 0)
    # Only a flow still in slow start (state 0, SS_ACTIVE) becomes an ant: a long-lived flow with
    # a sparse interval (many flows, a short RTT) keeps its group instead of flapping to ant.
    rows.append(((0, 0xFFFF), (0, 0xFFFF), any_, any_, any_, ant))
    rows.append((any_, (0, 0xFFFF), any_, any_, any_, mouse))
    for f in sorted(by_family):
        for b in range(k):
            rows.append((any_, any_, (0, 0xFF), (f, fam_mask), (b, 0xFF), by_family[f](b)))
        rows.append((any_, any_, (0, 0xFF), (f, fam_mask), any_, by_family[f](k - 1)))
    for b in range(k):
        rows.append((any_, any_, any_, any_, (b, 0xFF), model(b)))
    rows.append((any_, any_, any_, any_, any_, model(k - 1)))
    return rows


def model_groups(p):
    """(first, last) id of the model-based groups: the hybrid family's model kind up to its
    sub-group K - 1, the top of the group range (group_rows, retx_pass_groups)."""
    kind = p["groups"]["hybrid_kinds"].index("model")
    return P.group_id(p, "hybrid", kind), P.group_id(p, "hybrid", p["groups"]["k"] - 1)


def retx_pass_groups(p):
    """aqm_verdict's groups whose retransmissions pass below the CTV, as (value, mask) prefixes of
    the 8-bit group: every group below the first model-based one (model_groups)."""
    return prefix_cover(0, model_groups(p)[0] - 1, 8)


def model_groups_cover(p):
    """The model-based groups (model_groups) as (value, mask) prefixes of the 8-bit group: the
    rows of classifier ignore_op where, on a port with family_forget, the fall is not read (D20)."""
    return prefix_cover(*model_groups(p), 8)


def entries_group(p):
    out = []
    for r in group_rows(p):
        keys = ", ".join("0x%x &&& 0x%x" % kv for kv in r[:5])
        out.append("(%s) : set_group(%d);" % (keys, r[5]))
    return out


def prefix_cover(lo, hi, width):
    """[(value, mask)] ternary prefixes whose union is exactly lo..hi (inclusive) of `width` bits."""
    full, out = (1 << width) - 1, []
    while lo <= hi:
        size = lo & -lo if lo else 1 << width
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, full & ~(size - 1)))
        lo += size
    return out


def log_rtt_table(d):
    """log_rtt with the interval floor: the log of max(RTT, W) as the table would look it up,
    i.e. below W's bucket every RTT (and 0, which no bucket holds) gets W's bucket's value.
    Prefix entries for 0 .. start of W's bucket - 1 replace the buckets there (fewer entries);
    W's bucket and those above are unchanged. Only the P4 program floors: the C++ table of
    the ns-3 model (gen_cpp) is the plain one, its code applies the max itself."""
    rows = log_table(32, BYTES_MANTISSA, log_rtt_fn(d))
    w = d["INTERVAL_MIN_UNITS"]
    if w == 0:
        return rows
    hit = [(v, m, r) for v, m, r in rows if w & m == v]
    assert len(hit) == 1, "W falls in exactly one log_rtt bucket"
    start = hit[0][0] & hit[0][1]
    floor = [(v, m, hit[0][2]) for v, m in prefix_cover(0, start - 1, 32)] if start else []
    return floor + [(v, m, r) for v, m, r in rows if v >= start]


def log_bytes_fn(d):
    return lambda x: fine_log(x, d["FINE_PER_DECADE"]) + d["RATE_OFFSET_FINE"]


def log_rtt_fn(d):
    return lambda x: fine_log(x, d["FINE_PER_DECADE"])


def log_u_fn(d):
    return lambda x: max(0, -fine_log(x / 65536.0, d["FINE_PER_DECADE"]))


def gen_cpp(p):
    """The derived constants and the const tables as a C++ header for the ns-3 model."""
    d = derived(p)
    out = [HEADER.replace("//", "//", 1), "#pragma once", "#include <cstdint>", "",
           "namespace ccfair::gen", "{",
           "// A ternary entry: key & mask == value -> result (first match wins).",
           "struct TEntry", "{", "    uint32_t value, mask;", "    uint16_t result;", "};",
           "// A group_of row: keys sparse_gap, ss_state, t_mm, family, band.",
           "struct GroupRow", "{", "    uint16_t value[5], mask[5];", "    uint8_t group;", "};", ""]
    out += ["constexpr int64_t %s = %d;" % kv for kv in sorted(d.items())]
    out += ["constexpr int BYTES_MANTISSA = %d;" % BYTES_MANTISSA, "constexpr int U_MANTISSA = %d;" % U_MANTISSA,
            "// rtt_band as the ONOS app writes it (PolicyDelta): band b below boundary b, the number as units",
            "constexpr uint32_t RTT_BAND_BOUNDARIES[] = {%s};" % ", ".join(
                str(int(b)) for b in p["policy"]["rtt_band_boundaries_us"]), ""]

    def table(name, entries):
        out.append("constexpr TEntry %s[] = {" % name)
        out.extend("    {0x%x, 0x%x, %d}," % e for e in entries)
        out.append("};")

    table("LOG_BYTES", log_table(32, BYTES_MANTISSA, log_bytes_fn(d)))
    table("LOG_RTT", log_table(32, BYTES_MANTISSA, log_rtt_fn(d)))
    table("LOG_U", log_table(16, U_MANTISSA, log_u_fn(d)))
    out.append("constexpr GroupRow GROUP_OF[] = {")
    for r in group_rows(p):
        out.append("    {{%s}, {%s}, %d}," % (", ".join("0x%x" % kv[0] for kv in r[:5]),
                                             ", ".join("0x%x" % kv[1] for kv in r[:5]), r[5]))
    out += ["};", "} // namespace ccfair::gen"]
    return out


def main(argv):
    if len(argv) == 3 and argv[1] == "--cpp":
        path = argv[2]
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(gen_cpp(P.load())) + "\n")
        os.replace(path + ".tmp", path)
        return 0
    if len(argv) != 2:
        sys.stderr.write("usage: gen_tables.py OUTDIR | gen_tables.py --cpp OUT.h\n")
        return 2
    p = P.load()
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    d = derived(p)
    fine = d["FINE_PER_DECADE"]
    files = {}
    files["ccfair_gen.p4"] = [HEADER, "#ifndef CCFAIR_GEN_P4", "#define CCFAIR_GEN_P4"] + \
        ["#define CCFAIR_%s %d" % kv for kv in sorted(d.items())] + ["#endif"]
    files["entries_log_bytes.p4"] = [HEADER] + entries_log(32, BYTES_MANTISSA, "set_log_bytes", log_bytes_fn(d))
    files["entries_log_rtt.p4"] = [HEADER] + ["0x%x &&& 0x%x : set_log_rtt(%d);" % e for e in log_rtt_table(d)]
    # flow_tracker's interval_floor: an interval RTT below W (flow.min_interval_us) lasts W.
    files["entries_interval_floor.p4"] = [HEADER] + [
        "0x%x &&& 0x%x : floor_interval();" % vm for vm in prefix_cover(0, d["INTERVAL_MIN_UNITS"] - 1, 32)]
    files["entries_log_u.p4"] = [HEADER] + entries_log(16, U_MANTISSA, "set_nlog_u", log_u_fn(d))
    files["entries_group_of.p4"] = [HEADER] + entries_group(p)
    files["entries_retx_pass.p4"] = [HEADER] + [
        "(0, _, _, _, _, _, 1, 0x%x &&& 0x%x) : pass();" % vm for vm in retx_pass_groups(p)]
    # ignore_op (classifier): a flow queued model-based on a port with family_forget (the
    # isolated layout) keeps its count through a fall (D20); keys (cls_op, group, fell,
    # int_retx, family_forget), included after the row that reads the fall where family_forget is 0.
    files["entries_ignore_model.p4"] = [HEADER] + [
        row % vm for vm in model_groups_cover(p) for row in (
            "(CLS_END, 0x%x &&& 0x%x, 1, CCFAIR_RETX_RUN .. 255, _) : ign_up_op();",
            "(CLS_END, 0x%x &&& 0x%x, 1, _, _) : ign_read_op();")]
    # Enqueue-depth histogram buckets (Cocoa loop in the controller): first
    # match wins, bucket b holds depth < first << (shift * b), the last the rest.
    c = p["cocoa"]
    nb, first, shift = c["depth_hist_buckets"], c["depth_hist_first_cells"], c["depth_hist_shift"]
    log2_exact(nb, "cocoa.depth_hist_buckets")
    log2_exact(first, "cocoa.depth_hist_first_cells")
    lines = []
    for b in range(nb - 1):
        bound = first << (shift * b)
        if bound >= 1 << 19:
            raise SystemExit("cocoa: depth bucket %d bound %d exceeds the 19-bit queue depth" % (b, bound))
        lines.append("0x0 &&& 0x%x : set_depth_bucket(%d);" % (((1 << 19) - 1) & ~(bound - 1), b))
    files["entries_depth_bucket.p4"] = [HEADER] + lines
    for name, lines in files.items():
        path = os.path.join(out, name)
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(lines) + "\n")
        os.replace(path + ".tmp", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
