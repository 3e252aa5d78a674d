// /metrics (Prometheus text), /healthz and /readyz on --metrics-listen (SPEC §4).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "model/error.hpp"

namespace schedopt {

class metrics_server {
public:
  /// `listen` is "[host]:port" (":8080" = all interfaces; port 0 = any free port).
  static expected<std::unique_ptr<metrics_server>> start(const std::string& listen);
  ~metrics_server();

  /// /readyz answers 200 once set (informers synced and, with leader election, leading).
  void set_ready(bool ready) { ready_ = ready; }
  int port() const { return port_; }

private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::atomic<bool> ready_{false};
  int port_ = 0;
};

} // namespace schedopt
