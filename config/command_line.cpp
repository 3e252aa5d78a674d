// `schedopt <command> [flags]`: flags are collected first (they may name the config
// file), then sources are applied lowest precedence first: file, environment, flags.
#include "config/command_line.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "config/config_file.hpp"
#include "config/setting_table.hpp"
#include "config/value_parsers.hpp"

namespace schedopt {

using config_detail::setting_def;

namespace {

/// A flag only one command has (plan's -o, demo's scenario knobs). These come from the
/// command line alone: they describe one invocation, not the cluster.
struct option_def {
  std::string flag;       // "--output"
  std::string short_flag; // "-o" or ""
  std::string value_name; // empty: boolean
  std::string default_text;
  std::string description;
  std::function<std::string(parse_result&, const std::string&)> apply;
};

std::function<std::string(parse_result&, const std::string&)>
demo_int(int64_t demo_options::*field, int64_t min) {
  return [=](parse_result& r, const std::string& text) -> std::string {
    int64_t v = 0;
    if (auto e = config_detail::parse_int(text, v); !e.empty())
      return e;
    if (v < min)
      return "must be >= " + std::to_string(min);
    r.demo.*field = v;
    return {};
  };
}

std::function<std::string(parse_result&, const std::string&)>
demo_fraction(double demo_options::*field) {
  return [=](parse_result& r, const std::string& text) -> std::string {
    double v = 0;
    if (auto e = config_detail::parse_number(text, v); !e.empty())
      return e;
    if (v < 0 || v > 1)
      return "must be between 0 and 1";
    r.demo.*field = v;
    return {};
  };
}

std::vector<option_def> command_options(command c) {
  std::vector<option_def> out;
  if (c == command::plan || c == command::explain || c == command::status) {
    out.push_back({"--output", "-o", "FORMAT", "table", "output format: table or json",
                   [c](parse_result& r, const std::string& text) -> std::string {
                     if (text != "table" && text != "json")
                       return "must be table or json";
                     (c == command::plan      ? r.plan.output
                      : c == command::explain ? r.explain.output
                                              : r.status.output) = text;
                     return {};
                   }});
  }
  if (c == command::plan || c == command::explain) {
    out.push_back({"--kind", "", "KIND", "",
                   std::string("optimization kind to ")
                     + (c == command::plan ? "evaluate" : "explain")
                     + ", by its spec field (docs/cli.md lists them), the first listed when "
                       "not given; an unknown kind is refused with the names of those there are",
                   [c](parse_result& r, const std::string& text) -> std::string {
                     if (text.empty())
                       return "must name an optimization kind";
                     (c == command::plan ? r.plan.kind : r.explain.kind) = text;
                     return {};
                   }});
  }
  if (c == command::explain) {
    out.push_back({"--all", "", "", "false",
                   "explain every misplaced VMI (with --kind, every misplaced or skipped "
                   "object of that kind) instead of one",
                   [](parse_result& r, const std::string& text) {
                     return config_detail::parse_bool(text, r.explain.all);
                   }});
  } else if (c == command::demo) {
    demo_options d;
    out.push_back({"--nodes", "", "INT", std::to_string(d.nodes), "simulated nodes",
                   demo_int(&demo_options::nodes, 1)});
    out.push_back({"--vmis", "", "INT", std::to_string(d.vmis), "simulated running VMIs",
                   demo_int(&demo_options::vmis, 0)});
    out.push_back({"--volumes-per-vmi", "", "INT", std::to_string(d.volumes_per_vmi),
                   "driver volumes per VMI", demo_int(&demo_options::volumes_per_vmi, 1)});
    out.push_back({"--replicas", "", "INT", std::to_string(d.replicas),
                   "replicas per volume", demo_int(&demo_options::replicas, 1)});
    out.push_back({"--misplaced-fraction", "", "NUMBER", "0",
                   "fraction of VMIs already off their replicas before the pool failover",
                   demo_fraction(&demo_options::misplaced_fraction)});
    out.push_back({"--not-migratable-fraction", "", "NUMBER", "0.05",
                   "fraction of VMIs with LiveMigratable=False",
                   demo_fraction(&demo_options::not_migratable_fraction)});
    out.push_back({"--failure-rate", "", "NUMBER", "0",
                   "fraction of migrations the simulated KubeVirt fails",
                   demo_fraction(&demo_options::failure_rate)});
    out.push_back({"--migration-delay", "", "DURATION", format_go_duration(d.migration_delay),
                   "simulated time in each migration phase, the transfer included",
                   [](parse_result& r, const std::string& text) {
                     return config_detail::parse_duration(text, r.demo.migration_delay);
                   }});
    out.push_back({"--seed", "", "INT", std::to_string(d.seed), "scenario random seed",
                   [](parse_result& r, const std::string& text) -> std::string {
                     int64_t v = 0;
                     if (auto e = config_detail::parse_int(text, v); !e.empty())
                       return e;
                     if (v < 0)
                       return "must be >= 0";
                     r.demo.seed = static_cast<uint64_t>(v);
                     return {};
                   }});
    out.push_back({"--progress", "", "", "true", "draw a progress bar (--no-progress: off)",
                   [](parse_result& r, const std::string& text) {
                     return config_detail::parse_bool(text, r.demo.progress);
                   }});
  }
  return out;
}

const char* summary(command c) {
  switch (c) {
    case command::run:
      return "Run the controller: serve SchedulingOptimization requests one at a time.";
    case command::plan:
      return "Evaluate once and print every VMI's (with --kind, every object's of that "
             "kind) verdict, target nodes and skip reason; changes nothing.";
    case command::explain:
      return "Explain why a VMI (with --kind, an object of that kind) is or is not "
             "moved: volumes, replica nodes, node scores, each target's admission rule by "
             "rule, cool-off, what else holds it back and the per-run cap; read-only.";
    case command::status:
      return "List the SchedulingOptimization requests as kubectl get does, with the "
             "progress of each one still running; read-only.";
    case command::demo:
      return "Start a simulated cluster, fail over a storage pool, run the controller "
             "against the request it creates and print the final status.";
    case command::none: break;
  }
  return "";
}

std::optional<command> command_from(const std::string& name) {
  if (name == "run") return command::run;
  if (name == "plan") return command::plan;
  if (name == "explain") return command::explain;
  if (name == "status") return command::status;
  if (name == "demo") return command::demo;
  return std::nullopt;
}

error fail(std::string message) {
  return make_error(ec::config_error, std::move(message));
}

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

struct pending_setting {
  const setting_def* def;
  std::string spelling; // the flag as typed, for the error message
  std::string value;
};

const setting_def* setting_by_flag(const std::vector<setting_def>& defs, const std::string& flag) {
  for (const auto& d : defs)
    if (d.info.flag == flag)
      return &d;
  return nullptr;
}

const config_detail::removed_setting* removed_by(std::string config_detail::removed_setting::*spelling,
                                                 const std::string& text) {
  for (const auto& r : config_detail::removed_settings())
    if (r.*spelling == text)
      return &r;
  return nullptr;
}

const setting_def* setting_by_key(const std::vector<setting_def>& defs, const std::string& key) {
  for (const auto& d : defs)
    if (d.info.key == key)
      return &d;
  return nullptr;
}

/// A key two rows share (or a row shares with a removed setting), else "": the second row
/// would never be reached, so its kind would silently read the other's value.
std::string defined_twice(const std::vector<setting_def>& defs) {
  std::set<std::string> seen;
  for (const auto& r : config_detail::removed_settings())
    seen.insert(r.key);
  for (const auto& d : defs)
    if (!seen.insert(d.info.key).second)
      return d.info.key;
  return {};
}

std::string pod_namespace(const std::string& file) {
  std::ifstream in(file);
  std::string ns;
  if (in)
    std::getline(in, ns);
  // Empty out of cluster: the command then takes the kubeconfig context's namespace.
  return config_detail::trim(ns);
}

parse_result help_for(command c, const std::string& program,
                      const std::vector<kind_settings_table>& kinds) {
  parse_result r;
  r.cmd = c;
  r.help_requested = true;
  r.help_text = help_text(c, program, kinds);
  return r;
}

} // namespace

const char* to_string(command c) {
  switch (c) {
    case command::none: return "";
    case command::run: return "run";
    case command::plan: return "plan";
    case command::explain: return "explain";
    case command::status: return "status";
    case command::demo: return "demo";
  }
  return "";
}

environment process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    if (const char* v = std::getenv(name.c_str()))
      return std::string(v);
    return std::nullopt;
  };
}

std::string program_name(const std::string& argv0) {
  auto slash = argv0.find_last_of('/');
  auto base = slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  return base == "kubectl-schedopt" ? "kubectl schedopt" : "schedopt";
}

std::string help_text(command c, const std::string& program,
                      const std::vector<kind_settings_table>& kinds) {
  if (c == command::none)
    return "Usage: " + program + " <command> [flags]\n"
           "\n"
           "schedopt converges KubeVirt VMs back onto nodes holding their volumes' "
           "replicas,\nserving SchedulingOptimization requests.\n"
           "\n"
           "Commands:\n"
           "  run      " + std::string(summary(command::run)) + "\n"
           "  plan     " + summary(command::plan) + "\n"
           "  explain  " + summary(command::explain) + "\n"
           "  status   " + summary(command::status) + "\n"
           "  demo     " + summary(command::demo) + "\n"
           "\n"
           "Run `" + program + " <command> --help` for a command's flags; `" + program
           + " --version` prints\n"
           "the version and git revision.\n"
           "Precedence: flags > SCHEDOPT_* environment > --config file > defaults.\n";
  struct row {
    std::string left;
    std::string right;
  };
  std::vector<row> rows;
  rows.push_back({"-h, --help", "show this help"});
  for (const auto& o : command_options(c)) {
    std::string left = o.short_flag.empty() ? o.flag : o.short_flag + ", " + o.flag;
    if (!o.value_name.empty())
      left += " " + o.value_name;
    rows.push_back({left, o.default_text.empty()
                            ? o.description // the description says what holds instead
                            : o.description + " (default " + o.default_text + ")"});
  }
  for (const auto& d : config_detail::setting_defs(kinds)) {
    std::string left = d.info.flag + (d.value_name.empty() ? "" : " " + d.value_name);
    std::string def = d.info.default_text.empty() ? "\"\"" : d.info.default_text;
    rows.push_back({left, d.info.description + " (default " + def + "; env " + d.info.env + ")"});
  }
  std::size_t width = 0;
  for (const auto& r : rows)
    width = std::max(width, r.left.size());
  std::string usage = c == command::explain ? " (NAMESPACE/NAME | --all)" : "";
  std::string out = "Usage: " + program + " " + std::string(to_string(c)) + usage + " [flags]\n\n"
                    + summary(c) + "\n\nFlags:\n";
  for (const auto& r : rows)
    out += "  " + r.left + std::string(width - r.left.size() + 2, ' ') + r.right + "\n";
  out += "\nBoolean flags take --flag, --flag=false or --no-flag.\n"
         "Precedence: flags > SCHEDOPT_* environment > --config file > defaults.\n";
  return out;
}

expected<parse_result> parse_command_line(const std::vector<std::string>& args,
                                          const environment& env,
                                          const load_paths& paths,
                                          const std::vector<kind_settings_table>& kinds) {
  const std::string program = program_name(args.empty() ? std::string{} : args[0]);
  if (args.size() < 2)
    return fail("missing command: want run, plan, explain, status or demo (see " + program
                + " --help)");
  const std::string& first = args[1];
  if (first == "-h" || first == "--help")
    return help_for(command::none, program, kinds);
  if (first == "help") {
    if (args.size() < 3)
      return help_for(command::none, program, kinds);
    auto c = command_from(args[2]);
    if (!c)
      return fail("unknown command " + quoted(args[2]) + ": want run, plan, explain, status or demo");
    return help_for(*c, program, kinds);
  }
  auto cmd = command_from(first);
  if (!cmd) {
    if (!first.empty() && first[0] == '-')
      return fail("missing command before " + first + ": want run, plan, explain, status or demo");
    return fail("unknown command " + quoted(first) + ": want run, plan, explain, status or demo");
  }

  // The core rows then every kind's, looked up alike from here on.
  const auto defs = config_detail::setting_defs(kinds);
  if (auto twice = defined_twice(defs); !twice.empty())
    return fail("setting " + twice + " is defined twice (a kind's settings table repeats a "
                "core or another kind's key)");

  parse_result r;
  r.cmd = *cmd;
  for (const auto& table : kinds)
    for (const auto& row : table.rows)
      r.config.kind_values[row.key] = row.default_text;
  auto options = command_options(*cmd);
  std::vector<pending_setting> flagged;
  std::string see = " (see " + program + " " + first + " --help)";

  for (std::size_t i = 2; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help")
      return help_for(*cmd, program, kinds);
    if (r.cmd == command::explain && !a.empty() && a[0] != '-') {
      if (!r.explain.name.empty())
        return fail("explain takes one NAMESPACE/NAME, got " + quoted(a) + " too" + see);
      auto slash = a.find('/');
      if (slash == 0 || slash == std::string::npos || slash + 1 == a.size()
          || a.find('/', slash + 1) != std::string::npos)
        return fail("want NAMESPACE/NAME, got " + quoted(a) + see);
      r.explain.namespace_ = a.substr(0, slash);
      r.explain.name = a.substr(slash + 1);
      continue;
    }
    if (a.size() < 2 || a[0] != '-' || a == "--")
      return fail("unexpected argument " + quoted(a) + see);
    // Split "--name=value" / "-ovalue" / "-o=value" into spelling and inline value.
    std::string spelling;
    std::optional<std::string> inline_value;
    if (a[1] == '-') {
      auto eq = a.find('=');
      spelling = a.substr(0, eq);
      if (eq != std::string::npos)
        inline_value = a.substr(eq + 1);
    } else {
      spelling = a.substr(0, 2);
      if (a.size() > 2)
        inline_value = a.substr(a[2] == '=' ? 3 : 2);
    }
    // Resolve "--no-x" to boolean x = false.
    bool negated = false;
    const option_def* opt = nullptr;
    const setting_def* def = nullptr;
    auto resolve = [&](const std::string& name) {
      for (const auto& o : options)
        if (o.flag == name || (!o.short_flag.empty() && o.short_flag == name))
          opt = &o;
      if (!opt)
        def = setting_by_flag(defs, name);
    };
    resolve(spelling);
    if (!opt && !def && spelling.rfind("--no-", 0) == 0) {
      resolve("--" + spelling.substr(5));
      bool is_bool = opt ? opt->value_name.empty() : def && def->value_name.empty();
      if (!is_bool) {
        opt = nullptr;
        def = nullptr;
      }
      negated = opt || def;
    }
    if (!opt && !def) {
      if (auto gone = removed_by(&config_detail::removed_setting::flag, spelling))
        return fail(spelling + ": " + gone->instead);
      return fail("unknown flag " + spelling + see);
    }
    bool is_bool = opt ? opt->value_name.empty() : def->value_name.empty();
    std::string value;
    if (negated) {
      if (inline_value)
        return fail(spelling + " takes no value" + see);
      value = "false";
    } else if (inline_value) {
      value = *inline_value;
    } else if (is_bool) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return fail(spelling + ": missing value" + see);
    }
    if (opt) {
      if (auto e = opt->apply(r, value); !e.empty())
        return fail(spelling + " " + quoted(value) + ": " + e);
    } else {
      flagged.push_back({def, spelling, value});
    }
  }
  if (r.cmd == command::explain && r.explain.all == !r.explain.name.empty())
    return fail(std::string(r.explain.all ? "--all and NAMESPACE/NAME exclude each other"
                                          : "missing NAMESPACE/NAME (or --all)")
                + see);
  if (r.cmd == command::demo && r.demo.replicas > r.demo.nodes)
    return fail("--replicas " + std::to_string(r.demo.replicas) + " exceeds --nodes "
                + std::to_string(r.demo.nodes));

  std::map<std::string, std::string> source; // setting key -> where its value came from
  auto env_value = [&](const std::string& name) -> std::optional<std::string> {
    // Set-but-empty counts as unset: templated manifests often render empty values.
    auto v = env ? env(name) : std::nullopt;
    if (v && v->empty())
      return std::nullopt;
    return v;
  };

  // The config file's path itself follows flag > environment.
  std::string config_path;
  if (auto v = env_value("SCHEDOPT_CONFIG"))
    config_path = *v;
  for (const auto& f : flagged)
    if (f.def->info.key == "config")
      config_path = f.value;
  if (!config_path.empty()) {
    auto text = paths.config_file_text ? paths.config_file_text(config_path)
                                       : config_detail::read_config_text(config_path);
    if (!text)
      return text.err();
    auto entries = config_detail::parse_config_file(*text, config_path);
    if (!entries)
      return entries.err();
    for (const auto& e : *entries) {
      const setting_def* def = setting_by_key(defs, e.key);
      if (auto gone = removed_by(&config_detail::removed_setting::key, e.key))
        return fail(config_path + ": " + e.key + ": " + gone->instead);
      if (!def || e.key == "config")
        return fail(config_path + ": " + e.key + ": unknown setting");
      // Only LIST settings take a list; joined, [1, 2] would read as the value "1,2".
      if (e.sequence && def->value_name != "LIST")
        return fail(config_path + ": " + e.key + ": expected one " + def->value_name
                    + " value, got a list");
      if (auto err = def->apply(r.config, e.value); !err.empty())
        return fail(config_path + ": " + e.key + ": " + err);
      source[e.key] = config_path;
    }
  }
  for (const auto& gone : config_detail::removed_settings())
    if (env_value(gone.env))
      return fail(gone.env + ": " + gone.instead);
  for (const auto& def : defs) {
    auto v = env_value(def.info.env);
    if (!v)
      continue;
    if (auto err = def.apply(r.config, *v); !err.empty())
      return fail(def.info.env + " " + quoted(*v) + ": " + err);
    source[def.info.key] = def.info.env;
  }
  for (const auto& f : flagged) {
    if (auto err = f.def->apply(r.config, f.value); !err.empty())
      return fail(f.spelling + " " + quoted(f.value) + ": " + err);
    source[f.def->info.key] = f.spelling;
  }
  r.config.config_file = config_path;
  if (source.count("leaseNamespace") == 0)
    r.config.lease_namespace = pod_namespace(paths.service_account_namespace_file);

  auto source_of = [&](const std::string& key) {
    auto it = source.find(key);
    return it == source.end() ? std::string("default") : it->second;
  };
  if (auto err = config_detail::validate_combination(r.config, source_of, kinds); !err.empty())
    return fail(err);
  return r;
}

} // namespace schedopt
