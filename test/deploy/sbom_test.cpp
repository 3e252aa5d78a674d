// The image's supply-chain records (deploy/image/build.sh: package-metadata.sh, sbom.sh)
// checked against the dpkg database of this machine, which the image's files are copied
// from: every library is in the SBOM under the package and version dpkg has for it, the
// dpkg status records scanners read say the same and dpkg itself can read them, the files
// are the ones dpkg installed, and no library ldd resolves for the binary is left out. A
// staged root filesystem is enough (--rootfs-only): no buildah needed.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "deploy/deploy_support.hpp"

namespace fs = std::filesystem;
using namespace schedopt::deploy_test;
namespace utf = boost::unit_test;

namespace {

const std::string schedopt_binary = std::string(SCHEDOPT_BINARY_DIR) + "/schedopt";
const std::string sbom_in_image = "usr/share/doc/schedopt/sbom.json";

/// Skips (and says so to CTest) where the image's records cannot be made: they come from a
/// Debian system's dpkg database.
boost::test_tools::assertion_result sbom_tools_present(utf::test_unit_id) {
  std::string missing;
  for (const char* tool : {"dpkg-query", "jq", "ldd", "md5sum", "sha256sum"})
    if (on_path(tool).empty())
      missing += std::string(missing.empty() ? "" : ", ") + tool;
  if (missing.empty())
    return true;
  std::cout << "test_deploy skipped: " << missing
            << " missing (the image's SBOM is made from dpkg's records; deploy/bootstrap.sh installs jq)"
            << std::endl;
  boost::test_tools::assertion_result r(false);
  r.message() << missing << " missing";
  return r;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(line);
  return out;
}

struct installed_package {
  std::string version, arch, source, source_version;
};

/// What dpkg has installed, by "name:arch": one dpkg-query for every package on the machine.
const std::map<std::string, installed_package>& installed() {
  static const std::map<std::string, installed_package> all = [] {
    std::map<std::string, installed_package> out;
    auto [code, text] = run_shell("dpkg-query -W -f='${Package}:${Architecture}\\t${Version}\\t${Architecture}"
                                  "\\t${source:Package}\\t${source:Version}\\t${Status}\\n' 2>/dev/null");
    for (const auto& line : lines_of(text)) {
      std::vector<std::string> f;
      std::istringstream in(line);
      for (std::string field; std::getline(in, field, '\t');)
        f.push_back(field);
      if (f.size() == 6 && f[5] == "install ok installed")
        out[f[0]] = {f[1], f[2], f[3], f[4]};
    }
    return out;
  }();
  return all;
}

installed_package installed(const std::string& spec) {
  auto it = installed().find(spec);
  return it == installed().end() ? installed_package{} : it->second;
}

/// The paths dpkg records for a package (dpkg -L), memoised: it is asked once per file.
const std::set<std::string>& dpkg_files(const std::string& spec) {
  static std::map<std::string, std::set<std::string>> cache;
  auto it = cache.find(spec);
  if (it == cache.end()) {
    auto lines = lines_of(run_shell("dpkg-query -L " + quoted(spec) + " 2>/dev/null").second);
    it = cache.emplace(spec, std::set<std::string>(lines.begin(), lines.end())).first;
  }
  return it->second;
}

/// "Field: value" of one dpkg control paragraph, "" if absent.
std::string control_field(const std::string& paragraph, const std::string& field) {
  for (const auto& line : lines_of(paragraph))
    if (line.rfind(field + ": ", 0) == 0)
      return line.substr(field.size() + 2);
  return {};
}

std::string percent_decoded(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1]))
        && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  return out;
}

/// pkg:type/namespace/name@version?key=value&..., each part percent-decoded.
struct purl {
  std::string type, ns, name, version;
  std::map<std::string, std::string> qualifiers;
};

purl parse_purl(const std::string& s) {
  static const std::regex form(R"(pkg:([^/]+)/([^/]+)/([^@]+)@([^?]+)(?:\?(.*))?)");
  std::smatch m;
  purl p;
  if (!std::regex_match(s, m, form))
    return p;
  p = {m[1], m[2], percent_decoded(m[3]), percent_decoded(m[4]), {}};
  std::istringstream q(m[5].str());
  for (std::string kv; std::getline(q, kv, '&');)
    if (auto eq = kv.find('='); eq != std::string::npos)
      p.qualifiers[kv.substr(0, eq)] = percent_decoded(kv.substr(eq + 1));
  return p;
}

/// KEY=value or KEY="value" of an os-release file.
std::string os_release_field(const fs::path& file, const std::string& key) {
  for (const auto& line : lines_of(slurp(file))) {
    if (line.rfind(key + "=", 0) != 0)
      continue;
    std::string v = line.substr(key.size() + 1);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
      v = v.substr(1, v.size() - 2);
    return v;
  }
  return {};
}

std::string cmake_project_version() {
  std::smatch m;
  std::string cmake = slurp(source_dir + "/CMakeLists.txt");
  return std::regex_search(cmake, m, std::regex(R"(project\(schedopt VERSION ([0-9.]+))")) ? m[1].str() : "";
}

/// The SBOM's relationships and elements, indexed.
struct sbom_index {
  std::map<std::string, json> packages, files; // by SPDXID
  std::map<std::string, std::string> file_id;  // "./usr/lib/..." -> SPDXID
  std::set<std::tuple<std::string, std::string, std::string>> relations; // from, type, to
  std::string root;

  explicit sbom_index(const json& sbom) {
    for (const auto& p : sbom.value("packages", json::array()))
      packages[p.value("SPDXID", "")] = p;
    for (const auto& f : sbom.value("files", json::array())) {
      files[f.value("SPDXID", "")] = f;
      file_id[f.value("fileName", "")] = f.value("SPDXID", "");
    }
    for (const auto& r : sbom.value("relationships", json::array())) {
      relations.emplace(r.value("spdxElementId", ""), r.value("relationshipType", ""),
                        r.value("relatedSpdxElement", ""));
      if (r.value("spdxElementId", "") == "SPDXRef-DOCUMENT" && r.value("relationshipType", "") == "DESCRIBES")
        root = r.value("relatedSpdxElement", "");
    }
  }
  bool related(const std::string& from, const std::string& type, const std::string& to) const {
    return relations.count({from, type, to}) > 0;
  }
  std::vector<std::string> containers_of(const std::string& id) const {
    std::vector<std::string> out;
    for (const auto& [from, type, to] : relations)
      if (type == "CONTAINS" && to == id)
        out.push_back(from);
    return out;
  }
  static bool is_deb(const std::string& id) { return id.rfind("SPDXRef-Package-deb-", 0) == 0; }
  /// The package as dpkg names it: name:arch from its purl.
  std::string spec_of(const std::string& id) const {
    const json& p = packages.at(id);
    purl u = parse_purl(p.value("/externalRefs/0/referenceLocator"_json_pointer, std::string()));
    return p.value("name", "") + ":" + u.qualifiers["arch"];
  }
};

/// Every regular file of the root filesystem ("./usr/lib/..."), with its SHA-256.
std::map<std::string, std::string> regular_files(const fs::path& rootfs) {
  std::map<std::string, std::string> out;
  auto [code, text] = run_shell("cd " + quoted(rootfs.string()) + " && find . -type f -print0 | xargs -0 -r sha256sum");
  if (code != 0)
    return out;
  for (const auto& line : lines_of(text))
    if (line.size() > 66)
      out[line.substr(66)] = line.substr(0, 64);
  return out;
}

using problems = std::vector<std::string>;

std::string sha256_of(const json& file) {
  for (const auto& c : file.value("checksums", json::array()))
    if (c.value("algorithm", "") == "SHA256")
      return c.value("checksumValue", "");
  return {};
}

/// Each Debian package in the SBOM: dpkg's version, a purl scanners match, its status.d
/// record, schedopt's dependency on it.
void audit_packages(const fs::path& rootfs, const sbom_index& ix, problems& out) {
  const fs::path status_d = rootfs / "var/lib/dpkg/status.d";
  const std::string os_id = os_release_field(rootfs / "usr/lib/os-release", "ID");
  const std::string distro = os_id + "-" + os_release_field(rootfs / "usr/lib/os-release", "VERSION_ID");
  for (const auto& [id, p] : ix.packages) {
    if (!sbom_index::is_deb(id))
      continue;
    const std::string name = p.value("name", ""), version = p.value("versionInfo", "");
    const installed_package dpkg = installed(ix.spec_of(id));
    if (version != dpkg.version)
      out.push_back(name + ": the SBOM says version " + version + ", dpkg has " + dpkg.version);

    const std::string locator = p.value("/externalRefs/0/referenceLocator"_json_pointer, std::string());
    purl u = parse_purl(locator);
    if (u.type != "deb" || u.ns != os_id || u.name != name || u.version != dpkg.version
        || u.qualifiers["distro"] != distro || u.qualifiers["arch"] != dpkg.arch)
      out.push_back(name + ": purl " + locator + " is not pkg:deb/" + os_id + "/" + name + "@" + dpkg.version
                    + "?arch=" + dpkg.arch + "&distro=" + distro);
    // Debian's advisories name source packages; Grype matches a purl by this qualifier.
    const bool own_source = dpkg.source == name && dpkg.source_version == dpkg.version;
    const std::string upstream =
      dpkg.source_version == dpkg.version ? dpkg.source : dpkg.source + "@" + dpkg.source_version;
    if (own_source ? u.qualifiers.count("upstream") > 0 : u.qualifiers["upstream"] != upstream)
      out.push_back(name + ": purl upstream \"" + u.qualifiers["upstream"] + "\", dpkg's source is " + upstream);

    if (!fs::is_regular_file(status_d / name)) {
      out.push_back(name + ": no dpkg status record var/lib/dpkg/status.d/" + name);
    } else {
      std::string record = slurp(status_d / name);
      if (control_field(record, "Package") != name || control_field(record, "Version") != version)
        out.push_back(name + ": status.d/" + name + " says " + control_field(record, "Package") + " "
                      + control_field(record, "Version"));
    }
    if (!ix.related(ix.root, "DEPENDS_ON", id))
      out.push_back(name + ": schedopt does not DEPENDS_ON it");
  }
}

/// Every regular file is in the SBOM with its checksum, contained by some package; the
/// libraries (usr/lib, lib64 -> usr/lib64) by a Debian package that dpkg says installed them.
void audit_files(const fs::path& rootfs, const sbom_index& ix, problems& out) {
  const auto on_disk = regular_files(rootfs);
  if (on_disk.empty())
    out.push_back("no regular file found in " + rootfs.string());
  for (const auto& [path, sha256] : on_disk) {
    if (path == "./" + sbom_in_image)
      continue;
    auto f = ix.file_id.find(path);
    if (f == ix.file_id.end()) {
      out.push_back(path + ": not in the SBOM");
      continue;
    }
    if (sha256_of(ix.files.at(f->second)) != sha256)
      out.push_back(path + ": the SBOM's SHA-256 is not the file's");
    auto containers = ix.containers_of(f->second);
    if (containers.empty())
      out.push_back(path + ": no package in the SBOM contains it");
    if (path.rfind("./usr/lib/", 0) != 0 && path.rfind("./usr/lib64/", 0) != 0)
      continue;
    bool by_deb = false;
    for (const auto& c : containers) {
      if (!sbom_index::is_deb(c))
        continue;
      by_deb = true;
      const auto& listed = dpkg_files(ix.spec_of(c));
      const std::string image_path = path.substr(1), merged_alias = path.substr(5); // /usr/lib/x, /lib/x
      if (!listed.count(image_path) && !listed.count(merged_alias))
        out.push_back(path + ": the SBOM credits it to " + ix.spec_of(c) + ", which dpkg does not list it in");
    }
    if (!by_deb)
      out.push_back(path + ": a library no Debian package in the SBOM contains");
  }
  for (const auto& [name, id] : ix.file_id)
    if (!on_disk.count(name))
      out.push_back(name + ": in the SBOM, not in the image");
}

/// dpkg itself reads the status.d records as a database holding the SBOM's packages, and
/// the files are the ones it installed (the md5sums hold).
void audit_dpkg_reads_records(const fs::path& rootfs, const sbom_index& ix, problems& out) {
  scratch_dir admin;
  std::string status;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(rootfs / "var/lib/dpkg/status.d", ec))
    if (e.path().extension() != ".md5sums")
      status += slurp(e.path()) + "\n";
  std::ofstream(admin.path / "status") << status;
  std::ofstream(admin.path / "available");
  std::set<std::string> read_back, in_sbom;
  for (const auto& line : lines_of(run_shell("dpkg-query --admindir=" + quoted(admin.path.string())
                                             + " -W -f='${Package} ${Version}\\n'").second))
    read_back.insert(line);
  for (const auto& [id, p] : ix.packages)
    if (sbom_index::is_deb(id))
      in_sbom.insert(p.value("name", "") + " " + p.value("versionInfo", ""));
  if (read_back != in_sbom)
    out.push_back("dpkg-query over status.d lists " + std::to_string(read_back.size()) + " packages, the SBOM "
                  + std::to_string(in_sbom.size()) + " (or another version)");
  auto md5 = run_shell("cd " + quoted(rootfs.string()) + " && cat var/lib/dpkg/status.d/*.md5sums | md5sum -c --quiet");
  if (md5.first != 0)
    out.push_back("status.d's md5sums do not hold:\n" + md5.second);
}

/// Everything wrong with the image's records, one line each; empty when they hold.
problems audit(const fs::path& rootfs, const json& sbom) {
  problems out;
  const sbom_index ix(sbom);
  if (sbom.value("spdxVersion", "") != "SPDX-2.3")
    out.push_back("spdxVersion is " + sbom.value("spdxVersion", std::string("missing")) + ", not SPDX-2.3");
  if (!ix.packages.count(ix.root) || ix.packages.at(ix.root).value("name", "") != "schedopt")
    out.push_back("the document DESCRIBES no schedopt package");
  else if (ix.packages.at(ix.root).value("versionInfo", "") != cmake_project_version())
    out.push_back("schedopt's versionInfo is not the CMake project version " + cmake_project_version());
  audit_packages(rootfs, ix, out);
  audit_files(rootfs, ix, out);
  audit_dpkg_reads_records(rootfs, ix, out);
  return out;
}

/// The root filesystem build.sh stages, with the SBOM it writes next to it; once per run.
struct staged_image {
  scratch_dir tmp;
  fs::path rootfs = tmp.path / "rootfs";
  fs::path sbom_file = tmp.path / "schedopt-image.spdx.json";
  std::pair<int, std::string> built;
  json sbom;
  staged_image() {
    built = run_shell(quoted(source_dir + "/deploy/image/build.sh") + " --binary " + quoted(schedopt_binary)
                      + " --rootfs-only --rootfs " + quoted(rootfs.string()) + " --sbom " + quoted(sbom_file.string()));
    if (built.first == 0)
      sbom = json::parse(slurp(rootfs / sbom_in_image), nullptr, false);
  }
};

const staged_image& image() {
  static staged_image staged;
  return staged;
}

std::string joined(const problems& lines) {
  std::string out;
  for (const auto& l : lines)
    out += l + "\n";
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sbom, *utf::precondition(sbom_tools_present))

BOOST_AUTO_TEST_CASE(sbom_and_dpkg_records_match_this_machines_dpkg, *utf::timeout(300)) {
  const auto& img = image();
  BOOST_REQUIRE_MESSAGE(img.built.first == 0, "build.sh --rootfs-only failed:\n" + img.built.second);
  BOOST_REQUIRE_MESSAGE(!img.sbom.is_discarded(), "the image's SBOM is not JSON");
  BOOST_TEST(slurp(img.sbom_file) == slurp(img.rootfs / sbom_in_image), "the SBOM beside the image differs");
  auto problems = audit(img.rootfs, img.sbom);
  BOOST_TEST(problems.empty(), joined(problems));

  const sbom_index ix(img.sbom);
  std::set<std::string> debs;
  for (const auto& [id, p] : ix.packages)
    if (sbom_index::is_deb(id))
      debs.insert(p.value("name", ""));
  for (const char* expected : {"libc6", "libstdc++6", "libssl3", "libcurl4", "libcaf-core0.17", "ca-certificates"})
    BOOST_TEST(debs.count(expected), expected << " not in the SBOM");
  BOOST_TEST_MESSAGE(debs.size() << " Debian packages, " << ix.files.size() << " files in the SBOM");

  // Exactly the packages of the libraries ldd resolves, the CA certificates' and os-release's:
  // none missing, none extra.
  std::set<std::string> expected = {"ca-certificates", "base-files"};
  for (const auto& line : lines_of(run_shell("ldd " + quoted(schedopt_binary)).second)) {
    std::smatch m;
    if (!std::regex_search(line, m, std::regex(R"((?:=> )?(/\S+) \(0x)")))
      continue;
    const std::string real = fs::canonical(m[1].str()).string(); // /usr/lib/x86_64-linux-gnu/libc.so.6
    BOOST_TEST_CONTEXT(m[1].str()) {
      BOOST_TEST(fs::is_regular_file(img.rootfs / real.substr(1)), "not in the image at " << real);
      auto f = ix.file_id.find("." + real);
      BOOST_REQUIRE_MESSAGE(f != ix.file_id.end(), real << " not in the SBOM");
      for (const auto& c : ix.containers_of(f->second))
        if (sbom_index::is_deb(c))
          expected.insert(ix.packages.at(c).value("name", ""));
    }
  }
  BOOST_TEST(debs == expected, debs.size() << " packages in the SBOM, " << expected.size()
                                           << " from ldd, the CA bundle and os-release");

  // The files no package ships are schedopt's own.
  for (const char* own : {"./usr/local/bin/schedopt", "./etc/passwd", "./etc/group"}) {
    auto f = ix.file_id.find(own);
    BOOST_REQUIRE_MESSAGE(f != ix.file_id.end(), own << " not in the SBOM");
    BOOST_TEST(ix.containers_of(f->second) == std::vector<std::string>{ix.root}, own);
  }
  std::string revision = run_shell("git -C " + quoted(source_dir) + " rev-parse HEAD 2>/dev/null").second;
  revision.erase(revision.find_last_not_of("\n") + 1);
  if (revision.size() == 40)
    BOOST_TEST(ix.packages.at(ix.root).value("downloadLocation", "").find("@" + revision) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_audit_notices_missing_and_stale_records, *utf::timeout(300)) {
  const auto& img = image();
  BOOST_REQUIRE_MESSAGE(img.built.first == 0, "build.sh --rootfs-only failed:\n" + img.built.second);
  scratch_dir tmp;
  const fs::path copy = tmp.path / "rootfs";
  fs::copy(img.rootfs, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  fs::remove(copy / "var/lib/dpkg/status.d/libssl3");
  json sbom = img.sbom;
  for (auto& p : sbom["packages"])
    if (p.value("name", "") == "libcurl4")
      p["versionInfo"] = p.value("versionInfo", "") + "~stale";
  auto& rels = sbom["relationships"];
  rels.erase(std::remove_if(rels.begin(), rels.end(),
                            [](const json& r) {
                              return r.value("relationshipType", "") == "DEPENDS_ON"
                                     && r.value("relatedSpdxElement", "").rfind("SPDXRef-Package-deb-libc6-", 0) == 0;
                            }),
             rels.end());

  auto problems = audit(copy, sbom);
  auto mentions = [&](const std::string& what) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const std::string& p) { return p.find(what) != std::string::npos; });
  };
  BOOST_TEST(mentions("libssl3: no dpkg status record"), joined(problems));
  BOOST_TEST(mentions("libcurl4: the SBOM says version"), joined(problems));
  BOOST_TEST(mentions("libc6: schedopt does not DEPENDS_ON it"), joined(problems));
  BOOST_TEST(mentions("dpkg-query over status.d lists"), joined(problems));
}

BOOST_AUTO_TEST_SUITE_END()
