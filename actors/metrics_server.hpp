// /metrics (Prometheus text) on --metrics-listen: over HTTPS with every request
// authenticated and authorized by the API server, or plain HTTP for local use
// (docs/design.md §4.6). The probes are health_server's, on a port of their own.
#pragma once

#include <memory>
#include <string>

#include "k8s/delegated_access.hpp"
#include "model/error.hpp"

namespace schedopt {

struct metrics_server_options {
  std::string listen = ":8443"; // "[host]:port"; port 0 = any free port
  bool secure = true;
  /// Secure only: the PEM files served, both or neither; neither: a self-signed
  /// certificate made at start (actors/metrics_tls.hpp).
  std::string cert_file;
  std::string key_file;
  /// Secure only, required: decides each request (TokenReview, SubjectAccessReview).
  std::shared_ptr<k8s::delegated_access> access;
};

class metrics_server {
public:
  /// Worker threads: a request may wait on two reviews, so more than one scraper (an HA
  /// Prometheus pair) is served at once.
  static constexpr int worker_threads = 4;

  static expected<std::unique_ptr<metrics_server>> start(metrics_server_options options);
  ~metrics_server();

  int port() const { return port_; }
  bool secure() const { return secure_; }

private:
  struct impl;
  std::unique_ptr<impl> impl_;
  int port_ = 0;
  bool secure_ = true;
};

} // namespace schedopt
