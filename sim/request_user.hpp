// Who the API request a thread serves was authenticated as, for the admission code that
// decides by requester (KubeVirt's migration admitter lets only virt-controller set a
// priority). The simulator's own components write with no scope: they are KubeVirt.
#pragma once

#include <string>

namespace schedopt::sim {

class request_user_scope {
public:
  explicit request_user_scope(std::string user);
  ~request_user_scope();
  request_user_scope(const request_user_scope&) = delete;
  request_user_scope& operator=(const request_user_scope&) = delete;

private:
  const std::string* saved_;
  std::string user_;
};

/// The user of the request this thread serves; nullptr outside one.
const std::string* current_request_user();

} // namespace schedopt::sim
