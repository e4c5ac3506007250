# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures of the PTF checks that run without an SDE, and their summary.

Checks append one-line results (collected test count, P4Info cross-check,
vectors) to REPORT; they are printed at the end of the pytest run so
`make test` shows them even with -q. Lines starting with "SKIPPED:" are
counted by tools/run-tests.sh.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PTF_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PTF_DIR)
for p in (os.path.join(PTF_DIR, "lib"), os.path.join(PTF_DIR, "runner"), os.path.join(REPO, "tools"),
          os.path.join(REPO, "model-configs")):
    if p not in sys.path:
        sys.path.insert(0, p)

REPORT = []


def report(line):
    if line not in REPORT:
        REPORT.append(line)


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        terminalreporter.write_sep("-", "ptf-tests checks")
        for line in REPORT:
            terminalreporter.write_line(line)
