#!/usr/bin/env bash
# Installs every build and test dependency of schedopt from Debian bookworm's packages.
# Idempotent and non-interactive; run as root. kubectl is optional (conformance tests use it
# when present and say so when they skip).
set -euo pipefail
packages=(
  g++ cmake ninja-build ccache pkg-config
  libcaf-dev libcurl4-openssl-dev libsimdjson-dev libspdlog-dev libboost-test-dev
  libcpp-httplib-dev libyaml-cpp-dev nlohmann-json3-dev libssl-dev
  python3 procps
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
