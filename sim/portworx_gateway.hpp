// The OpenStorage SDK REST gateway (grpc-gateway v1, snake_case JSON) as Portworx serves
// it, answering from the simulated storage backend. Endpoints: the /v1/nodes and
// /v1/volumes routes of openstorage's api/server/sdk gateway, listed in the .cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/error.hpp"
#include "sim/tls.hpp"

namespace schedopt::sim {

class storage_backend;
class answer_faults;

class portworx_gateway {
public:
  explicit portworx_gateway(const storage_backend& storage);
  ~portworx_gateway();

  /// Broken answers on demand (server "portworx"); set before start.
  void set_answer_faults(std::shared_ptr<answer_faults> faults);
  /// Listens on 127.0.0.1:`port` (0 = any) in a thread of its own; returns the port.
  /// A non-empty `token` is required as `Authorization: Bearer <token>`; with `tls` the
  /// gateway serves HTTPS with its server certificate, as Portworx does with TLS on.
  expected<int> start(int port, const std::string& token,
                      std::optional<tls_material> tls = std::nullopt);
  void stop();
  int port() const;
  /// "http://127.0.0.1:<port>", or "https://..." when started with TLS.
  std::string url() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
