// See listen_address.hpp.
#include "actors/listen_address.hpp"

#include <httplib.h>

namespace schedopt {

expected<listen_address> parse_listen_address(const std::string& text, const std::string& setting) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos)
    return make_error(ec::config_error, setting + " \"" + text + "\": expected [host]:port");
  listen_address out;
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']')
    out.host = out.host.substr(1, out.host.size() - 2);
  if (out.host.empty())
    out.host = "0.0.0.0";
  try {
    std::size_t used = 0;
    auto port_text = text.substr(colon + 1);
    out.port = std::stoi(port_text, &used);
    if (used != port_text.size() || out.port < 0 || out.port > 65535)
      throw std::out_of_range("port");
  } catch (...) {
    return make_error(ec::config_error, setting + " \"" + text + "\": bad port");
  }
  return out;
}

expected<int> bind_listen_address(httplib::Server& server, const listen_address& address,
                                  const std::string& setting, const std::string& text) {
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second
  // process binds the same port without error and the kernel splits the connections
  // between the two (a stale replica would then answer half the probes).
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  int bound = address.port == 0 ? server.bind_to_any_port(address.host)
                                : (server.bind_to_port(address.host, address.port) ? address.port : -1);
  if (bound <= 0)
    return make_error(ec::config_error,
                      setting + " \"" + text + "\": cannot listen (address in use or not local?)");
  return bound;
}

} // namespace schedopt
