// HTTP status + Status body -> schedopt::error.
#include "k8s/api_errors.hpp"

#include <string>

#include "model/decode.hpp"

namespace schedopt::k8s {

ec classify_status(int s, std::string_view reason) {
  if (s == 404)
    return ec::not_found;
  if (s == 409)
    return reason == "AlreadyExists" ? ec::already_exists : ec::conflict;
  if (s == 410)
    return ec::gone;
  if (s == 401 || s == 403)
    return ec::unauthorized;
  if (s == 429)
    return ec::too_many_requests;
  if (s == 504)
    return ec::timeout;
  if (s >= 500)
    return ec::server_error;
  if (s >= 400)
    return ec::invalid_request;
  return ec::server_error;
}

error api_error(int http_status, std::string_view body) {
  if (!body.empty() && body.front() == '{') {
    if (auto st = decode_status(body); st && !st->message.empty())
      return error{classify_status(http_status, st->reason), st->message, http_status};
    else if (st)
      return error{classify_status(http_status, st->reason),
                   "HTTP " + std::to_string(http_status) + " " + st->reason, http_status};
  }
  std::string text{body.substr(0, body.find('\n'))};
  if (text.size() > 512)
    text.resize(512);
  if (text.empty())
    text = "HTTP " + std::to_string(http_status);
  return error{classify_status(http_status, {}), text, http_status};
}

error transport_error(std::string_view what, std::string_view url) {
  return error{ec::transport_error, std::string{url} + ": " + std::string{what}, 0};
}

} // namespace schedopt::k8s
