#!/usr/bin/env bash
# Builds the tests' control plane from upstream's own Go modules, as pinned by
# the go.mod/go.sum beside this script: kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, etcd and kwok. The binaries land in a cache keyed by
# the pins, the Go version and the build flags, so a second run with nothing
# changed builds nothing. Prints the binaries' folder, and nothing else, on
# stdout.
#
#   test/controlplane/build.sh            build if needed, print the folder
#   test/controlplane/build.sh --locate   print the folder, build nothing
#
# SCHEDOPT_CONTROLPLANE_CACHE overrides the cache's root.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${SCHEDOPT_CONTROLPLANE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schedopt/controlplane}

if ! command -v go >/dev/null; then
  echo "build.sh: the control plane needs Go >= 1.26 on PATH" >&2
  exit 1
fi

module_version() {  # module_version <module folder> <module path>
  (cd "$here/$1" && go list -m -f '{{.Version}}' "$2")
}

# Flags as upstream's own release builds use them: static, trimmed, stripped,
# version-stamped. kubernetes: hack/lib/golang.sh
# (kube::golang::build_binaries_for_platform) and hack/lib/version.sh
# (kube::version::ldflags); etcd: scripts/build_lib.sh; kwok: hack/releases.sh.
kube_version=$(module_version kubernetes k8s.io/kubernetes)
kube_minor=${kube_version#v1.}; kube_minor=${kube_minor%%.*}
build_date=$(cd "$here/kubernetes" && go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)
kube_ldflags="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  kube_ldflags+=" -X '$pkg.gitVersion=$kube_version' -X '$pkg.gitMajor=1'"
  kube_ldflags+=" -X '$pkg.gitMinor=$kube_minor' -X '$pkg.gitTreeState=clean'"
  kube_ldflags+=" -X '$pkg.buildDate=$build_date'"
done
kube_tags=selinux,notest
etcd_version=$(module_version etcd go.etcd.io/etcd/server/v3)
etcd_ldflags="-s -w"
kwok_version=$(module_version kwok sigs.k8s.io/kwok)
kwok_ldflags="-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$kwok_version"
kwok_ldflags+=" -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=$kube_version"

# The key covers everything that decides what the binaries are.
key=$( { go env GOVERSION GOOS GOARCH; cat "$here"/*/go.mod "$here"/*/go.sum
         echo "$kube_tags $kube_ldflags $etcd_ldflags $kwok_ldflags"; } | sha256sum | cut -c1-16)
out=$cache_root/$key

# kwok's stages ship in its module; the harness hands them to kwok as files.
install_kwok_stages() {
  local kwok_dir
  kwok_dir=$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
  rm -rf "$out/kwok-stages"
  mkdir -p "$out/kwok-stages"
  for stage in node/fast node/heartbeat-with-lease pod/fast; do
    cp "$kwok_dir/kustomize/stage/$stage/"[a-z]*-*.yaml "$out/kwok-stages/"
  done
  # The project's own stages replace the module's of the same name (kwok-stages/).
  cp "$here"/kwok-stages/*.yaml "$out/kwok-stages/"
  chmod -R u+w "$out/kwok-stages"
}

if [[ ${1-} == --locate ]]; then
  echo "$out"
  exit 0
fi
if [[ -f $out/complete ]]; then
  install_kwok_stages
  echo "$out"
  exit 0
fi

export CGO_ENABLED=0 GOFLAGS=-mod=readonly
mkdir -p "$cache_root"
staging=$(mktemp -d "$cache_root/building.XXXXXX")
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging/bin"
started=$SECONDS

echo "build.sh: kubernetes $kube_version" >&2
(cd "$here/kubernetes" && go build -trimpath -tags "$kube_tags" -ldflags "$kube_ldflags" \
   -o "$staging/bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
   k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl)

# etcd: scripts/build_lib.sh (etcd_build).
echo "build.sh: etcd $etcd_version" >&2
(cd "$here/etcd" && go build -trimpath -ldflags "$etcd_ldflags" -o "$staging/bin/etcd" go.etcd.io/etcd/server/v3)

# kwok: hack/releases.sh.
echo "build.sh: kwok $kwok_version" >&2
(cd "$here/kwok" && go build -trimpath \
   -ldflags "$kwok_ldflags" \
   -o "$staging/bin/kwok" sigs.k8s.io/kwok/cmd/kwok)

printf 'kubernetes %s\netcd %s\nkwok %s\nbuilt in %ss\n' \
  "$kube_version" "$etcd_version" "$kwok_version" $((SECONDS - started)) > "$staging/versions"
touch "$staging/complete"
rm -rf "$out"
mv "$staging" "$out"
trap - EXIT
install_kwok_stages
echo "build.sh: built in $((SECONDS - started))s" >&2
echo "$out"
