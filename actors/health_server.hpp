// /healthz and /readyz for the kubelet's probes on --health-listen, a plain-HTTP server
// of its own so a slow scrape of /metrics, or slow and idle clients, never fail a probe
// (docs/design.md §4.6).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "model/error.hpp"

namespace schedopt {

class health_server {
public:
  /// Worker threads. Each connection holds one until it is answered or falls silent for
  /// `silence_timeout_seconds`: the kubelet opens a connection per probe, so slow or
  /// idle clients have to occupy all of these, each at least that long, before a probe
  /// waits at all.
  static constexpr int worker_threads = 16;
  static constexpr int silence_timeout_seconds = 1;

  /// `listen` is "[host]:port" (":8081" = all interfaces; port 0 = any free port).
  static expected<std::unique_ptr<health_server>> start(const std::string& listen);
  ~health_server();

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
