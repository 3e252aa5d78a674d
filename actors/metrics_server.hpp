// /metrics (Prometheus text), /healthz and /readyz on --metrics-listen (docs/design.md §4.6).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "model/error.hpp"

namespace schedopt {

class metrics_server {
public:
  /// `listen` is "[host]:port" (":8080" = all interfaces; port 0 = any free port).
  static expected<std::unique_ptr<metrics_server>> start(const std::string& listen);
  ~metrics_server();

  /// /readyz answers 200 once set (informers synced) while the process is healthy, on
  /// every replica: leadership is the schedopt_leader gauge, never readiness (a standby
  /// that is not ready stalls every rolling update and blocks every drain).
  void set_ready(bool ready) { ready_ = ready; }
  /// /healthz asks this: "" when healthy, else why not (answered with 503). Until set,
  /// the process is healthy.
  void set_health_check(std::function<std::string()> check);
  int port() const { return port_; }

private:
  struct impl;
  std::unique_ptr<impl> impl_;
  std::string unhealthy_reason();

  std::atomic<bool> ready_{false};
  std::mutex health_mutex_;
  std::function<std::string()> health_check_;
  int port_ = 0;
};

} // namespace schedopt
