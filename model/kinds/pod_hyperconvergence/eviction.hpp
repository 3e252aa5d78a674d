// docs/design.md §9 remediation: the policy/v1 Eviction schedopt POSTs to
// /api/v1/namespaces/<ns>/pods/<name>/eviction, and what each answer of kube-apiserver's
// eviction subresource (pkg/registry/core/pod/storage/eviction.go EvictionREST.Create)
// means for the candidate:
//
//   201 (or 200)  evicted: the pod is being deleted; track its replacement.
//   429           blocked: a PodDisruptionBudget has no disruption to spare (its cause,
//                 type DisruptionBudget, says which and why), or the budget's status is
//                 behind its spec, or the API server sheds load. Retried with backoff
//                 until the run's eviction window closes (eviction_window), then
//                 Skipped `DisruptionBudget: <the last cause>`.
//   404, 409      gone: no pod of that name (404), or one with another uid (409, the
//                 uid precondition schedopt sends failed). Either someone else deleted
//                 it — a drain, a rollout — or an earlier attempt of ours whose answer
//                 was lost did. schedopt cannot tell these apart, and the request is
//                 about where the workload runs, not who moved it: the replacement is
//                 tracked as for 201 and judged the same way, and the cool-off record
//                 stays (it may have been ours).
//   500 (no reason)  failed: the pod is covered by more than one PDB, which the
//                 subresource does not support; it answers with a Status whose reason
//                 is empty. Failed `EvictionFailed: <its message>`.
//   5xx otherwise, 504, no answer   transient: an internal error (reason
//                 InternalError), the PDB update conflicting past retries (504
//                 Timeout), a lost connection. Retried like a 429 (the uid
//                 precondition makes a repeat harmless).
//   any other     failed: `EvictionFailed: <message>` (403 for RBAC or a budget whose
//                 disruptionsAllowed is negative, 400/422 for a bad request).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/duration.hpp"
#include "model/error.hpp"
#include "model/kinds/pod_hyperconvergence/pod_status.hpp"
#include "model/timestamp.hpp"

namespace schedopt::pod_hyperconvergence {

/// `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name","namespace"},
/// "deleteOptions":{"preconditions":{"uid":<uid>}}}`, plus `"dryRun":["All"]` in the
/// delete options when `dry_run`. The uid precondition keeps a retried eviction off a
/// StatefulSet's replacement, which has the evicted pod's name; without a uid none is
/// sent.
nlohmann::json eviction_body(const std::string& namespace_, const std::string& name,
                             const std::string& uid, bool dry_run = false);

/// metav1.StatusCause.
struct status_cause {
  std::string type; // "DisruptionBudget" for a PDB's refusal (policy/v1 DisruptionBudgetCause)
  std::string message;
  std::string field;
};

/// The metav1.Status an eviction answers with (success and failure alike).
struct eviction_status {
  std::string status; // "Success" / "Failure"
  std::string message;
  std::string reason; // TooManyRequests, NotFound, Conflict, InternalError, ... or empty
  int64_t code = 0;
  int64_t retry_after_seconds = 0; // details.retryAfterSeconds
  std::vector<status_cause> causes; // details.causes
};

/// Reads the answer body; an error for a body that is not a JSON object or has a field
/// of the wrong type.
expected<eviction_status> decode_eviction_status(std::string_view json);

enum class eviction_verdict { evicted, gone, blocked, transient, failed };

const char* to_string(eviction_verdict v);

struct eviction_decision {
  eviction_verdict verdict = eviction_verdict::failed;
  /// blocked: the budget's words (the DisruptionBudget cause, else the Status message);
  /// failed: the reason, `EvictionFailed: <message>`; transient: what happened, for logs.
  std::string message;
  /// What the server asked us to wait (details.retryAfterSeconds, else `retry_after`);
  /// zero when it said nothing.
  std::chrono::seconds retry_after{0};
};

/// The decision for an answer: `http_status` 0 for no answer (transport error), `body`
/// the answer (may be empty or not JSON), `retry_after` the Retry-After header in
/// seconds when there was one.
eviction_decision decide_eviction(int http_status, std::string_view body,
                                  std::chrono::seconds retry_after = std::chrono::seconds{0});

/// Wait before attempt `attempt` + 1 of a blocked or transient eviction (`attempt` >= 1
/// answered so): the server's hint when it gave one (at most max_eviction_retry_delay),
/// else 5s doubling per attempt up to 1 min. A PDB frees a disruption when a pod it
/// covers turns Ready, which takes seconds to minutes; polling faster only loads the
/// API server.
std::chrono::milliseconds eviction_retry_delay(int attempt, std::chrono::seconds server_hint);
constexpr std::chrono::minutes max_eviction_retry_delay{5};

/// `DisruptionBudget: <message>` for a candidate still blocked when the window closed.
std::string disruption_budget_reason(std::string_view last_message);

/// The outcome of a candidate the window closed on before it was evicted, from its
/// last answer: Skipped `DisruptionBudget: <the budget's words>` after a 429, Failed
/// `EvictionFailed: <what happened>` after a transient failure (the API server, not a
/// budget, kept it). Any other last answer is final already and passed through as
/// Failed with its message.
pod_detail unevicted_outcome(const std::string& namespace_, const std::string& name,
                             const eviction_decision& last);

/// How long a run keeps retrying blocked evictions. A budget refuses while the pods it
/// covers are not healthy enough; this run's own evictions are what usually makes them
/// so, and each replacement turning Ready gives a disruption back. So the window stays
/// open while any eviction of the run still awaits its replacement, and for
/// `settle_grace` after the last one settled (the disruption controller recounts, a
/// slow pod turns Ready); past that nothing this run does will change the budget's
/// answer. It never stays open past the run's deadline (maxRunDuration).
///
/// The grace outlasts kubernetes' disruption controller: a StatefulSet's replacement
/// carries its pod's name, and a name the budget recorded as disrupted is not counted
/// healthy until DeletionTimeout (2 minutes, pkg/controller/disruption
/// buildDisruptedPodMap) after its eviction, so a budget allowing one disruption refuses
/// a sibling until then; a retry, its backoff capped at a minute, must still find the
/// window open.
class eviction_window {
public:
  eviction_window(timestamp opened, timestamp run_deadline,
                  duration settle_grace = default_settle_grace);

  static constexpr duration default_settle_grace = std::chrono::minutes(3);

  /// An eviction was accepted (evicted or gone) or a replacement settled (Ready, or
  /// judged failed): the grace runs from here.
  void progress(timestamp now);

  /// Whether blocked evictions may still be retried at `now`, with
  /// `awaiting_replacements` evictions of the run not yet settled.
  bool open(timestamp now, std::size_t awaiting_replacements) const;

  /// When it closes if nothing progresses and nothing is awaited (for a timer).
  timestamp closes_at() const;

private:
  timestamp last_progress_;
  timestamp deadline_;
  duration grace_;
};

} // namespace schedopt::pod_hyperconvergence
