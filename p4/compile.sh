#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# compile.sh COMPILER PROFILE OUTDIR: compile one profile and collect the
# artefacts the control plane needs into OUTDIR. COMPILER is bf-p4c for the
# TNA profiles (tna/ccfair.p4) and p4c-bm2-ss for bmv2 (v1model/ccfair.p4).
set -euo pipefail
cd "$(dirname "$0")"
bf_p4c=$1 profile=$2 out=$3
if [ "$profile" = bmv2 ]; then
  rm -rf "$out"; mkdir -p "$out"
  t0=$SECONDS
  if ! "$bf_p4c" --arch v1model --p4runtime-files "$out/p4info.txt" -I build/gen \
       -o "$out/bmv2.json" v1model/ccfair.p4 > "$out/compile.log" 2>&1; then
    cat "$out/compile.log" >&2
    echo "p4c-bm2-ss failed for profile bmv2 (log: p4/$out/compile.log)" >&2
    exit 1
  fi
  echo "bmv2: compiled in $((SECONDS - t0)) s -> p4/$out (bmv2.json, p4info.txt)"
  exit 0
fi
case "$profile" in
  tofino)  target=tofino;  arch=tna;  bin=tofino.bin ;;
  tofino2) target=tofino2; arch=t2na; bin=tofino2.bin ;;
  *) echo "unknown profile '$profile' (expected tofino, tofino2 or bmv2)" >&2; exit 2 ;;
esac
rm -rf "$out"; mkdir -p "$out"
t0=$SECONDS
if ! "$bf_p4c" --target "$target" --arch "$arch" -g --verbose 2 \
     --p4runtime-force-std-externs --p4runtime-files "$out/p4info.txt" \
     -I build/gen -o "$out/compiler" tna/ccfair.p4 > "$out/compile.log" 2>&1; then
  cat "$out/compile.log" >&2
  echo "bf-p4c failed for profile $profile (log: p4/$out/compile.log)" >&2
  exit 1
fi
cp "$out/compiler/bfrt.json" "$out/bfrt.json"
cp "$out/compiler/pipe/context.json" "$out/context.json"
if [ -f "$out/compiler/pipe/$bin" ]; then cp "$out/compiler/pipe/$bin" "$out/$bin"; fi
python3 resources.py "$profile" "$out/compiler" > "$out/resources.json"
echo "$profile: compiled in $((SECONDS - t0)) s -> p4/$out ($(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("%d/%d stages" % (r["stages_used"], r["stages_available"]))' "$out/resources.json"))"
