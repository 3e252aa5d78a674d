// `schedopt demo` runs the simulated cluster as a child process (`schedopt-sim serve`,
// found beside the schedopt binary) and talks to it over HTTPS like to any cluster.
#pragma once

#include <string>
#include <vector>

#include <sys/types.h>

#include "model/error.hpp"

namespace schedopt {

class simulator_child {
public:
  /// Starts `<sim> serve --listen 127.0.0.1:0 --kubeconfig-out <dir>/kubeconfig
  /// --sdk-endpoint-out <dir>/sdk-url <args...>` and waits for its `ready <url>` line.
  static expected<std::unique_ptr<simulator_child>> start(const std::string& binary,
                                                          const std::vector<std::string>& args);
  ~simulator_child(); // SIGTERM, wait, remove the temp dir

  const std::string& url() const { return url_; }
  const std::string& kubeconfig() const { return kubeconfig_; }
  std::string sdk_url() const;

private:
  simulator_child() = default;
  pid_t pid_ = -1;
  std::string dir_;
  std::string url_;
  std::string kubeconfig_;
};

} // namespace schedopt
