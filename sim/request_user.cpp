#include "sim/request_user.hpp"

namespace schedopt::sim {

namespace {
thread_local const std::string* current = nullptr;
}

request_user_scope::request_user_scope(std::string user) : saved_(current), user_(std::move(user)) {
  current = &user_;
}

request_user_scope::~request_user_scope() {
  current = saved_;
}

const std::string* current_request_user() {
  return current;
}

} // namespace schedopt::sim
