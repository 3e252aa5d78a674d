#include "sim/tls_server.hpp"

#include <openssl/pem.h>

namespace schedopt::sim {

expected<std::unique_ptr<httplib::SSLServer>> make_tls_server(const tls_material& tls,
                                                               const std::string& what) {
  BIO* cert_bio = BIO_new_mem_buf(tls.server_cert_pem.data(), static_cast<int>(tls.server_cert_pem.size()));
  BIO* key_bio = BIO_new_mem_buf(tls.server_key_pem.data(), static_cast<int>(tls.server_key_pem.size()));
  X509* cert = PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr);
  BIO_free(cert_bio);
  BIO_free(key_bio);
  if (cert == nullptr || key == nullptr) {
    X509_free(cert);
    EVP_PKEY_free(key);
    return make_error(ec::transport_error, "cannot load the " + what + "'s certificate or key");
  }
  auto server = std::make_unique<httplib::SSLServer>(cert, key);
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!server->is_valid())
    return make_error(ec::transport_error, "cannot set up the TLS context of the " + what);
  return server;
}

} // namespace schedopt::sim
