// Which writes in an audit record are the controller's: both the simulator's audit and
// kube-apiserver's (through realcp/kube_audit.hpp) name a write's client by its
// User-Agent, and the controller's is "schedopt/<version> (<identity>)" — not the
// simulator's own "schedopt-sim" or attach's "schedopt-sim/attach".
#pragma once

#include <string>

namespace schedopt::e2e {

inline bool is_controller_identity(const std::string& user_agent) {
  return user_agent.rfind("schedopt/", 0) == 0;
}

} // namespace schedopt::e2e
