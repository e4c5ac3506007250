# SPDX-License-Identifier: Apache-2.0
"""model-configs/: every file parses, is what gen_configs.py writes from fabric.json,
and the port maps, tofino-model port files, chassis configs and ONOS netcfg agree."""
import copy
import glob
import json
import os
import re
import subprocess

import pytest

import gen_configs as G
from conftest import REPO, report

MC = os.path.join(REPO, "model-configs")


def chassis_ports(path):
    """{singleton id: name} of a Stratum chassis config (text format, parsed by regex)."""
    text = open(path).read()
    blocks = re.findall(r"singleton_ports \{(.*?)\n\}", text, re.S)
    out = {}
    for b in blocks:
        pid = int(re.search(r"\n  id: (\d+)", b).group(1))
        port = int(re.search(r"\n  port: (\d+)", b).group(1))
        assert pid == port, "%s: singleton id %d != port %d" % (path, pid, port)
        out[pid] = re.search(r'\n  name: "([^"]+)"', b).group(1)
    return out


def test_committed_configs_are_what_the_generator_writes():
    p = subprocess.run([os.path.join(REPO, ".venv", "bin", "python"), os.path.join(MC, "gen_configs.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_every_json_file_parses():
    files = glob.glob(os.path.join(MC, "**", "*.json"), recursive=True) + \
        glob.glob(os.path.join(MC, "**", "*.conf"), recursive=True)
    rendered = {os.path.join(MC, rel) for rel in G.render(G.load()) if rel.endswith((".json", ".conf"))}
    assert rendered <= set(files)
    for f in files:
        with open(f) as fh:
            json.load(fh)


@pytest.mark.parametrize("profile", ["tofino", "tofino2"])
def test_ptf_port_map_matches_model_ports_and_chassis(profile):
    d = os.path.join(MC, "ptf", profile)
    pm = json.load(open(os.path.join(d, "port_map.json")))
    assert all(set(e) == {"p4_port", "iface_name"} for e in pm)
    veths = json.load(open(os.path.join(d, "tofino-model-ports.json")))["PortToVeth"]
    # every PTF interface is the free end of a veth pair the model attaches to
    assert sorted(e["iface_name"] for e in pm) == sorted("veth%d" % v["veth2"] for v in veths)
    assert len({v["device_port"] for v in veths}) == len(veths)
    chassis = chassis_ports(os.path.join(d, "chassis_config.pb.txt"))
    assert chassis == {e["p4_port"]: e["iface_name"] for e in pm}
    spec = G.load()
    shaped = spec["ptf"]["shaped_port"]
    text = open(os.path.join(d, "chassis_config.pb.txt")).read()
    assert re.search(r"per_port_shaping_configs \{\s*key: %d\b" % shaped, text)
    assert shaped in chassis
    conf = json.load(open(os.path.join(d, "tofino-model.conf.json")))
    pipe = conf["p4_devices"][0]["p4_programs"][0]["p4_pipelines"][0]
    assert pipe["config"].endswith("/pipe/" + spec["profiles"][profile]["binary"])
    assert json.load(open(os.path.join(d, "switchd.conf")))["chip_list"][0]["chip_family"] == profile
    report("model-configs: %s PTF port map %d ports, consistent with tofino-model ports and chassis config"
           % (profile, len(pm)))


def test_bmv2_port_map_matches_its_veths_and_avoids_reserved_ports():
    d = os.path.join(MC, "ptf", "bmv2")
    pm = json.load(open(os.path.join(d, "port_map.json")))
    veths = json.load(open(os.path.join(d, "bmv2-ports.json")))["PortToVeth"]
    # PTF holds the free end of each pair; BMv2's port number is the P4Runtime port (no SDK numbering)
    assert {e["p4_port"]: e["iface_name"] for e in pm} == {v["port"]: "veth%d" % v["veth2"] for v in veths}
    ends = [v["veth1"] for v in veths] + [v["veth2"] for v in veths]
    assert len(set(ends)) == len(ends)
    with open(os.path.join(REPO, "params", "ccfair.json")) as f:
        params = json.load(f)
    reserved = {params["cpu"]["port_bmv2"], params["update"]["recirc_port_bmv2"]}
    assert not reserved & {v["port"] for v in veths}, "a PTF port is BMv2's CPU or recirculation port"
    spec = G.load()
    assert spec["ptf"]["shaped_port"] in {v["port"] for v in veths}
    assert len(pm) == spec["ptf"]["ports"]
    report("model-configs: bmv2 PTF port map %d ports (veth pairs in the runner's namespace), thrift port %d"
           % (len(pm), spec["bmv2"]["thrift_port"]))


def test_fabric_netcfg_matches_switch_configs():
    spec = G.load()
    fab = spec["fabric"]
    net = json.load(open(os.path.join(MC, "fabric", "netcfg.json")))
    assert sorted(net["devices"]) == sorted("device:%s" % s["name"] for s in fab["switches"])
    addrs = [d["basic"]["managementAddress"] for d in net["devices"].values()]
    assert len(set(addrs)) == len(addrs)
    for a in addrs:
        assert re.match(r"grpc://127\.0\.0\.1:\d+\?device_id=\d+$", a), a
    for d in net["devices"].values():
        assert d["basic"]["pipeconf"] == G.PIPECONF % fab["profile"]
    ports = {s["name"]: chassis_ports(os.path.join(MC, "fabric", s["name"], "chassis_config.pb.txt"))
             for s in fab["switches"]}
    link_ports = set()
    for key in net["links"]:
        m = re.match(r"device:(\w+)/(\d+)-device:(\w+)/(\d+)$", key)
        assert m, key
        for sw, p in ((m.group(1), int(m.group(2))), (m.group(3), int(m.group(4)))):
            assert p in ports[sw], "link %s uses %s/%d, absent from its chassis config" % (key, sw, p)
            link_ports.add((sw, p))
    assert len(net["links"]) == 4
    for h in net["hosts"].values():
        (loc,) = h["basic"]["locations"]
        sw, p = loc[len("device:"):].split("/")
        assert int(p) in ports[sw] and (sw, int(p)) not in link_ports
    for s in fab["switches"]:
        m = json.load(open(os.path.join(MC, "fabric", s["name"], "tofino-model-ports.json")))["PortToIf"]
        assert sorted(e["if"] for e in m) == sorted(ports[s["name"]].values())
    # each leaf reaches each spine: a 2x2 leaf-spine
    leaves = [s["name"] for s in fab["switches"] if s["role"] == "leaf"]
    spines = [s["name"] for s in fab["switches"] if s["role"] == "spine"]
    pairs = {tuple(sorted((l[0], l[2]))) for l in fab["links"]}
    assert pairs == {tuple(sorted((a, b))) for a in leaves for b in spines}
    report("model-configs: fabric %d switches, %d links, %d hosts; netcfg consistent with chassis configs"
           % (len(fab["switches"]), len(fab["links"]), len(fab["hosts"])))


def test_fabric_scripts_are_valid_bash():
    for s in ("up.sh", "down.sh"):
        assert subprocess.run(["bash", "-n", os.path.join(MC, "fabric", s)]).returncode == 0


@pytest.mark.parametrize("mutate,message", [
    (lambda s: s["fabric"]["links"].append(["leaf1", 1, "spine1", 3]), "port leaf1/1 used twice"),
    (lambda s: s["fabric"]["hosts"][0].update(switch="leaf9"), "unknown switch 'leaf9'"),
    (lambda s: s["fabric"]["switches"][1].update(device_id=1), "duplicate device ids"),
    (lambda s: s["fabric"].update(profile="tofino3"), "fabric.profile 'tofino3'"),
    (lambda s: s["ptf"].update(shaped_port=99), "ptf.shaped_port 99"),
    (lambda s: s["bmv2"].update(thrift_port=9559), "bmv2.thrift_port 9559 must be a TCP port other than"),
])
def test_inconsistent_fabric_descriptions_are_rejected(mutate, message):
    spec = copy.deepcopy(G.load())
    mutate(spec)
    with pytest.raises(G.ConfigError, match=re.escape(message)):
        G.validate(spec)


def test_netcfg_pipeconf_id_is_the_one_the_onos_app_registers():
    loader = os.path.join(REPO, "onos-app", "src", "main", "java", "org", "ccfair", "app", "pipeconf",
                          "PipeconfLoader.java")
    if not os.path.isfile(loader):
        report("SKIPPED: netcfg pipeconf id vs the ONOS app (no PipeconfLoader.java)")
        pytest.skip("no ONOS pipeconf loader")
    m = re.search(r'new PiPipeconfId\(\s*"([^"]*)"\s*\+\s*profile\s*\)', open(loader).read())
    assert m, "PipeconfLoader.pipeconfId no longer builds the id as \"<prefix>\" + profile: update this check"
    assert G.PIPECONF % "tofino" == m.group(1) + "tofino", (G.PIPECONF, m.group(1))
