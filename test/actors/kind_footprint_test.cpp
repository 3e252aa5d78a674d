// docs/design.md "How to add a kind": a kind is its own folders, its line in the registry,
// its CRD fields and the simulator's side of it. This reads the source tree and checks
// that nothing else of the controller names a kind: a kind that needs a shared file to
// know of it has leaked, and the next kind would have to edit that file too.
#include <boost/test/unit_test.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "actors/optimization_kinds.hpp"

namespace fs = std::filesystem;

namespace {

/// "podHyperconvergence" -> "pod_hyperconvergence", the kind's folder and C++ namespace.
std::string folder_of(const std::string& kind) {
  std::string out;
  for (char c : kind) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in{p};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The controller's sources (not the simulator's, the tests' or the docs') outside the
/// kind's own folders that spell the kind's field name or its folder name.
std::set<std::string> naming_files(const std::string& kind) {
  const fs::path root{SCHEDOPT_SOURCE_DIR};
  const auto folder = folder_of(kind);
  std::set<std::string> out;
  for (const char* top : {"actors", "model", "k8s", "config", "commands"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      if (!entry.is_regular_file())
        continue;
      auto rel = fs::relative(entry.path(), root).generic_string();
      if (rel.find("/kinds/" + folder + "/") != std::string::npos)
        continue;
      auto text = read_all(entry.path());
      if (text.find(kind) != std::string::npos || text.find(folder) != std::string::npos)
        out.insert(rel);
    }
  }
  return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_kind_is_named_only_by_its_folders_and_the_registry) {
  // vmHyperconvergence is exempt: it predates the registry, and the resources it watches
  // (VMIs, VMIMs, VMs, PVCs, PVs, nodes, KubeVirt) are the core's, shared with every kind.
  std::size_t checked = 0;
  for (const auto& kind : schedopt::optimization_kinds()) {
    if (kind.name == "vmHyperconvergence")
      continue;
    ++checked;
    auto files = naming_files(kind.name);
    files.erase("actors/optimization_kinds.cpp"); // the registry line
    std::string list;
    for (const auto& f : files)
      list += " " + f;
    BOOST_TEST(files.empty(), kind.name << " is named outside its folders:" << list);
  }
  BOOST_TEST(checked >= 1u); // a second kind exists to prove the point
}
