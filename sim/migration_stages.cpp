// The default KubeVirt migration stage table and jitter.
#include "sim/migration_stages.hpp"

#include "sim/kubevirt_names.hpp"

namespace schedopt::sim {

migration_stage_table default_migration_stages(std::chrono::milliseconds phase_delay,
                                               std::chrono::milliseconds running, double jitter) {
  using namespace kubevirt;
  return {
      {phase_pending, phase_scheduling, phase_delay, jitter},
      {phase_scheduling, phase_scheduled, phase_delay, jitter},
      {phase_scheduled, phase_preparing_target, phase_delay, jitter},
      {phase_preparing_target, phase_target_ready, phase_delay, jitter},
      {phase_target_ready, phase_running, phase_delay, jitter},
      {phase_running, phase_succeeded, running, jitter},
  };
}

const migration_stage* find_stage(const migration_stage_table& table, const std::string& phase) {
  for (const auto& s : table)
    if (s.phase == phase)
      return &s;
  return nullptr;
}

std::chrono::milliseconds jittered_delay(const migration_stage& stage, std::mt19937_64& rng) {
  if (stage.jitter <= 0.0 || stage.delay.count() == 0)
    return stage.delay;
  std::uniform_real_distribution<double> spread{-stage.jitter, stage.jitter};
  auto ms = static_cast<double>(stage.delay.count()) * (1.0 + spread(rng));
  return std::chrono::milliseconds{ms < 0 ? 0 : static_cast<long long>(ms)};
}

} // namespace schedopt::sim
