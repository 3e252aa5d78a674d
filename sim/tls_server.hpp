// An httplib HTTPS server from PEM material (sim/tls): the simulated API server, the
// fault proxy and the Portworx SDK gateway each serve with a CA of their own.
#pragma once

#include <memory>
#include <string>

#include <httplib.h>

#include "model/error.hpp"
#include "sim/tls.hpp"

namespace schedopt::sim {

/// An SSLServer presenting `tls`'s server certificate; `what` names the server in errors.
expected<std::unique_ptr<httplib::SSLServer>> make_tls_server(const tls_material& tls,
                                                               const std::string& what);

/// Serves as an API server serves: `threads` worker threads, TCP_NODELAY, kept-alive
/// connections, 30 s read and write timeouts, bodies up to 64 MiB, and `handler` for
/// every method a Kubernetes client sends.
void serve_like_an_api_server(httplib::SSLServer& server, std::size_t threads, const httplib::Server::Handler& handler);

} // namespace schedopt::sim
