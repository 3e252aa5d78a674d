// docs/design.md §1.5 "Terminal outcome" as a pure function of what a run did: one
// kind's outcome, and the request's, combined from every kind its spec enables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/wire_enums.hpp"

namespace schedopt {

/// Why a run failed as a whole: what failed, and the reason the request's status gives
/// ("driver failure: portworx: ...", "invalid spec.<kind>.coolOffPeriod ...").
struct run_failure {
  run_failure_kind kind = run_failure_kind::internal;
  std::string reason;
};

/// A failure of the storage driver, worded "driver failure: <detail>"; a driver words
/// its own errors with it, and so does a run whose driver could not answer at all.
std::string driver_failure_reason(std::string_view detail);

/// What one kind's run did.
struct run_summary {
  std::optional<schedopt::run_failure> run_failure;
  int64_t successful = 0;
  int64_t skipped = 0;
  int64_t failed = 0;
  /// Eligible candidates left for a later request by the kind's per-run cap
  /// (maxNonHyperconvergedPerRun), as "<namespace>/<name>".
  std::vector<std::string> outstanding;
  /// Why the run stopped creating VMIMs early ("maxRunDuration 6h reached"); what was
  /// left is for a later request, so the run is at best PartialSuccess.
  std::optional<std::string> stopped_by;
};

struct terminal_outcome {
  request_status status = request_status::none; // successful, partial_success or failed
  std::string reason;
};

constexpr std::size_t max_status_reason_bytes = 1024;

/// One kind's outcome. Rules, in order: run failure → Failed with it; nothing left over
/// → Successful ""; nothing succeeded and something failed → Failed; else
/// PartialSuccess. A non-clean reason reads
/// "3 candidates outstanding: 1 failed, 2 skipped" (zero parts omitted; "1 candidate
/// outstanding" in the singular), with deferred candidates appended as
/// ", 2 deferred by maxNonHyperconvergedPerRun: ns/a, ns/b"; names that do not fit in
/// max_status_reason_bytes are summarised as ", and 7 more". Reasons of every kind are
/// capped at max_status_reason_bytes on a UTF-8 boundary.
terminal_outcome decide_outcome(const run_summary& run);

/// A kind the request's spec names, in registry order, and what its run did (nothing
/// when it is disabled: it is not run).
struct kind_report {
  std::string kind; // the kind's spec field
  bool enabled = false;
  run_summary run;
};

struct request_summary {
  /// The spec itself is unusable (a field of the wrong type): no kind ran.
  std::optional<schedopt::run_failure> spec_failure;
  std::vector<kind_report> kinds;
};

/// The request's outcome (docs/design.md §1, several kinds per request). Rules, in
/// order: spec failure → Failed with it; no kind named → Successful "no optimization
/// kind enabled"; none enabled → Successful "<kind> disabled" (each named kind, joined
/// with ", "); one enabled → that kind's outcome exactly; several → Successful when every
/// enabled kind is, Failed when every one failed, else PartialSuccess, the reason naming
/// each kind that fell short as "<kind>: <its reason>", joined with "; ".
terminal_outcome decide_request_outcome(const request_summary& request);

} // namespace schedopt
