// status.podHyperconvergence {successful, skipped, failed, details[]}: the same counter,
// detail and reason rules as the VM kind's block (docs/design.md §3 "Details"):
// counters always exact, details capped, reasons "<Kind>: <detail>" and empty when
// Successful.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/decode_reader.hpp"
#include "model/error.hpp"
#include "model/kinds/pod_hyperconvergence/pod_reason.hpp"

namespace schedopt::pod_hyperconvergence {

/// status.podHyperconvergence.details[] entry.
struct pod_detail {
  std::string name;
  std::string namespace_;
  pod_result status = pod_result::skipped;
  std::string reason; // empty when Successful
};

struct pod_hyperconvergence_status {
  int64_t successful = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  std::vector<pod_detail> details;
};

/// `{"name","namespace","status","reason"?}` (reason omitted when empty).
nlohmann::json to_json(const pod_detail& d);
/// `{"successful","skipped","failed","details":[...]}`, details always an array.
nlohmann::json to_json(const pod_hyperconvergence_status& s);

/// Reads the block back (resume). An unknown status text reads as Failed: it counts
/// nowhere but must not pass for a success.
void read_status(detail::decode_reader& r, const detail::json_object& block,
                 pod_hyperconvergence_status& out);
expected<pod_hyperconvergence_status> decode_status_block(std::string_view json);

/// Keeps the block as outcomes arrive: each pod counted once (a second outcome for the
/// same namespace/name is ignored, so a resumed run cannot count a pod twice), details
/// kept up to `max_details` (maxNonHyperconvergedPerRun), counters exact beyond it.
class status_tally {
public:
  explicit status_tally(std::size_t max_details);

  /// Starts from a block already written (resume): its counters, details, and the pods
  /// its details name.
  void restore(const pod_hyperconvergence_status& written);

  /// Counts the outcome; false when this pod was already counted.
  bool record(pod_detail d);

  bool counted(const std::string& namespace_, const std::string& name) const;

  const pod_hyperconvergence_status& status() const { return status_; }

private:
  std::size_t max_details_;
  pod_hyperconvergence_status status_;
  std::set<std::pair<std::string, std::string>> counted_;
};

} // namespace schedopt::pod_hyperconvergence
