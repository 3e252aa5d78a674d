// A /tmp directory that lives as long as the object: for files a test hands the
// simulator on its command line before the simulator's own directory exists.
#pragma once

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace schedopt::test {

struct temp_dir {
  std::string path;
  explicit temp_dir(const std::string& prefix = "schedopt-sim-test") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    if (mkdtemp(tmpl.data()) != nullptr)
      path = tmpl;
  }
  ~temp_dir() {
    if (!path.empty() && std::system(("rm -rf '" + path + "'").c_str()) != 0) {
      // Leftover temp files are harmless.
    }
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

} // namespace schedopt::test
