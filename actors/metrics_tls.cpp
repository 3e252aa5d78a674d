// See metrics_tls.hpp. OpenSSL 3.
#include "actors/metrics_tls.hpp"

#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace schedopt {

namespace {

using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using x509_ptr = std::unique_ptr<X509, decltype(&X509_free)>;
using bio_ptr = std::unique_ptr<BIO, decltype(&BIO_free)>;

bio_ptr memory_bio(const std::string& text) {
  return bio_ptr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  long length = BIO_get_mem_data(bio, &data);
  return length > 0 ? std::string(data, static_cast<std::size_t>(length)) : std::string{};
}

bool add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr)
    return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

std::vector<x509_ptr> read_certificates(const std::string& pem) {
  std::vector<x509_ptr> out;
  auto bio = memory_bio(pem);
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr))
    out.emplace_back(cert, &X509_free);
  ERR_clear_error(); // the end of the input reads as an error
  return out;
}

pkey_ptr read_key(const std::string& pem) {
  auto bio = memory_bio(pem);
  pkey_ptr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  ERR_clear_error();
  return key;
}

expected<std::string> slurp(const std::string& path, const std::string& setting) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return make_error(ec::config_error, setting + " \"" + path + "\": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace

expected<tls_identity> self_signed_identity() {
  pkey_ptr key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  x509_ptr cert(X509_new(), &X509_free);
  if (!key || !cert)
    return make_error(ec::config_error, "metrics: cannot generate a TLS key with OpenSSL");
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f; // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600 - 3600);
  X509_set_pubkey(cert.get(), key.get());
  // cert.go names it "<host>@<unix time>".
  std::string common_name = "localhost@" + std::to_string(std::time(nullptr));
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  bool ok = add_extension(cert.get(), NID_basic_constraints, "critical,CA:FALSE")
            && add_extension(cert.get(), NID_key_usage, "critical,digitalSignature")
            && add_extension(cert.get(), NID_ext_key_usage, "serverAuth")
            && add_extension(cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  if (!ok || X509_sign(cert.get(), key.get(), EVP_sha256()) == 0)
    return make_error(ec::config_error, "metrics: cannot sign a self-signed certificate with OpenSSL");
  bio_ptr cert_out(BIO_new(BIO_s_mem()), &BIO_free);
  bio_ptr key_out(BIO_new(BIO_s_mem()), &BIO_free);
  PEM_write_bio_X509(cert_out.get(), cert.get());
  PEM_write_bio_PrivateKey(key_out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  return tls_identity{bio_text(cert_out.get()), bio_text(key_out.get())};
}

expected<tls_identity> read_identity(const std::string& cert_file, const std::string& key_file) {
  auto chain = slurp(cert_file, "metricsCertFile");
  if (!chain)
    return chain.err();
  auto key_text = slurp(key_file, "metricsKeyFile");
  if (!key_text)
    return key_text.err();
  auto certificates = read_certificates(*chain);
  if (certificates.empty())
    return make_error(ec::config_error,
                      "metricsCertFile \"" + cert_file + "\": no PEM certificate in it");
  auto key = read_key(*key_text);
  if (!key)
    return make_error(ec::config_error,
                      "metricsKeyFile \"" + key_file + "\": no PEM private key in it (or one with a passphrase)");
  if (X509_check_private_key(certificates.front().get(), key.get()) != 1) {
    ERR_clear_error();
    return make_error(ec::config_error, "metricsKeyFile \"" + key_file
                                          + "\" is not the key of the certificate in metricsCertFile \""
                                          + cert_file + "\"");
  }
  return tls_identity{std::move(*chain), std::move(*key_text)};
}

bool configure_server_tls(SSL_CTX& ctx, const tls_identity& identity) {
  auto certificates = read_certificates(identity.certificate_chain_pem);
  auto key = read_key(identity.private_key_pem);
  if (certificates.empty() || !key)
    return false;
  // Go's crypto/tls serves TLS 1.2 and 1.3 by default, which is what Prometheus and
  // controller-runtime speak.
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION
                              | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate(&ctx, certificates.front().get()) != 1)
    return false;
  for (std::size_t i = 1; i < certificates.size(); ++i)
    if (SSL_CTX_add1_chain_cert(&ctx, certificates[i].get()) != 1)
      return false;
  return SSL_CTX_use_PrivateKey(&ctx, key.get()) == 1 && SSL_CTX_check_private_key(&ctx) == 1;
}

} // namespace schedopt
