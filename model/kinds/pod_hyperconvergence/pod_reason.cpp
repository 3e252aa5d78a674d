#include "model/kinds/pod_hyperconvergence/pod_reason.hpp"

#include "model/reason.hpp"

namespace schedopt::pod_hyperconvergence {

std::string_view to_wire(pod_result r) {
  switch (r) {
    case pod_result::successful: return "Successful";
    case pod_result::skipped: return "Skipped";
    case pod_result::failed: return "Failed";
  }
  return "Unknown";
}

std::string_view to_wire(pod_reason r) {
  switch (r) {
    case pod_reason::opted_out: return "OptedOut";
    case pod_reason::no_controller: return "NoController";
    case pod_reason::scheduler_not_storage_aware: return "SchedulerNotStorageAware";
    case pod_reason::cooling_off: return "CoolingOff";
    case pod_reason::no_target_node: return "NoTargetNode";
    case pod_reason::disruption_budget: return "DisruptionBudget";
    case pod_reason::evaluation_error: return "EvaluationError";
    case pod_reason::rescheduled_off_replica: return "RescheduledOffReplica";
    case pod_reason::replacement_not_ready: return "ReplacementNotReady";
    case pod_reason::eviction_failed: return "EvictionFailed";
  }
  return "Unknown";
}

std::string make_pod_reason(pod_reason kind, std::string_view detail) {
  return make_reason(to_wire(kind), detail);
}

} // namespace schedopt::pod_hyperconvergence
