// The settings table: every setting's spellings, default, description and validation.
#include "config/setting_table.hpp"

#include <set>

#include "config/value_parsers.hpp"

namespace schedopt {

namespace config_detail {

namespace {

using apply_fn = std::function<std::string(settings&, const std::string&)>;

} // namespace

std::string flag_of(const std::string& camel) {
  std::string out = "--";
  for (char c : camel) {
    if (c >= 'A' && c <= 'Z') {
      out += '-';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

std::string env_of(const std::string& camel) {
  std::string out = "SCHEDOPT_";
  for (char c : camel) {
    if (c >= 'A' && c <= 'Z')
      out += '_';
    out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return out;
}

setting_info info_of(const kind_setting& row) {
  return {row.key, flag_of(row.key), env_of(row.key), row.default_text, row.description};
}

namespace {

using show_fn = std::function<std::string(const settings&)>;

// A field's getter, whatever its type, as the text its setter accepts.
show_fn shows(duration settings::*f) {
  return [=](const settings& s) { return format_go_duration(s.*f); };
}
show_fn shows(int64_t settings::*f) {
  return [=](const settings& s) { return std::to_string(s.*f); };
}
show_fn shows(bool settings::*f) {
  return [=](const settings& s) { return std::string(s.*f ? "true" : "false"); };
}
show_fn shows(std::string settings::*f) {
  return [=](const settings& s) { return s.*f; };
}
show_fn shows(double settings::*f) {
  return [=](const settings& s) {
    std::string out = std::to_string(s.*f);
    out.erase(out.find_last_not_of('0') + 1);
    if (!out.empty() && out.back() == '.')
      out.pop_back();
    return out;
  };
}
show_fn shows(std::vector<std::string> settings::*f) {
  return [=](const settings& s) {
    std::string out;
    for (const auto& item : s.*f)
      out += (out.empty() ? "" : ",") + item;
    return out;
  };
}

template <class Field>
setting_def make(const std::string& key, Field field, std::string value_name,
                 std::string default_text, std::string description, apply_fn apply) {
  setting_info info{key, flag_of(key), env_of(key),
                    std::move(default_text), std::move(description)};
  return {std::move(info), std::move(value_name), std::move(apply), shows(field)};
}

enum class lower_bound { zero, positive };

apply_fn duration_field(duration settings::*field, lower_bound bound) {
  return [=](settings& s, const std::string& text) -> std::string {
    duration d{};
    if (auto e = parse_duration(text, d); !e.empty())
      return e;
    if (bound == lower_bound::positive && d.count() <= 0)
      return "must be > 0";
    s.*field = d;
    return {};
  };
}

apply_fn int_field(int64_t settings::*field, int64_t min) {
  return [=](settings& s, const std::string& text) -> std::string {
    int64_t v = 0;
    if (auto e = parse_int(text, v); !e.empty())
      return e;
    if (v < min)
      return "must be >= " + std::to_string(min);
    s.*field = v;
    return {};
  };
}

/// A setting whose default means something else than any value given for it: applying
/// a value also records that it was given.
apply_fn marks_explicit(apply_fn apply, bool settings::*given) {
  return [=](settings& s, const std::string& text) -> std::string {
    auto e = apply(s, text);
    if (e.empty())
      s.*given = true;
    return e;
  };
}

apply_fn bool_field(bool settings::*field) {
  return [=](settings& s, const std::string& text) { return parse_bool(text, s.*field); };
}

apply_fn string_field(std::string settings::*field, bool allow_empty = true) {
  return [=](settings& s, const std::string& text) -> std::string {
    if (!allow_empty && text.empty())
      return "must not be empty";
    s.*field = text;
    return {};
  };
}

apply_fn one_of(std::string settings::*field, std::set<std::string> allowed) {
  return [=](settings& s, const std::string& text) -> std::string {
    if (allowed.count(text) == 0) {
      std::string list;
      for (const auto& a : allowed)
        list += (list.empty() ? "" : ", ") + a;
      return "must be one of " + list;
    }
    s.*field = text;
    return {};
  };
}

// "host:port", ":port" or "[v6]:port" with a numeric port, as the metrics and health
// servers bind.
apply_fn listen_field(std::string settings::*field) {
  return [=](settings& s, const std::string& text) -> std::string {
    auto colon = text.rfind(':');
    if (colon == std::string::npos)
      return "want HOST:PORT or :PORT";
    int64_t port = 0;
    if (!parse_int(text.substr(colon + 1), port).empty() || port < 0 || port > 65535)
      return "port must be a number in 0..65535";
    s.*field = text;
    return {};
  };
}

std::string apply_endpoint(settings& s, const std::string& text) {
  if (text.rfind("http://", 0) != 0 && text.rfind("https://", 0) != 0)
    return "must start with http:// or https://";
  s.portworx_endpoint = text;
  return {};
}

std::string apply_qps(settings& s, const std::string& text) {
  double v = 0;
  if (auto e = parse_number(text, v); !e.empty())
    return e;
  if (v <= 0)
    return "must be > 0";
  s.api_qps = v;
  return {};
}

std::string apply_annotation(settings& s, const std::string& text) {
  // A qualified Kubernetes key: optional "prefix/" then a non-empty name.
  auto slash = text.find('/');
  std::string name = slash == std::string::npos ? text : text.substr(slash + 1);
  if (text.empty() || name.empty() || name.find('/') != std::string::npos
      || text.find(' ') != std::string::npos)
    return "not a valid annotation key (want prefix/name)";
  s.vm_cool_off_annotation = text;
  return {};
}

std::vector<setting_def> build_table() {
  std::vector<setting_def> t;
  // docs/design.md §5 cluster-wide defaults.
  t.push_back(make("coolOffPeriod", &settings::cool_off_period, "DURATION", "1h",
                   "minimum time between schedopt migrations of the same VM (evictions of pods "
                   "of the same workload)",
                   duration_field(&settings::cool_off_period, lower_bound::zero)));
  t.push_back(make("maxParallelMigrations", &settings::max_parallel_migrations, "INT", "5",
                   "default in-flight migration buffer per request (spec overrides); left "
                   "unset, at most KubeVirt's parallelMigrationsPerCluster",
                   marks_explicit(int_field(&settings::max_parallel_migrations, 1),
                                  &settings::max_parallel_migrations_explicit)));
  t.push_back(make("maxParallelMigrationsLimit", &settings::max_parallel_migrations_limit, "INT", "50",
                   "upper clamp for any maxParallelMigrations",
                   int_field(&settings::max_parallel_migrations_limit, 1)));
  t.push_back(make("maxNonHyperconvergedPerRun", &settings::max_non_hyperconverged_per_run, "INT", "100",
                   "candidates migrated per request; the rest are outstanding",
                   int_field(&settings::max_non_hyperconverged_per_run, 1)));
  t.push_back(make("minCoolOffPeriod", &settings::min_cool_off_period, "DURATION", "5m",
                   "a request's shorter coolOffPeriod is raised to this (Warning CoolOffClamped)",
                   duration_field(&settings::min_cool_off_period, lower_bound::zero)));
  t.push_back(make("maxPendingRequests", &settings::max_pending_requests, "INT", "20",
                   "requests waiting behind the running one; one created beyond it ends Failed",
                   int_field(&settings::max_pending_requests, 1)));
  t.push_back(make("maxRunDuration", &settings::max_run_duration, "DURATION", "6h",
                   "past this a run creates no VMIM; the rest are outstanding (PartialSuccess)",
                   duration_field(&settings::max_run_duration, lower_bound::positive)));
  t.push_back(make("excludeNamespaces", &settings::exclude_namespaces, "LIST", "",
                   "namespaces whose VMs are never migrated (skipped OptedOut), comma-separated",
                   [](settings& s, const std::string& text) {
                     s.exclude_namespaces = parse_list(text);
                     return std::string();
                   }));
  t.push_back(make("migrationTimeout", &settings::migration_timeout, "DURATION", "30m",
                   "a VMIM not final this long after KubeVirt took it up is deleted and "
                   "counted failed; left unset, each VM gets KubeVirt's own bound "
                   "(completionTimeoutPerGiB x memory GiB + progressTimeout), 30m when no "
                   "KubeVirt CR is readable",
                   marks_explicit(duration_field(&settings::migration_timeout,
                                                 lower_bound::positive),
                                  &settings::migration_timeout_explicit)));
  t.push_back(make("failureCauseWait", &settings::failure_cause_wait, "DURATION", "10s",
                   "a Failed VMIM waits this long for KubeVirt's cause before its events are read",
                   duration_field(&settings::failure_cause_wait, lower_bound::zero)));
  t.push_back(make("statusFlushInterval", &settings::status_flush_interval, "DURATION", "1s",
                   "at most one status patch per request per interval",
                   duration_field(&settings::status_flush_interval, lower_bound::positive)));
  t.push_back(make("statusHeartbeatInterval", &settings::status_heartbeat_interval, "DURATION", "30s",
                   "lastUpdateTimestamp bumped at least this often while running",
                   duration_field(&settings::status_heartbeat_interval, lower_bound::positive)));
  t.push_back(make("pinTargetNode", &settings::pin_target_node, "", "true",
                   "pin VMIMs to a replica node (spec.addedNodeSelector; KubeVirt >= 1.6)",
                   bool_field(&settings::pin_target_node)));
  t.push_back(make("yieldToKubevirt", &settings::yield_to_kubevirt, "MODE", "auto",
                   "create no VMIM while one KubeVirt created itself (a drain's) waits for a "
                   "slot: true, false, or auto (unless KubeVirt's migration priority queue is on)",
                   one_of(&settings::yield_to_kubevirt, {"auto", "true", "false"})));
  t.push_back(make("driver", &settings::driver, "NAME", "portworx", "storage driver: portworx, csi-topology or longhorn",
                   one_of(&settings::driver, {"portworx", "csi-topology", "longhorn"})));
  t.push_back(make("vmCoolOffAnnotation", &settings::vm_cool_off_annotation, "KEY",
                   "schedopt.libopenstorage.org/last-migration-time",
                   "annotation on the VirtualMachine (or owner-less VMI) holding the "
                   "last migration time",
                   apply_annotation));
  // Process.
  t.push_back(make("kubeconfig", &settings::kubeconfig, "PATH", "",
                   "kubeconfig file; empty: in-cluster, else $KUBECONFIG, else ~/.kube/config",
                   string_field(&settings::kubeconfig)));
  t.push_back(make("context", &settings::context, "NAME", "", "kubeconfig context; empty: current-context",
                   string_field(&settings::context)));
  t.push_back(make("config", &settings::config_file, "FILE", "", "YAML or JSON settings file (camelCase keys)",
                   string_field(&settings::config_file)));
  t.push_back(make("leaderElect", &settings::leader_elect, "", "false",
                   "take the Lease before working (on in deploy/)",
                   bool_field(&settings::leader_elect)));
  t.push_back(make("leaseNamespace", &settings::lease_namespace, "NAMESPACE", "pod namespace, else the kubeconfig context's (default)",
                   "namespace of the leader Lease",
                   string_field(&settings::lease_namespace, false)));
  t.push_back(make("leaseName", &settings::lease_name, "NAME", "schedopt-leader", "name of the leader Lease",
                   string_field(&settings::lease_name, false)));
  t.push_back(make("leaseDuration", &settings::lease_duration, "DURATION", "15s", "Lease duration",
                   duration_field(&settings::lease_duration, lower_bound::positive)));
  t.push_back(make("renewDeadline", &settings::renew_deadline, "DURATION", "10s",
                   "leader gives up if it cannot renew within this",
                   duration_field(&settings::renew_deadline, lower_bound::positive)));
  t.push_back(make("retryPeriod", &settings::retry_period, "DURATION", "2s", "interval between Lease attempts",
                   duration_field(&settings::retry_period, lower_bound::positive)));
  t.push_back(make("metricsListen", &settings::metrics_listen, "ADDR", ":8443",
                   "address of /metrics (HTTPS unless metricsSecure is false)",
                   listen_field(&settings::metrics_listen)));
  t.push_back(make("metricsSecure", &settings::metrics_secure, "", "true",
                   "/metrics over HTTPS, each scrape's bearer token checked by a TokenReview "
                   "and a SubjectAccessReview (get /metrics); false: plain HTTP, no checks, "
                   "for local use",
                   bool_field(&settings::metrics_secure)));
  t.push_back(make("metricsCertFile", &settings::metrics_cert_file, "PATH", "",
                   "PEM certificate (chain) /metrics serves, read at start; empty: a "
                   "self-signed one made at start",
                   string_field(&settings::metrics_cert_file)));
  t.push_back(make("metricsKeyFile", &settings::metrics_key_file, "PATH", "",
                   "PEM private key of metricsCertFile",
                   string_field(&settings::metrics_key_file)));
  t.push_back(make("healthListen", &settings::health_listen, "ADDR", ":8081",
                   "address of /healthz and /readyz (plain HTTP, for the kubelet's probes)",
                   listen_field(&settings::health_listen)));
  t.push_back(make("apiUnreachableWindow", &settings::api_unreachable_window, "DURATION", "2m",
                   "/healthz fails when the API server has not answered for this long",
                   duration_field(&settings::api_unreachable_window, lower_bound::positive)));
  t.push_back(make("dryRun", &settings::dry_run, "", "false",
                   "evaluate and report, never create VMIMs",
                   bool_field(&settings::dry_run)));
  t.push_back(make("logFormat", &settings::log_format, "FORMAT", "text", "log format: text or json",
                   one_of(&settings::log_format, {"text", "json"})));
  t.push_back(make("logLevel", &settings::log_level, "LEVEL", "info",
                   "trace, debug, info, warn, error, critical or off",
                   one_of(&settings::log_level,
                          {"trace", "debug", "info", "warn", "error", "critical", "off"})));
  t.push_back(make("apiQps", &settings::api_qps, "NUMBER", "20", "client-side API rate limit (requests/s)",
                   apply_qps));
  t.push_back(make("apiBurst", &settings::api_burst, "INT", "30", "client-side API burst",
                   int_field(&settings::api_burst, 1)));
  t.push_back(make("workers", &settings::workers, "INT", "0",
                   "actor system worker threads; 0: the container's CPU quota (cgroup v2 "
                   "cpu.max, rounded up), else the host's cores",
                   int_field(&settings::workers, 0)));
  // Storage drivers.
  t.push_back(make("portworxEndpoint", &settings::portworx_endpoint, "URL",
                   "https://portworx-api.portworx.svc:9021",
                   "Portworx OpenStorage SDK REST gateway (the portworx-api Service of the "
                   "namespace Portworx runs in, port 9021)",
                   apply_endpoint));
  t.push_back(make("portworxTokenFile", &settings::portworx_token_file, "PATH", "",
                   "file holding the Portworx bearer token (a mounted Secret, re-read); "
                   "needs an https:// portworxEndpoint",
                   string_field(&settings::portworx_token_file)));
  t.push_back(make("portworxCaFile", &settings::portworx_ca_file, "PATH", "",
                   "PEM CA bundle verifying an https:// Portworx SDK endpoint; empty: the "
                   "system CAs",
                   string_field(&settings::portworx_ca_file)));
  t.push_back(make("csiTopologyDrivers", &settings::csi_topology_drivers, "LIST", "",
                   "CSI drivers csi-topology owns, comma-separated; empty: any PV with "
                   "hostname node affinity",
                   [](settings& s, const std::string& text) {
                     s.csi_topology_drivers = parse_list(text);
                     return std::string();
                   }));
  return t;
}

} // namespace

const std::vector<setting_def>& setting_defs() {
  static const std::vector<setting_def> table = build_table();
  return table;
}

std::vector<setting_def> setting_defs(const std::vector<kind_settings_table>& kinds) {
  std::vector<setting_def> out = setting_defs();
  for (const auto& table : kinds)
    for (const auto& row : table.rows) {
      auto apply = [key = row.key, validate = row.validate](settings& s, const std::string& text) {
        auto e = validate(text);
        if (e.empty())
          s.kind_values[key] = text;
        return e;
      };
      auto show = [key = row.key, def = row.default_text](const settings& s) {
        auto it = s.kind_values.find(key);
        return it == s.kind_values.end() ? def : it->second;
      };
      out.push_back({info_of(row), row.value_name, std::move(apply), std::move(show)});
    }
  return out;
}

const std::vector<removed_setting>& removed_settings() {
  // The value is never echoed back: it is the secret.
  static const std::vector<removed_setting> removed = {
    {"portworxToken", "--portworx-token", "SCHEDOPT_PORTWORX_TOKEN",
     "removed, a token there is readable by anyone who can read the pod spec or the "
     "ConfigMap: put it in a Secret mounted as a file and set portworxTokenFile "
     "(--portworx-token-file)"},
  };
  return removed;
}

// client-go's leaderelection.JitterFactor.
constexpr double k8s_jitter_factor = 1.2;

std::string validate_combination(const settings& s,
                                 const std::function<std::string(const std::string&)>& source_of,
                                 const std::vector<kind_settings_table>& kinds) {
  auto named = [&](const std::string& key) { return key + " (" + source_of(key) + ")"; };
  if (s.max_parallel_migrations > s.max_parallel_migrations_limit)
    return named("maxParallelMigrations") + " " + std::to_string(s.max_parallel_migrations)
           + " exceeds " + named("maxParallelMigrationsLimit") + " "
           + std::to_string(s.max_parallel_migrations_limit);
  if (s.cool_off_period < s.min_cool_off_period)
    return named("coolOffPeriod") + " " + format_go_duration(s.cool_off_period) + " is below "
           + named("minCoolOffPeriod") + " " + format_go_duration(s.min_cool_off_period);
  // A bearer token over plain HTTP is readable by anything on the path (the pod network,
  // every node it crosses). Only the portworx driver sends it.
  if (s.driver == "portworx" && !s.portworx_token_file.empty()
      && s.portworx_endpoint.rfind("http://", 0) == 0)
    return named("portworxTokenFile") + " is set but " + named("portworxEndpoint") + " \""
           + s.portworx_endpoint + "\" is plain http://, which would send the Portworx token "
           "in clear text: use an https:// endpoint (portworxCaFile for its CA)";
  // Follows client-go v0.36.3 tools/leaderelection/leaderelection.go, NewLeaderElector:
  // its checks in its order and its texts, with where each value came from appended.
  if (s.lease_duration <= s.renew_deadline)
    return "leaseDuration must be greater than renewDeadline: " + named("leaseDuration") + " "
           + format_go_duration(s.lease_duration) + ", " + named("renewDeadline") + " "
           + format_go_duration(s.renew_deadline);
  // time.Duration(JitterFactor * float64(RetryPeriod)): the renew loop's retries are
  // jittered up to 1.2 retry periods apart, and at least one must fit in the deadline.
  auto jittered = duration{static_cast<duration::rep>(
    k8s_jitter_factor * static_cast<double>(s.retry_period.count()))};
  if (s.renew_deadline <= jittered)
    return "renewDeadline must be greater than retryPeriod*JitterFactor: " + named("renewDeadline")
           + " " + format_go_duration(s.renew_deadline) + ", " + named("retryPeriod") + " "
           + format_go_duration(s.retry_period) + " (x1.2 = " + format_go_duration(jittered)
           + ")";
  if (s.metrics_cert_file.empty() != s.metrics_key_file.empty())
    return named(s.metrics_cert_file.empty() ? "metricsKeyFile" : "metricsCertFile")
           + " is set without " + (s.metrics_cert_file.empty() ? "metricsCertFile" : "metricsKeyFile")
           + ": give the certificate and its key together";
  for (const auto& table : kinds)
    if (table.validate_combination)
      if (auto e = table.validate_combination(s.kind_values, source_of); !e.empty())
        return e;
  return {};
}

} // namespace config_detail

const std::vector<setting_info>& all_settings() {
  static const std::vector<setting_info> infos = [] {
    std::vector<setting_info> out;
    for (const auto& d : config_detail::setting_defs())
      out.push_back(d.info);
    return out;
  }();
  return infos;
}

std::vector<setting_info> all_settings(const std::vector<kind_settings_table>& kinds) {
  std::vector<setting_info> out;
  for (const auto& d : config_detail::setting_defs(kinds))
    out.push_back(d.info);
  return out;
}

std::vector<std::pair<std::string, std::string>>
effective_settings(const settings& s, const std::vector<kind_settings_table>& kinds) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& d : config_detail::setting_defs(kinds))
    out.emplace_back(d.info.key, d.show(s));
  return out;
}

namespace {

std::string markdown_table(const std::vector<setting_info>& rows) {
  auto cell = [](const std::string& s) { return s.empty() ? std::string("(empty)") : "`" + s + "`"; };
  std::string out = "| Setting | Flag | Environment | Default | Description |\n"
                    "|---|---|---|---|---|\n";
  for (const auto& i : rows) {
    std::string key = i.key == "config" ? "— (flag/env only)" : "`" + i.key + "`";
    std::string def = i.key == "leaseNamespace" ? i.default_text : cell(i.default_text);
    out += "| " + key + " | `" + i.flag + "` | `" + i.env + "` | " + def + " | "
           + i.description + " |\n";
  }
  return out;
}

} // namespace

// A section per kind: its settings are read only when a request enables that kind, and a
// user looks for them by the kind's name.
std::string settings_markdown_table(const std::vector<kind_settings_table>& kinds) {
  std::string out = markdown_table(all_settings());
  for (const auto& table : kinds) {
    if (table.rows.empty())
      continue;
    std::vector<setting_info> rows;
    for (const auto& row : table.rows)
      rows.push_back(config_detail::info_of(row));
    out += "\n### Settings of the `" + table.kind + "` kind\n\n" + markdown_table(rows);
  }
  return out;
}

} // namespace schedopt
