# SPDX-License-Identifier: Apache-2.0
"""Base class of every ccfair PTF test (after fabric-tna's P4RuntimeTest).

- pushes the pipeline once per PTF run (SetForwardingPipelineConfig with the
  compiled program and its P4Info; skipped when the device already runs a
  pipeline with the same cookie);
- resolves every P4 name through the P4Info at run time, and only accepts the
  names declared in lib/contract.py, the list ``make test`` cross-checks
  against the committed P4Info;
- records what a test writes and deletes it when the test ends, so tests are independent;
- on BMv2 (profile bmv2) reads and writes registers over simple_switch's Thrift
  server, since PI does not serve P4Runtime register access, and lets a test
  declare itself TNA-only (``tna_only``).

Test parameters (``--test-params``, set by ptf-tests/run): p4info, device_config,
grpcaddr, device_id, profile, dev_ports, shaped_port, vectors, vector_time_scale;
on BMv2 also thrift_port and bmv2_py (the directory with BMv2's Thrift stubs).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

import ptf  # noqa: E402
import ptf.testutils as tu  # noqa: E402
from ptf.base_tests import BaseTest  # noqa: E402

import bmv2  # noqa: E402
import contract  # noqa: E402
import flowhash  # noqa: E402
import p4rt  # noqa: E402
import packets as K  # noqa: E402
from ccfair import params as P  # noqa: E402
from p4info import P4Info  # noqa: E402

IG, EG = contract.IG, contract.EG
DIGEST = "reclass_digest_t"
_PIPELINE_COOKIE = None  # set once the pipeline of this run is on the device


def param(name, default=None):
    v = tu.test_param_get(name, default)
    return default if v is None else v


class CcfairTest(BaseTest):
    """P4Runtime-driven test on one switch; subclasses implement runTest."""
    # A wrongly forwarded packet can come out late (tofino-model takes far longer than PTF's
    # 0.1 s default), so a negative check waits this long.
    NEGATIVE_TIMEOUT_S = 1.0
    # wait_claimable leaves this long before the next empty-slot blind window: a test's set-up.
    CLAIM_AHEAD_S = 2.0

    def setUp(self):
        BaseTest.setUp(self)
        global _PIPELINE_COOKIE
        self.dataplane = ptf.dataplane_instance
        self.dataplane.flush()
        self.params = P.load()
        self.profile = param("profile", "tofino")
        p4info_path = param("p4info")
        if not p4info_path:
            self.fail("test parameter p4info not given (run the suite through ptf-tests/run)")
        self.info = P4Info.from_file(p4info_path)
        self._thrift = None
        self._written = []  # entries to delete when the test ends; tests never change default actions
        self._stats_idx = {}  # port -> the stats index this test wrote into its port configuration
        self._eg_cfg = set()  # ports whose EgressPipe port_cfg this test inserted
        # Cleanups, unlike tearDown, also run when setUp fails or skips (tna_only) after this
        # point; they run last-in first-out: written entries go before the connections close.
        self.addCleanup(self._close_thrift)
        self.sw = p4rt.Client(self.info, param("grpcaddr", "127.0.0.1:9559"), int(param("device_id", 1)))
        self.addCleanup(self.sw.close)
        self.addCleanup(self._delete_written)
        cfg_path = param("device_config")
        if cfg_path:
            with open(cfg_path, "rb") as f:
                cfg = f.read()
            cookie = p4rt.pipeline_cookie(cfg, self.info)
            if _PIPELINE_COOKIE != cookie and self.sw.get_pipeline_cookie() != cookie:
                self.sw.set_pipeline(cfg, cookie)
                if self.profile == "bmv2":  # a new pipeline starts with no clone sessions
                    bmv2.write_clone_sessions(self.sw, self.params)
            _PIPELINE_COOKIE = cookie
        self.ports = sorted(int(p) for (_dev, p) in ptf.config["port_map"].keys())
        if len(self.ports) < 4:
            self.fail("the ccfair tests need at least 4 ports, the port map has %d" % len(self.ports))
        self.shaped_port = int(param("shaped_port", self.ports[-1]))
        self._dev_ports = dict(tuple(int(x) for x in kv.split(":"))
                               for kv in str(param("dev_ports", "")).split(",") if kv)
        self.sw.drain_packet_in()
        self.reset_queue_state()
        self.wait_claimable()  # every test may start a flow: not in the empty-slot blind window

    def reset_queue_state(self):
        """Every test starts with CTV 0 in the queues it may use: registers outlive a test, and a
        CTV an earlier test's congestion left high would drop the next test's packets by PV.
        BMv2 resets a whole register in one Thrift call; elsewhere queues 0-7 of the stats index the
        suite gives each port are written (the tests use no other queues or indices)."""
        for reg in (EG + ".aqm.q_ctv", EG + ".aqm.q_ctv_tick"):
            if self.profile == "bmv2":
                self.bmv2.reset_register(reg)
            else:
                for port in self.ports:
                    for qid in range(8):
                        self.write_register(reg, contract.queue_index(self.profile, self.default_stats_idx(port),
                                                                      qid), 0)

    def _delete_written(self):
        if self._written:
            self.sw.delete(list(reversed(self._written)))

    def delete_written(self):
        """Undo this test's writes so far (a test that runs its set-up again): entries deleted,
        port configurations and stats indices forgotten."""
        self._delete_written()
        self._written = []
        self._eg_cfg.clear()
        self._stats_idx.clear()

    def _close_thrift(self):
        if self._thrift is not None:
            self._thrift.close()

    # -- targets -----------------------------------------------------------------------
    def tna_only(self, reason):
        """Skip this test on BMv2: it needs behaviour only the TNA program on Tofino has (`reason`
        says which). Prints ``SKIPPED: <test> on bmv2 (<reason>)`` on stdout, the line make test
        counts. Call it at the start of runTest, or in setUp after CcfairTest.setUp."""
        if self.profile != "bmv2":
            return
        self.skip_visibly(reason, "TNA only: ")

    def skip_visibly(self, reason, prefix=""):
        """Skip this test, printing ``SKIPPED: <test> on <profile> (<reason>)`` on stdout, the
        line make test counts and lists (unittest's own skip shows only in PTF's output)."""
        sys.stderr.flush()
        # PTF's runner has written "<test> ... " to stderr without a newline; where stdout is the
        # same file (a terminal, make's 2>&1) end that line so that SKIPPED starts one.
        lead = "\n" if os.path.sameopenfile(1, 2) else ""
        sys.stdout.write("%sSKIPPED: %s on %s (%s)\n" % (lead, self, self.profile, reason))
        sys.stdout.flush()
        self.skipTest(prefix + reason)

    @property
    def bmv2(self):
        """simple_switch's Thrift client (lib/bmv2.Switch): registers, counters, queue depth and rate.
        Only on BMv2 (test param thrift_port); opened on first use, closed when the test ends."""
        if self._thrift is None:
            port = param("thrift_port")
            if port is None:
                self.fail("test parameter thrift_port not given: the Thrift client exists on BMv2 only "
                          "(ptf-tests/run --target bmv2)")
            self._thrift = bmv2.Switch(int(port), runtime_dir=param("bmv2_py"))
        return self._thrift

    # -- names ---------------------------------------------------------------------
    def name(self, kind, key):
        """P4 name for a contract key; fails the test if the contract lacks it."""
        return contract.require(kind, key)

    # -- writes (recorded for clean-up) --------------------------------------------------
    def insert(self, table, match=None, action=None, params=None, priority=0, modify=False):
        """Write an entry (deleted when the test ends); modify=True changes one this test inserted."""
        te = self.sw.insert(self.name("table", table), match, self.name("action", action) if action else None,
                            params, priority, modify=modify)
        if not modify:
            self._written.append(te)
        return te

    def insert_many(self, table, entries):
        """One Write of many entries: [(match, action, params)]."""
        t = self.name("table", table)
        tes = [self.sw.table_entry(t, m, self.name("action", a), p) for m, a, p in entries]
        self.sw.write(tes, "INSERT")
        self._written.extend(tes)
        return tes

    def entry_action(self, table, match):
        """Read back from the switch: the action id of `table`'s entry whose match is `match`
        (given as to insert; values compared as numbers, whatever byte form the server returns),
        or None if the table has no such entry."""
        def key(te):
            out = []
            for m in te.match:
                kind = m.WhichOneof("field_match_type")
                out.append((m.field_id, kind, tuple(sorted(
                    (f.name, p4rt.decode(v) if isinstance(v, bytes) else v) for f, v in getattr(m, kind).ListFields()))))
            return sorted(out)
        t = self.name("table", table)
        want = key(self.sw.table_entry(t, match))
        return next((te.action.action.action_id for te in self.sw.read_table(t) if key(te) == want), None)

    def write_register(self, reg, index, value):
        """Write a cell: an int, or for a struct register (contract.REGISTER_FIELDS) the list of its
        members in order, packed as read_register unpacks them (first member highest)."""
        name = self.name("register", reg)
        fields = contract.REGISTER_FIELDS.get(reg)
        if isinstance(value, (list, tuple)):
            if not fields or len(value) != len(fields):
                raise ValueError("register %s: %d values given, its cells have %s" % (
                    reg, len(value), "members %s" % [f for f, _ in fields] if fields else "one value"))
            packed = 0
            for (f, w), v in zip(fields, value):
                if not 0 <= v < (1 << w):
                    raise ValueError("register %s: member %s = %r does not fit %d bits" % (reg, f, v, w))
                packed = (packed << w) | v
            value = packed
        if param("thrift_port") is not None:  # BMv2: PI does not serve P4Runtime register writes
            self.bmv2.write_register(name, index, value)
        else:
            self.sw.write_register(name, index, value)

    def read_register(self, reg, index):
        """A cell's value: an int, or for a struct register (contract.REGISTER_FIELDS) the
        list of its members in order."""
        name = self.name("register", reg)
        if param("thrift_port") is not None:  # BMv2: PI does not serve P4Runtime register reads
            v = self.bmv2.read_register(name, index)
        else:
            v = self.sw.read_register(name, index)
        fields = contract.REGISTER_FIELDS.get(reg)
        if fields and isinstance(v, int):  # the struct flattened (v1model port, bf-p4c): first member highest
            out, shift = [], sum(w for _, w in fields)
            for _, w in fields:
                shift -= w
                out.append((v >> shift) & ((1 << w) - 1))
            return out
        return v

    def read_counter(self, ctr, index):
        return self.sw.read_counter(self.name("counter", ctr), index)

    def enable_digest(self, dig):
        de = self.sw.enable_digest(self.name("digest", dig))
        self._written.append(de)
        return de

    def digest(self, dig, timeout=2.0):
        return self.sw.digest(self.name("digest", dig), timeout)

    # -- dataplane -------------------------------------------------------------------------
    def send(self, port, pkt, count=1):
        tu.send_packet(self, port, bytes(pkt), count)

    def expect(self, pkt, port, timeout=None):
        tu.verify_packet(self, pkt, port, timeout=timeout)

    def expect_none(self, timeout=None):
        """No packet on any port within `timeout` s (default NEGATIVE_TIMEOUT_S)."""
        tu.verify_no_other_packets(self, timeout=self.NEGATIVE_TIMEOUT_S if timeout is None else timeout)

    def recv(self, port, timeout=1.0):
        """The next frame out of `port` as Scapy Ether, or None after `timeout`."""
        res = tu.dp_poll(self, port_number=port, timeout=timeout)
        if isinstance(res, self.dataplane.PollSuccess):
            return K.Ether(res.packet)
        return None

    def recv_all(self, port, timeout=0.5):
        out = []
        while True:
            p = self.recv(port, timeout)
            if p is None:
                return out
            out.append(p)

    def expect_packet_in(self, pkt=None, timeout=2.0, **fields):
        got = self.sw.packet_in(timeout)
        self.assertIsNotNone(got, "no packet-in within %.1f s" % timeout)
        payload, md = got
        if pkt is not None:
            self.assertEqual(bytes(pkt), payload[:len(bytes(pkt))], "packet-in payload differs")
        for k, v in fields.items():
            self.assertEqual(md.get(k), v, "packet-in %s = %r, expected %r" % (k, md.get(k), v))
        return payload, md

    def packet_out(self, pkt, **fields):
        self.sw.packet_out(bytes(pkt), **fields)

    # -- ccfair parameters ------------------------------------------------------------------
    def group_id(self, family, sub=0):
        if family in ("ant", "mouse"):
            return self.params["groups"][family]
        return P.group_id(self.params, family, sub)

    # -- port stats indices (docs/dataplane.md, "Port stats index") ------------------------------
    # A port's per-port counter and register cells are at the stats index its port configuration
    # carries (EgressPipe.port_cfg and IngressPipe.eg_port_idx, the same index), not at its port
    # number. The suite gives each port an index unlike its number (its position among the test
    # ports counted from the end, plus STATS_IDX_BASE), so a test reading cells by port number
    # reads the wrong ones.
    STATS_IDX_BASE = 40

    def default_stats_idx(self, port):
        """The stats index the suite gives `port` unless a test says otherwise."""
        return self.STATS_IDX_BASE + len(self.ports) - 1 - self.ports.index(port)

    def stats_idx(self, port):
        """The stats index this test wrote for `port`: where its per-port cells are."""
        if port not in self._stats_idx:
            self.fail("port %d has no stats index in this test: configure it first (edge_port, fabric_port "
                      "or egress_cfg), its cells are where its port configuration says" % port)
        return self._stats_idx[port]

    def queue_index(self, port, qid):
        """Cell of queue `qid` of `port` in the per-queue registers and counters."""
        return contract.queue_index(self.profile, self.stats_idx(port), qid)

    def depth_hist_index(self, port, qid, bucket):
        return contract.depth_hist_index(self.profile, self.stats_idx(port), qid, bucket)

    def dev_port(self, port):
        """SDK device port of P4Runtime port `port` (no cell index uses it: see stats_idx)."""
        if port not in self._dev_ports:
            self.fail("test parameter dev_ports has no entry for port %d (run through ptf-tests/run)" % port)
        return self._dev_ports[port]

    # -- ccfair configuration helpers (names from lib/contract.py) ------------------------------
    def edge_port(self, port, default_rtt_us=None, stats_idx=None):
        """Host-facing on both sides; the egress side with the contract's defaults and a stats index."""
        rtt = self.params["flow"]["default_rtt_us"] if default_rtt_us is None else default_rtt_us
        self.insert(IG + ".port_cfg.port_cfg", {"ig_port": port}, IG + ".port_cfg.set_edge_port",
                    {"default_rtt_us": rtt})
        self.egress_cfg(port, stats_idx=stats_idx)

    def fabric_port(self, port, stats_idx=None):
        """Switch-facing on both sides: a shim arriving is trusted, a shim leaving is kept."""
        self.insert(IG + ".port_cfg.port_cfg", {"ig_port": port}, IG + ".port_cfg.set_fabric_port")
        self.egress_cfg(port, role=self.params["ports"]["role_fabric"], stats_idx=stats_idx)

    def egress_cfg(self, port, modify=False, stats_idx=None, **over):
        """EgressPipe port_cfg for `port`: the contract's defaults from params, overridden by `over`
        (a second call in a test modifies the entry), with the port's stats index: `stats_idx`, else
        the one it has in this test, else the suite's (default_stats_idx). The same index goes into
        IngressPipe.eg_port_idx, as a controller must write it."""
        p, c = self.params, self.params["classifier"]
        cfg = {"role": p["ports"]["role_edge"], "tvf_profile": 0, "fair_rate_bin": 255,
               "ant_max_pkts": p["flow"]["ant_max_pkts_per_interval"], "m_m": c["m_m"],
               "ss_drop": int(c["ss_proactive_drop"]), "family_forget": 0}
        unknown = set(over) - set(cfg)
        if unknown:
            raise ValueError("egress_cfg: unknown field(s) %s" % ", ".join(sorted(unknown)))
        cfg.update(over)
        idx = stats_idx if stats_idx is not None else self._stats_idx.get(port, self.default_stats_idx(port))
        cfg["stats_idx"] = idx
        self.insert(EG + ".port_cfg.port_cfg", {"eg_port": port}, EG + ".port_cfg.set_port_cfg", cfg,
                    modify=modify or port in self._eg_cfg)
        self._eg_cfg.add(port)
        if self._stats_idx.get(port) != idx:
            self.insert(IG + ".eg_port_idx.eg_port_idx", {"eg_port": port}, IG + ".eg_port_idx.set_stats_idx",
                        {"stats_idx": idx}, modify=port in self._stats_idx)
            self._stats_idx[port] = idx

    def l2(self, host, port):
        self.insert(IG + ".forwarding.l2_exact", {"eth_dst": K.HOST_MAC[host]},
                    IG + ".forwarding.set_egress_port", {"port": port})

    def tvf(self, group, pv_of_bin, profile=0):
        """TVF of `group`: pv_of_bin(rate bin) for every bin, one Write."""
        self.insert_many(EG + ".marker.tvf", [
            ({"tvf_profile": profile, "group": group, "rate_bin": b}, EG + ".marker.set_pv", {"pv": pv_of_bin(b)})
            for b in range(self.params["tvf"]["rate_steps"])])

    def aqm(self, port, qid, target_delay_us, limit_cells=1 << 19, ecn=None, ctv_lo=0, ctv_hi=0xFFFF, modify=False):
        ecn = int(self.params["aqm"]["ecn"]) if ecn is None else ecn
        self.insert(EG + ".aqm.aqm_cfg", {"eg_port": port, "qid": qid}, EG + ".aqm.set_aqm",
                    {"target_delay_us": target_delay_us, "limit_cells": limit_cells, "ecn": ecn,
                     "ctv_lo": ctv_lo, "ctv_hi": ctv_hi}, modify=modify)

    def pg(self, counter, port, group):
        """(packets, bytes) of a per-(port, group) counter, at the port's stats index."""
        return self.read_counter(counter, contract.pg_index(self.stats_idx(port), group))

    def pg_packets(self, counter, port, groups=None):
        groups = range(P.num_groups(self.params)) if groups is None else groups
        return sum(self.pg(counter, port, g)[0] for g in groups)

    def untracked(self, which):
        return self.read_counter(IG + ".flow_tracker.untracked", which)[0]

    def reclass(self, timeout=2.0):
        """The next reclassification digest entries [{flow_id, stats_idx, old_group, new_group}] or []."""
        return self.digest(DIGEST, timeout) or []

    def index_bits(self):
        """FLOW_IDX_BITS of the running program: log2 of its flow table's size."""
        return (self.info.register_size(IG + ".flow_tracker.flow_sig") - 1).bit_length()

    def flow_slot(self, ip_a, ip_b, port_a, port_b, proto=6):
        """(index, signature) the program computes for a connection (lib/flowhash.py)."""
        return (flowhash.flow_index(ip_a, ip_b, port_a, port_b, self.index_bits(), proto),
                flowhash.flow_sig(ip_a, ip_b, port_a, port_b))

    def flow_id(self, flow):
        """Register index of K.Flow `flow` (both directions give the same one)."""
        return self.flow_slot(K.HOST_IP[flow.a], K.HOST_IP[flow.b], flow.sport, flow.dport)[0]

    def is_tracked(self, flow):
        """True if the slot of `flow` holds its signature and a valid group word."""
        idx, sig = self.flow_slot(K.HOST_IP[flow.a], K.HOST_IP[flow.b], flow.sport, flow.dport)
        return (self.read_register(IG + ".flow_tracker.flow_sig", idx)[0] == sig
                and self.flow_group(idx)[0] == 1)

    def clear_slot(self, flow):
        """Empty the slot of `flow` (signature and group word 0), so its next packet starts a new
        flow whatever earlier tests left there (a slot reclaimed with the same group word counts
        no flow entering: the gauge's net is unchanged)."""
        idx = self.flow_id(flow)
        self.write_register(IG + ".flow_tracker.flow_sig", idx, 0)
        self.write_register(IG + ".flow_tracker.flow_group", idx, 0)
        return idx

    def new_flow_id(self, flow):
        """Index of `flow`, which the test has just started: fails unless the switch tracks it
        (its slot holds the flow's signature and a valid group word)."""
        self.assertTrue(self.is_tracked(flow), "flow %s:%d -> %s:%d is not tracked in slot %d" % (
            K.HOST_IP[flow.a], flow.sport, K.HOST_IP[flow.b], flow.dport, self.flow_id(flow)))
        return self.flow_id(flow)

    def flows_entered(self, port, group=None):
        """Flows counted into (port, group) by pg_flow_enter; a new flow enters (its port, mouse)."""
        g = self.group_id("mouse") if group is None else group
        return self.pg(IG + ".update.pg_flow_enter", port, g)[0]

    def flow_group(self, flow_id):
        """(valid, stats index of the egress port, group) from the flow_group register (valid:1,
        port unknown:1, stats index:9, group:5); a flow whose port is not stored yet (no update
        since it started) has index 0."""
        v = self.read_register(IG + ".flow_tracker.flow_group", flow_id)
        return v >> 15, (v >> 5) & 0x1FF, v & 0x1F

    def forward_pair(self, a_port, b_port, a=0, b=1, default_rtt_us=None):
        """Hosts a on a_port and b on b_port, both edge, bridged both ways."""
        for port in (a_port, b_port):
            self.edge_port(port, default_rtt_us)
        self.l2(b, b_port)
        self.l2(a, a_port)

    def edge_to_fabric(self, host=1):
        """Edge port 1 bridged to fabric port 3 (host `host` behind it); returns the two ports."""
        p1, p3 = self.ports[0], self.ports[2]
        self.edge_port(p1)
        self.fabric_port(p3)
        self.l2(host, p3)
        return p1, p3

    # -- new flows and the slot-claim dead time ------------------------------------------------
    def wait_claimable(self, port=None):
        """Return once a new flow can claim an empty slot, waiting if need be: flow_sig's idle test
        is a 16-bit modular difference of now16 (global time bits 33:20, a 2^34 ns = 17.2 s cycle)
        and an empty slot reads as last seen at time 0, so for the expiry time
        (flow.idle_intervals_to_expire x flow.default_rtt_us) after each wrap of that clock an empty
        slot looks busy and a new flow's packets are counted collisions (docs/dataplane.md, Flow
        tracking). The switch's clock is read from the pending SYN time a probe SYN (host 14 to
        15, entering on `port`, an edge port: ports[0] by default) leaves in its slot.
        On return the next window is at least CLAIM_AHEAD_S away. setUp calls it, so a flow whose
        first packet follows setUp within CLAIM_AHEAD_S (the test's entries and clear_slot first)
        needs no second call; a flow that may start later needs one right before its first
        packet."""
        f = self.params["flow"]
        cycle, margin, ahead = 1 << 34, 50e6, self.CLAIM_AHEAD_S * 1e9
        window = f["idle_intervals_to_expire"] * f["default_rtt_us"] * 1000.0 + (1 << 20)
        probe = K.Flow(14, 15, 9, 9)
        idx = self.flow_id(probe)
        before = self.read_register(IG + ".flow_tracker.flow_rtt", idx)
        sent = time.time()
        self.send(self.ports[0] if port is None else port, probe.syn())
        while True:
            v = self.read_register(IG + ".flow_tracker.flow_rtt", idx)
            if v != before and v >> 31:
                break
            if time.time() > sent + 2.0:
                self.fail("the probe SYN left no pending time in slot %d (port %s not an edge port?)" % (idx, port))
            time.sleep(0.002)
        phase = ((v & 0x7FFFFFFF) * 1024 + (time.time() - sent) * 1e9) % cycle
        if phase < window + margin:
            time.sleep((window + margin - phase) / 1e9)
        elif phase > cycle - ahead:
            time.sleep((cycle - phase + window + margin) / 1e9)
