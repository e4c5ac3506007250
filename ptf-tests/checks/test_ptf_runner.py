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
