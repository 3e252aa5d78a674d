// Migration transfer time and virt-launcher's completion-timeout bound.
#include "sim/migration_transfer.hpp"

#include <algorithm>

#include "model/quantity.hpp"

namespace schedopt::sim {

int64_t vmi_migration_memory_bytes(const nlohmann::json& vmi) {
  auto quantity = [&](const nlohmann::json::json_pointer& p) -> int64_t {
    if (!vmi.contains(p) || !vmi.at(p).is_string())
      return -1;
    auto v = parse_quantity(vmi.at(p).get<std::string>());
    return v ? *v : -1;
  };
  // The guest memory, when set, overrides the requested memory.
  auto guest = quantity("/spec/domain/memory/guest"_json_pointer);
  if (guest >= 0)
    return guest;
  return std::max<int64_t>(0, quantity("/spec/domain/resources/requests/memory"_json_pointer));
}

int64_t migration_data_size_scaled(int64_t bytes) {
  constexpr int64_t giga = 1000 * 1000 * 1000;
  return bytes <= 0 ? 0 : (bytes + giga - 1) / giga;
}

int64_t effective_bandwidth(int64_t flag_rate, const migration_config& config) {
  auto cap = config.bandwidth_per_migration;
  if (cap <= 0)
    return flag_rate;
  return flag_rate <= 0 ? cap : std::min(flag_rate, cap);
}

std::chrono::milliseconds transfer_time(int64_t memory_bytes, int64_t bandwidth) {
  // Whole milliseconds, rounded up; long double keeps a 64 GiB × 1000 product exact enough.
  auto ms = static_cast<long double>(memory_bytes) * 1000.0L / static_cast<long double>(bandwidth);
  return std::chrono::milliseconds{static_cast<long long>(ms + 0.999L)};
}

transfer_plan plan_transfer(std::chrono::milliseconds transfer, int64_t memory_bytes, const migration_config& config) {
  transfer_plan plan;
  plan.running = transfer;
  auto acceptable = config.completion_timeout_per_gib * migration_data_size_scaled(memory_bytes);
  if (acceptable == 0)
    return plan; // shouldTriggerTimeout: 0 never triggers
  // elapsed/time.Second > acceptable first holds at acceptable+1 whole seconds; a
  // negative bound holds at once.
  std::chrono::milliseconds limit{std::max<int64_t>(acceptable + 1, 0) * 1000};
  if (transfer >= limit) {
    plan.running = limit;
    plan.aborted_after_s = acceptable;
  }
  return plan;
}

std::string completion_timeout_reason(int64_t acceptable_s) {
  return "Live migration is not completed after " + std::to_string(acceptable_s) + " seconds and has been aborted";
}

} // namespace schedopt::sim
