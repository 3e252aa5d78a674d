// Where the API server is and how to authenticate: from a kubeconfig (out of cluster) or
// from the pod's service account (in cluster).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "k8s/exec_credential.hpp"
#include "model/error.hpp"

namespace schedopt::k8s {

struct cluster_config {
  std::string server;                // "https://host:port", no trailing slash
  std::string ca_file;               // PEM file with the CA bundle
  std::string ca_data;               // PEM text (decoded certificate-authority-data)
  bool insecure_skip_tls_verify = false;
  std::string token;                 // bearer token (static)
  std::string token_file;            // bearer token re-read periodically (in cluster, tokenFile)
  std::string client_cert_file;      // PEM
  std::string client_cert_data;      // PEM text
  std::string client_key_file;       // PEM
  std::string client_key_data;       // PEM text
  std::optional<exec_config> exec;   // credentials from a plugin, run by the API client
  std::string namespace_ = "default"; // context namespace or the pod's namespace
  std::string source;                // "kubeconfig /path (context x)" or "in-cluster", for logs
};

/// Reads a kubeconfig; `context` empty = current-context. Errors (ec::config_error) are
/// one line naming the file and the field, e.g. `kubeconfig /x: cluster "c": server missing`.
/// Users that authenticate in ways schedopt does not support (auth-provider, basic auth,
/// an exec plugin that needs a terminal) are refused here, in one line naming them.
expected<cluster_config> load_kubeconfig(const std::string& path, const std::string& context = {});

/// A $KUBECONFIG list merged as kubectl merges it: files that do not exist are skipped;
/// the first file to name a cluster, user or context wins it whole; current-context comes
/// from the first file that sets one; relative paths hang off the file that defined the
/// entry. Every file missing is an error, and so is any file that does not parse.
expected<cluster_config> load_kubeconfig_list(const std::vector<std::string>& paths,
                                              const std::string& context = {});

/// load_kubeconfig after the file is read: `text` is its content, `path` names it in
/// errors and anchors relative paths (certificate-authority, tokenFile, client-*). For
/// callers that hold the bytes already (the fuzz target).
expected<cluster_config> parse_kubeconfig(const std::string& text, const std::string& path,
                                          const std::string& context = {});

/// In-cluster: KUBERNETES_SERVICE_HOST/PORT plus <root>/{token,ca.crt,namespace};
/// `root` defaults to /var/run/secrets/kubernetes.io/serviceaccount.
expected<cluster_config> load_in_cluster(
  const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

/// client-go's order: explicit --kubeconfig, else $KUBECONFIG (a colon-separated list,
/// merged by load_kubeconfig_list), else in cluster when KUBERNETES_SERVICE_HOST is set,
/// else ~/.kube/config.
expected<cluster_config> load_cluster_config(const std::string& kubeconfig_flag = {},
                                             const std::string& context = {});

/// Standard base64 (whitespace ignored); an error naming `what` on bad input.
expected<std::string> decode_base64(const std::string& text, const std::string& what);

} // namespace schedopt::k8s
