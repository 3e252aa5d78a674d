#!/usr/bin/env bash
# Installs every build and test dependency of schedopt from Debian bookworm's packages.
# Idempotent and non-interactive; run as root. kubectl is optional (conformance tests use it
# when present and say so when they skip).
#
#   deploy/bootstrap.sh   build and test dependencies, including buildah and bubblewrap:
#                         the `image` target (deploy/image/build.sh) and test_deploy,
#                         which runs the image's root filesystem under bwrap, need them;
#                         and promtool, which test_deploy checks the alerts and the
#                         dashboard with. (--image is still accepted and changes nothing.)
#   deploy/bootstrap.sh --fuzz   also clang and libFuzzer, for the `fuzz` preset
#                         (test/fuzz, docs/testing.md); opt-in.
set -euo pipefail
image=1 # the test suite builds and runs the image: always
fuzz=0
for arg in "$@"; do
  case $arg in
    --image) image=1 ;;
    --fuzz) fuzz=1 ;;
    *) echo "bootstrap.sh: unknown argument $arg (only --image, --fuzz)" >&2; exit 2 ;;
  esac
done
packages=(
  g++ cmake ninja-build ccache pkg-config
  libcaf-dev libcurl4-openssl-dev libsimdjson-dev libspdlog-dev libboost-test-dev
  libcpp-httplib-dev libyaml-cpp-dev nlohmann-json3-dev libssl-dev libjemalloc-dev
  python3 procps openssl
  # The simulator's protobuf for built-in kinds (sim/protobuf): upstream's .proto files
  # compiled by protoc, read with libprotobuf.
  libprotobuf-dev protobuf-compiler
  # promtool (test_deploy: deploy/prometheus, deploy/grafana). Debian ships it only in the
  # prometheus package; on a systemd host the package also starts the server, which the
  # tests do not use (systemctl disable --now prometheus).
  prometheus
  # Debian's hardening flags (dpkg-buildflags, read by CMakeLists.txt) and their check on
  # the built binaries (hardening-check, test_deploy).
  dpkg-dev devscripts
  # The differential suite's client-library probes (test/differential/python, node): a
  # venv for the pinned Python client, and Node.js for @kubernetes/client-node (bookworm's
  # 18.20 is enough for the 1.4.0 pinned there; 2.x needs Node 22).
  python3-venv nodejs
)
# npm, for the probe's `npm ci`, unless a Node.js that bundles it is already there
# (NodeSource's nodejs package conflicts with Debian's npm).
command -v npm > /dev/null || packages+=(npm)
if [[ $image == 1 ]]; then
  # jq: deploy/image/sbom.sh writes the image's SBOM with it.
  packages+=(buildah bubblewrap binutils ca-certificates jq)
fi
if [[ $fuzz == 1 ]]; then
  # libclang-rt-14-dev: clang's sanitizer and libFuzzer runtimes, which
  # --no-install-recommends leaves out; the fuzz targets do not link without them.
  packages+=(clang libfuzzer-14-dev libclang-rt-14-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
