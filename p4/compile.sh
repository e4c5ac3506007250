#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# compile.sh BF_P4C PROFILE OUTDIR: compile ccfair.p4 for one profile and
# collect the artefacts the control plane needs into OUTDIR.
set -euo pipefail
cd "$(dirname "$0")"
bf_p4c=$1 profile=$2 out=$3
case "$profile" in
  tofino)  target=tofino;  arch=tna;  bin=tofino.bin ;;
  tofino2) target=tofino2; arch=t2na; bin=tofino2.bin ;;
  *) echo "unknown profile '$profile' (expected tofino or tofino2)" >&2; exit 2 ;;
esac
rm -rf "$out"; mkdir -p "$out"
t0=$SECONDS
if ! "$bf_p4c" --target "$target" --arch "$arch" -g --verbose 2 \
     --p4runtime-force-std-externs --p4runtime-files "$out/p4info.txt" \
     -I build/gen -o "$out/compiler" ccfair.p4 > "$out/compile.log" 2>&1; then
  cat "$out/compile.log" >&2
  echo "bf-p4c failed for profile $profile (log: p4/$out/compile.log)" >&2
  exit 1
fi
cp "$out/compiler/bfrt.json" "$out/bfrt.json"
cp "$out/compiler/pipe/context.json" "$out/context.json"
if [ -f "$out/compiler/pipe/$bin" ]; then cp "$out/compiler/pipe/$bin" "$out/$bin"; fi
python3 resources.py "$profile" "$out/compiler" > "$out/resources.json"
echo "$profile: compiled in $((SECONDS - t0)) s -> p4/$out ($(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%d/%d stages" % (r["stages_used"], r["stages_available"]))' "$out/resources.json"))"
