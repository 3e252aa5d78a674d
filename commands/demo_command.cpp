// `schedopt demo`: the main job on an embedded default. Starts the simulated cluster
// (schedopt-sim, a child process on loopback), lets it fail a storage pool over (which
// creates a SchedulingOptimization as the driver would), runs the controller against it
// over HTTPS, shows progress, prints the final status and the run's figures.
#include <cstdio>
#include <libgen.h>
#include <sys/resource.h>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/controller_actor.hpp"
#include "actors/controller_stack.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "commands/commands.hpp"
#include "commands/local_stack.hpp"
#include "commands/process_signals.hpp"
#include "commands/simulator_child.hpp"
#include "k8s/metrics.hpp"
#include "model/duration.hpp"
#include "model/timestamp.hpp"

namespace schedopt {

namespace {

std::string sibling_binary(const std::string& self_path, const std::string& name) {
  char resolved[4096] = {};
  ssize_t n = readlink("/proc/self/exe", resolved, sizeof resolved - 1);
  std::string path = n > 0 ? std::string(resolved, n) : self_path;
  std::string dir = dirname(path.data());
  return dir + "/" + name;
}

std::vector<std::string> simulator_args(const demo_options& d) {
  char misplaced[32], not_migratable[32], failure[32];
  std::snprintf(misplaced, sizeof misplaced, "%g", d.misplaced_fraction);
  std::snprintf(not_migratable, sizeof not_migratable, "%g", d.not_migratable_fraction);
  std::snprintf(failure, sizeof failure, "%g", d.failure_rate);
  // The demo's delay paces every phase of a migration, the transfer (Running) included.
  auto delay = format_go_duration(d.migration_delay);
  return {"--nodes", std::to_string(d.nodes), "--vmis", std::to_string(d.vmis),
          "--volumes-per-vmi", std::to_string(d.volumes_per_vmi), "--replicas",
          std::to_string(d.replicas), "--misplaced", misplaced, "--not-migratable", not_migratable,
          "--migration-failure-rate", failure, "--phase-delay", delay, "--migration-duration",
          delay, "--seed", std::to_string(d.seed),
          "--driver", "portworx", "--failover-after", "2s"};
}

const scheduling_optimization* first_request(const std::vector<scheduling_optimization>& all) {
  const scheduling_optimization* first = nullptr;
  for (auto& so : all)
    if (!first || so.metadata.creation_timestamp < first->metadata.creation_timestamp)
      first = &so;
  return first;
}

void show_progress(const scheduling_optimization& so, bool tty, std::string& last_line) {
  auto eligible = k8s::default_metrics().value("schedopt_candidates_total", {{"verdict", "eligible"}});
  int64_t ok = 0, failed = 0, skipped = 0;
  for (const auto& [kind, block] : so.status.kinds) {
    ok += block.successful;
    failed += block.failed;
    skipped += block.skipped;
  }
  auto total = static_cast<int64_t>(eligible);
  int width = 30;
  int filled = total > 0 ? static_cast<int>(width * std::min<int64_t>(ok + failed, total) / total) : 0;
  std::string bar(filled, '#');
  bar.resize(width, '.');
  char line[256];
  std::snprintf(line, sizeof line, "%-10s [%s] %lld/%lld migrated, %lld failed, %lld skipped",
                so.status.stage == request_stage::none ? "New" : to_string(so.status.stage).c_str(),
                bar.c_str(),
                static_cast<long long>(ok), static_cast<long long>(total),
                static_cast<long long>(failed), static_cast<long long>(skipped));
  if (line == last_line)
    return;
  last_line = line;
  if (tty)
    std::printf("\r%s\033[K", line);
  else
    std::printf("%s\n", line);
  std::fflush(stdout);
}

void print_final(const scheduling_optimization& so, const demo_options& d) {
  auto& st = so.status;
  std::printf("\nSchedulingOptimization %s\n", so.metadata.name.c_str());
  std::printf("  stage: %s\n  status: %s\n  reason: %s\n", to_string(st.stage).c_str(),
              to_string(st.status).c_str(),
              st.reason.empty() ? "\"\"" : st.reason.c_str());
  std::printf("  startTimestamp: %s\n  finishTimestamp: %s\n", st.start_timestamp.c_str(),
              st.finish_timestamp.c_str());
  int64_t ok = 0, failed = 0;
  for (const auto& [kind, block] : st.kinds) { // every kind's block, as the status holds it
    ok += block.successful;
    failed += block.failed;
    std::printf("  %s: successful=%lld failed=%lld skipped=%lld details=%zu\n", kind.c_str(),
                static_cast<long long>(block.successful), static_cast<long long>(block.failed),
                static_cast<long long>(block.skipped), block.details.size());
    std::size_t shown = 0;
    for (auto& detail : block.details) {
      if (detail.status == detail_status::successful || shown >= 8)
        continue;
      ++shown;
      std::printf("    %s/%s %s %s\n", detail.namespace_.c_str(), detail.name.c_str(),
                  to_string(detail.status).c_str(), detail.reason.c_str());
    }
  }
  auto start = parse_rfc3339(st.start_timestamp);
  auto finish = parse_rfc3339(st.finish_timestamp);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec
               + usage.ru_stime.tv_usec / 1e6;
  std::printf("\nFigures: %lld VMIs on %lld nodes; %lld migrations (%lld successful, %lld failed); "
              "makespan %s; controller CPU %.2fs; controller peak RSS %.1f MiB\n",
              static_cast<long long>(d.vmis), static_cast<long long>(d.nodes),
              static_cast<long long>(ok + failed), static_cast<long long>(ok),
              static_cast<long long>(failed),
              start && finish ? format_go_duration(*finish - *start).c_str() : "?", cpu,
              usage.ru_maxrss / 1024.0);
}

} // namespace

int demo_command(const settings& given, const demo_options& d, const std::string& self_path) {
  settings cfg = given;
  configure_logging(cfg.log_format, cfg.log_level == "info" ? "warn" : cfg.log_level);
  block_termination_signals();
  auto sim_binary = sibling_binary(self_path, "schedopt-sim");
  std::printf("Starting the simulated cluster: %lld nodes, %lld VMIs (seed %llu) ...\n",
              static_cast<long long>(d.nodes), static_cast<long long>(d.vmis),
              static_cast<unsigned long long>(d.seed));
  std::fflush(stdout);
  auto sim = simulator_child::start(sim_binary, simulator_args(d));
  if (!sim) {
    std::fprintf(stderr, "schedopt demo: %s\n", sim.err().message.c_str());
    return 1;
  }
  cfg.kubeconfig = (*sim)->kubeconfig();
  cfg.context.clear();
  cfg.driver = "portworx";
  cfg.portworx_endpoint = (*sim)->sdk_url();
  cfg.leader_elect = false;
  std::printf("Simulator ready at %s (Portworx SDK at %s); a pool failover follows in 2s.\n",
              (*sim)->url().c_str(), cfg.portworx_endpoint.c_str());
  auto local = start_local_stack(cfg);
  if (!local) {
    std::fprintf(stderr, "schedopt demo: %s\n", local.err().message.c_str());
    return 1;
  }
  auto& sys = *(*local)->system;
  auto* stack = &(*local)->stack;
  if (!wait_until_synced(sys, *stack, std::chrono::seconds(120))) {
    std::fprintf(stderr, "schedopt demo: informers did not sync\n");
    return 1;
  }
  auto controller = spawn_controller(sys, stack->ctx, stack->requests);
  caf::anon_send(controller, atom::run_v);
  bool tty = isatty(STDOUT_FILENO) && d.progress;
  std::string last_line;
  int rc = 1;
  caf::scoped_actor self{sys};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (wait_for_termination_signal(std::chrono::milliseconds(250))) {
      std::printf("\ninterrupted\n");
      break;
    }
    std::vector<scheduling_optimization> all;
    self->request(stack->requests, std::chrono::seconds(5), atom::snapshot_v)
      .receive([&](shared_list<scheduling_optimization>& got) { all = values_of(got); },
               [](caf::error&) {});
    auto so = first_request(all);
    if (!so)
      continue;
    if (d.progress || so->status.stage == request_stage::final_)
      show_progress(*so, tty, last_line);
    if (so->status.stage == request_stage::final_) {
      print_final(*so, d);
      rc = 0;
      break;
    }
  }
  caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
  stop_controller_stack(*stack);
  return rc;
}

} // namespace schedopt
