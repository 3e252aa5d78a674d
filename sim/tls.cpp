// Certificate generation with OpenSSL 3 (EC keys, X509v3 extensions).
#include "sim/tls.hpp"

#include <memory>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

namespace schedopt::sim {

namespace {

using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using x509_ptr = std::unique_ptr<X509, decltype(&X509_free)>;

pkey_ptr new_key() {
  return pkey_ptr(EVP_EC_gen("P-256"), &EVP_PKEY_free);
}

bool add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr)
    return false;
  bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

x509_ptr new_cert(EVP_PKEY* key, const char* common_name, X509* issuer, EVP_PKEY* issuer_key,
                  bool is_ca) {
  x509_ptr cert(X509_new(), &X509_free);
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("schedopt-sim"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  bool ok = true;
  if (is_ca) {
    ok = add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE")
         && add_ext(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature")
         && add_ext(cert.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    ok = add_ext(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE")
         && add_ext(cert.get(), signer, NID_key_usage, "critical,digitalSignature,keyEncipherment")
         && add_ext(cert.get(), signer, NID_ext_key_usage, "serverAuth")
         && add_ext(cert.get(), signer, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost")
         && add_ext(cert.get(), signer, NID_authority_key_identifier, "keyid:always");
  }
  if (!ok || X509_sign(cert.get(), issuer_key, EVP_sha256()) == 0)
    return x509_ptr(nullptr, &X509_free);
  return cert;
}

std::string cert_pem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(len));
  BIO_free(bio);
  return out;
}

std::string key_pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(len));
  BIO_free(bio);
  return out;
}

} // namespace

expected<tls_material> make_tls_material(const std::string& ca_name) {
  auto ca_key = new_key();
  auto server_key = new_key();
  if (!ca_key || !server_key)
    return make_error(ec::transport_error, "cannot generate EC P-256 keys with OpenSSL");
  auto ca = new_cert(ca_key.get(), ca_name.c_str(), nullptr, ca_key.get(), true);
  if (!ca)
    return make_error(ec::transport_error, "cannot sign the simulator's CA certificate");
  auto server = new_cert(server_key.get(), "127.0.0.1", ca.get(), ca_key.get(), false);
  if (!server)
    return make_error(ec::transport_error, "cannot sign the simulator's server certificate");
  return tls_material{cert_pem(ca.get()), cert_pem(server.get()), key_pem(server_key.get())};
}

} // namespace schedopt::sim
