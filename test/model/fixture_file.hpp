// Reads golden fixtures from test/model/fixtures in the source tree.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace schedopt::test {

inline std::string read_source_file(const std::string& relative) {
  std::ifstream in(std::string(SCHEDOPT_SOURCE_DIR) + "/" + relative, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot open " + relative);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline std::string fixture(const std::string& name) {
  return read_source_file("test/model/fixtures/" + name);
}

} // namespace schedopt::test
