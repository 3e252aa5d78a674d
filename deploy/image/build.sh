#!/usr/bin/env bash
# Builds the schedopt container image offline from an already built binary: no base image
# is pulled (`buildah from scratch`). The root filesystem holds exactly
#   /usr/local/bin/schedopt               the binary, stripped
#   /usr/local/bin/kubectl-schedopt       a symlink to it: the kubectl plugin name
#   /usr/lib/x86_64-linux-gnu/...         the shared libraries ldd resolves, with their
#                                         symlinks, plus the dynamic loader (/lib, /lib64
#                                         are the merged-/usr symlinks Debian has)
#   /etc/ssl/certs/ca-certificates.crt    CA certificates
#   /etc/passwd, /etc/group               root and nonroot (65532:65532)
#   /etc/os-release, /etc/debian_version  the Debian release the libraries are from
#                                         (scanners tell the distribution by them)
#   /var/lib/dpkg/status.d/, /usr/share/doc/<package>/copyright
#                                         the dpkg records and notices of every Debian
#                                         package with files in the image, as distroless
#                                         images carry them (package-metadata.sh)
#   /usr/share/doc/schedopt/sbom.json     the image's SPDX 2.3 SBOM (sbom.sh), also
#                                         written next to the archive as <archive>.spdx.json
#   /tmp                                  1777
#   /proc /dev /sys /etc/schedopt /var/run/secrets/{kubernetes.io/serviceaccount,portworx}
#                                         empty mount points (a read-only root cannot
#                                         grow them; runc makes them, bwrap cannot)
# and the image runs `schedopt run` as 65532:65532. This is the final stage of
# deploy/image/Containerfile, reproduced with buildah commands.
#
# Usage: deploy/image/build.sh [--binary PATH] [--output PATH] [--sbom PATH] [--rootfs DIR]
#                              [--rootfs-only]
#   --binary PATH   schedopt binary (default build/bin/schedopt)
#   --output PATH   OCI archive to write (default build/schedopt-image.tar)
#   --sbom PATH     where the SBOM goes besides the image (default the archive's name with
#                   .spdx.json for .tar; with --rootfs-only none unless given)
#   --rootfs DIR    also keep the staged root filesystem in DIR (tests run it with bwrap)
#   --rootfs-only   stage DIR and stop (no buildah; the Containerfile's build stage)
# Env: IMAGE_NAME (default ghcr.io/libopenstorage/schedopt), IMAGE_VERSION (default the
# CMake project version), IMAGE_REVISION (default `git rev-parse HEAD`),
# BUILDAH_STORAGE_DRIVER (default vfs), BUILDAH_ISOLATION (default chroot).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
binary=$src/build/bin/schedopt
output=$src/build/schedopt-image.tar
sbom=
rootfs=
rootfs_only=0
while (($#)); do
  case $1 in
    --binary) binary=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    --sbom) sbom=$2; shift 2 ;;
    --rootfs) rootfs=$2; shift 2 ;;
    --rootfs-only) rootfs_only=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $binary ]] || { echo "build.sh: no binary at $binary (build the schedopt target first)" >&2; exit 1; }
((rootfs_only)) && [[ -z $rootfs ]] && { echo "build.sh: --rootfs-only needs --rootfs DIR" >&2; exit 2; }
((rootfs_only)) || [[ -n $sbom ]] || sbom=${output%.tar}.spdx.json

name=${IMAGE_NAME:-ghcr.io/libopenstorage/schedopt}
version=${IMAGE_VERSION:-$(sed -n 's/^project(schedopt VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")}
revision=${IMAGE_REVISION:-$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)}

work=$(mktemp -d /tmp/schedopt-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=${rootfs:-$work/rootfs}
rm -rf "$root"
mkdir -p "$root"/{usr/local/bin,usr/lib/x86_64-linux-gnu,usr/lib64,etc/ssl/certs,tmp}
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
chmod 1777 "$root/tmp"
mkdir -p "$root"/{proc,dev,sys,etc/schedopt,var/run/secrets/kubernetes.io/serviceaccount,var/run/secrets/portworx}

# One path and every symlink on the way to the file it names, each at its canonical
# directory (so /lib/x86_64-linux-gnu/x lands in /usr/lib/x86_64-linux-gnu/x).
copy_chain() {
  local path=$1 dir
  while :; do
    dir=$(readlink -f "$(dirname "$path")")
    mkdir -p "$root$dir"
    cp -P --preserve=mode,links "$path" "$root$dir/"
    [[ -L $path ]] || break
    local target
    target=$(readlink "$path")
    [[ $target == /* ]] || target=$dir/$target
    path=$target
  done
}

cp "$binary" "$root/usr/local/bin/schedopt"
strip --strip-unneeded "$root/usr/local/bin/schedopt" 2>/dev/null || true
chmod 0755 "$root/usr/local/bin/schedopt"
# The same binary under its kubectl plugin name (`kubectl schedopt status` from a shell in
# the image, or copied out of it with `podman cp`).
ln -s schedopt "$root/usr/local/bin/kubectl-schedopt"
# ldd lines: "libx.so => /path (addr)", "/lib64/ld-linux-x86-64.so.2 (addr)", vdso (no path).
libs=$(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)
[[ -n $libs ]] || { echo "build.sh: ldd found no libraries for $binary" >&2; exit 1; }
for lib in $libs; do
  copy_chain "$lib"
done
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
copy_chain /etc/os-release
copy_chain /etc/debian_version
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
cat >"$root/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
# What the image is made of, where scanners and people look (docs/security.md "Supply
# chain"). The in-image SBOM's name is not one Trivy reads as a package list (*.spdx.json):
# it finds the packages in status.d already, and would list each one twice.
"$src/deploy/image/package-metadata.sh" "$root"
sbom_in_image=/usr/share/doc/schedopt/sbom.json
mkdir -p "$root$(dirname "$sbom_in_image")"
"$src/deploy/image/sbom.sh" "$root" --version "$version" --revision "$revision" --name "$name" \
  --exclude "$sbom_in_image" >"$work/sbom.json"
install -m 0644 "$work/sbom.json" "$root$sbom_in_image"
if [[ -n $sbom ]]; then
  mkdir -p "$(dirname "$sbom")"
  cp "$work/sbom.json" "$sbom"
  echo "SBOM written to $sbom ($(jq '.packages | length' "$sbom") packages, $(jq '.files | length' "$sbom") files)"
fi
# Every file root-owned and not writable by 65532; timestamps fixed for a stable layer.
find "$root" -exec touch -h -d @0 {} +
((rootfs_only)) && { echo "rootfs staged in $root"; exit 0; }

command -v buildah >/dev/null || { echo "build.sh: buildah missing (deploy/bootstrap.sh --image installs it)" >&2; exit 1; }
export BUILDAH_ISOLATION=${BUILDAH_ISOLATION:-chroot}
# A private store, so nothing lingers in /var/lib/containers and no registry is consulted.
bh=(buildah --storage-driver "${BUILDAH_STORAGE_DRIVER:-vfs}" --root "$work/storage" --runroot "$work/run")
ctr=$("${bh[@]}" from --name schedopt-image-build scratch)
"${bh[@]}" copy "$ctr" "$root/" / >/dev/null
"${bh[@]}" config \
  --user 65532:65532 \
  --workingdir / \
  --env PATH=/usr/local/bin \
  --entrypoint '["/usr/local/bin/schedopt", "run"]' \
  --port 8443/tcp \
  --port 8081/tcp \
  --label org.opencontainers.image.title=schedopt \
  --label org.opencontainers.image.source=https://github.com/libopenstorage/schedopt \
  --label org.opencontainers.image.revision="$revision" \
  --label org.opencontainers.image.version="$version" \
  --label io.github.libopenstorage.schedopt.sbom="$sbom_in_image" \
  "$ctr"
mkdir -p "$(dirname "$output")"
rm -f "$output"
"${bh[@]}" commit --quiet --format oci --disable-compression=false "$ctr" "oci-archive:$output:$name:$version" >/dev/null
"${bh[@]}" rm "$ctr" >/dev/null
echo "image $name:$version ($revision) written to $output ($(du -h "$output" | cut -f1))"
