#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what ccfair needs from the registries (Debian apt, PyPI, Maven Central).
# Idempotent and quick when already done: apt only for missing packages,
# pip only when requirements.txt or eval/requirements-ns3.txt changed.
#   tools/setup.sh [apt] [venv]   (no argument: both; Maven resolves its own artifacts on first build)
set -euo pipefail
cd "$(dirname "$0")/.."

# ns-3 is not among them: the evaluation builds against ns-3.44 from PyPI (eval/requirements-ns3.txt).
# iperf3, ethtool, iputils-ping: the BMv2 testbed (testbed/: real kernel TCP through the switch).
APT_PACKAGES=(build-essential pkg-config python3-venv nlohmann-json3-dev maven openjdk-17-jdk-headless
              iperf3 ethtool iputils-ping)
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(apt venv)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

step_apt() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do have_pkg "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then echo "setup: apt packages present"; return; fi
  echo "setup: installing ${missing[*]} (apt; first time only, a few minutes)"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

step_venv() {
  local stamp=.venv/.requirements.sha
  local want_sha; want_sha=$(cat requirements.txt eval/requirements-ns3.txt | sha256sum | cut -d' ' -f1)
  if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want_sha" ]; then
    echo "setup: python venv up to date"; return
  fi
  [ -x .venv/bin/python ] || python3 -m venv .venv
  echo "setup: installing requirements.txt into .venv (first time only, about a minute)"
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
  # The ns3 wheel's only dependency, cppyy (~180 MB), serves Python bindings eval/ does not use.
  echo "setup: installing ns-3.44 (PyPI ns3 wheel, ~300 MB unpacked) into .venv without cppyy"
  .venv/bin/pip install -q --disable-pip-version-check --no-deps -r eval/requirements-ns3.txt
  echo "$want_sha" > "$stamp"
}

for s in "${want[@]}"; do "step_$s"; done
