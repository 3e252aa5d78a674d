// docs/design.md "How to add a kind": a kind is its own folders, its line in the registry,
// its CRD fields and the simulator's side of it. This reads the source tree and checks
// that nothing else of the controller names a kind or includes its files: a kind that
// needs a shared file to know of it has leaked, and the next kind would have to edit that
// file too.
#include <boost/test/unit_test.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
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

/// The one file outside the kinds' folders that names them.
const std::string registry = "actors/kinds/optimization_kinds.cpp";

/// The controller's sources (not the simulator's, the tests' or the docs'), by path
/// relative to the source tree.
std::vector<std::string> controller_sources() {
  const fs::path root{SCHEDOPT_SOURCE_DIR};
  std::vector<std::string> out;
  for (const char* top : {"actors", "model", "k8s", "config", "commands"})
    for (const auto& entry : fs::recursive_directory_iterator(root / top))
      if (entry.is_regular_file())
        out.push_back(fs::relative(entry.path(), root).generic_string());
  return out;
}

bool in_folder_of(const std::string& path, const std::string& kind) {
  return path.find("/kinds/" + folder_of(kind) + "/") != std::string::npos;
}

/// The controller's sources outside the kind's own folders and the registry that spell
/// the kind's field name or its folder name.
std::string naming_files(const std::string& kind) {
  std::string list;
  for (const auto& rel : controller_sources()) {
    if (in_folder_of(rel, kind) || rel == registry)
      continue;
    auto text = read_all(fs::path{SCHEDOPT_SOURCE_DIR} / rel);
    if (text.find(kind) != std::string::npos || text.find(folder_of(kind)) != std::string::npos)
      list += " " + rel;
  }
  return list;
}

/// The `#include` lines of sources outside the kind's folders and the registry that reach
/// into them: another kind's files or the core's.
std::string including_files(const std::string& kind) {
  const std::string marker = "#include \"";
  std::string list;
  for (const auto& rel : controller_sources()) {
    if (in_folder_of(rel, kind) || rel == registry)
      continue;
    std::ifstream in{fs::path{SCHEDOPT_SOURCE_DIR} / rel};
    for (std::string line; std::getline(in, line);)
      if (line.rfind(marker, 0) == 0 && in_folder_of(line, kind))
        list += " " + rel + " (" + line + ")";
  }
  return list;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_kind_is_named_only_by_its_folders_and_the_registry) {
  BOOST_TEST(schedopt::optimization_kinds().size() >= 2u); // two kinds prove the point
  for (const auto& kind : schedopt::optimization_kinds()) {
    auto files = naming_files(kind.name);
    BOOST_TEST(files.empty(), kind.name << " is named outside its folders:" << files);
  }
}

BOOST_AUTO_TEST_CASE(no_include_crosses_into_a_kinds_folders) {
  for (const auto& kind : schedopt::optimization_kinds()) {
    auto files = including_files(kind.name);
    BOOST_TEST(files.empty(), kind.name << "'s files are included from outside:" << files);
  }
}

BOOST_AUTO_TEST_CASE(no_kind_flag_means_the_first_registered_kind) {
  // `schedopt plan` and `explain` without --kind evaluate VMs, as they always have.
  const auto* first = schedopt::find_optimization_kind("");
  BOOST_REQUIRE(first != nullptr);
  BOOST_TEST(first->name == "vmHyperconvergence");
  BOOST_TEST(schedopt::find_optimization_kind("noSuchKind") == nullptr);
}
