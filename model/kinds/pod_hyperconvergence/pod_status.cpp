#include "model/kinds/pod_hyperconvergence/pod_status.hpp"

#include <nlohmann/json.hpp>

#include "model/decode_fields.hpp"

namespace schedopt::pod_hyperconvergence {

using detail::decode_reader;
using detail::json_object;

nlohmann::json to_json(const pod_detail& d) {
  nlohmann::json j{{"name", d.name}, {"namespace", d.namespace_}, {"status", to_wire(d.status)}};
  if (!d.reason.empty())
    j["reason"] = d.reason;
  return j;
}

nlohmann::json to_json(const pod_hyperconvergence_status& s) {
  nlohmann::json details = nlohmann::json::array();
  for (const auto& d : s.details)
    details.push_back(to_json(d));
  return {{"successful", s.successful},
          {"skipped", s.skipped},
          {"failed", s.failed},
          {"details", std::move(details)}};
}

void read_status(decode_reader& r, const json_object& block, pod_hyperconvergence_status& out) {
  // Text this build does not name reads as failed.
  detail::read_status_block(r, block, out, [](const std::string& status) {
    return status == to_wire(pod_result::successful) ? pod_result::successful
           : status == to_wire(pod_result::skipped)  ? pod_result::skipped
                                                     : pod_result::failed;
  });
}

expected<pod_hyperconvergence_status> decode_status_block(std::string_view json) {
  return detail::decode_document<pod_hyperconvergence_status>(
    json, [](decode_reader& r, const json_object& root, pod_hyperconvergence_status& out) {
      read_status(r, root, out);
    });
}

status_tally::status_tally(std::size_t max_details) : max_details_(max_details) {}

void status_tally::restore(const pod_hyperconvergence_status& written) {
  status_ = written;
  for (const auto& d : written.details)
    counted_.emplace(d.namespace_, d.name);
}

bool status_tally::counted(const std::string& namespace_, const std::string& name) const {
  return counted_.count({namespace_, name}) > 0;
}

bool status_tally::record(pod_detail d) {
  if (!counted_.emplace(d.namespace_, d.name).second)
    return false;
  switch (d.status) {
    case pod_result::successful: ++status_.successful; d.reason.clear(); break;
    case pod_result::skipped: ++status_.skipped; break;
    case pod_result::failed: ++status_.failed; break;
  }
  if (status_.details.size() < max_details_)
    status_.details.push_back(std::move(d));
  return true;
}

} // namespace schedopt::pod_hyperconvergence
