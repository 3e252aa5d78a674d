// A throwaway PKI for a simulated server (the API server, the Portworx SDK gateway): a
// self-signed CA and a server certificate it signs for IP:127.0.0.1 and DNS:localhost,
// all as PEM.
#pragma once

#include <string>

#include "model/error.hpp"

namespace schedopt::sim {

struct tls_material {
  std::string ca_cert_pem;     // what kubeconfig's certificate-authority-data carries
  std::string server_cert_pem; // signed by the CA
  std::string server_key_pem;
};

/// Generates fresh ECDSA P-256 keys and certificates valid for one year; `ca_name` is the
/// CA's common name, so a client's verification error says whose CA it was shown.
expected<tls_material> make_tls_material(const std::string& ca_name = "schedopt-sim-ca");

} // namespace schedopt::sim
