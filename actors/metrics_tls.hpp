// The TLS identity /metrics serves: a certificate and key given as files
// (metricsCertFile, metricsKeyFile), or one made at start, as controller-runtime's
// metrics server makes one when it has no certificate directory (docs/design.md §4.6).
#pragma once

#include <string>

#include "model/error.hpp"

typedef struct ssl_ctx_st SSL_CTX;

namespace schedopt {

struct tls_identity {
  std::string certificate_chain_pem; // the server's certificate first
  std::string private_key_pem;
};

/// A fresh self-signed certificate for DNS:localhost and IP:127.0.0.1, valid from an hour
/// ago (clock skew) for a year, as client-go util/cert/cert.go
/// GenerateSelfSignedCertKeyWithOptions makes it for controller-runtime (an ECDSA P-256
/// key where that uses RSA 2048: as good, and made in a millisecond). Scrapers do not
/// verify it: it only encrypts; the bearer token is what authenticates them.
expected<tls_identity> self_signed_identity();

/// The PEM files, checked: at least one certificate, a private key, and the key is the
/// first certificate's. Errors name the setting and the file.
expected<tls_identity> read_identity(const std::string& cert_file, const std::string& key_file);

/// Puts `identity` into a server context: the chain, the key, TLS 1.2 or newer, no
/// compression or renegotiation. False when OpenSSL refuses any of it.
bool configure_server_tls(SSL_CTX& ctx, const tls_identity& identity);

} // namespace schedopt
