# SPDX-License-Identifier: Apache-2.0
"""ptf-tests/run refuses clearly when the SDE or the compiled program is missing,
checks the SDE version, and (--dry-run) plans the right commands. Runs the real
script as a user would; fake SDE trees stand in for the Intel SDE, whose
binaries are never executed here."""
import json
import os
import subprocess

import pytest

from conftest import PTF_DIR, REPO

RUN = os.path.join(PTF_DIR, "run")
with open(os.path.join(REPO, "params", "ccfair.json")) as _f:
    SDE_VERSION = json.load(_f)["targets"]["sde_version"]


def run(args=(), env_extra=None, drop=("SDE", "SDE_INSTALL", "STRATUM_BFRT")):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_extra or {})
    p = subprocess.run([RUN] + list(args), env=env, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def fake_sde(root, version=SDE_VERSION, model=True, stratum=True, switchd=False):
    """An SDE-shaped tree: share/VERSION, bin/tofino-model, bin/stratum_bfrt (never run)."""
    inst = root / "install"
    (inst / "bin").mkdir(parents=True)
    (inst / "share").mkdir()
    if version:
        (inst / "share" / "VERSION").write_text(version)
    names = [n for n, want in (("tofino-model", model), ("stratum_bfrt", stratum), ("bf_switchd", switchd)) if want]
    for n in names:
        exe = inst / "bin" / n
        exe.write_text("#!/bin/sh\necho 'fake %s must never run in make test' >&2\nexit 99\n" % n)
        exe.chmod(0o755)
    return {"SDE": str(root), "SDE_INSTALL": str(inst)}


def fake_build(root, profile="tofino"):
    (root / "pipe").mkdir(parents=True)
    for rel in ("p4info.txt", "bfrt.json", "pipe/context.json",
                "pipe/%s" % ("tofino2.bin" if profile == "tofino2" else "tofino.bin")):
        (root / rel).write_text("x")
    return str(root)


def test_refuses_without_sde_and_names_both_variables():
    rc, out, err = run()
    assert rc == 2
    assert "cannot run: $SDE and $SDE_INSTALL not set" in err
    assert SDE_VERSION in err


def test_refuses_when_sde_install_is_not_a_directory(tmp_path):
    rc, _, err = run(env_extra={"SDE": str(tmp_path), "SDE_INSTALL": str(tmp_path / "nope")})
    assert rc == 2 and "$SDE_INSTALL=%s is not a directory" % (tmp_path / "nope") in err


def test_refuses_a_different_sde_version_and_says_which(tmp_path):
    rc, _, err = run(env_extra=fake_sde(tmp_path, version="9.7.0"))
    assert rc == 2
    assert "SDE version mismatch: found 9.7.0" in err and "written and tested for SDE %s" % SDE_VERSION in err
    assert "--allow-sde-mismatch" in err


def test_version_from_intel_manifest_name(tmp_path):
    env = fake_sde(tmp_path, version=None)
    (tmp_path / "bf-sde-9.11.0.manifest").write_text("")
    rc, _, err = run(env_extra=env)
    assert rc == 2 and "found 9.11.0" in err and "bf-sde-9.11.0.manifest" in err


def test_unknown_version_refused_unless_allowed(tmp_path):
    env = fake_sde(tmp_path, version=None)
    rc, _, err = run(env_extra=env)
    assert rc == 2 and "cannot tell which SDE version" in err
    rc, _, err = run(["--allow-sde-mismatch"], env_extra=env)
    # allowed past the version check, it stops at the next missing thing: the compiled program
    assert "WARNING: cannot tell which SDE version" in err
    assert rc == 2 and "compiled program for profile tofino is missing" in err


def test_refuses_without_tofino_model(tmp_path):
    rc, _, err = run(env_extra=fake_sde(tmp_path, model=False))
    assert rc == 2 and "tofino-model not found at %s" % (tmp_path / "install" / "bin" / "tofino-model") in err


def test_refuses_without_the_switch_agent(tmp_path):
    env = fake_sde(tmp_path, stratum=False)
    env["PATH"] = "/usr/bin:/bin"
    rc, _, err = run(env_extra=env)
    assert rc == 2 and "stratum_bfrt (Stratum built against this SDE) was not found" in err
    rc, _, err = run(["--agent", "switchd"], env_extra=env)
    assert rc == 2 and "bf_switchd was not found in $SDE_INSTALL/bin" in err


@pytest.mark.parametrize("profile,binary", [("tofino", "tofino.bin"), ("tofino2", "tofino2.bin")])
def test_refuses_without_the_compiled_program_and_names_the_files(tmp_path, profile, binary):
    rc, _, err = run(["--profile", profile, "--build-dir", str(tmp_path / "empty")], env_extra=fake_sde(tmp_path))
    assert rc == 2
    assert "compiled program for profile %s is missing" % profile in err
    for f in ("p4info.txt", "bfrt.json", "pipe/%s" % binary, "pipe/context.json"):
        assert f in err
    assert "make p4" in err


def test_refuses_an_unknown_profile():
    rc, _, err = run(["--profile", "tofino3"])
    assert rc == 2 and "unknown profile 'tofino3'" in err and "tofino, tofino2" in err


@pytest.mark.parametrize("profile,chip", [("tofino", "2"), ("tofino2", "5")])
def test_dry_run_plans_model_agent_and_ptf_from_the_port_map(tmp_path, profile, chip):
    env = fake_sde(tmp_path / "sde")
    build = fake_build(tmp_path / "build", profile)
    rc, out, err = run(["--profile", profile, "--build-dir", build, "--dry-run", "flow"], env_extra=env)
    assert rc == 0, err
    lines = out.splitlines()
    model = next(l for l in lines if l.split()[0] == "tofino-model")
    assert "--chip-type %s" % chip in model and "model-configs/ptf/%s/tofino-model-ports.json" % profile in model
    agent = next(l for l in lines if l.split()[0] == "agent")
    assert "stratum_bfrt" in agent and "model-configs/ptf/%s/chassis_config.pb.txt" % profile in agent
    ptf = next(l for l in lines if l.split()[0] == "ptf")
    with open(os.path.join(REPO, "model-configs", "ptf", profile, "port_map.json")) as f:
        for e in json.load(f):
            assert "-i %d@%s" % (e["p4_port"], e["iface_name"]) in ptf
    assert "p4info=" in ptf and ptf.rstrip().endswith(" flow")
    veths = json.load(open(os.path.join(REPO, "model-configs", "ptf", profile, "tofino-model-ports.json")))
    pairs = ",".join("%d:%d" % (i + 1, v["device_port"]) for i, v in enumerate(veths["PortToVeth"]))
    assert "dev_ports=" in ptf and pairs in ptf and "shaped_port=8" in ptf
    assert sum(l.split()[0] == "veth" for l in lines) > 0


# -- --target bmv2 ----------------------------------------------------------------------------------
NO_BMV2_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"  # iproute2 and make, not the BMv2 tools in /usr/local/bin


def fake_bmv2(root, tools=("simple_switch_grpc", "p4c-bm2-ss"), stubs=True):
    """A BMv2 install prefix: bin/ tools that must never run, and the Thrift stub packages."""
    (root / "bin").mkdir(parents=True)
    for n in tools:
        exe = root / "bin" / n
        exe.write_text("#!/bin/sh\necho 'fake %s must never run in make test' >&2\nexit 99\n" % n)
        exe.chmod(0o755)
    if stubs:
        for pkg in ("bm_runtime", "sswitch_runtime"):
            (root / "lib" / "python3.11" / "site-packages" / pkg).mkdir(parents=True)
    return {"BMV2_PREFIX": str(root), "PATH": NO_BMV2_PATH}


def fake_bmv2_build(root):
    root.mkdir(parents=True)
    (root / "p4info.txt").write_text("")
    (root / "bmv2.json").write_text("{}")
    return str(root)


def run_bmv2(args, env_extra):
    return run(["--target", "bmv2"] + list(args), env_extra=env_extra,
               drop=("SDE", "SDE_INSTALL", "STRATUM_BFRT", "BMV2_PREFIX"))


def test_bmv2_refuses_without_its_tools_and_names_them(tmp_path):
    rc, _, err = run_bmv2([], {"PATH": NO_BMV2_PATH})
    assert rc == 2
    assert "cannot run: simple_switch_grpc and p4c-bm2-ss not found on PATH (BMV2_PREFIX not set)" in err
    rc, _, err = run_bmv2([], fake_bmv2(tmp_path / "bmv2", tools=("simple_switch_grpc",)))
    assert rc == 2
    assert "p4c-bm2-ss not found on PATH or in $BMV2_PREFIX/bin (%s/bin)" % (tmp_path / "bmv2") in err
    assert "simple_switch_grpc" not in err.split("not found")[0]


def test_bmv2_refuses_without_the_thrift_stubs(tmp_path):
    rc, _, err = run_bmv2([], fake_bmv2(tmp_path / "bmv2", stubs=False))
    assert rc == 2 and "Thrift stubs (bm_runtime, sswitch_runtime) are not under %s" % (tmp_path / "bmv2") in err


def test_bmv2_refuses_without_the_compiled_program_and_names_the_files(tmp_path):
    rc, _, err = run_bmv2(["--build-dir", str(tmp_path / "empty")], fake_bmv2(tmp_path / "bmv2"))
    assert rc == 2 and "compiled program for profile bmv2 is missing" in err
    assert "%s/p4info.txt" % (tmp_path / "empty") in err and "%s/bmv2.json" % (tmp_path / "empty") in err
    assert "make -C p4 bmv2" in err


@pytest.mark.parametrize("args,message", [
    (["--target", "bmv2", "--profile", "tofino2"], "--target bmv2 runs profile bmv2 (the v1model port); "
                                                  "--profile tofino2 is a tofino-model profile"),
    (["--target", "bmv2", "--agent", "switchd"], "--agent chooses tofino-model's P4Runtime agent"),
    (["--profile", "bmv2"], "profile bmv2 is the v1model port for BMv2: run it with --target bmv2"),
    (["--netns", "x"], "--netns applies to --target bmv2 only"),
])
def test_target_and_profile_options_that_do_not_go_together(args, message):
    rc, _, err = run(args)
    assert rc == 2 and message in err


def test_bmv2_dry_run_plans_namespace_veths_switch_setup_and_ptf(tmp_path):
    env = fake_bmv2(tmp_path / "bmv2")
    build = fake_bmv2_build(tmp_path / "build")
    rc, out, err = run_bmv2(["--build-dir", build, "--netns", "ccfair-check", "--log-dir", str(tmp_path / "logs"),
                             "--dry-run", "flow"], env)
    assert rc == 0, err
    lines = [l.split(None, 1) for l in out.splitlines()[1:]]
    kinds = [k for k, _ in lines]
    assert kinds[:3] == ["netns"] * 3 and kinds[-3:] == ["switch", "setup", "ptf"]
    cmd = {k: c for k, c in lines}
    assert lines[0][1] == "ip netns add ccfair-check"
    assert "ip -n ccfair-check link set lo up" in [c for _, c in lines]
    with open(os.path.join(REPO, "model-configs", "ptf", "bmv2", "bmv2-ports.json")) as f:
        veths = json.load(f)["PortToVeth"]
    with open(os.path.join(REPO, "model-configs", "fabric.json")) as f:
        fabric = json.load(f)
    with open(os.path.join(REPO, "params", "ccfair.json")) as f:
        params = json.load(f)
    for v in veths:
        assert "ip -n ccfair-check link add veth%d type veth peer name veth%d" % (v["veth1"], v["veth2"]) \
            in [c for _, c in lines]
    sw = cmd["switch"]
    assert sw.startswith("ip netns exec ccfair-check %s/bin/simple_switch_grpc --device-id %d "
                         % (tmp_path / "bmv2", fabric["ptf"]["device_id"]))
    for v in veths:
        assert "-i %d@veth%d " % (v["port"], v["veth1"]) in sw
    assert "--thrift-port %d" % fabric["bmv2"]["thrift_port"] in sw
    assert "--log-file %s/bmv2 " % (tmp_path / "logs") in sw and "--no-p4" in sw
    target = sw.split(" -- ", 1)[1]  # simple_switch_grpc's own options come after --
    assert target == "--grpc-server-addr %s --cpu-port %d --priority-queues %d" % (
        fabric["ptf"]["grpc_addr"], params["cpu"]["port_bmv2"],
        params["targets"]["profiles"]["bmv2"]["priority_queues"])
    setup = cmd["setup"]
    assert setup.startswith("ip netns exec ccfair-check ") and "runner/bmv2_setup.py" in setup
    assert "--device-config %s/device_config.bin" % (tmp_path / "logs") in setup
    assert "--shape %d:%d" % (fabric["ptf"]["shaped_port"], fabric["bmv2"]["shaped_rate_pps"]) in setup
    ptf = cmd["ptf"]
    assert ptf.startswith("ip netns exec ccfair-check ") and ptf.endswith(" flow")
    assert "--test-dir %s" % os.path.join(PTF_DIR, "tests") in ptf
    with open(os.path.join(REPO, "model-configs", "ptf", "bmv2", "port_map.json")) as f:
        for e in json.load(f):
            assert "-i %d@%s" % (e["p4_port"], e["iface_name"]) in ptf
    for p in ("profile='\"'\"'bmv2'\"'\"'", "thrift_port=%d" % fabric["bmv2"]["thrift_port"],
              "dev_ports='\"'\"'%s'\"'\"'" % ",".join("%d:%d" % (v["port"], v["port"]) for v in veths),
              "shaped_port=%d" % fabric["ptf"]["shaped_port"], "bmv2_py="):
        assert p in ptf, p


def test_bmv2_refuses_without_root_or_thrift(tmp_path, monkeypatch):
    import ccfair_ptf
    import target_bmv2
    env = dict(os.environ, **fake_bmv2(tmp_path / "bmv2"))
    argv = ["--target", "bmv2", "--build-dir", fake_bmv2_build(tmp_path / "build")]
    monkeypatch.setattr(ccfair_ptf.os, "geteuid", lambda: 1000)
    assert ccfair_ptf.main(argv, env) == 2
    monkeypatch.setattr(target_bmv2.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ccfair_ptf.Refusal, match="Python package thrift is not in the venv"):
        target_bmv2.preflight(ccfair_ptf.parse_args(argv, ["bmv2", "tofino"]), env, {})


def test_make_test_says_which_bmv2_tool_is_missing(tmp_path):
    def make(env_extra):
        env = {k: v for k, v in os.environ.items() if k not in ("BMV2_PREFIX", "SDE", "SDE_INSTALL")}
        env.update(env_extra)
        return subprocess.run(["make", "-s", "-C", PTF_DIR, "test-bmv2"], env=env, capture_output=True, text=True,
                               timeout=60).stdout
    assert make({"PATH": NO_BMV2_PATH}).strip() == "SKIPPED: PTF on BMv2 (simple_switch_grpc and p4c-bm2-ss not found)"
    out = make(fake_bmv2(tmp_path / "bmv2", tools=("simple_switch_grpc",)))
    assert out.strip() == "SKIPPED: PTF on BMv2 (p4c-bm2-ss not found)"


def test_ptf_is_killed_past_its_timeout():
    import common
    assert common.run_ptf(["sh", "-c", "exit 3"], dict(os.environ)) == 3
    with pytest.raises(RuntimeError, match="PTF did not finish within 1 s"):
        common.run_ptf(["sleep", "30"], dict(os.environ), timeout=1)
