// A fault proxy in front of a real API server (schedopt-sim attach --kubeconfig-out):
// clients under test talk to it, it forwards each request under the client's own
// credentials and User-Agent, so the server's audit log still records who wrote what,
// and breaks on demand what the simulator's own API server breaks: 5xx and 429 at a rate,
// latency, watches dropped after a while, the answer faults of /admin/answer-faults
// (a held request, a reset after the write committed, HTML, a body that is not JSON or
// stops mid-way) and partitions of one client by User-Agent (/admin/partitions).
#pragma once

#include <memory>
#include <string>

#include "model/error.hpp"
#include "sim/faults.hpp"
#include "sim/tls.hpp"
#include "sim/upstream_client.hpp"

namespace schedopt::sim {

class answer_faults;
class network_partitions;

struct fault_proxy_options {
  upstream_endpoint upstream; // where requests go, with its CA; the token is the client's
  fault_options faults;
  std::shared_ptr<answer_faults> answers;       // may be null: none
  std::shared_ptr<network_partitions> partitions; // may be null: none
};

class fault_proxy {
public:
  explicit fault_proxy(fault_proxy_options options);
  ~fault_proxy();

  /// Serves HTTPS with `tls` on 127.0.0.1 (any port); the URL, https://127.0.0.1:<port>.
  expected<std::string> start(const tls_material& tls);
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
