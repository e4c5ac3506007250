# SPDX-License-Identifier: Apache-2.0
"""The shared test vectors (testdata/vectors/*.json), replayed on the switch: one PTF test per
vector, generated when the module is imported. The ns-3 model's suite runs the same files;
lib/vectors.py translates them and lists what a switch cannot reproduce (logged per test).

Test parameters: vectors (directory, default testdata/vectors), vector_time_scale (default 10)."""
import logging
import os
import time

from ptf.testutils import group

import contract as C
import packets as K
import vectors as V
from base_test import CcfairTest, IG, EG, P, param

DROPS, LIMIT_DROPS = EG + ".telemetry.pg_drops", EG + ".aqm.q_limit_drops"
RTT, PKTS = IG + ".flow_tracker.flow_rtt", IG + ".flow_tracker.flow_pkts"
# Register and timing reads from a live switch are not the model's exact clock: an RTT range
# from a vector is widened by this share (and at least RTT_SLACK_US) on each side.
RTT_TOLERANCE, RTT_SLACK_US = 0.2, 2000


class _VectorTest(CcfairTest):
    """Runs one vector's plan (subclasses set `path`); no runTest here."""
    path = None

    def run_vector(self):
        params_scale = float(param("vector_time_scale", V.DEFAULT_SCALE))
        plan = V.translate(V.load(self.path), self.params, scale=params_scale)
        for where, what, why in plan.unsupported:
            logging.info("vector %s: not checked on the switch: step %s %s: %s", plan.name, where, what, why)
        if not plan.checks:
            self.skipTest("SKIPPED: vector %s (none of its %d expectations can be reproduced on a switch: %s)"
                          % (plan.name, len(plan.unsupported), "; ".join(sorted({w for _, w, _ in plan.unsupported}))))
        src_port = self.ports[0]
        out = self.shaped_port if plan.shaped else self.ports[1]
        self.edge_port(src_port, default_rtt_us=plan.ingress_default_rtt_us)
        if plan.fabric_out:
            self.insert(IG + ".port_cfg.port_cfg", {"ig_port": out}, IG + ".port_cfg.set_fabric_port")
            self.egress_cfg(out, role=self.params["ports"]["role_fabric"], **plan.egress)
        else:
            self.edge_port(out, default_rtt_us=plan.ingress_default_rtt_us)
            self.egress_cfg(out, **plan.egress)
        self.egress = dict(plan.egress)
        self.out = out
        self.l2(1, out)
        self.l2(0, src_port)
        if plan.tvf is not None:
            for g in range(len(self.params_group_names())):
                self.tvf(g, plan.tvf.__getitem__)
        if plan.aqm:
            self.aqm(out, 0, plan.aqm.get("target_delay_us", self.params["aqm"]["target_delay_us"]),
                     plan.aqm.get("limit_cells", 1 << 19), plan.aqm.get("ecn"))
        if plan.rtt_boundary_us is not None:
            band = EG + ".classifier.rtt_band"
            b = plan.rtt_boundary_us
            self.insert(band, {"rtt_us": (0, b)}, EG + ".classifier.set_rtt_band", {"band": 0}, priority=10)
            self.insert(band, {"rtt_us": (b + 1, 0xFFFFFFFF)}, EG + ".classifier.set_rtt_band", {"band": 1},
                        priority=10)
        self.enable_digest("reclass_digest_t")
        self.fids = {}
        self.ports_of = {"fwd": src_port, "rev": out}
        t0 = time.time()
        for t_us, kind, args in plan.actions:
            self._sleep_until(t0, t_us)
            getattr(self, "_do_" + kind)(plan, t0, t_us, args)
        logging.info("vector %s: %d expectations checked, %d not reproducible on the switch",
                     plan.name, plan.checks, len(plan.unsupported))

    def params_group_names(self):
        return P.group_names(self.params)

    @staticmethod
    def _sleep_until(t0, t_us):
        left = t0 + t_us * 1e-6 - time.time()
        if left > 0:
            time.sleep(left)

    # -- actions ------------------------------------------------------------------------------
    def _frame(self, plan, a, k):
        src, sport, dst, dport = plan.flows[a["flow"]]
        macs = (K.HOST_MAC[0], K.HOST_MAC[1])
        if a["dir"] == "rev":
            src, sport, dst, dport = dst, dport, src, sport
            macs = macs[::-1]
        ip = K.IP(src=src, dst=dst, ttl=64, id=k & 0xFFFF, tos=0x02 if a["ect"] else 0)
        if a["proto"] == "udp":
            l4 = K.UDP(sport=sport, dport=dport)
            body = a["size"] - 20 - 8
        else:
            opt = a["size"] - 20 - a["payload"] - 20
            l4 = K.TCP(sport=sport, dport=dport, flags=a["flags"], seq=1 + 1460 * k, ack=1, window=8192,
                       options=[("NOP", None)] * opt)
            body = a["payload"]
        return K.Ether(src=macs[0], dst=macs[1]) / ip / l4 / K.Raw(b"\x00" * max(0, body))

    def _drops(self):
        groups = range(len(self.params_group_names()))
        return self.pg_packets(DROPS, self.out, groups)

    def _do_train(self, plan, t0, t_us, a):
        port = self.ports_of[a["dir"]]
        drops0 = self._drops() if a["verdicts"] else None
        for k in range(a["n"]):
            self._sleep_until(t0, t_us + k * a["every_us"])
            self.send(port, self._frame(plan, a, k))
        if a["flow"] not in self.fids:
            for d in self.reclass(1.0):
                if d["old_group"] == 0xFF:
                    self.fids[a["flow"]] = d["flow_id"]
        received = []
        if a["dir"] == "fwd" and (a["verdicts"] or any(a["pvs"])):
            received = [p for p in self.recv_all(self.out, timeout=0.3 if a["drain"] else 1.0)
                        if p.haslayer(K.IP) and p[K.IP].src == plan.flows[a["flow"]][0]]
        if a["verdicts"]:
            dropped = self._drops() - drops0
            want = a["verdicts"].get("drop_proactive", 0)
            self.assertEqual(dropped, want, "%s: %d packets dropped in the train at %d us, expected %d"
                             % (plan.name, dropped, t_us, want))
            if a["dir"] == "fwd":
                self.assertEqual(len(received), a["n"] - want, "%s: %d of %d packets left the switch"
                                 % (plan.name, len(received), a["n"]))
        for k, rng in enumerate(a["pvs"]):
            if rng is None:
                continue
            self.assertLess(k, len(received), "%s: packet %d of the train never left" % (plan.name, k))
            pv = received[k][K.CcfairShim].pv
            self.assertTrue(rng[0] <= pv <= rng[1], "%s: PV %d outside %s" % (plan.name, pv, rng))
        if a["group_after"] is not V.MISSING:
            self.assertEqual(self._group(a["flow"]), a["group_after"], "%s: group after the train at %d us"
                             % (plan.name, t_us))

    def _group(self, flow):
        fid = self.fids.get(flow)
        if fid is None:
            return None
        valid, _port, grp = self.flow_group(fid)
        return grp if valid else None

    def _do_check(self, plan, t0, t_us, a):
        c = a["checks"]
        fid = self.fids.get(a["flow"])
        if "group" in c:
            self.assertEqual(self._group(a["flow"]), c["group"], "%s: group at %d us" % (plan.name, t_us))
        if len(c) > ("group" in c):
            self.assertIsNotNone(fid, "%s: flow %s is not tracked" % (plan.name, a["flow"]))
        if "rtt_us" in c:
            lo, hi = c["rtt_us"]
            lo, hi = min(lo * (1 - RTT_TOLERANCE), lo - RTT_SLACK_US), max(hi * (1 + RTT_TOLERANCE), hi + RTT_SLACK_US)
            rtt = self.read_register(RTT, fid)
            self.assertTrue(lo <= rtt <= hi, "%s: RTT %d us outside [%d, %d]" % (plan.name, rtt, lo, hi))
        if "interval_pkts" in c:
            self.assertEqual(self.read_register(PKTS, fid), c["interval_pkts"])
        if "aggr" in c:
            self.assertEqual(self.read_register(EG + ".classifier.flow_aggr", fid)[1], c["aggr"])  # hi: growth count
        if "bwest" in c:
            self.assertEqual(self.read_register(EG + ".classifier.flow_bwest", fid)[1], c["bwest"])  # hi: patterns
        if "queue_ctv" in c:
            q, (lo, hi) = c["queue_ctv"]
            ctv = self.read_register(EG + ".aqm.q_ctv", C.queue_index(self.profile, self.dev_port(self.out), q))
            self.assertTrue(lo <= ctv <= hi, "%s: CTV %d outside [%d, %d]" % (plan.name, ctv, lo, hi))

    def _do_fair_rate(self, plan, t0, t_us, a):
        self.egress["fair_rate_bin"] = a["bin"]
        role = self.params["ports"]["role_fabric" if plan.fabric_out else "role_edge"]
        self.egress_cfg(self.out, modify=True, role=role, **self.egress)


def _class_name(stem):
    return "Vector_" + "".join(w.capitalize() for w in stem.replace("_", "-").split("-"))


def _make(path):
    stem = os.path.basename(path)[:-5]
    try:
        doc = V.load(path).get("description", "").split(". ")[0]
    except ValueError:
        doc = "(unreadable vector)"

    def runTest(self):
        self.run_vector()
    return group("vectors")(type(_class_name(stem), (_VectorTest,), {
        "path": path, "runTest": runTest, "__doc__": "%s: %s" % (stem, doc), "__module__": __name__}))


globals().update({c.__name__: c for c in map(_make, V.vector_files(param("vectors", V.VECTOR_DIR)))})
