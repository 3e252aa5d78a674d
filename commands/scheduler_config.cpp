// See scheduler_config.hpp.
#include "commands/scheduler_config.hpp"

#include <fstream>
#include <sstream>
#include <thread>

#include <caf/atom.hpp>
#include <spdlog/spdlog.h>

#include "model/worker_count.hpp"

namespace schedopt {

namespace {

constexpr const char* cgroup_cpu_max = "/sys/fs/cgroup/cpu.max";

std::optional<unsigned> container_cpu_quota() {
  std::ifstream in{cgroup_cpu_max};
  if (!in)
    return std::nullopt; // cgroup v1, or no cgroup fs: the host's cores
  std::stringstream ss;
  ss << in.rdbuf();
  return cpu_max_cores(ss.str());
}

} // namespace

unsigned use_work_sharing_scheduler(caf::actor_system_config& cfg, int64_t workers_setting) {
  cfg.set("scheduler.policy", caf::atom("sharing"));
  // One worker per CPU the container may use (CAF's default is at least 4): nothing in
  // schedopt blocks a worker, each worker keeps its own decoder buffers (simdjson), sized
  // by the largest page, and workers beyond the CFS quota only get throttled.
  auto quota = workers_setting > 0 ? std::nullopt : container_cpu_quota();
  auto host = std::thread::hardware_concurrency();
  auto workers = worker_count(workers_setting, quota, host);
  cfg.set("scheduler.max-threads", static_cast<size_t>(workers));
  if (workers_setting > 0)
    spdlog::info("{} actor workers (workers setting)", workers);
  else if (quota)
    spdlog::info("{} actor workers ({} CPU quota; {} host cores)", workers, cgroup_cpu_max, host);
  else
    spdlog::info("{} actor workers (host cores; no CPU quota)", workers);
  return workers;
}

} // namespace schedopt
