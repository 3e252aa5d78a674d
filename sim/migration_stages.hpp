// A VMIM's lifecycle as data (kwok-style stages): from each phase, the next phase and
// how long the simulated KubeVirt waits before taking it, with seeded jitter.
#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace schedopt::sim {

struct migration_stage {
  std::string phase; // the phase the VMIM is in
  std::string next;  // the phase it moves to when the delay is over
  std::chrono::milliseconds delay{0};
  double jitter = 0.0; // +- fraction of delay
};

using migration_stage_table = std::vector<migration_stage>;

/// Pending → Scheduling → Scheduled → PreparingTarget → TargetReady → Running →
/// Succeeded, the phases KubeVirt's migration controller moves a VMIM through
/// (pkg/virt-controller/watch/migration/migration.go, Controller.updateStatus);
/// `phase_delay` for each step before Running, `running` for the transfer.
migration_stage_table default_migration_stages(std::chrono::milliseconds phase_delay,
                                               std::chrono::milliseconds running,
                                               double jitter = 0.2);

const migration_stage* find_stage(const migration_stage_table& table, const std::string& phase);

/// The stage's delay with its jitter applied, never negative.
std::chrono::milliseconds jittered_delay(const migration_stage& stage, std::mt19937_64& rng);

} // namespace schedopt::sim
