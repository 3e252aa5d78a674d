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

void serve_like_an_api_server(httplib::SSLServer& server, std::size_t threads, const httplib::Server::Handler& handler) {
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // httplib writes a response's headers and body separately; with Nagle on, the body
  // waits for the client's delayed ACK of the headers (40 ms a request on a kept-alive
  // connection), as kube-apiserver (Go sets TCP_NODELAY) never does.
  server.set_tcp_nodelay(true);
  server.set_keep_alive_max_count(1000);
  server.set_keep_alive_timeout(30);
  server.set_read_timeout(30, 0);
  server.set_write_timeout(30, 0);
  server.set_payload_max_length(64 * 1024 * 1024);
  server.Get(".*", handler);
  server.Post(".*", handler);
  server.Put(".*", handler);
  server.Patch(".*", handler);
  server.Delete(".*", handler);
}

} // namespace schedopt::sim
