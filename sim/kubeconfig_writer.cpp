// kubeconfig rendering; YAML written by hand since every value is a plain quoted string.
#include "sim/kubeconfig_writer.hpp"

#include <cstdio>
#include <fstream>

namespace schedopt::sim {

std::string base64_encode(const std::string& data) {
  static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  while (i + 2 < data.size()) {
    unsigned v = (static_cast<unsigned char>(data[i]) << 16)
                 | (static_cast<unsigned char>(data[i + 1]) << 8)
                 | static_cast<unsigned char>(data[i + 2]);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += table[v & 63];
    i += 3;
  }
  if (i + 1 == data.size()) {
    unsigned v = static_cast<unsigned char>(data[i]) << 16;
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == data.size()) {
    unsigned v = (static_cast<unsigned char>(data[i]) << 16)
                 | (static_cast<unsigned char>(data[i + 1]) << 8);
    out += table[(v >> 18) & 63];
    out += table[(v >> 12) & 63];
    out += table[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

expected<bool> write_kubeconfig(const std::string& path, const std::string& server_url,
                                const std::string& ca_pem, const std::string& token) {
  std::string text = "apiVersion: v1\n"
                     "kind: Config\n"
                     "clusters:\n"
                     "- name: schedopt-sim\n"
                     "  cluster:\n"
                     "    server: \"" + server_url + "\"\n"
                     "    certificate-authority-data: \"" + base64_encode(ca_pem) + "\"\n"
                     "users:\n"
                     "- name: schedopt-sim-admin\n"
                     "  user:\n"
                     "    token: \"" + token + "\"\n"
                     "contexts:\n"
                     "- name: schedopt-sim\n"
                     "  context:\n"
                     "    cluster: schedopt-sim\n"
                     "    user: schedopt-sim-admin\n"
                     "    namespace: default\n"
                     "current-context: schedopt-sim\n"
                     "preferences: {}\n";
  auto tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out)
      return make_error(ec::config_error, "cannot write kubeconfig \"" + path + "\"");
    out << text;
    if (!out)
      return make_error(ec::config_error, "cannot write kubeconfig \"" + path + "\"");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return make_error(ec::config_error, "cannot rename \"" + tmp + "\" to \"" + path + "\"");
  return true;
}

} // namespace schedopt::sim
