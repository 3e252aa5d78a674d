#!/usr/bin/env bash
# Prints an SPDX 2.3 JSON SBOM of a staged image root filesystem (deploy/image/build.sh
# writes it into the image and next to the OCI archive; docs/security.md "Supply chain").
#   SPDXRef-Package-schedopt         the image's own package: the binary and every file no
#                                    Debian package owns (/etc/passwd, the status.d records)
#   SPDXRef-OperatingSystem-<id>     the distribution the libraries come from (os-release),
#                                    which is how Trivy tells a scanned SBOM's OS
#   SPDXRef-Package-deb-<name>-<arch>  one per Debian package with files in the image
#                                    (package-owners.sh): version, source package, purl
#                                    pkg:deb/<id>/<name>@<version>?arch=&distro=<id>-<ver>
#                                    [&upstream=<source>] as Syft and Grype spell it
#   SPDXRef-File-<path>              every regular file, SHA-1 and SHA-256
# Relationships: the document DESCRIBES schedopt; schedopt DEPENDS_ON every Debian package
# and CONTAINS the OS and its own files; the OS and each package CONTAIN theirs.
# Licences stay NOASSERTION: Debian's copyright files name licences in their own terms,
# not SPDX expressions; the image carries each package's file under /usr/share/doc.
#
# Usage: deploy/image/sbom.sh ROOTFS [--version V] [--revision R] [--name IMAGE]
#   --version    default: the CMake project version
#   --revision   default: `git rev-parse HEAD` of this tree ("unknown" outside git)
#   --name       image name (default ghcr.io/libopenstorage/schedopt)
#   --exclude P  a path in ROOTFS to leave out (the SBOM's own place in the image)
# SOURCE_DATE_EPOCH, when set, is the creation time; else the revision's commit time.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$here/../.." && pwd)
root=
version=
revision=
name=ghcr.io/libopenstorage/schedopt
exclude=
while (($#)); do
  case $1 in
    --version) version=$2; shift 2 ;;
    --revision) revision=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    --exclude) exclude=${2#/}; shift 2 ;;
    -*) echo "sbom.sh: unknown argument $1" >&2; exit 2 ;;
    *) root=$1; shift ;;
  esac
done
[[ -d $root ]] || { echo "usage: sbom.sh ROOTFS [--version V] [--revision R] [--name IMAGE]" >&2; exit 2; }
command -v jq >/dev/null || { echo "sbom.sh: jq missing (deploy/bootstrap.sh installs it)" >&2; exit 1; }
[[ -n $version ]] || version=$(sed -n 's/^project(schedopt VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[[ -n $revision ]] || revision=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
if [[ -n ${SOURCE_DATE_EPOCH:-} ]]; then
  epoch=$SOURCE_DATE_EPOCH
else
  epoch=$(git -C "$src" show -s --format=%ct "$revision" 2>/dev/null || date +%s)
fi
created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)

# The distribution, from the image's os-release (a symlink into usr/lib on Debian).
os_release=$root/usr/lib/os-release
[[ -f $os_release ]] || os_release=$root/etc/os-release
[[ -f $os_release ]] || { echo "sbom.sh: no os-release in $root (build.sh copies it)" >&2; exit 1; }
os_field() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$os_release"; }
os_id=$(os_field ID)
os_version_id=$(os_field VERSION_ID)
os_version=$(cat "$root/etc/debian_version" 2>/dev/null || echo "$os_version_id")
[[ -n $os_id && -n $os_version_id ]] || { echo "sbom.sh: $os_release has no ID or VERSION_ID" >&2; exit 1; }

tmp=$(mktemp -d /tmp/schedopt-sbom.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$here/package-owners.sh" "$root" >"$tmp/owners"
# path, SHA-1, SHA-256 of every regular file, by path.
(cd "$root" && find . -type f ! -path "./$exclude" -printf '%P\0' | sort -z >"$tmp/paths"
  xargs -0 -r sha1sum <"$tmp/paths" >"$tmp/sha1"
  xargs -0 -r sha256sum <"$tmp/paths" >"$tmp/sha256")
paste <(tr '\0' '\n' <"$tmp/paths" | sed 's|^|/|') <(cut -d' ' -f1 "$tmp/sha1") <(cut -d' ' -f1 "$tmp/sha256") >"$tmp/files"
cut -f2 "$tmp/owners" | sort -u >"$tmp/specs"
if [[ -s $tmp/specs ]]; then
  # shellcheck disable=SC2016 # dpkg-query's ${field}s, not the shell's
  xargs -a "$tmp/specs" -d '\n' dpkg-query -W \
    -f='${binary:Package}\t${Package}\t${Version}\t${Architecture}\t${source:Package}\t${source:Version}\t${Maintainer}\t${Homepage}\n' \
    >"$tmp/packages"
else
  : >"$tmp/packages"
fi

# Unique per content and revision, and the same when nothing changed.
content_id=$(cat "$tmp/files" "$tmp/packages" | sha256sum | cut -c1-16)

jq -n \
  --rawfile owners "$tmp/owners" --rawfile files "$tmp/files" --rawfile packages "$tmp/packages" \
  --arg name "$name" --arg version "$version" --arg revision "$revision" --arg created "$created" --arg content_id "$content_id" \
  --arg os_id "$os_id" --arg os_version_id "$os_version_id" --arg os_version "$os_version" '
  def rows: split("\n") | map(select(length > 0) | split("\t"));
  # SPDX identifiers allow letters, digits, "." and "-" only.
  def idpart: gsub("[^A-Za-z0-9.-]"; "-");
  def file_id: "SPDXRef-File" + idpart;
  def unique_ids: (map(.SPDXID) | group_by(.) | map(select(length > 1) | .[0])) as $dup
    | if ($dup | length) > 0 then error("SPDX identifiers clash: \($dup)") else . end;

  ($os_id + "-" + $os_version_id) as $distro
  | "SPDXRef-Package-schedopt" as $schedopt
  | "SPDXRef-OperatingSystem-\($os_id | idpart)" as $os
  | ($owners | rows | map({path: .[0], spec: .[1]})) as $owned
  | ($files | rows | map({path: .[0], sha1: .[1], sha256: .[2]})) as $files
  | ($packages | rows | map({spec: .[0], name: .[1], version: .[2], arch: .[3], source: .[4],
                             source_version: .[5], maintainer: .[6], homepage: .[7]}
      | . + {id: "SPDXRef-Package-deb-\(.name | idpart)-\(.arch | idpart)"})) as $debs
  | ($debs | map({key: .spec, value: .id}) | from_entries) as $deb_id
  | ($owned | map(select($deb_id[.spec])) | group_by(.path)
      | map({key: .[0].path, value: map($deb_id[.spec])}) | from_entries) as $owners_of
  | {
      spdxVersion: "SPDX-2.3",
      dataLicense: "CC0-1.0",
      SPDXID: "SPDXRef-DOCUMENT",
      name: "\($name):\($version)",
      documentNamespace: "https://github.com/libopenstorage/schedopt/spdx/schedopt-image-\($version)-\($revision)-\($content_id)",
      creationInfo: {created: $created, creators: ["Tool: schedopt-deploy-image-sbom.sh-\($version)", "Organization: libopenstorage"]},
      packages: (
        [{
          SPDXID: $schedopt,
          name: "schedopt",
          versionInfo: $version,
          supplier: "Organization: libopenstorage",
          downloadLocation: (if $revision == "unknown" then "NOASSERTION"
                             else "git+https://github.com/libopenstorage/schedopt@\($revision)" end),
          filesAnalyzed: false,
          licenseConcluded: "NOASSERTION",
          licenseDeclared: "NOASSERTION",
          copyrightText: "NOASSERTION",
          sourceInfo: "built from git revision \($revision)",
          primaryPackagePurpose: "APPLICATION",
          comment: "The schedopt controller image \($name):\($version): the binary, its configuration files and the package records; the Debian packages its libraries come from are its dependencies."
        },
        {
          SPDXID: $os,
          name: $os_id,
          versionInfo: $os_version,
          supplier: "NOASSERTION",
          downloadLocation: "NOASSERTION",
          filesAnalyzed: false,
          licenseConcluded: "NOASSERTION",
          licenseDeclared: "NOASSERTION",
          copyrightText: "NOASSERTION",
          primaryPackagePurpose: "OPERATING_SYSTEM",
          comment: "Only the packages listed, and of them only the files listed, are in the image."
        }]
        + ($debs | map({
          SPDXID: .id,
          name: .name,
          versionInfo: .version,
          supplier: ("Organization: " + (.maintainer | sub("\\s*<(?<mail>[^>]*)>$"; " (\(.mail))"))),
          downloadLocation: "NOASSERTION",
          filesAnalyzed: false,
          licenseConcluded: "NOASSERTION",
          licenseDeclared: "NOASSERTION",
          copyrightText: "NOASSERTION",
          sourceInfo: "built package from: \(.source) \(.source_version)",
          primaryPackagePurpose: "LIBRARY",
          externalRefs: [{
            referenceCategory: "PACKAGE-MANAGER",
            referenceType: "purl",
            referenceLocator: ("pkg:deb/\($os_id | @uri)/\(.name | @uri)@\(.version | @uri)?arch=\(.arch | @uri)&distro=\($distro | @uri)"
              + (if .source == .name and .source_version == .version then ""
                 elif .source_version == .version then "&upstream=\(.source | @uri)"
                 else "&upstream=\("\(.source)@\(.source_version)" | @uri)" end))
          }],
          comment: "Debian package \(.spec); its dpkg status record is /var/lib/dpkg/status.d/\(.name), its copyright notice /usr/share/doc/\(.name)/copyright in the image."
        } + (if .homepage != "" then {homepage: .homepage} else {} end)))
      ) | unique_ids,
      files: ($files | map({
        SPDXID: (.path | file_id),
        fileName: ".\(.path)",
        checksums: [{algorithm: "SHA1", checksumValue: .sha1}, {algorithm: "SHA256", checksumValue: .sha256}]
      }) | unique_ids),
      relationships: (
        [{spdxElementId: "SPDXRef-DOCUMENT", relationshipType: "DESCRIBES", relatedSpdxElement: $schedopt},
         {spdxElementId: $schedopt, relationshipType: "CONTAINS", relatedSpdxElement: $os}]
        + ($debs | map({spdxElementId: $schedopt, relationshipType: "DEPENDS_ON", relatedSpdxElement: .id}))
        + ($debs | map({spdxElementId: $os, relationshipType: "CONTAINS", relatedSpdxElement: .id}))
        + ($files | map(.path as $p | ($owners_of[$p] // [$schedopt])[]
            | {spdxElementId: ., relationshipType: "CONTAINS", relatedSpdxElement: ($p | file_id)}))
      )
    }'
