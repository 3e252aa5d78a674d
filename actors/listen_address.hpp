// The "[host]:port" of --metrics-listen and --health-listen, parsed and bound.
#pragma once

#include <string>

#include "model/error.hpp"

namespace httplib {
class Server;
}

namespace schedopt {

struct listen_address {
  std::string host; // "0.0.0.0" for ":port"; an IPv6 literal without its brackets
  int port = 0;     // 0: any free port
};

/// "host:port", ":port" (every interface) or "[v6]:port"; errors name `setting`.
expected<listen_address> parse_listen_address(const std::string& text, const std::string& setting);

/// Binds `server` to `address`; the port bound, or an error naming `setting` and `text`.
expected<int> bind_listen_address(httplib::Server& server, const listen_address& address,
                                  const std::string& setting, const std::string& text);

} // namespace schedopt
