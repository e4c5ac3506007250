# SPDX-License-Identifier: Apache-2.0
"""The shared test vectors (testdata/vectors/*.json), replayed on the switch: one PTF test per
vector, generated when the module is imported. The ns-3 model's suite runs the same files;
lib/vectors.py translates them, lists what a switch cannot reproduce and the known
divergences between the model and the program (both logged per test).

Every packet of a vector is sent with its own IP id, so each outcome is checked per packet:
forwarded (out of the port the vector's direction leads to), dropped (missing, and counted in
pg_drops), CE-marked, and on a fabric out port its PV and group in the shim. Group and
register checks read the flow's slot, computed from the 5-tuple as the program does
(base_test.flow_slot). Held packets (the vector's queue, released by ``dequeue`` steps) are
held on BMv2 by the out queue's rate limit: a blocker frame (not IP: no AQM, no classifier)
leaves at once and sets the queue's clock, and each held packet is pushed with the rate that
puts its departure at its release time (``_push_held``). A vector whose every failed expectation
concerns packets sent more than LATE_S behind the schedule (the host lost it) runs again from a
clean set-up, at most ATTEMPTS times; one failure about packets sent on time fails the test.

Test parameters: vectors (directory, default testdata/vectors), vector_time_scale (the
smallest time scale, default 10)."""
import logging
import os
import sys
import time

from ptf.testutils import group

import contract as C
import packets as K
import vectors as V
from base_test import CcfairTest, IG, EG, P, param

DROPS, MARKS, LIMIT_DROPS = EG + ".telemetry.pg_drops", EG + ".telemetry.pg_marks", EG + ".aqm.q_limit_drops"
RTT, PKTS, BYTES, DEADLINE = (IG + ".flow_tracker.flow_rtt", IG + ".flow_tracker.flow_pkts",
                              IG + ".flow_tracker.flow_bytes", IG + ".flow_tracker.flow_deadline")
SIG, CTV, MAX_DELAY = IG + ".flow_tracker.flow_sig", EG + ".aqm.q_ctv", EG + ".aqm.q_max_delay"
PKTS_PG = EG + ".telemetry.pg_pkts"
RTT_PENDING = 1 << 31
BLOCKER_TYPE = 0x88B7     # not IPv4, shim or update: bridged by L2, no shim, so no AQM or classifier
PROBE = ("10.200.0.1", 1, "10.200.0.2", 2)
PROBE_MAC = "02:00:00:00:00:99"   # no l2_exact entry: the probe is tracked, then dropped
# A measured RTT from a live switch is not the model's exact clock: allowed error (share, real us).
RTT_TOLERANCE, RTT_SLACK_REAL_US = 0.05, 15000
WAIT_PKT_S = 0.5          # how long a packet may take to come out before it counts as missing
GROUP_POLL_S = 0.3        # group updates come back through a mirrored packet: poll this long
SEND_GAP_S = V.BURST_PACE_REAL_US * 1e-6
ANCHOR_LEAD_S = 0.04      # a hold's blocker goes this long before the held train (its round trip fits)
HELD_WINDOW = 16          # held packets pushed ahead of the switch's ingress at most
LATE_S = 0.02             # a run whose packets went out later than this behind the schedule is off it
ATTEMPTS = 3              # runs of a vector that failed off the schedule (run_vector)


class _VectorTest(CcfairTest):
    """Runs one vector's plan (subclasses set `path`); no runTest here."""
    path = None

    # -- set-up ---------------------------------------------------------------------------------
    def run_vector(self):
        base = float(param("vector_time_scale", V.DEFAULT_SCALE))
        bmv2 = self.profile == "bmv2"
        plan = self.plan = V.translate(V.load(self.path), self.params, scale=base, can_hold=bmv2)
        for where, what, why in plan.unsupported:
            logging.info("vector %s: not checked on a switch: step %s %s: %s", plan.name, where, what, why)
        for where, what, why in plan.divergences:
            logging.info("vector %s: model/program divergence, not checked: step %s %s: %s",
                         plan.name, where, what, why)
        for note in plan.notes:
            logging.info("vector %s: %s", plan.name, note)
        for where, what, how in plan.translated:
            logging.info("vector %s: step %s %s: %s", plan.name, where, what, how)
        if plan.whole_divergence:
            self._skip("the program does not have the model rule this vector tests: " + plan.whole_divergence)
        if plan.too_tight and bmv2:
            self._skip("not reproducible on BMv2: " + plan.too_tight)
        if not plan.checks:
            self._skip("none of its expectations can be reproduced on a switch: %s"
                       % "; ".join(sorted({w for _, w, _ in plan.unsupported})))
        self.id_base = 0
        for attempt in range(1, ATTEMPTS + 1):
            self.errors = []       # (message, how far behind the schedule what it concerns was sent, s)
            self.late = 0.0        # how far behind the schedule a packet was sent, at most (s)
            self.late_of = {}      # packet index -> how far behind the schedule it was sent (s)
            try:
                self._setup(plan)
                self._run(plan)
                self._evaluate(plan)
            except self.failureException as e:   # the replay lost its schedule (_confirm, _anchor, _reset_slots)
                self.errors.append(("the replay stopped: %s" % e, float("inf")))
            logging.info("vector %s (time scale %.1f, attempt %d): %d expectations checked, %d not reproducible on "
                         "a switch, %d model/program divergences; packets sent up to %.1f ms behind the schedule",
                         plan.name, plan.scale, attempt, plan.checks, len(plan.unsupported), len(plan.divergences),
                         self.late * 1e3)
            # Only when every failure concerns packets sent late (a held packet pushed late queues shorter
            # than the vector says and misses the PV gate; a late packet crosses an interval boundary): the
            # host lost the schedule, not the program its verdict. One failure on time fails the test.
            if not self.errors or attempt == ATTEMPTS or any(late <= LATE_S for _, late in self.errors):
                break
            logging.warning("vector %s attempt %d: %d expectations failed, each about packets sent more than %.0f ms "
                            "behind the schedule: running it again from a clean set-up:\n  %s", plan.name, attempt,
                            len(self.errors), LATE_S * 1e3, "\n  ".join(self._describe()))
            self._drain()
            self.delete_written()
            self.reset_queue_state()
            self.id_base += len(plan.packets)   # what is left of this attempt cannot pass for the next one's
        if self.errors:
            self.fail("vector %s (time scale %.1f, %d attempt%s): %d of %d expectations failed:\n  %s"
                      % (plan.name, plan.scale, attempt, "" if attempt == 1 else "s", len(self.errors), plan.checks,
                         "\n  ".join(self._describe())))

    def _describe(self):
        return ["%s (%s)" % (m, "the replay lost its schedule" if late == float("inf") else
                             "packets sent up to %.1f ms behind the schedule" % (late * 1e3)) for m, late in self.errors]

    def _drain(self, quiet_s=1.0, limit_s=15.0):
        """Before another attempt: wait until the switch has sent nothing for `quiet_s` (held packets
        keep the departure times BMv2 gave them when they were pushed)."""
        deadline = time.time() + limit_s
        while time.time() < deadline:
            res = self.dataplane.poll(port_number=None, timeout=quiet_s)
            if not isinstance(res, self.dataplane.PollSuccess):
                return

    def _skip(self, reason):
        sys.stderr.flush()
        lead = "\n" if os.path.sameopenfile(1, 2) else ""
        sys.stdout.write("%sSKIPPED: %s (%s)\n" % (lead, self, reason))
        sys.stdout.flush()
        self.skipTest(reason)

    def _setup(self, plan):
        self.src = self.ports[0]
        self.out = next(p for p in self.ports[1:] if p != self.shaped_port)
        src, out = self.src, self.out
        self.edge_port(src, default_rtt_us=plan.default_rtt_units)
        role = self.params["ports"]["role_fabric" if plan.fabric_out else "role_edge"]
        if plan.fabric_out:
            self.insert(IG + ".port_cfg.port_cfg", {"ig_port": out}, IG + ".port_cfg.set_fabric_port")
        else:
            self.edge_port(out, default_rtt_us=plan.default_rtt_units)
        self.egress = dict(plan.egress, role=role)
        self.egress_cfg(out, **self.egress)
        self.tvf_profile = 0
        self.l2(1, out)
        self.l2(0, src)
        ngroups = P.num_groups(self.params)
        if plan.tvf is not None:
            for g in range(ngroups):
                self.tvf(g, plan.tvf.__getitem__)
        for i, pv in enumerate(plan.forced_pvs):
            for g in range(ngroups):
                self.tvf(g, lambda b, pv=pv: pv, profile=i + 1)
        limit = 1 << 19
        if "limit_pkts" in plan.aqm:
            if self.profile == "bmv2":       # BMv2's enqueue depth counts packets
                limit = plan.aqm["limit_pkts"]
            else:
                pol = self.params["policy"]
                cell = pol.get("cell_bytes_" + self.profile, pol.get("cell_bytes_tofino", 80))
                limit = plan.aqm["limit_pkts"] * -(-pol.get("buffer_pkt_bytes", 1500) // cell)
        self.aqm_args = {"target_delay_us": plan.aqm["target_delay_units"], "limit_cells": limit,
                         "ecn": plan.aqm["ecn"], "ctv_lo": 0, "ctv_hi": 0xFFFF}
        self.aqm(out, 0, **self.aqm_args)
        if plan.rtt_boundary_units is not None:
            band, b = EG + ".classifier.rtt_band", plan.rtt_boundary_units
            self.insert(band, {"rtt_us": (0, b)}, EG + ".classifier.set_rtt_band", {"band": 0}, priority=10)
            self.insert(band, {"rtt_us": (b + 1, 0xFFFFF)}, EG + ".classifier.set_rtt_band", {"band": 1},
                        priority=10)
        self.qidx = self.queue_index(out, 0)
        self.write_register(CTV, self.qidx, 0)          # registers outlive tests
        self.write_register(MAX_DELAY, self.qidx, 0)
        if self.profile == "bmv2":
            self.bmv2.set_queue_rate(out, 0, priority=0)
            self.addCleanup(self.bmv2.set_queue_rate, out, 0, 0)
            if plan.max_held + 8 > 64:                   # BMv2's default queue depth
                self.bmv2.set_queue_depth(out, plan.max_held + 16, priority=0)
                self.addCleanup(self.bmv2.set_queue_depth, out, 64, 0)
        self.rate = 0
        self.passed = set()    # packets a barrier saw counted in egress (the dropped ones never come out)
        qlen = self.dataplane.qlen
        self.dataplane.set_qlen(1 << 16)
        self.addCleanup(self.dataplane.set_qlen, qlen)
        self._reset_slots(plan)
        # baselines
        groups = range(P.num_groups(self.params))
        self.base = {"drops": self.pg_packets(DROPS, out, groups), "marks": self.pg_packets(MARKS, out, groups),
                     "limit": self.read_counter(LIMIT_DROPS, self.qidx)[0],
                     "not_tcp": self.untracked(C.UNTRACKED_NOT_TCP),
                     "enter_src": self.flows_entered(src),
                     "pkts": {port: self.pg_packets(PKTS_PG, port, groups) for port in (src, out)}}
        self.dataplane.flush()
        self.frames = {p.k: bytes(self._frame(plan, p)) for p in plan.packets}
        self.got = {}          # packet index -> (port, Ether, time)
        self.blockers = 0
        self.sent = {}         # packet index -> wall time sent
        self.anchor = None     # wall time the next held packet's release counts from (None: no hold)
        self.prev = None       # the held packet pushed last, if its interval counters are known
        self.unconfirmed = []  # held packets pushed since the last one the ingress was seen to take
        self.last_send = 0.0
        self.pending = []      # held packets pushed, wall release time
        self.udp_sent = {}
        self.counts = []       # (where, released packets, count) of dequeue steps

    def _slot(self, flow):
        src, sport, dst, dport = self.plan.flows[flow]
        return self.flow_slot(src, dst, sport, dport, 17 if self.plan.flow_proto.get(flow) == "udp" else 6)

    def _reset_slots(self, plan):
        """Registers outlive tests and every vector uses the same 5-tuples: give each TCP flow's slot
        a last-seen time half the clock away from now (expired: its first packet claims it) and no
        RTT (a reused slot keeps the previous occupant's RTT, docs/dataplane.md). The switch's clock
        comes from a probe flow's slot."""
        slots = {self._slot(f)[0] for f, proto in plan.flow_proto.items() if proto == "tcp"}
        a, sp, b, dp = PROBE
        idx, sig = self.flow_slot(a, b, sp, dp)
        while idx in slots:
            sp += 1
            idx, sig = self.flow_slot(a, b, sp, dp)
        self.write_register(SIG, idx, [sig, 0])
        self.send(self.src, K.Ether(src=K.HOST_MAC[0], dst=PROBE_MAC) / K.IP(src=a, dst=b) /
                  K.TCP(sport=sp, dport=dp, flags="A") / K.Raw(b"\x00" * 100))
        deadline = time.time() + 2
        while True:
            _sig, seen = self.read_register(SIG, idx)
            if seen or time.time() > deadline:
                break
            time.sleep(0.005)
        self.assertTrue(seen, "the probe packet did not reach the flow tracker (slot %d)" % idx)
        for f, proto in plan.flow_proto.items():
            if proto == "tcp":
                fi = self._slot(f)[0]
                self.write_register(SIG, fi, [0, (seen + 0x8000) & 0xFFFF])
                self.write_register(RTT, fi, 0)

    def _frame(self, plan, p):
        src, sport, dst, dport = plan.flows[p.flow]
        macs = (K.HOST_MAC[0], K.HOST_MAC[1])
        if p.dir == "rev":
            src, sport, dst, dport = dst, dport, src, sport
            macs = macs[::-1]
        ip = K.IP(src=src, dst=dst, ttl=64, id=(self.id_base + p.k + 1) & 0xFFFF, tos=0x02 if p.ect else 0)
        if p.proto == "udp":
            l4 = K.UDP(sport=sport, dport=dport)
            body = p.size - 20 - 8
        else:
            opt = p.size - 20 - p.payload - 20
            l4 = K.TCP(sport=sport, dport=dport, flags=p.flags, seq=p.seq, ack=1, window=8192,
                       options=[("NOP", None)] * opt)
            body = p.payload
        return K.Ether(src=macs[0], dst=macs[1]) / ip / l4 / K.Raw(b"\x00" * max(0, body))

    # -- the dataplane -------------------------------------------------------------------------------
    def _collect(self, timeout=0.0):
        """Take every frame the switch sent so far (waiting up to `timeout` for the first)."""
        res = self.dataplane.poll(port_number=None, timeout=timeout)
        while isinstance(res, self.dataplane.PollSuccess):
            self._take(res)
            res = self.dataplane.poll(port_number=None, timeout=0)

    def _take(self, res):
        pkt = K.Ether(res.packet)
        if pkt.type == BLOCKER_TYPE:
            self.blockers += 1
            return
        if not pkt.haslayer(K.IP):
            return
        k = (pkt[K.IP].id - 1 - self.id_base) & 0xFFFF
        if 0 <= k < len(self.plan.packets) and self.plan.flows[self.plan.packets[k].flow][0] in (
                pkt[K.IP].src, pkt[K.IP].dst):
            if k in self.got:
                self._error("packet %d (step %d) came out twice" % (k, self.plan.packets[k].step),
                            self.late_of.get(k, self.late))
            self.got[k] = (res.port, pkt, res.time)

    def _sleep_until(self, wall):
        while True:
            left = wall - time.time()
            if left <= 0:
                return
            self._collect(min(left, 0.002))

    def _wait_for(self, ks, limit_s=WAIT_PKT_S):
        """Wait until the packets `ks` that are expected to come out did, and until the ones expected
        to be dropped have passed egress (_barrier), at most `limit_s`."""
        deadline = time.time() + limit_s
        want = [k for k in ks if self.plan.packets[k].verdict in (None, "forward", "mark")]
        while any(k not in self.got for k in want) and time.time() < deadline:
            self._collect(0.005)
        if any(self.plan.packets[k].verdict == "drop" for k in ks):
            self._barrier(deadline)

    def _barrier(self, deadline):
        """Wait until egress has counted (pg_pkts, every packet with a shim) every packet sent so far
        that is not held: a dropped packet never comes out, this says it was decided."""
        now = time.time()
        want = {self.src: 0, self.out: 0}
        counted = []
        for k in self.sent:
            p = self.plan.packets[k]
            if p.release is None or self.t0 + p.release * 1e-6 <= now:
                want[self.out if p.dir == "fwd" else self.src] += 1
                counted.append(k)
        groups = range(P.num_groups(self.params))
        for port, n in want.items():
            while self.pg_packets(PKTS_PG, port, groups) - self.base["pkts"][port] < n:
                if time.time() >= deadline:
                    return
                self._collect(0.005)
        self.passed.update(counted)

    # -- sending ---------------------------------------------------------------------------------------
    def _use_profile(self, p):
        """The TVF profile `p` is forced to (0: none) in the out port's configuration. Called before
        `p`'s time, and before the blocker of a hold it starts: the switch waits for egress and writes
        a table, tens of ms that must not come out of a hold (the packet would be pushed late, queue
        shorter than the vector says, and miss the PV gate)."""
        want = 0
        if p.force_pv is not None:
            want = self.plan.forced_pvs.index(p.force_pv) + 1
        if want != self.tvf_profile:
            # the profile is read in egress: the packets before must have passed it with the old one
            # (known for those that came out or that a barrier counted: no counter reads for them)
            left = [k for k in self.sent if k not in self.got and k not in self.passed]
            if left:
                self._wait_for(left)
            if any(k not in self.got and k not in self.passed for k in self.sent):
                self._barrier(time.time() + WAIT_PKT_S)
            self.egress_cfg(self.out, modify=True, **dict(self.egress, tvf_profile=want))
            self.tvf_profile = want

    def _send(self, p):
        port = self.src if p.dir == "fwd" else self.out
        self._use_profile(p)
        if p.proto == "udp":
            self.udp_sent[p.flow] = self.udp_sent.get(p.flow, 0) + 1
        self.sent[p.k] = self.last_send = time.time()
        late = self.late_of[p.k] = self.last_send - (self.t0 + p.t * 1e-6)
        self.late = max(self.late, late)
        logging.debug("vector %s: packet %d (step %d) sent %.1f ms behind the schedule", self.plan.name, p.k,
                      p.step, late * 1e3)
        self.send(port, self.frames[p.k])

    def _set_rate(self, pps):
        if pps != self.rate:
            self.bmv2.set_queue_rate(self.out, pps, priority=0)
            self.rate = pps

    def _anchor(self):
        """Start a hold: a blocker frame leaves the idle queue at once (rate 0), which sets the
        queue's last departure; the next held packet's departure counts from it."""
        self._set_rate(0)
        n = self.blockers
        ts = time.time()
        self.send(self.src, K.Ether(src=K.HOST_MAC[0], dst=K.HOST_MAC[1], type=BLOCKER_TYPE) / K.Raw(b"\x00" * 46))
        deadline = ts + 2
        while self.blockers == n and time.time() < deadline:
            self._collect(0.002)
        self.assertGreater(self.blockers, n, "the blocker frame did not come out of port %d" % self.out)
        # it left when BMv2 had taken it in: ingress takes about a millisecond; what else its round
        # trip took (egress, the veth, PTF's sniffer) came after
        self.anchor = ts + min((time.time() - ts) / 2, 0.002)
        self.prev = None
        self.unconfirmed = []

    def _confirm(self, p):
        """Wait until `p` has passed ingress. A TCP packet: its slot holds the interval counters the
        program's rule gives after it, or after a packet of its flow pushed since
        (lib/vectors.program_intervals); a UDP packet: untracked[not TCP] has counted it."""
        if not p.tcp:
            n = sum(1 for k in self.sent if k <= p.k and not self.plan.packets[k].tcp)
            deadline = time.time() + 2
            while self.untracked(C.UNTRACKED_NOT_TCP) - self.base["not_tcp"] < n:
                if time.time() > deadline:
                    self.fail("packet %d (step %d) did not reach the switch's ingress" % (p.k, p.step))
                time.sleep(0.001)
            return
        i = self._slot(p.flow)[0]
        ok = {q.counters for q in self.plan.packets if q.flow == p.flow and q.k >= p.k and q.k in self.sent}
        deadline = time.time() + 2
        while (self.read_register(PKTS, i), self.read_register(BYTES, i)) not in ok:
            if time.time() > deadline:
                self.fail("packet %d (step %d) did not reach the switch's ingress, or the slot's interval counters "
                          "(flow_pkts, flow_bytes) = %s differ from what the program's rule gives with the vector's "
                          "times %s: the switch ran more than the vector's margin off the schedule (time scale %.1f)"
                          % (p.k, p.step, (self.read_register(PKTS, i), self.read_register(BYTES, i)), p.counters,
                             self.plan.scale))
            time.sleep(0.001)

    def _push_held(self, p):
        """Push held packet `p` so that BMv2 sends it at its release time: each push departs at
        max(now, previous departure + 1/rate) (BMv2 QueueingLogicPriRL), so the rate is set to
        1 / (release - previous departure), the nearest whole rate (a long hold ends up to a few
        tens of ms off its release; the vectors' holds leave far more), before the push (0: with
        the previous one), once the
        switch has taken in the push before (the rate applies when a packet enters the queue)."""
        if self.anchor is None:
            self._anchor()
        release = self.t0 + p.release * 1e-6
        gap = release - self.anchor
        pps = 0 if gap < 0.0005 else max(1, int(round(1.0 / gap)))
        if pps != self.rate and self.prev is not None:
            self._confirm(self.prev)
        if len(self.unconfirmed) >= HELD_WINDOW:
            # flow control: a long burst outruns BMv2 on busy cores and overflows its receive buffer
            self._confirm(self.unconfirmed[-HELD_WINDOW])
            self.unconfirmed = self.unconfirmed[-HELD_WINDOW + 1:]
        self._set_rate(pps)
        self._send(p)
        self.anchor = self.anchor + (1.0 / pps if pps else 0)
        self.prev = p if p.counters is not None or not p.tcp else None
        if self.prev is not None:
            self.unconfirmed.append(p)
        self.pending.append((p.k, self.anchor))

    # -- the timeline --------------------------------------------------------------------------------
    def _run(self, plan):
        pk = plan.packets
        first = plan.actions[0]
        if first[1] == "train":
            self._use_profile(pk[first[2]["pkts"][0]])  # a forced PV's profile before the clock starts
        if first[1] == "train" and pk[first[2]["pkts"][0]].release is not None:
            # the vector starts with a hold: its blocker first, the clock after it (a slow round trip
            # must not eat the hold)
            self._anchor()
            self.t0 = time.time() + ANCHOR_LEAD_S
        else:
            self.t0 = time.time() + 0.05
        for n, (t, kind, args) in enumerate(plan.actions):
            # a check must not hold up the next packets (a late packet can cross an interval boundary)
            nxt = next((a for a in plan.actions[n + 1:] if a[1] in ("train", "release")), None)
            self.next_action = self._start_of(*nxt) if nxt else self.t0 + t * 1e-6 + 1000
            if kind == "train":
                ps = [pk[k] for k in args["pkts"]]
                self._use_profile(ps[0])
                if ps[0].release is not None and self.anchor is None:
                    self._sleep_until(self._start_of(t, kind, args))
                    self._anchor()
                for p in ps:
                    self._use_profile(p)
                    # never closer than SEND_GAP_S, also when behind the schedule: a burst overflows
                    # BMv2's receive buffer
                    self._sleep_until(max(self.t0 + p.t * 1e-6, self.last_send + SEND_GAP_S))
                    if p.release is not None:
                        self._push_held(p)
                    else:
                        self._send(p)
                continue
            self._sleep_until(self.t0 + t * 1e-6)
            getattr(self, "_do_" + kind)(plan, t, args)
            if nxt is not None and nxt[1] == "train" and not self.pending:
                self._use_profile(pk[nxt[2]["pkts"][0]])  # now, not in the next train's time

    def _start_of(self, t, kind, args):
        """Wall time an action starts: a train that starts a hold sends its blocker ANCHOR_LEAD_S
        before its first packet (the hold then lasts the nearest 1/R to its release: _push_held)."""
        p = self.plan.packets[args["pkts"][0]] if kind == "train" else None
        if p is None or p.release is None:
            return self.t0 + t * 1e-6
        return self.t0 + p.t * 1e-6 - ANCHOR_LEAD_S

    def _budget(self):
        """How long a check may wait: until shortly before the next action (a late packet can cross an
        interval boundary), at least 20 ms."""
        return max(self.next_action - time.time() - 0.005, 0.02)

    def _settle(self, after):
        """Before reading registers: the packets sent so far that are not held have come out."""
        if after is None:
            return
        now = time.time()
        ks = [k for k in self.sent if k <= after and (self.plan.packets[k].release is None
                                                       or self.t0 + self.plan.packets[k].release * 1e-6 <= now)]
        self._wait_for(ks, min(WAIT_PKT_S, self._budget()))

    def _do_release(self, plan, t, args):
        ks = args["pkts"]
        self._wait_for(ks, min(WAIT_PKT_S, self._budget()))
        self.pending = [(k, r) for k, r in self.pending if k not in ks]
        if args["held"] and not self.pending:
            self._set_rate(0)
            self.anchor = None
        where = "step %s (dequeue at %d us)" % (args["step"], t / plan.scale)
        if "count" in args:    # an outcome: checked with the others at the end
            self.counts.append((where, ks, args["count"]))
        if "ctv" in args:
            ctv = self.read_register(CTV, self.qidx)
            lo, hi = args["ctv"]
            self._expect(lo <= ctv <= hi, "%s: CTV %d outside [%d, %d]" % (where, ctv, lo, hi))
        if "sojourn_us" in args:
            d = self.read_register(MAX_DELAY, self.qidx) * V.TS_UNIT_NS / 1000.0 / plan.scale
            lo, hi = args["sojourn_us"]
            slack = RTT_SLACK_REAL_US / plan.scale
            self._expect(lo * (1 - RTT_TOLERANCE) - slack <= d <= hi * (1 + RTT_TOLERANCE) + slack,
                         "%s: queuing delay %.0f us outside [%d, %d]" % (where, d, lo, hi))
        self.write_register(MAX_DELAY, self.qidx, 0)

    def _do_set_ctv(self, plan, t, a):
        if "ctv_lo" in a or "ctv_hi" in a:
            self.aqm_args.update({"ctv_lo": a.get("ctv_lo", self.aqm_args["ctv_lo"]),
                                  "ctv_hi": a.get("ctv_hi", self.aqm_args["ctv_hi"])})
            self.aqm(self.out, 0, modify=True, **self.aqm_args)
        if "ctv" in a:
            self.write_register(CTV, self.qidx, a["ctv"])

    def _do_fair_rate(self, plan, t, a):
        self.egress["fair_rate_bin"] = a["bin"]
        self.egress_cfg(self.out, modify=True, **dict(self.egress, tvf_profile=self.tvf_profile))

    def _expect(self, ok, msg, late=None):
        if not ok:
            self._error(msg, late)

    def _error(self, msg, late=None):
        """A failed expectation; `late`: how far behind the schedule the packets it concerns were sent
        (default: the most of any packet sent so far)."""
        self.errors.append((msg, self.late if late is None else late))

    def _group(self, flow):
        """The flow's group from its slot (None: the slot does not hold the flow)."""
        idx, sig = self._slot(flow)
        if self.read_register(SIG, idx)[0] != sig:
            return None
        valid, _port, grp = self.flow_group(idx)
        return grp if valid else None

    def _do_check(self, plan, t, a):
        self._settle(a.get("after"))
        c, flow = a["checks"], a["flow"]
        where = "step %d (t=%d us)" % (a["step"], t / plan.scale)
        names = V.P.group_names(self.params)
        idx = self._slot(flow)[0]
        if "group" in c:
            want = c["group"]
            deadline = time.time() + min(GROUP_POLL_S, self._budget())
            got = self._group(flow)
            while got != want and time.time() < deadline:
                self._collect(0.01)
                got = self._group(flow)
            name = lambda g: names[g] if g is not None else "untracked"  # noqa: E731
            self._expect(got == want, "%s: flow %s group %s, expected %s" % (where, flow, name(got), name(want)))
            if want is None and plan.flow_proto.get(flow) == "udp":
                n = self.untracked(C.UNTRACKED_NOT_TCP) - self.base["not_tcp"]
                self._expect(n == self.udp_sent.get(flow, 0), "%s: untracked[not TCP] counted %d packets, flow %s "
                             "sent %d" % (where, n, flow, self.udp_sent.get(flow, 0)))
        if a["dir"] == "rev":
            n = self.flows_entered(self.src) - self.base["enter_src"]
            self._expect(n == 0, "%s: %d new flows entered (port %d, mouse), where only reverse packets leave: the "
                         "reverse direction did not hit the forward flow's slot" % (where, n, self.src))
        regs = set(c) & {"rtt_us", "interval_pkts", "family", "ignore"}
        if regs and self.read_register(SIG, idx)[0] != self._slot(flow)[1]:
            self._error("%s: slot %d does not hold flow %s (its registers are another flow's)" % (where, idx, flow))
            return
        if "rtt_us" in c:
            raw = self.read_register(RTT, idx)
            lo, hi = c["rtt_us"]
            if raw == 0 or raw & RTT_PENDING:
                eff, tol, slack, what = self.plan.default_rtt_units, 0.005, 0, "default (no sample yet)"
            else:
                f = self.params["flow"]
                eff = max(min(raw, V.units(f["max_rtt_us"])), V.units(f["min_rtt_us"]))
                tol, slack, what = RTT_TOLERANCE, RTT_SLACK_REAL_US / plan.scale, "measured"
            rtt = eff * V.TS_UNIT_NS / 1000.0 / plan.scale
            self._expect(lo * (1 - tol) - slack <= rtt <= hi * (1 + tol) + slack, "%s: RTT in effect %.0f us (%s, "
                         "register 0x%x), expected [%d, %d]" % (where, rtt, what, raw, lo, hi))
        if "interval_pkts" in c:
            n = self.read_register(PKTS, idx)
            self._expect(n == c["interval_pkts"], "%s: interval_pkts %d, expected %d" % (where, n, c["interval_pkts"]))
        if "family" in c:
            n = self.read_register(EG + ".classifier.flow_family", idx)
            self._expect(n == c["family"], "%s: flow_family %d, expected %d" % (where, n, c["family"]))
        if "ignore" in c:
            n = self.read_register(EG + ".classifier.flow_ignore", idx)
            self._expect(n == c["ignore"], "%s: loss-ignoring count %d, expected %d" % (where, n, c["ignore"]))
        if "queue_ctv" in c:
            ctv = self.read_register(CTV, self.qidx)
            lo, hi = c["queue_ctv"]
            self._expect(lo <= ctv <= hi, "%s: CTV %d outside [%d, %d]" % (where, ctv, lo, hi))

    # -- outcomes -------------------------------------------------------------------------------------
    def _evaluate(self, plan):
        self._wait_for(list(self.sent), limit_s=1.0)
        self._collect(0.2)
        missing_fwd, marked = 0, 0
        for k, (_port, _pkt, t_out) in self.got.items():
            if plan.packets[k].release is None and k in self.sent:
                # a packet not held reached ingress at most this much after it was sent: BMv2 lagging
                # behind on a busy host delays it as much as a late send does
                self.late_of[k] = self.late_of.get(k, 0.0) + max(0.0, t_out - self.sent[k])
        late = 0.0
        err = lambda msg: self._error(msg, late)  # noqa: E731  (a packet's failure: how late it reached the switch)
        for p in plan.packets:
            late = self.late_of.get(p.k, 0.0)
            where = "step %d packet %d (t=%d us)" % (p.step, p.j, p.t_vec)
            port_want = self.out if p.dir == "fwd" else self.src
            got = self.got.get(p.k)
            if got is not None and got[0] != port_want:
                err("%s: left port %d, expected %d" % (where, got[0], port_want))
            pkt = got[1] if got else None
            ce = pkt is not None and pkt[K.IP].tos & 0x3 == 0x3
            if p.dir == "fwd":
                missing_fwd += pkt is None
                marked += ce
            if p.verdict in ("forward", "mark") and pkt is None:
                err("%s: never left the switch, expected %s" % (
                    where, "forwarded" if p.verdict == "forward" else "CE-marked"))
            elif p.verdict == "drop" and pkt is not None:
                err("%s: left the switch, expected %s" % (
                    where, "a buffer-limit drop" if p.limit else ("the proactive slow-start drop" if p.proactive
                                                                  else "an AQM drop")))
            elif p.verdict == "mark" and not ce:
                err("%s: left without CE mark, expected CE (PV below the CTV, ECT, ECN on)" % where)
            elif p.verdict == "forward" and p.ect and ce:
                err("%s: left CE-marked, expected forwarded unmarked" % where)
            if pkt is not None and plan.fabric_out and p.dir == "fwd" and (p.pv or p.force_pv is not None):
                if not pkt.haslayer(K.CcfairShim):
                    err("%s: no shim on the fabric port" % where)
                    continue
                pv = pkt[K.CcfairShim].pv
                if p.pv and not p.pv[0] <= pv <= p.pv[1]:
                    err("%s: PV %d outside [%d, %d]" % (where, pv, p.pv[0], p.pv[1]))
                if p.force_pv is not None and pv != p.force_pv:
                    err("%s: PV %d, the TVF profile written for it gives %d" % (where, pv, p.force_pv))
        for where, ks, count in self.counts:
            n = sum(1 for k in ks if k in self.got) + sum(1 for k in ks if plan.packets[k].verdict == "drop")
            self._expect(n == count, "%s: %d packets left the queue, expected %d" % (where, n, count),
                         max(self.late_of.get(k, 0.0) for k in ks) if ks else None)
        groups = range(P.num_groups(self.params))
        drops = self.pg_packets(DROPS, self.out, groups) - self.base["drops"]
        self._expect(drops == missing_fwd, "pg_drops of port %d counted %d drops, %d packets of the vector did not "
                     "come out of it" % (self.out, drops, missing_fwd))
        marks = self.pg_packets(MARKS, self.out, groups) - self.base["marks"]
        self._expect(marks == marked, "pg_marks counted %d, %d packets came out CE-marked" % (marks, marked))
        limit = sum(1 for p in plan.packets if p.verdict == "drop" and p.limit)
        if limit:
            n = self.read_counter(LIMIT_DROPS, self.qidx)[0] - self.base["limit"]
            self._expect(n >= limit, "q_limit_drops counted %d, expected at least %d" % (n, limit))


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
