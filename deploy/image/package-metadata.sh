#!/usr/bin/env bash
# Writes the Debian package records of a staged image root filesystem the way distroless
# images carry them, which is where scanners look (Trivy's dpkg analyzer and Syft's
# dpkg-db cataloger, which Grype runs, both read var/lib/dpkg/status.d/*):
#   var/lib/dpkg/status.d/<package>            its dpkg status paragraph (dpkg-query -s)
#   var/lib/dpkg/status.d/<package>.md5sums    dpkg's checksums of the files the image has
#   usr/share/doc/<package>/copyright          its copyright and licence notice
# for every package that package-owners.sh finds files of in the image. Run on the machine
# the files were copied from: the records are that machine's dpkg database.
#
# Usage: deploy/image/package-metadata.sh ROOTFS
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${1:?usage: package-metadata.sh ROOTFS}
[[ -d $root ]] || { echo "package-metadata.sh: no directory $root" >&2; exit 2; }

packages() { cut -f2 | sort -u; }
mapfile -t specs < <("$here/package-owners.sh" "$root" | packages)
((${#specs[@]})) || { echo "package-metadata.sh: no file in $root belongs to a Debian package" >&2; exit 1; }

# The notices first, so the owners below include them (and their md5sums lines). cp -L:
# some packages' doc directory is a symlink into another package's (libstdc++6 ->
# gcc-12-base); the image gets the notice itself under the package's own name.
for spec in "${specs[@]}"; do
  name=${spec%%:*}
  src=/usr/share/doc/$name/copyright
  [[ -r $src ]] || continue
  mkdir -p "$root/usr/share/doc/$name"
  cp -L "$src" "$root/usr/share/doc/$name/copyright"
  chmod 0644 "$root/usr/share/doc/$name/copyright"
done

status_d=$root/var/lib/dpkg/status.d
rm -rf "$status_d"
mkdir -p "$status_d"
owners=$("$here/package-owners.sh" "$root")
mapfile -t specs < <(packages <<<"$owners")
for spec in "${specs[@]}"; do
  name=${spec%%:*}
  [[ ! -e $status_d/$name ]] || { echo "package-metadata.sh: $name installed for two architectures" >&2; exit 1; }
  dpkg-query -s "$spec" >"$status_d/$name"
  # dpkg's lines for this package's files in the image, under either merged-/usr spelling
  # (the .md5sums paths are relative: "lib/x86_64-linux-gnu/libc.so.6").
  info=/var/lib/dpkg/info/$spec.md5sums
  [[ -r $info ]] || info=/var/lib/dpkg/info/$name.md5sums
  if [[ -r $info ]]; then
    awk -F'\t' -v spec="$spec" '
      NR == FNR { if ($2 == spec) { p = substr($1, 2); keep[p]; sub(/^usr\//, "", p); keep[p] } next }
      { path = substr($0, 35) } path in keep' <(printf '%s\n' "$owners") "$info" >"$status_d/$name.md5sums"
    [[ -s $status_d/$name.md5sums ]] || rm -f "$status_d/$name.md5sums"
  fi
done
chmod 0644 "$status_d"/*
echo "package metadata for ${#specs[@]} Debian packages written to $status_d"
