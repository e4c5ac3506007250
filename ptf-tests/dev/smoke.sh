#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs ptf-tests/run end to end (veths, processes, P4Runtime, PTF, base class, tear-down) on a
# machine without the SDE: a fake SDE whose tofino-model only sleeps and whose stratum_bfrt is
# dev/fake_agent.py, and a fake build whose P4Info is the PTF contract. Only the packet-out test
# can pass there; it passing, and no veth left afterwards, is the check. Needs root.
#   dev/smoke.sh [TEST...]   other tests fail against the fake at their first expectation;
#                            one that errors before it has a bug in its own code
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
py="$repo/.venv/bin/python"
[ "$(id -u)" = 0 ] || { echo "dev/smoke.sh: needs root (veths)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/sde/install/bin" "$tmp/sde/install/share" "$tmp/build/pipe"
"$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["targets"]["sde_version"])' \
  "$repo/params/ccfair.json" > "$tmp/sde/install/share/VERSION"
printf '#!/bin/sh\nexec sleep 3600\n' > "$tmp/sde/install/bin/tofino-model"
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$py" "$here/fake_agent.py" > "$tmp/sde/install/bin/stratum_bfrt"
chmod +x "$tmp/sde/install/bin/"*
(cd "$repo/ptf-tests/checks" && "$py" -c '
import sys
import conftest  # puts lib/ and tools/ on the path
from google.protobuf import text_format
from test_ptf_p4info_crosscheck import contract_p4info
open(sys.argv[1], "w").write(text_format.MessageToString(contract_p4info()))' "$tmp/build/p4info.txt")
echo '{}' > "$tmp/build/bfrt.json"; echo '{}' > "$tmp/build/pipe/context.json"; echo BIN > "$tmp/build/pipe/tofino.bin"
SDE="$tmp/sde" SDE_INSTALL="$tmp/sde/install" PATH="/usr/sbin:/usr/bin:/sbin:/bin" \
  "$repo/ptf-tests/run" --build-dir "$tmp/build" --log-dir "${SMOKE_LOGS:-$tmp/logs}" --startup-timeout 60 \
  "${@:-test_packetio.PacketOutEveryPort}"
left=$(ip -o link show | grep -c ' veth[0-9]*@' || true)
[ "$left" = 0 ] || { echo "dev/smoke.sh: $left veth(s) left behind" >&2; exit 1; }
echo "dev/smoke.sh: OK (runner, fake agent, PTF packet-out test, tear-down)"
