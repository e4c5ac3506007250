# SPDX-License-Identifier: Apache-2.0
"""The PTF framework's switch-independent parts: P4Info look-ups, value encoding,
table-entry building, the device-config formats the runner pushes, and the TCP segments
lib/packets.py builds."""
import os
import struct

import pytest

import device_config
import p4rt
import packets as K
from p4info import P4Info, P4InfoError
from google.protobuf import text_format
from p4.config.v1 import p4info_pb2

# A hand-written P4Info with one of each kind the tests use (ids arbitrary).
P4INFO_TEXT = """
tables {
  preamble { id: 1001 name: "Ingress.fwd.l2_exact" alias: "l2_exact" }
  match_fields { id: 1 name: "hdr.ethernet.dst_addr" bitwidth: 48 match_type: EXACT }
  action_refs { id: 2001 }
  size: 1024
}
tables {
  preamble { id: 1002 name: "Ingress.fwd.ipv4_lpm" alias: "ipv4_lpm" }
  match_fields { id: 1 name: "hdr.ipv4.dst_addr" bitwidth: 32 match_type: LPM }
  action_refs { id: 2001 }
  size: 1024
}
tables {
  preamble { id: 1003 name: "Ingress.acl.acl" alias: "acl" }
  match_fields { id: 1 name: "hdr.ethernet.ether_type" bitwidth: 16 match_type: TERNARY }
  action_refs { id: 2001 }
  size: 64
}
tables {
  preamble { id: 1004 name: "Egress.fwd.l2_exact" alias: "Egress.fwd.l2_exact" }
  match_fields { id: 1 name: "hdr.ethernet.dst_addr" bitwidth: 48 match_type: EXACT }
  size: 16
}
actions {
  preamble { id: 2001 name: "Ingress.fwd.set_egress_port" alias: "set_egress_port" }
  params { id: 1 name: "port" bitwidth: 32 }
}
registers {
  preamble { id: 3001 name: "Egress.aqm.ctv" alias: "ctv" }
  type_spec { bitstring { bit { bitwidth: 16 } } }
  size: 512
}
counters {
  preamble { id: 4001 name: "Egress.stats.group_pkts" alias: "group_pkts" }
  spec { unit: BOTH }
  size: 256
}
digests {
  preamble { id: 5001 name: "IngressDeparserImpl.reclass_digest" alias: "reclass_digest" }
  type_spec { struct { name: "reclass_digest_t" } }
}
controller_packet_metadata {
  preamble { id: 6001 name: "packet_in" alias: "packet_in" }
  metadata { id: 1 name: "ingress_port" bitwidth: 32 }
  metadata { id: 2 name: "_pad" bitwidth: 7 }
}
controller_packet_metadata {
  preamble { id: 6002 name: "packet_out" alias: "packet_out" }
  metadata { id: 1 name: "egress_port" bitwidth: 32 }
}
type_info {
  structs {
    key: "reclass_digest_t"
    value {
      members { name: "flow_id" type_spec { bitstring { bit { bitwidth: 16 } } } }
      members { name: "new_group" type_spec { bitstring { bit { bitwidth: 8 } } } }
    }
  }
}
"""


@pytest.fixture
def info():
    msg = p4info_pb2.P4Info()
    text_format.Merge(P4INFO_TEXT, msg)
    return P4Info(msg)


def test_lookup_by_full_name_alias_and_suffix(info):
    assert info.id("table", "Ingress.fwd.l2_exact") == 1001
    assert info.id("table", "ipv4_lpm") == 1002
    assert info.id("table", "acl.acl") == 1003
    assert info.register_width("ctv") == 16
    assert info.counter_unit("group_pkts") == "BOTH"
    assert info.digest_fields("reclass_digest_t") == [("flow_id", 16), ("new_group", 8)]  # by struct type
    assert info.id("digest", "reclass_digest") == 5001  # by instance
    assert info.controller_header("packet_in")[0] == ("ingress_port", 1, 32)


def test_ambiguous_and_missing_names_are_errors_that_name_the_candidates(info):
    with pytest.raises(P4InfoError, match="ambiguous.*Egress.fwd.l2_exact.*Ingress.fwd.l2_exact"):
        info.get("table", "fwd.l2_exact")
    with pytest.raises(P4InfoError, match="table 'nope' not found.*has: .*acl"):
        info.get("table", "nope")
    with pytest.raises(P4InfoError, match="no parameter 'prt'.*has: port"):
        info.action_param("set_egress_port", "prt")


@pytest.mark.parametrize("value,width,expected", [
    (0, 9, b"\x00"), (5, 32, b"\x05"), (0x1FF, 9, b"\x01\xff"),
    ("00:00:00:00:00:01", 48, b"\x01"), ("10.0.0.1", 32, b"\x0a\x00\x00\x01"), (b"\x00\x07", 16, b"\x07"),
])
def test_encode_is_canonical(value, width, expected):
    assert p4rt.encode(value, width) == expected


def test_encode_rejects_values_wider_than_the_field():
    with pytest.raises(p4rt.EncodeError, match="does not fit in 9 bits"):
        p4rt.encode(512, 9)
    with pytest.raises(p4rt.EncodeError, match="negative"):
        p4rt.encode(-1, 8)


class _NoSwitch(p4rt.Client):
    """The entry builders without a connection."""

    def __init__(self, info):  # noqa: D401 - no super(): nothing to connect to
        self.info = info


def test_table_entry_masks_lpm_and_ternary_and_checks_params(info):
    c = _NoSwitch(info)
    te = c.table_entry("ipv4_lpm", {"hdr.ipv4.dst_addr": ("10.1.2.3", 16)}, "set_egress_port", {"port": 7})
    assert te.table_id == 1002
    assert te.match[0].lpm.value == b"\x0a\x01\x00\x00" and te.match[0].lpm.prefix_len == 16
    assert te.action.action.params[0].value == b"\x07"
    te = c.table_entry("acl", {"ether_type": (0x88CC, 0xFFFF)}, "set_egress_port", {"port": 1}, priority=10)
    assert te.match[0].ternary.value == b"\x88\xcc" and te.priority == 10
    with pytest.raises(P4InfoError, match="parameter 'port' not given"):
        c.table_entry("l2_exact", {"dst_addr": 1}, "set_egress_port", {})
    with pytest.raises(P4InfoError, match="no parameter.*bogus"):
        c.table_entry("l2_exact", {"dst_addr": 1}, "set_egress_port", {"port": 1, "bogus": 2})
    with pytest.raises(p4rt.EncodeError, match="dst_addr"):
        c.table_entry("l2_exact", {"dst_addr": 1 << 48}, "set_egress_port", {"port": 1})


def _fake_build(tmp_path, profile):
    (tmp_path / "pipe").mkdir()
    (tmp_path / "bfrt.json").write_bytes(b'{"tables": []}')
    (tmp_path / "p4info.txt").write_text("")
    binary = "tofino2.bin" if profile == "tofino2" else "tofino.bin"
    (tmp_path / "pipe" / binary).write_bytes(b"\x01\x02BIN")
    (tmp_path / "pipe" / "context.json").write_bytes(b'{"ctx": 1}')
    return str(tmp_path)


@pytest.mark.parametrize("profile", ["tofino", "tofino2"])
def test_stratum_device_config_carries_every_artifact(tmp_path, profile):
    d = _fake_build(tmp_path, profile)
    assert device_config.missing_artifacts(d, profile) == []
    cfg = device_config.parse_bf_pipeline_config(device_config.stratum_config(d, profile))
    assert cfg.p4_name == "ccfair"
    assert cfg.bfruntime_info == b'{"tables": []}'
    assert len(cfg.profiles) == 1
    assert cfg.profiles[0].binary == b"\x01\x02BIN" and cfg.profiles[0].context == b'{"ctx": 1}'
    assert list(cfg.profiles[0].pipe_scope) == [0, 1, 2, 3]


def test_pi_device_config_layout(tmp_path):
    d = _fake_build(tmp_path, "tofino")
    raw = device_config.pi_config(d, "tofino")
    assert raw[:4] == struct.pack("<I", 6) and raw[4:10] == b"ccfair"
    assert device_config.parse_pi_config(raw) == [b"ccfair", b"\x01\x02BIN", b'{"ctx": 1}']


def test_missing_artifacts_are_named(tmp_path):
    missing = device_config.missing_artifacts(str(tmp_path), "tofino2")
    assert any(m.endswith("pipe/tofino2.bin") for m in missing)
    assert any(m.endswith("bfrt.json") for m in missing)
    with pytest.raises(ValueError, match="unknown switch agent 'nope'"):
        device_config.build("nope", str(tmp_path), "tofino")
    with pytest.raises(ValueError, match="agent bmv2 runs profile bmv2"):
        device_config.build("bmv2", str(tmp_path), "tofino")
    assert sorted(os.path.basename(m) for m in device_config.missing_artifacts(str(tmp_path), "bmv2")) == \
        ["bmv2.json", "p4info.txt"]


def test_bmv2_device_config_is_the_json_as_it_is(tmp_path):
    (tmp_path / "p4info.txt").write_text("")
    (tmp_path / "bmv2.json").write_bytes(b'{"header_types": []}\n')
    assert device_config.missing_artifacts(str(tmp_path), "bmv2") == []
    assert device_config.build("bmv2", str(tmp_path), "bmv2") == b'{"header_types": []}\n'


def test_pipeline_cookie_follows_program_and_p4info(info):
    c = p4rt.pipeline_cookie(b"CFG", info)
    assert c == p4rt.pipeline_cookie(b"CFG", info) and 0 < c < (1 << 64)
    assert c != p4rt.pipeline_cookie(b"CFG2", info)


def test_flow_numbers_its_segments_per_direction():
    """K.Flow numbers segments as a sender does (the program's flow_seq takes a data segment not
    above its direction's highest for a retransmission): ISN 0 on SYN and SYN-ACK, then seq 1;
    each segment advances its direction by its payload (a 64-byte frame carries 10 bytes of
    padding as payload), a FIN by one more; a pure ACK advances nothing; an explicit seq moves the
    next one only forward (an older one is no new segment); retx=True repeats the direction's last
    new data segment."""
    f = K.Flow(0, 1, 1000)
    seq = lambda p: p[K.TCP].seq  # noqa: E731
    assert seq(f.data(1000)) == 1                                   # mid-connection: from 1
    assert [seq(f.syn()), seq(f.syn_ack()), seq(f.ack())] == [0, 0, 1]
    assert [seq(f.data(1000)), seq(f.data(1000))] == [11, 957]     # the ACK's 10 bytes, then 946 each
    assert seq(f.pure_ack()) == 1903 and f.next_seq() == 1903
    assert seq(f.data(500, retx=True)) == 957 and f.next_seq() == 1903
    assert [seq(f.rev_ack()), seq(f.data(200, fwd=False)), seq(f.fin(fwd=False))] == [1, 11, 157]
    assert f.next_seq(fwd=False) == 168                              # the FIN's payload and the FIN
    assert seq(f.data(100, seq=10)) == 10 and f.next_seq() == 1903   # an old seq: next and last unchanged
    assert f.last_seq() == 957
    assert seq(f.data(100, seq=5000)) == 5000 and f.next_seq() == 5046
    assert f.last_seq() == 5000
    with pytest.raises(ValueError):
        K.Flow(0, 1, 1001).data(retx=True)                          # nothing sent to retransmit
    g = K.Flow(0, 1, 1002)
    g.data(1000, fwd=False)
    assert [seq(g.syn()), seq(g.data(200, fwd=False))] == [0, 1]   # a SYN restarts the reverse at 1, not 0
    assert seq(g.data(200)) == 1 and g.last_seq(fwd=False) == 1


def test_flow_isn():
    """K.Flow(isn=, rev_isn=): the SYN carries isn and acknowledges nothing, the SYN-ACK carries
    rev_isn and acknowledges isn + 1; each direction's data starts at its ISN + 1, mid-connection
    too, and after a SYN without SYN-ACK the reverse direction's as well."""
    seq = lambda p: p[K.TCP].seq  # noqa: E731
    f = K.Flow(0, 1, 1000, isn=1000, rev_isn=7000)
    assert [seq(f.data(1000)), seq(f.data(200, fwd=False))] == [1001, 7001]   # mid-connection
    syn, syn_ack, ack = f.syn(), f.syn_ack(), f.ack()
    assert [seq(syn), seq(syn_ack), seq(ack)] == [1000, 7000, 1001]
    assert [syn_ack[K.TCP].ack, ack[K.TCP].ack] == [1001, 7001]
    assert [seq(f.data(1000)), seq(f.data(200, fwd=False))] == [1011, 7001]   # the ACK's 10 bytes
    assert seq(f.pure_ack()) == 1957 and seq(f.data(1000, retx=True)) == 1011
    assert seq(f.syn()) == 1000 and seq(f.data(200, fwd=False)) == 7001        # no SYN-ACK: rev_isn + 1
    top = K.Flow(0, 1, 1001, isn=0xFFFFFFFE)                                     # wraps modulo 2^32
    assert [seq(top.syn()), seq(top.data(100))] == [0xFFFFFFFE, 0xFFFFFFFF]
    assert seq(top.data(100)) == 45 and top.next_seq() == 91
