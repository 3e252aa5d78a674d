#include "sim/protobuf_wire.hpp"

#include "sim/api_server_status.hpp"
#include "sim/media_ranges.hpp"
#include "sim/protobuf/k8s_protobuf.hpp"

namespace schedopt::sim {

bool is_protobuf(const std::string& content_type) {
  auto ranges = media_ranges(content_type);
  return !ranges.empty() && ranges.front().type == protobuf::media_type;
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
  for (const auto& range : media_ranges(accept))
    if (range.type == "application/json" || range.type == "*/*" || range.type == "application/*")
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
