#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks on one compiled profile (run by `make -C p4 test`).

  check_build.py PROFILE OUTDIR

1. The produced P4Info equals the committed contract p4info/PROFILE/p4info.txt.
2. The assembled parser still selects on the ethertypes (a known bf-p4c
   regression drops every parser select silently).
   (bmv2, the v1model port: only this check; check_port.py compares it
   with the TNA program.)
3. Stages used <= the profile's budget (params targets.profiles.*.stages_budget:
   fewer than the ASIC has, so operators keep stages for their own tables)
   and the flow table holds flows_per_pipe flows.
Exit status 1 with a message naming what is wrong.
"""
import difflib
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from ccfair import params as P  # noqa: E402


def fail(msg):
    sys.stderr.write("FAIL: %s\n" % msg)
    sys.exit(1)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: check_build.py PROFILE OUTDIR\n")
        return 2
    profile, out = argv[1], argv[2]
    params = P.load()
    prof = params["targets"]["profiles"][profile]

    committed = os.path.join(HERE, "p4info", profile, "p4info.txt")
    if not os.path.exists(committed):
        fail("no committed P4Info %s; copy %s/p4info.txt there" % (committed, out))
    with open(committed) as f:
        want = f.readlines()
    with open(os.path.join(out, "p4info.txt")) as f:
        got = f.readlines()
    if want != got:
        diff = list(difflib.unified_diff(want, got, "committed", "compiled", n=2))
        sys.stderr.write("".join(diff[:60]))
        fail("%s: compiled P4Info differs from p4/p4info/%s/p4info.txt (%d diff lines); "
             "update the contract and docs/dataplane.md together" % (profile, profile, len(diff)))

    if prof["arch"] == "v1model":
        print("%s: P4Info matches the contract" % profile)
        return 0

    bfa = glob.glob(os.path.join(out, "compiler", "pipe", "*.bfa"))
    if not bfa:
        fail("%s: no .bfa assembly found under %s/compiler/pipe" % (profile, out))
    text = open(bfa[0]).read()
    parser = text[text.find("parser ingress"):]
    for name, etype in (("IPv4", 0x0800), ("shim", P.int_value(params["shim"]["ether_type"]))):
        if not re.search(r"0x0*%x\b" % etype, parser, re.IGNORECASE):
            fail("%s: ingress parser in %s has no select branch for %s (0x%04x): "
                 "the compiler dropped parser selects" % (profile, os.path.basename(bfa[0]), name, etype))

    with open(os.path.join(out, "resources.json")) as f:
        r = json.load(f)
    if r["stages_used"] > prof["stages_budget"]:
        fail("%s: %d of %d stages used, budget %d" % (profile, r["stages_used"], prof["stages_available"],
                                                      prof["stages_budget"]))
    if (r["flows_per_pipe"] or 0) < prof["flows_per_pipe"]:
        fail("%s: flow table holds %s flows, params want %d" % (profile, r["flows_per_pipe"], prof["flows_per_pipe"]))
    print("%s: P4Info matches the contract, parser selects present, %d/%d stages (budget %d), SRAM %s%%, "
          "TCAM %s%%, PHV %s%%, %d flows/pipe"
          % (profile, r["stages_used"], r["stages_available"], prof["stages_budget"], r["sram_pct"], r["tcam_pct"],
             r["phv_pct"], r["flows_per_pipe"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
