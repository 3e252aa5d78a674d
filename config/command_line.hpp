// `schedopt run|plan|explain|status|demo` command lines (docs/cli.md) plus environment and
// config file, merged with precedence flags > SCHEDOPT_* environment > config file > defaults.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/settings.hpp"
#include "model/error.hpp"

namespace schedopt {

enum class command { none, run, plan, explain, status, demo };

const char* to_string(command c);

struct plan_options {
  std::string output = "table"; // -o table|json
  /// --kind: the optimization kind evaluated (its registry name); the command refuses
  /// one the registry does not know. "": the registry's first kind.
  std::string kind;
};

/// `schedopt explain NAMESPACE/NAME | --all [-o table|json] [--kind KIND]`: exactly one of
/// NAMESPACE/NAME and --all. NAME is a VMI, or an object of the kind --kind names.
struct explain_options {
  std::string output = "table"; // -o table|json
  std::string namespace_;       // of NAMESPACE/NAME
  std::string name;
  bool all = false; // every misplaced VMI (pod kind: every misplaced or skipped pod)
  /// --kind, as plan's: the registry name; the command refuses one it does not know.
  /// "": the registry's first kind.
  std::string kind;
};

/// `schedopt status [-o table|json]`.
struct status_options {
  std::string output = "table"; // -o table|json
};

/// `schedopt demo`: the embedded scenario's size and knobs.
struct demo_options {
  int64_t nodes = 12;
  int64_t vmis = 2000;
  int64_t volumes_per_vmi = 1;
  int64_t replicas = 2;
  double misplaced_fraction = 0.0;      // VMIs already off-replica before the pool failover
  double not_migratable_fraction = 0.05;
  double failure_rate = 0.0;            // fraction of migrations KubeVirt fails
  // Each VMIM phase, the transfer included: six of them make a migration.
  duration migration_delay = std::chrono::milliseconds(100);
  uint64_t seed = 1;
  bool progress = true;                 // --no-progress turns the bar off
};

struct parse_result {
  command cmd = command::none;
  settings config;
  plan_options plan;
  explain_options explain;
  status_options status;
  demo_options demo;
  bool help_requested = false;
  std::string help_text; // filled when help_requested
};

/// Environment lookup; tests pass a map, main passes getenv.
using environment = std::function<std::optional<std::string>(const std::string&)>;
environment process_environment();

struct load_paths {
  /// The pod's namespace (lease namespace default); "default" when unreadable.
  std::string service_account_namespace_file =
    "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
  /// The settings file's bytes by its path (--config, SCHEDOPT_CONFIG); unset: read from
  /// disk. The fuzz target hands in its input here, so it runs the file's parser and
  /// validation without a file write per input.
  std::function<expected<std::string>(const std::string& path)> config_file_text;
};

/// How the user typed the program, for usage lines: "kubectl schedopt" when argv[0] is
/// the kubectl-schedopt plugin (kubectl runs a plugin with its path as argv[0]), else
/// "schedopt".
std::string program_name(const std::string& argv0);

/// argv[0] is the program name. Errors are one line (caller prints and exits 2), e.g.
/// `--cool-off-period "abc": invalid duration "abc": ...`,
/// `SCHEDOPT_MAX_PARALLEL_MIGRATIONS "x": not an integer`,
/// `config.yaml: maxParallelMigrationsLimit: must be >= 1`, `unknown flag --foo`.
/// `kinds`: the optimization kinds' settings tables (the commands pass the registry's),
/// read from every source as the core settings are; a setting of a kind not passed is
/// unknown.
expected<parse_result> parse_command_line(const std::vector<std::string>& args,
                                          const environment& env,
                                          const load_paths& paths = {},
                                          const std::vector<kind_settings_table>& kinds = {});

/// `--help` text of one command (command::none: the top-level usage), its usage lines
/// naming `program` (program_name()); the flags of `kinds`' settings after the core ones.
std::string help_text(command c, const std::string& program = "schedopt",
                      const std::vector<kind_settings_table>& kinds = {});

} // namespace schedopt
