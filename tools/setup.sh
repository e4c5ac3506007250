#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what ccfair needs from the registries (Debian apt, PyPI, Maven Central).
# Idempotent and quick when already done: apt only for missing packages,
# pip only when requirements.txt changed.
#   tools/setup.sh [apt] [venv]   (no argument: both; Maven resolves its own artifacts on first build)
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(build-essential pkg-config python3-venv libns3-dev nlohmann-json3-dev maven openjdk-17-jdk-headless)
want=("$@"); [ ${#want[@]} -gt 0 ] || want=(apt venv)

have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

step_apt() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do have_pkg "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then echo "setup: apt packages present"; return; fi
  echo "setup: installing ${missing[*]}"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

step_venv() {
  local stamp=.venv/.requirements.sha
  local want_sha; want_sha=$(sha256sum requirements.txt | cut -d' ' -f1)
  if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want_sha" ]; then
    echo "setup: python venv up to date"; return
  fi
  echo "setup: creating .venv from requirements.txt"
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r requirements.txt
  echo "$want_sha" > "$stamp"
}

for s in "${want[@]}"; do "step_$s"; done
