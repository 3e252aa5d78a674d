// A throwaway PKI for the simulated API server: a self-signed CA and a server
// certificate it signs for IP:127.0.0.1 and DNS:localhost, all as PEM.
#pragma once

#include <string>

#include "model/error.hpp"

namespace schedopt::sim {

struct tls_material {
  std::string ca_cert_pem;     // what kubeconfig's certificate-authority-data carries
  std::string server_cert_pem; // signed by the CA
  std::string server_key_pem;
};

/// Generates fresh ECDSA P-256 keys and certificates valid for one year.
expected<tls_material> make_tls_material();

} // namespace schedopt::sim
