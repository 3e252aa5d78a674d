#include "sim/protobuf_wire.hpp"

#include "sim/api_server_status.hpp"
#include "sim/protobuf/k8s_protobuf.hpp"

namespace schedopt::sim {

namespace {

/// The media types of an Accept or Content-Type header, parameters cut, in order.
std::vector<std::string> media_types(const std::string& header) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= header.size()) {
    auto end = header.find(',', start);
    auto part = header.substr(start, end == std::string::npos ? std::string::npos : end - start);
    part = part.substr(0, part.find(';'));
    auto first = part.find_first_not_of(" \t");
    auto last = part.find_last_not_of(" \t");
    if (first != std::string::npos)
      out.push_back(part.substr(first, last - first + 1));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return out;
}

} // namespace

bool is_protobuf(const std::string& content_type) {
  auto types = media_types(content_type);
  return !types.empty() && types.front() == protobuf::media_type;
}

bool prefers_protobuf(const std::string& accept) {
  return is_protobuf(accept);
}

expected<nlohmann::json> protobuf_body(const std::string& body, const std::string& kind) {
  auto decoded = protobuf::decode(body);
  if (!decoded.error.empty())
    return make_error(ec::parse_error,
                      "the object provided is unrecognized (must be of type " + kind + "): " + decoded.error, 400);
  return std::move(decoded.object);
}

void answer_in_protobuf(const httplib::Request& req, httplib::Response& res) {
  auto accept = req.get_header_value("Accept");
  if (!prefers_protobuf(accept) || res.body.empty() || res.get_header_value("Content-Type") != "application/json")
    return;
  auto answer = nlohmann::json::parse(res.body, nullptr, false);
  if (answer.is_discarded())
    return;
  if (auto encoded = protobuf::encode(answer)) {
    res.set_content(*encoded, std::string(protobuf::media_type));
    return;
  }
  for (const auto& type : media_types(accept))
    if (type == "application/json" || type == "*/*" || type == "application/*")
      return;
  // apiserver negotiation.go NegotiateOutputMediaType: nothing the client accepts.
  res.status = 406;
  res.set_content(status_failure(406, "NotAcceptable",
                                 "only the following media types are accepted: application/json, "
                                 "application/yaml, application/vnd.kubernetes.protobuf")
                    .dump(),
                  "application/json");
}

} // namespace schedopt::sim
