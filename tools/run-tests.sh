#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every ccfair test suite and prints one line per suite, then the SKIPPED
# checks with their count, then "suites: N passed, N failed, N skipped", which
# counts suites only (a suite is skipped when every check in it was). A check
# whose tools are absent prints "SKIPPED: <what> (<why>)"; it is never faked.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=build/test-logs; mkdir -p "$LOG"
passed=0; failed=0; skipped=0; skipped_checks=0; failures=(); times=()

suite() {  # suite NAME COMMAND...  (a suite that only printed SKIPPED lines counts as skipped)
  local name=$1; shift
  local t0=$SECONDS rc
  echo "=== $name: $*"
  "$@" 2>&1 | tee "$LOG/$name.log"; rc=${PIPESTATUS[0]}
  local skips; skips=$(grep -c '^SKIPPED:' "$LOG/$name.log")
  times+=("$name $((SECONDS - t0)) s")
  skipped_checks=$((skipped_checks + skips))
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1)); failures+=("$name"); echo "--- $name: FAIL ($((SECONDS - t0)) s, log: $LOG/$name.log)"
  # one grep, no pipe: with pipefail, grep -q's early exit SIGPIPEs the grep feeding it on a long log
  elif [ "$skips" -gt 0 ] && ! grep -qv -e '^SKIPPED:' -e '^[[:space:]]*$' "$LOG/$name.log"; then
    skipped=$((skipped + 1)); echo "--- $name: SKIPPED"
  else
    passed=$((passed + 1)); echo "--- $name: PASS ($((SECONDS - t0)) s)"
  fi
}

# Python: shared tools, parameter generators, P4Info cross-checks, vectors, PTF collection.
# (eval/tests run inside `make -C eval test`, after the simulator they drive is built.)
suite python .venv/bin/python -m pytest -q tools/tests $(ls -d ptf-tests/checks testbed/tests 2>/dev/null)
# P4 before Java: it compiles p4/build/<profile>, the device configs the pipeconfs bundle.
suite p4 make -s -C p4 test
# Java: ONOS app unit tests, checkstyle, .oar packaging (and the contract export PTF's contract check reads).
[ -d "${HOME}/.m2/repository/org/onosproject/onos-api" ] || \
  echo "java: first build: Maven downloads ONOS 2.7.0 and its dependencies from Maven Central (a few minutes, quiet)"
suite java mvn -B -q -Dstyle.color=never verify
cat onos-app/target/surefire-reports/*.txt 2>/dev/null | awk -F'[:,]' '/^Tests run/ {r+=$2; f+=$4; e+=$6; s+=$8}
  END {if (r) printf "java: %d tests run, %d failures, %d errors, %d skipped\n", r, f, e, s}'
# The C++ model, the PTF suite on BMv2 (after Java: the contract check writes the app's export)
# and the testbed's smoke (10 s of kernel Cubic vs BBR through BMv2, testbed/).
for comp in eval ptf-tests testbed; do
  suite "$comp" make -s -C "$comp" test
done

echo
grep -h '^SKIPPED:' "$LOG"/*.log || true
echo "skipped checks: ${skipped_checks} (listed above; each names what it needs)"
echo "suite times: ${times[*]}"
echo "suites: ${passed} passed, ${failed} failed, ${skipped} skipped${failures:+ (failed: ${failures[*]})}"
[ "$failed" -eq 0 ]
