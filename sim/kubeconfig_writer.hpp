// Writes the kubeconfig that lets stock kubectl (and schedopt) talk to the simulator.
#pragma once

#include <string>

#include "model/error.hpp"

namespace schedopt::sim {

/// Cluster "schedopt-sim" with certificate-authority-data, user with `token`, one
/// context, current-context set. Written to a temporary file and renamed into place.
expected<bool> write_kubeconfig(const std::string& path, const std::string& server_url,
                                const std::string& ca_pem, const std::string& token);

/// Base64 (standard alphabet, padded) as kubeconfig's *-data fields use it.
std::string base64_encode(const std::string& data);

} // namespace schedopt::sim
