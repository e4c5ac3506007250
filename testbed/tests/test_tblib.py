# SPDX-License-Identifier: Apache-2.0
"""testbed/tblib.py: scenario checks, flow plan, policy modes, iperf3 parsing, metrics and the
tear-down plan, without root or a switch."""
import glob
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tblib  # noqa: E402
import flowhash  # noqa: E402  (tblib put ptf-tests/lib on the path)

TOPO = tblib.load_topology()
CCS = {"reno", "cubic", "bbr"}


def scn(**kw):
    s = {"name": "t", "link": {"rate_mbps": TOPO["rate_mbps"], "buffer_pkts": 50}, "duration_s": 20,
         "warmup_s": 5, "flows": [{"cc": "cubic", "rtt_ms": 2}, {"cc": "bbr", "rtt_ms": 2}]}
    s.update(kw)
    return s


def test_every_shipped_scenario_is_valid():
    paths = glob.glob(os.path.join(os.path.dirname(HERE), "scenarios", "*.json"))
    assert len(paths) >= 5
    for p in paths:
        s = tblib.load_scenario(p, TOPO, CCS)
        assert len(s["flows"]) in TOPO["export_flow_counts"], p  # an export exists for its flow count


@pytest.mark.parametrize("change, words", [
    ({"link": {"rate_mbps": 10, "buffer_pkts": 50}}, "link.rate_mbps"),
    ({"flows": [{"cc": "vegas", "rtt_ms": 2}]}, "flows[0].cc: vegas is not a kernel"),
    ({"flows": [{"cc": "cubic"}]}, "flows[0].rtt_ms: required"),
    ({"flows": [{"cc": "cubic", "rtt_ms": 2, "count": 17}]}, "at most 16"),
    ({"duration_s": 20.5}, "whole seconds"),
    ({"flows": [{"cc": "cubic", "rtt_ms": 2}, {"cc": "cubic", "rtt_ms": 2, "start_s": 19}]}, "less than 2 s"),
    ({"short_flows": {"cc": "cubic", "rtt_ms": 2, "arrival_per_s": 1}}, "short_flows"),
    ({"bogus": 1}, "bogus: not used by the testbed"),
    # fields eval accepts but the testbed would ignore
    ({"aqm": "ccfair"}, "aqm: not used by the testbed"),
    ({"queue_layout": "shared"}, "queue_layout: not used by the testbed"),
    ({"intent": {"objective": "per-flow"}}, "intent: not used by the testbed"),
    ({"seed": 3}, "seed: not used by the testbed"),
    # a flow count the app has no export for
    ({"flows": [{"cc": "cubic", "rtt_ms": 2, "count": 3}]}, "flows: 3 flows in total, but the ONOS app's"),
    ({"flows": [{"cc": "cubic", "rtt_ms": 2}]}, "flows: 1 flows in total"),
    # the name becomes a directory
    ({"name": "a/b"}, "name: \"a/b\""),
    ({"name": "x y"}, "name: "),
    ({"name": ".."}, "name: "),
    # the program's limit_cells must never bind before the queue depth
    ({"link": {"rate_mbps": TOPO["rate_mbps"], "buffer_pkts": 1901}}, "link.buffer_pkts: 1901"),
    ({"link": {"rate_mbps": TOPO["rate_mbps"], "buffer_pkts": 0}}, "link.buffer_pkts"),
    ({"link": {"rate_mbps": TOPO["rate_mbps"], "buffer_pkts": 10.5}}, "link.buffer_pkts"),
    ({"flows": [{"cc": "cubic", "rtt_ms": 2}, {"cc": "bbr", "rtt_ms": 20}]}, "every flow needs the same rtt_ms"),
])
def test_bad_scenarios_name_the_field(change, words):
    with pytest.raises(tblib.ScenarioError) as e:
        tblib.validate(scn(**change), TOPO, CCS)
    assert words in str(e.value)


def test_bad_json_names_the_file(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(tblib.ScenarioError, match="x.json: not valid JSON"):
        tblib.load_scenario(str(p), TOPO, CCS)


def test_flow_plan_gives_distinct_slots_matching_the_hash():
    flows = [{"cc": "cubic", "rtt_ms": 2, "start_s": 0}] * 16
    plan = tblib.flow_plan(flows, TOPO, 4)  # 16 slots: collisions certain, so ports are skipped
    assert len({f["slot"] for f in plan}) == 16
    for f in plan:
        assert f["slot"] == flowhash.flow_index(TOPO["sender"]["ip"], TOPO["receiver"]["ip"], f["cport"],
                                                f["sport"], 4)
    assert len({f["cport"] for f in plan}) == 16 and len({f["sport"] for f in plan}) == 16


def test_group_word_and_queue_index():
    w = (1 << 15) | (2 << 5) | 7
    assert tblib.decode_group_word(w) == {"valid": 1, "port_unknown": 0, "stats_idx": 2, "group": 7}
    assert tblib.decode_group_word(0xC001)["port_unknown"] == 1
    assert tblib.queue_index(2, 2) == 66
    assert tblib.queue_index(0x1FF, 1) == (0x7F << 5) | 1


def test_pps_of_full_frames():
    assert tblib.pps(4) == 330
    assert tblib.pps(12.112) == 1000


def export():
    rules = []
    for q, grp in ((0, 0), (1, 1), (2, 4), (2, 7)):
        rules.append({"table": tblib.QUEUE_MAP, "match": [{"field": "eg_port", "kind": "EXACT", "value": "00000003"},
                                                          {"field": "group", "kind": "EXACT", "value": "%02x" % grp}],
                      "action": {"name": "set_queue", "params": [{"name": "qid", "value": "%02x" % q}]}})
    rules.append({"table": tblib.AQM_CFG, "match": [{"field": "eg_port", "kind": "EXACT", "value": "00000003"}],
                  "action": {"name": "set_aqm", "params": [{"name": "ctv_hi", "value": "7fff"},
                                                           {"name": "ctv_lo", "value": "7000"}]}})
    rules.append({"table": tblib.AQM_CFG, "match": [{"field": "eg_port", "kind": "EXACT", "value": "00000002"}],
                  "action": {"name": "set_aqm", "params": [{"name": "ctv_hi", "value": "7fff"},
                                                           {"name": "ctv_lo", "value": "7000"}]}})
    rules.append({"table": tblib.PORT_CFG, "match": [{"field": "eg_port", "kind": "EXACT", "value": "00000003"}],
                  "action": {"name": "set_port_cfg", "params": [{"name": "ss_drop", "value": "01"},
                                                                {"name": "family_forget", "value": "01"}]}})
    return {"flow_rules": rules}


def test_ccfair_mode_only_collapses_the_queue_map():
    ex = export()
    pol, changes, q = tblib.policy_for_mode(ex, "ccfair", 3)
    assert q == 2
    qids = [r["action"]["params"][0]["value"] for r in pol["flow_rules"] if r["table"] == tblib.QUEUE_MAP]
    assert qids == ["02"] * 4
    assert changes == ["queue_map qid -> 2 (2 entries)"]
    aqm = [r for r in pol["flow_rules"] if r["table"] == tblib.AQM_CFG]
    assert all(r["action"]["params"][0]["value"] == "7fff" for r in aqm)
    assert ex["flow_rules"][0]["action"]["params"][0]["value"] == "00"  # the input is not modified


def test_fifo_mode_turns_off_pv_and_slow_start_drops_on_the_bottleneck_only():
    pol, changes, _ = tblib.policy_for_mode(export(), "fifo", 3)
    byport = {(r["table"], r["match"][0]["value"]): {p["name"]: p["value"] for p in r["action"]["params"]}
              for r in pol["flow_rules"] if r["table"] != tblib.QUEUE_MAP}
    assert byport[(tblib.AQM_CFG, "00000003")] == {"ctv_hi": "0000", "ctv_lo": "0000"}
    assert byport[(tblib.AQM_CFG, "00000002")] == {"ctv_hi": "7fff", "ctv_lo": "7000"}
    # only the drop goes; family_forget (groups, no drops) stays as exported
    assert byport[(tblib.PORT_CFG, "00000003")] == {"ss_drop": "00", "family_forget": "01"}
    assert any("ctv" in c for c in changes) and any("ss_drop" in c for c in changes)
    with pytest.raises(tblib.ScenarioError, match="mode"):
        tblib.policy_for_mode(export(), "red", 3)
    with pytest.raises(tblib.ScenarioError, match="no queue_map entry for port 9"):
        tblib.policy_for_mode(export(), "fifo", 9)


IPERF = {"start": {"timestamp": {"timesecs": 1000}},
         "intervals": [{"sum": {"start": 0, "end": 1, "bits_per_second": 2e6}},
                       {"sum": {"start": 1, "end": 2, "bits_per_second": 4e6}}]}


def test_parse_iperf3_and_mean_rate():
    ivs, t0 = tblib.parse_iperf3(json.dumps(IPERF))
    assert ivs == [(0.0, 1.0, 2e6), (1.0, 2.0, 4e6)] and t0 == 1000
    assert tblib.mean_rate(ivs, 0, 2) == 3e6
    assert tblib.mean_rate(ivs, 10.5, 12, offset=10) == pytest.approx((0.5 * 2e6 + 4e6) / 1.5)
    assert tblib.mean_rate(ivs, 0, 4) == 1.5e6  # uncovered time counts as nothing sent
    with pytest.raises(tblib.Iperf3Error, match="unable to connect"):
        tblib.parse_iperf3(json.dumps({"error": "unable to connect"}))
    with pytest.raises(tblib.Iperf3Error, match="not JSON"):
        tblib.parse_iperf3("iperf3: error")
    with pytest.raises(tblib.Iperf3Error, match="no intervals"):
        tblib.parse_iperf3(json.dumps({"intervals": []}))


def test_jfi_and_shares():
    assert tblib.jfi([1, 1]) == 1.0
    assert tblib.jfi([1, 0]) == 0.5
    names = ["ant", "mouse", "delay0", "delay1", "loss0", "loss1", "hybrid0", "hybrid1"]
    assert tblib.group_shares([4, 4, 7, 4], names) == {"loss0": 0.75, "hybrid1": 0.25}
    flows = [{"cc": "cubic", "group_shares": {"loss0": 1.0}}, {"cc": "cubic", "group_shares": {"loss0": 0.5,
                                                                                               "delay0": 0.5}},
             {"cc": "bbr", "group_shares": {}}]
    assert tblib.shares_by_cc(flows) == {"cubic": {"loss0": 0.75, "delay0": 0.25}}


def test_cleanup_plan_deletes_only_our_existing_namespaces():
    plan = tblib.cleanup_plan(["cctb-sw-1", "cctb-snd-1", "cctb-rcv-1"], {"cctb-sw-1", "cctb-rcv-1", "other"})
    assert plan == [["ip", "netns", "del", "cctb-sw-1"], ["ip", "netns", "del", "cctb-rcv-1"]]
    assert tblib.cleanup_plan(["ccfair-bmv2-1"], {"ccfair-bmv2-1"}) == []  # not ours by name: never deleted


def test_leftovers():
    assert tblib.leftovers("", "1: lo: <LOOPBACK>", [], ["cctb-sw-1"]) == []
    left = tblib.leftovers("cctb-sw-1 (id: 0)\nother\n", "5: cctb-x@if2: <UP>\n6: swp3@if7: <UP>\n7: eth0: <UP>",
                           ["42"], ["cctb-sw-1"], ["swp3"])
    assert left == ["namespace cctb-sw-1", "link cctb-x", "link swp3", "process 42"]


def test_timeline_shares_and_table_rows():
    tl = [[0.0, "mouse"], [1.0, "loss0"], [6.0, "hybrid1"]]
    assert tblib.timeline_shares(tl, 2, 10) == {"loss0": 0.5, "hybrid1": 0.5}
    assert tblib.timeline_shares(tl, 20, 30) == {"hybrid1": 1.0}
    assert tblib.timeline_shares([], 0, 1) == {}
    assert tblib.fmt_shares({"cubic": {"loss0": 0.6, "hybrid0": 0.3, "mouse": 0.1}}) == "cubic: loss0 60 %, hybrid0 30 %"
    run = {"mode": "ccfair", "jfi": 0.9, "utilization": 0.8, "qdelay_p50_ms": 10.2, "qdelay_p99_ms": 50,
           "shares_by_cc": {"bbr": {"delay0": 1.0}}}
    rows = tblib.markdown_rows("s", [run], {"fifo": {"error": "x"}, "ccfair": {
        "jfi": 0.99, "utilization": 0.95, "qdelay_p50_ms": 1, "qdelay_p99_ms": 9, "shares_by_cc": {}}})
    assert rows[0] == "| s | testbed ccfair | 0.90 | 80.0 % | 10 / 50 | bbr: delay0 100 % |"
    assert rows[1].startswith("| s | model fifo | error: x")
    assert rows[2].startswith("| s | model ccfair | 0.99 | 95.0 % | 1 / 9 |")


def test_one_way_delay():
    base = TOPO["bmv2_base_rtt_ms"]
    s = tblib.validate(scn(flows=[{"cc": "cubic", "rtt_ms": 20, "count": 2}]), TOPO, CCS)
    assert tblib.one_way_delay_ms(s, TOPO) == pytest.approx((20 - base) / 2)
    s = tblib.validate(scn(flows=[{"cc": "cubic", "rtt_ms": 2, "count": 2}]), TOPO, CCS)
    assert tblib.one_way_delay_ms(s, TOPO) == 0.0


def test_parse_netstat():
    text = ("TcpExt: SyncookiesSent TCPTimeouts TCPLossProbes DelayedACKs\nTcpExt: 0 7 3 12\n"
            "IpExt: InNoRoutes\nIpExt: 0\n")
    assert tblib.parse_netstat(text) == {"TCPTimeouts": 7, "TCPLossProbes": 3, "DelayedACKs": 12}
    assert tblib.parse_netstat("garbage") == {}


def test_flow_counts_of_the_exports_are_accepted():
    for n in TOPO["export_flow_counts"]:
        s = tblib.validate(scn(flows=[{"cc": "cubic", "rtt_ms": 2, "count": n}]), TOPO, CCS)
        assert len(s["flows"]) == n


def test_names_and_buffer_at_the_bound_are_accepted():
    s = tblib.validate(scn(name="tb-x_1.2", link={"rate_mbps": TOPO["rate_mbps"],
                                                  "buffer_pkts": tblib.MAX_BUFFER_PKTS}), TOPO, CCS)
    assert s["name"] == "tb-x_1.2" and s["buffer_pkts"] == tblib.MAX_BUFFER_PKTS


def _aqm_rule(port, qid, limit):
    return {"table": tblib.AQM_CFG, "match": [{"field": "eg_port", "value": "%08x" % port},
                                             {"field": "qid", "value": "%02x" % qid}],
            "action": {"params": [{"name": "limit_cells", "value": "%08x" % limit}]}}


def test_limit_never_binds_checks_the_ports_limit_cells():
    ex = {"flow_rules": [_aqm_rule(3, 2, 1900), _aqm_rule(2, 2, 10)]}
    assert tblib.limit_never_binds(ex, 3, 1000) is None   # port 2's small limit is not the bottleneck's
    why = tblib.limit_never_binds(ex, 3, 1900)
    assert "limit_cells 1900" in why and "port 3" in why


def test_stale_namespaces_only_of_dead_runners():
    listing = ("cctb-sw-100 (id: 3)\ncctb-snd-100\ncctb-rcv-200 (id: 1)\ncctb-dly-300\nother-100\n"
               "cctb-sw-abc\ncctb-foo-100\n\n")
    alive = {200}
    got = tblib.stale_namespaces(listing, lambda pid: pid in alive, own_pid=300)
    assert got == ["cctb-sw-100", "cctb-snd-100"]  # 200 is alive, 300 is this run, the others are not ours
