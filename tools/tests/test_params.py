# SPDX-License-Identifier: Apache-2.0
"""The parameter loader and generators: one JSON, consistent derived values."""
import copy
import json
import os
import re
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from ccfair import params as P  # noqa: E402

GEN = os.path.join(P.REPO, "tools", "gen_params.py")


def test_group_ids_dense_and_distinct():
    p = P.load()
    ids = [p["groups"]["ant"], p["groups"]["mouse"]]
    for fam in p["groups"]["families"]:
        ids += [P.group_id(p, fam, s) for s in range(p["groups"]["k"])]
    assert sorted(ids) == list(range(P.num_groups(p)))
    assert len(P.group_names(p)) == P.num_groups(p)


def _load_changed(tmp_path, section, key, value):
    """P.load of a copy of params/ccfair.json with section.key set to value."""
    bad = copy.deepcopy(P.load())
    bad[section][key] = value
    f = tmp_path / "p.json"
    f.write_text(json.dumps(bad))
    return P.load(str(f))


def test_k_too_small_for_hybrid_kinds_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="groups.k"):
        _load_changed(tmp_path, "groups", "k", 1)


def test_removed_keys_are_refused(tmp_path):
    with pytest.raises(ValueError, match=r"classifier.m_ld: removed \(aggressiveness was removed"):
        _load_changed(tmp_path, "classifier", "m_ld", 4)
    with pytest.raises(ValueError, match=r"controller.limited_share_shift: removed \(the fair rate's max-min step"):
        _load_changed(tmp_path, "controller", "limited_share_shift", 2)
    with pytest.raises(ValueError, match=r"queues.default_weight: removed \(a weight per queue since"):
        _load_changed(tmp_path, "queues", "default_weight", 1)


@pytest.mark.parametrize("weights", [[1] * 15, [1] * 15 + [0], [1] * 15 + [1024], [1] * 15 + [1.5], None])
def test_dwrr_weights_one_per_queue_in_the_tms_range(tmp_path, weights):
    with pytest.raises(ValueError, match=r"queues.dwrr_weights must list queues.per_port \(16\) integers in 1..1023"):
        _load_changed(tmp_path, "queues", "dwrr_weights", weights)


@pytest.mark.parametrize("m", [0, 65, 1.5, True, None])
def test_family_forget_intervals_fit_the_register(tmp_path, m):
    with pytest.raises(ValueError, match=r"classifier.family_forget_intervals must be an integer in 1..64"):
        _load_changed(tmp_path, "classifier", "family_forget_intervals", m)


@pytest.mark.parametrize("k", [0, 65, 2.5, False, None])
def test_delay_target_pkts_in_range(tmp_path, k):
    with pytest.raises(ValueError, match=r"queues.delay_target_pkts must be an integer in 1..64"):
        _load_changed(tmp_path, "queues", "delay_target_pkts", k)


@pytest.mark.parametrize("h", [0, 9, 2.5, True, None])
def test_tvf_half_span_decades_in_range(tmp_path, h):
    with pytest.raises(ValueError, match=r"tvf.half_span_decades must be an integer in 1..8"):
        _load_changed(tmp_path, "tvf", "half_span_decades", h)


@pytest.mark.parametrize("c", [5, 1e12, "100", True, None])
def test_tvf_centre_kbps_within_the_table(tmp_path, c):
    with pytest.raises(ValueError, match=r"tvf.centre_kbps must be a rate within the TVF table's bins"):
        _load_changed(tmp_path, "tvf", "centre_kbps", c)


def test_p4_header_matches_json(tmp_path):
    out = tmp_path / "params.p4"
    subprocess.check_call([sys.executable, GEN, "p4", str(out)])
    defs = dict(re.findall(r"#define (CCFAIR_\w+) (\d+)", out.read_text()))
    p = P.load()
    assert int(defs["CCFAIR_CLASSIFIER_M_M"]) == p["classifier"]["m_m"]
    assert int(defs["CCFAIR_SHIM_ETHER_TYPE"]) == int(p["shim"]["ether_type"], 16)
    assert int(defs["CCFAIR_NUM_GROUPS"]) == P.num_groups(p)
    # floats cannot be expressed in P4 and must not appear truncated
    assert "CCFAIR_COCOA_GI_MULTIPLIER" not in defs


def test_cpp_header_compiles_and_agrees(tmp_path):
    hdr = tmp_path / "ccfair-params.h"
    subprocess.check_call([sys.executable, GEN, "cpp", str(hdr)])
    src = tmp_path / "t.cc"
    src.write_text('#include "ccfair-params.h"\n#include <cstdio>\n'
                   'int main(){std::printf("%lld %g %s %lld\\n",(long long)ccfair::params::NUM_GROUPS,'
                   'ccfair::params::COCOA_GI_MULTIPLIER,ccfair::params::GROUP_NAMES[2],'
                   '(long long)ccfair::params::QUEUES_DWRR_WEIGHTS[15]);}\n')
    exe = tmp_path / "t"
    subprocess.check_call(["g++", "-std=c++17", "-I", str(tmp_path), str(src), "-o", str(exe)])
    n, mult, name, w15 = subprocess.check_output([str(exe)]).decode().split()
    p = P.load()
    assert int(w15) == p["queues"]["dwrr_weights"][15]
    assert int(n) == P.num_groups(p)
    assert float(mult) == p["cocoa"]["gi_multiplier"]
    assert name == P.group_names(p)[2]


def test_generator_usage_error():
    r = subprocess.run([sys.executable, GEN, "java", "x"], capture_output=True, text=True)
    assert r.returncode == 2 and "usage" in r.stderr
