// schedopt: the storage-aware workload placement controller (run), a one-shot
// evaluation (plan), why a VM is or is not moved (explain), the requests and their
// progress (status) and a self-contained demonstration (demo). Installed as
// kubectl-schedopt it is also the kubectl plugin `kubectl schedopt`.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "actors/optimization_kinds.hpp"
#include "commands/commands.hpp"
#include "schedopt_version.hpp"

#include <malloc.h>

namespace {

// glibc gives every thread that allocates an arena of its own (up to 8 per core), and
// memory freed in one arena is not reused by threads of another: the CAF workers, the
// HTTP engine and the logger each kept a share of the peak. One arena keeps it shared
// (a lower peak in scale_bench, the first VMIM no later; docs/benchmarks.md);
// MALLOC_ARENA_MAX in the environment still decides when set.
void limit_malloc_arenas() {
  if (!std::getenv("MALLOC_ARENA_MAX"))
    mallopt(M_ARENA_MAX, 1);
}

} // namespace

int main(int argc, char** argv) {
  using namespace schedopt;
  limit_malloc_arenas();
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() == 2 && args[1] == "--version") {
    std::printf("schedopt %s (revision %s)\n", build_version, build_revision);
    return 0;
  }
  auto parsed = parse_command_line(args, process_environment(), {}, kind_settings_tables());
  if (!parsed) {
    std::fprintf(stderr, "schedopt: %s\n", parsed.err().message.c_str());
    return 2;
  }
  if (parsed->help_requested) {
    std::fputs(parsed->help_text.c_str(), stdout);
    return 0;
  }
  switch (parsed->cmd) {
    case command::run:
      return run_command(parsed->config);
    case command::plan:
      return plan_command(parsed->config, parsed->plan);
    case command::explain:
      return explain_command(parsed->config, parsed->explain);
    case command::status:
      return status_command(parsed->config, parsed->status);
    case command::demo:
      return demo_command(parsed->config, parsed->demo, args[0]);
    case command::none:
      break;
  }
  std::fputs(help_text(command::none, program_name(args[0])).c_str(), stderr);
  return 2;
}
