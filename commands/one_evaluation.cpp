// The informer stack is started as `run` starts it, so what plan and explain show is
// what the controller would decide; dry_run keeps every write out.
#include "commands/one_evaluation.hpp"

#include <cstdio>

#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/logging.hpp"
#include "actors/optimization_kinds.hpp"
#include "actors/system_config.hpp"
#include "commands/local_stack.hpp"

namespace schedopt {

int run_one_evaluation(const char* command, const std::string& asked_kind,
                       const settings& given, const evaluation_setup& setup) {
  const auto* entry = find_optimization_kind(asked_kind);
  if (!entry) {
    std::string known;
    for (const auto& k : optimization_kinds())
      known += (known.empty() ? "" : ", ") + k.name;
    std::fprintf(stderr, "schedopt %s: no optimization kind %s (known: %s)\n", command,
                 asked_kind.c_str(), known.c_str());
    return 1;
  }
  const auto& kind_name = entry->name;
  settings cfg = given;
  cfg.dry_run = true;
  configure_logging(cfg.log_format, cfg.log_level == "info" ? "warn" : cfg.log_level);
  auto local = start_local_stack(cfg);
  if (!local) {
    spdlog::error("{}", local.err().message);
    return 2;
  }
  auto& sys = *(*local)->system;
  auto* stack = &(*local)->stack;
  int rc = 0;
  auto failed = [&](const std::string& why) {
    std::fprintf(stderr, "schedopt %s: %s\n", command, why.c_str());
    rc = 1;
  };
  if (!wait_until_synced(sys, *stack, std::chrono::seconds(60))) {
    failed("cannot read the cluster: informers did not sync within 60s");
  } else {
    scheduling_optimization request;
    request.metadata.name = command;
    request.spec.kinds[kind_name] = kind_spec{true, R"({"enabled":true})"};
    setup(sys, *stack, request);
    caf::scoped_actor self{sys};
    auto kind = entry->spawn(self.ptr(), stack->ctx);
    self->request(kind, caf::infinite, kind_run{request, request.spec.kinds.at(kind_name), false})
      .receive(
        [&](const kind_result& r) {
          if (r.run_failure)
            return failed(r.run_failure->reason);
          std::fputs(r.report.c_str(), stdout);
          std::fflush(stdout);
        },
        [&](caf::error& err) { failed(error_message(err)); });
  }
  stop_controller_stack(*stack);
  return rc;
}

} // namespace schedopt
