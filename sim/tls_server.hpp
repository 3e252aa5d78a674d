// An httplib HTTPS server from PEM material (sim/tls): the simulated API server and the
// Portworx SDK gateway each serve with a CA of their own.
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

} // namespace schedopt::sim
