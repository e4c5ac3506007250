# SPDX-License-Identifier: Apache-2.0
"""Checks of the generated const tables (no compiler needed).

The const entries are the data plane's arithmetic (logarithms instead of
division) and its group layout, so they are tested as a ternary matcher
would use them: first matching entry wins.
"""
import math
import os
import random
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import gen_tables  # noqa: E402
from ccfair import params as P  # noqa: E402

ENTRY = re.compile(r"^(.*) : (\w+)\((.*)\);$")


def parse(path):
    rows = []
    for line in open(path):
        m = ENTRY.match(line.strip())
        if not m:
            continue
        keys = re.findall(r"0x([0-9a-f]+) &&& 0x([0-9a-f]+)", m.group(1))
        keys = [(int(v, 16), int(k, 16)) for v, k in keys]
        args = [int(a) for a in m.group(3).split(",")] if m.group(3) else []
        rows.append((keys, m.group(2), args))
    return rows


def lookup(rows, *values):
    for keys, action, args in rows:
        if all((v & mask) == val for v, (val, mask) in zip(values, keys)):
            return action, args
    return None


class GeneratedTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        assert gen_tables.main(["gen_tables.py", cls.dir]) == 0
        cls.p = P.load()
        cls.d = gen_tables.derived(cls.p)

    def rows(self, name):
        return parse(os.path.join(self.dir, "entries_%s.p4" % name))

    def test_log_bytes_tracks_log10(self):
        rows = self.rows("log_bytes")
        fine = self.d["FINE_PER_DECADE"]
        rnd = random.Random(7)
        for x in [1, 2, 3, 100, 1500, 65535, 10 ** 6, 2 ** 31 + 5] + [rnd.randrange(1, 2 ** 32) for _ in range(2000)]:
            hit = lookup(rows, x)
            self.assertIsNotNone(hit, "no entry for %d" % x)
            got = hit[1][0] - self.d["RATE_OFFSET_FINE"]
            # 5 mantissa bits: the bucket spans < 1/32 octave = 0.6 fine units
            self.assertLessEqual(abs(got - fine * math.log10(x)), 1.0, x)

    def test_rate_bin_of_known_rate(self):
        # 1 Mbit/s over an RTT of 100 ms (above the interval floor) = 12500 bytes per 97656 ticks of 1.024 us.
        b = self.rows("log_bytes")
        r = self.rows("log_rtt")
        lb = lookup(b, 12500)[1][0]
        lr = lookup(r, 97656)[1][0]
        lrate = max(0, lb - lr)
        tvf = self.p["tvf"]
        want = tvf["steps_per_decade"] * math.log10(1000.0 / tvf["rate_min_kbps"])
        self.assertLessEqual(abs((lrate >> self.d["FINE_SHIFT"]) - want), 1, (lrate, want))

    def test_log_u_is_minus_log_of_uniform(self):
        rows = self.rows("log_u")
        fine = self.d["FINE_PER_DECADE"]
        for r in [1, 7, 100, 1000, 32768, 65535]:
            n = lookup(rows, r)[1][0]
            self.assertGreaterEqual(n, 0)
            # u = r / 2^16; 4 mantissa bits: the bucket spans < 1/16 octave = 1.2 units
            self.assertLessEqual(abs(n + fine * math.log10(r / 65536.0)), 1.5, r)
        self.assertIsNone(lookup(rows, 0))  # u = 0 takes the const default (lowest bin)

    def test_log_rtt_divides_by_the_interval_floor(self):
        """log_rtt is the plain log table of max(RTT, W): every RTT below W (0 included) gets the
        value of W's bucket, RTTs from W on their own (the divisor is the interval's length)."""
        rows = self.rows("log_rtt")
        plain = gen_tables.log_table(32, gen_tables.BYTES_MANTISSA, gen_tables.log_rtt_fn(self.d))
        w = self.d["INTERVAL_MIN_UNITS"]
        self.assertEqual(w, round(self.p["flow"]["min_interval_us"] * 1000.0 / 1024))
        rnd = random.Random(3)
        for x in [0, 1, 98, 9766, w - 1, w, w + 1, 97656, 2 ** 31 + 7] + [rnd.randrange(0, 2 ** 32) for _ in range(3000)]:
            want = lookup([([(v, m)], "set_log_rtt", [r]) for v, m, r in plain], max(x, w))
            self.assertEqual(lookup(rows, x), want, x)
        self.assertLess(len(rows), len(plain), "the floor's prefix entries should replace the buckets below W")

    def test_interval_floor_entries_are_below_w(self):
        rows = self.rows("interval_floor")
        w = self.d["INTERVAL_MIN_UNITS"]
        for x in [0, 1, 98, w // 2, w - 2, w - 1]:
            self.assertEqual(lookup(rows, x), ("floor_interval", []), x)
        for x in [w, w + 1, 2 * w, 2 ** 20, 2 ** 32 - 1]:
            self.assertIsNone(lookup(rows, x), x)

    def test_prefix_cover_is_exact(self):
        rnd = random.Random(5)
        for _ in range(200):
            lo = rnd.randrange(0, 1 << 16)
            hi = rnd.randrange(lo, 1 << 16)
            cover = gen_tables.prefix_cover(lo, hi, 16)
            for x in [lo, hi, lo - 1, hi + 1] + [rnd.randrange(0, 1 << 16) for _ in range(50)]:
                inside = any(x & m == v for v, m in cover)
                self.assertEqual(inside, lo <= x <= hi, (lo, hi, x))

    def test_bad_smoothing_and_floor_are_refused(self):
        p = P.load()
        p["classifier"]["rate_smooth_intervals"] = 4
        with self.assertRaisesRegex(ValueError, "classifier.rate_smooth_intervals"):
            gen_tables.derived(p)
        p = P.load()
        p["flow"]["min_interval_us"] = p["flow"]["max_rtt_us"] + 1
        with self.assertRaisesRegex(ValueError, "flow.min_interval_us"):
            gen_tables.derived(p)

    def test_retransmissions_pass_for_every_group_but_the_model_ones(self):
        for k in (2, 4):
            p = P.load()
            p["groups"]["k"] = k
            # the model rows: after slow start (state any) with t_mm any
            model = {r[-1] for r in gen_tables.group_rows(p) if r[1] == (0, 0) and r[2] == (0, 0)}
            groups = {r[-1] for r in gen_tables.group_rows(p)}
            passes = {g for g in range(256) if any(g & m == v for v, m in gen_tables.retx_pass_groups(p))}
            self.assertEqual(passes & groups, groups - model, "k = %d" % k)
            self.assertFalse(passes & model, "k = %d" % k)

    def test_ignore_model_rows_cover_exactly_the_model_groups(self):
        # D20: ignore_op's rows that keep a model-based flow's count through a fall (family_forget)
        for k in (2, 4):
            p = P.load()
            p["groups"]["k"] = k
            model = {r[-1] for r in gen_tables.group_rows(p) if r[1] == (0, 0) and r[2] == (0, 0)}
            covered = {g for g in range(256) if any(g & m == v for v, m in gen_tables.model_groups_cover(p))}
            self.assertEqual(covered, model, "k = %d" % k)
            d = gen_tables.derived(p)
            self.assertEqual(set(range(d["FIRST_MODEL_GROUP"], d["LAST_MODEL_GROUP"] + 1)), model, "k = %d" % k)

    def test_bad_retx_run_is_refused(self):
        p = P.load()
        p["classifier"]["retx_run"] = 0
        with self.assertRaisesRegex(ValueError, "classifier.retx_run"):
            gen_tables.derived(p)

    def test_bad_ignore_up_is_refused(self):
        for bad in (0, 256):
            p = P.load()
            p["classifier"]["ignore_up"] = bad
            with self.assertRaisesRegex(ValueError, "classifier.ignore_up"):
                gen_tables.derived(p)

    def test_bad_fall_shift_is_refused(self):
        p = P.load()
        p["classifier"]["fall_shift"] = 0
        with self.assertRaisesRegex(ValueError, "classifier.fall_shift"):
            gen_tables.derived(p)

    def test_group_table_follows_params_layout(self):
        rows = self.rows("group_of")
        p = self.p
        k = p["groups"]["k"]
        g = lambda fam, sub: P.group_id(p, fam, sub)  # noqa: E731
        # (sparse_gap, ss_state, t_mm, family, band)
        self.assertEqual(lookup(rows, 0, 0, 0, 0, 0)[1][0], p["groups"]["ant"])
        # a sparse interval of a long-lived flow (slow start done or ended now) keeps its group
        self.assertEqual(lookup(rows, 0, 1, 0, 0, 0)[1][0], g("delay", 0))
        self.assertEqual(lookup(rows, 0, 2, 0, 2, 1)[1][0], g("loss", 1))
        self.assertEqual(lookup(rows, 5, 0, 0, 2, 0)[1][0], p["groups"]["mouse"])
        for band in range(k):
            self.assertEqual(lookup(rows, 5, 1, 0, 0, band)[1][0], g("delay", band))
            self.assertEqual(lookup(rows, 5, 2, 0, 2, band)[1][0], g("loss", band))
            # flow_family 1 is one back-off after a loss: still delay-based (D16; no loss-delay, D11)
            self.assertEqual(lookup(rows, 5, 1, 0, 1, band)[1][0], g("delay", band))
            self.assertEqual(lookup(rows, 5, 1, 3, 2, band)[1][0], g("hybrid", 1 + min(band, k - 2)))
            # a loss-based flow's clean-interval run (2 + 4n, define.p4, D19) keeps bit 1: loss
            for n in range(p["classifier"]["family_forget_intervals"]):
                self.assertEqual(lookup(rows, 5, 2, 0, 2 + 4 * n, band)[1][0], g("loss", band))
        self.assertNotIn(g("hybrid", 0), {r[-1] for r in gen_tables.group_rows(p)})
        # a band the controller did not configure falls into the last sub-group
        self.assertEqual(lookup(rows, 5, 1, 0, 0, 9)[1][0], g("delay", k - 1))


if __name__ == "__main__":
    unittest.main()
