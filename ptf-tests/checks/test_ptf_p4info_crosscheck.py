# SPDX-License-Identifier: Apache-2.0
"""Every P4 name (and width) the PTF tests and the ONOS app use exists in the committed
P4Info of both profiles. The checker itself is first proven on a P4Info built from the
contract, with one defect injected at a time."""
import copy
import os

import pytest
from p4.config.v1 import p4info_pb2

import contract as C
import crosscheck as X
from conftest import REPO, report
from p4info import P4Info

PROFILES = ("tofino", "tofino2")


def contract_p4info():
    """A P4Info exactly as lib/contract.py describes the program (ids arbitrary)."""
    m = p4info_pb2.P4Info()
    nt = m.type_info.new_types["PortId_t"]
    nt.translated_type.uri = C.PORT_URI
    nt.translated_type.sdn_bitwidth = C.PORT_SDN_BITS
    ids = iter(range(1, 10000))

    def width(w, obj):
        if w == C.PORT:
            obj.bitwidth = C.PORT_SDN_BITS
            obj.type_name.name = "PortId_t"
        else:
            obj.bitwidth = w

    action_ids = {}
    for name, params in C.ACTIONS.items():
        a = m.actions.add()
        a.preamble.id, a.preamble.name = next(ids), name
        action_ids[name] = a.preamble.id
        for i, (p, w) in enumerate(params.items()):
            pp = a.params.add(id=i + 1, name=p)
            width(w, pp)
    table_ids = {}
    for name, spec in C.TABLES.items():
        t = m.tables.add()
        t.preamble.id, t.preamble.name = next(ids), name
        table_ids[name] = t.preamble.id
        for i, (k, (kind, w)) in enumerate(spec["keys"].items()):
            mf = t.match_fields.add(id=i + 1, name=k, match_type=p4info_pb2.MatchField.MatchType.Value(kind))
            width(w, mf)
        for a in spec["actions"]:
            t.action_refs.add(id=action_ids[a])
    for name, w in C.REGISTERS.items():
        r = m.registers.add()
        r.preamble.id, r.preamble.name = next(ids), name
        if name in C.REGISTER_FIELDS:
            sname = name.rsplit(".", 1)[1] + "_t"
            r.type_spec.struct.name = sname
            for f, fw in C.REGISTER_FIELDS[name]:
                m.type_info.structs[sname].members.add(name=f).type_spec.bitstring.bit.bitwidth = fw
        else:
            r.type_spec.bitstring.bit.bitwidth = w
    for name, unit in C.COUNTERS.items():
        c = m.counters.add()
        c.preamble.id, c.preamble.name = next(ids), name
        c.spec.unit = p4info_pb2.CounterSpec.Unit.Value(unit)
    for name, table in C.DIRECT_COUNTERS.items():
        d = m.direct_counters.add()
        d.preamble.id, d.preamble.name = next(ids), name
        d.direct_table_id = table_ids[table]
    for name, fields in C.DIGESTS.items():
        d = m.digests.add()
        d.preamble.id, d.preamble.name = next(ids), name
        d.type_spec.struct.name = name
        st = m.type_info.structs[name]
        for f, w in fields:
            st.members.add(name=f).type_spec.bitstring.bit.bitwidth = w
    for name, fields in C.CONTROLLER_HEADERS.items():
        h = m.controller_packet_metadata.add()
        h.preamble.id, h.preamble.name = next(ids), name
        for i, (f, w) in enumerate(fields):
            md = h.metadata.add(id=i + 1, name=f)
            width(w, md)
    return m


def test_checker_accepts_the_contract_itself():
    assert X.check_contract(P4Info(contract_p4info())) == []


def _first(msg_list, name):
    return next(o for o in msg_list if o.preamble.name == name)


@pytest.mark.parametrize("mutate,expected", [
    (lambda m: setattr(_first(m.tables, C.IG + ".forwarding.l2_exact").preamble, "name", "X.l2"),
     "table 'IngressPipe.forwarding.l2_exact' not found"),
    (lambda m: setattr(_first(m.tables, C.IG + ".forwarding.l2_exact").match_fields[0], "bitwidth", 47),
     "eth_dst is 47 bits, contract says 48"),
    (lambda m: setattr(_first(m.tables, C.IG + ".forwarding.routing_v4").match_fields[0], "match_type",
                       p4info_pb2.MatchField.EXACT), "ipv4_dst is EXACT, contract says LPM"),
    (lambda m: setattr(_first(m.tables, C.IG + ".port_cfg.port_cfg").match_fields[0], "bitwidth", 9),
     "ig_port is 9 bits, contract says PortId"),
    (lambda m: setattr(_first(m.actions, C.EG + ".marker.set_pv").params[0], "bitwidth", 8),
     "set_pv: pv is 8 bits, contract says 16"),
    (lambda m: _first(m.registers, C.EG + ".aqm.q_ctv").type_spec.bitstring.bit.__setattr__("bitwidth", 32),
     "register EgressPipe.aqm.q_ctv is 32 bits, contract says 16"),
    (lambda m: m.type_info.structs["flow_ss_t"].members[0].__setattr__("name", "packets"),
     "register EgressPipe.classifier.flow_ss cells are"),
    (lambda m: m.type_info.structs["flow_retx_t"].members[1].type_spec.bitstring.bit.__setattr__("bitwidth", 16),
     "register IngressPipe.flow_tracker.flow_retx cells are"),
    (lambda m: setattr(_first(m.counters, C.EG + ".telemetry.pg_pkts").spec, "unit", p4info_pb2.CounterSpec.PACKETS),
     "counts PACKETS, contract says BOTH"),
    (lambda m: m.type_info.structs["reclass_digest_t"].members[3].__setattr__("name", "group"),
     "digest reclass_digest_t fields"),
    (lambda m: _first(m.controller_packet_metadata, "packet_out").metadata[1].__setattr__("bitwidth", 9),
     "controller header packet_out"),
    (lambda m: _first(m.tables, C.EG + ".aqm.aqm_cfg").ClearField("action_refs"),
     "action EgressPipe.aqm.set_aqm not among its actions"),
])
def test_checker_reports_each_defect(mutate, expected):
    m = contract_p4info()
    mutate(m)
    problems = X.check_contract(P4Info(m))
    assert any(expected in p for p in problems), problems


def _committed(profile):
    return os.path.join(REPO, "p4", "p4info", profile, "p4info.txt")


@pytest.mark.parametrize("profile", PROFILES)
def test_ptf_names_exist_in_committed_p4info(profile):
    path = _committed(profile)
    if not os.path.isfile(path):
        report("SKIPPED: P4Info cross-check of the PTF names, %s (p4/p4info/%s/p4info.txt not committed yet)"
               % (profile, profile))
        pytest.skip("no committed P4Info for %s" % profile)
    problems = X.check_contract(P4Info.from_file(path))
    assert not problems, "PTF contract vs %s:\n  " % os.path.relpath(path, REPO) + "\n  ".join(problems)
    n = sum(len(t) for t in C.KIND_TABLES.values())
    report("P4Info cross-check %s: %d PTF names (%d tables, %d actions, %d registers, %d counters, "
           "%d digests, %d controller headers) and their widths match" % (
               profile, n, len(C.TABLES), len(C.ACTIONS), len(C.REGISTERS),
               len(C.COUNTERS) + len(C.DIRECT_COUNTERS), len(C.DIGESTS), len(C.CONTROLLER_HEADERS)))


def test_onos_checker_on_a_sample():
    info = P4Info(contract_p4info())
    refs = [("Gen.java", "table", C.IG + ".acl.acl"), ("Gen.java", "match_field", "eth_type"),
            ("Gen.java", "action_param", "qid"), ("Gen.java", "counter", C.IG + ".acl.acl_counter"),
            ("Gen.java", "packet_metadata", "egress_port"), ("Gen.java", "table", "IngressPipe.nope")]
    problems = X.check_onos(info, refs, {"HDR_ETH_TYPE": 12}, {"HDR_ETH_TYPE": ("match_field", "eth_type")})
    assert problems == ["Gen.java: table 'IngressPipe.nope' is not in the P4Info",
                        "ONOS constant HDR_ETH_TYPE_BITWIDTH = 12, but match_field 'eth_type' is 16 bits in the P4Info"]


@pytest.mark.parametrize("profile", PROFILES)
def test_onos_names_exist_in_committed_p4info(profile, tmp_path):
    if not os.path.isfile(os.path.join(REPO, X.GENERATOR)):
        report("SKIPPED: P4Info cross-check of the ONOS app's names (no %s)" % X.GENERATOR)
        pytest.skip("no ONOS constants generator")
    path = _committed(profile)
    if not os.path.isfile(path):
        report("SKIPPED: P4Info cross-check of the ONOS app's names, %s (p4/p4info/%s/p4info.txt not committed yet)"
               % (profile, profile))
        pytest.skip("no committed P4Info for %s" % profile)
    p4infos = [_committed(p) for p in PROFILES if os.path.isfile(_committed(p))]
    problems, n = X.check_onos_app(REPO, P4Info.from_file(path), p4infos, str(tmp_path))
    assert not problems, "ONOS app vs %s:\n  " % os.path.relpath(path, REPO) + "\n  ".join(problems)
    report("P4Info cross-check %s: ONOS app: %d generated constants (%d used by its code, %d bit widths) "
           "and %d literal Pi*Id names exist in the P4Info" % (profile, n["constants"], n["used"], n["widths"],
                                                               n["literal"]))


def test_onos_check_runs_the_apps_generator_and_catches_a_rename(tmp_path):
    """End to end on the app's own contract copy (a stand-in P4Info): consistent as is; a table
    the app's code uses, renamed in the P4Info, is reported."""
    copy_path = os.path.join(REPO, X.CONTRACT_COPY)
    if not (os.path.isfile(os.path.join(REPO, X.GENERATOR)) and os.path.isfile(copy_path)):
        report("SKIPPED: ONOS cross-check self-test (no %s or %s)" % (X.GENERATOR, X.CONTRACT_COPY))
        pytest.skip("no ONOS generator")
    problems, n = X.check_onos_app(REPO, P4Info.from_file(copy_path), [copy_path], str(tmp_path / "ok"))
    assert problems == [] and n["used"] > 0, (problems, n)
    text = open(copy_path).read()
    used = X.onos_usage(REPO, X.parse_constants(X.generate_onos_constants(
        REPO, [copy_path], str(tmp_path / "gen"))[0])[0])[0]
    table = next(t for t in C.TABLES if X_const(t) in used)
    bad = tmp_path / "renamed.txt"
    bad.write_text(text.replace('name: "%s"' % table, 'name: "%s_v2"' % table))
    problems, _ = X.check_onos_app(REPO, P4Info.from_file(str(bad)), [str(bad)], str(tmp_path / "bad"))
    assert any(X_const(table) in p and "no longer generates" in p for p in problems), problems



def X_const(p4name):
    """The constant name the app's own generator gives a P4 object."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("onos_gen_p4_constants", os.path.join(REPO, X.GENERATOR))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen.const_name(p4name)
