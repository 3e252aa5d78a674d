// Every cluster-wide default (docs/design.md §5) and process setting of schedopt as one value.
// Sources and precedence live in config/command_line.hpp; this file only says what exists.
// An optimization kind's own settings are rows of its table (config/kind_settings.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "config/kind_settings.hpp"
#include "model/duration.hpp"

namespace schedopt {

struct settings {
  // -- cluster-wide defaults (docs/design.md §5) --
  duration cool_off_period = std::chrono::hours(1);
  int64_t max_parallel_migrations = 5;
  /// Set by a flag, the environment or the config file: honoured as given; the built-in
  /// default is capped by KubeVirt's parallelMigrationsPerCluster.
  bool max_parallel_migrations_explicit = false;
  int64_t max_parallel_migrations_limit = 50;
  int64_t max_non_hyperconverged_per_run = 100;
  /// Floors no request can lower: whoever may create a request may live-migrate VMs in
  /// every namespace, so the cluster's owner bounds what one request can do.
  duration min_cool_off_period = std::chrono::minutes(5);
  int64_t max_pending_requests = 20;
  duration max_run_duration = std::chrono::hours(6);
  std::vector<std::string> exclude_namespaces; // VMs there are skipped OptedOut
  duration migration_timeout = std::chrono::minutes(30);
  /// Set by a flag, the environment or the config file: every VM gets it; else each VM
  /// gets KubeVirt's own bound (model/kubevirt_config.hpp), 30m without a KubeVirt CR.
  bool migration_timeout_explicit = false;
  /// How long a Failed VMIM without KubeVirt's cause waits for it (KubeVirt copies the
  /// failureReason a reconcile after it writes phase=Failed) before its events are read.
  duration failure_cause_wait = std::chrono::seconds(10);
  duration status_flush_interval = std::chrono::seconds(1);
  duration status_heartbeat_interval = std::chrono::seconds(30);
  bool pin_target_node = true;
  /// "auto", "true" or "false": whether no new VMIM is created while one KubeVirt created
  /// itself (a drain's evacuation, a workload update) waits for a slot; auto yields unless
  /// KubeVirt's migration priority queue orders them (docs/design.md §3.3).
  std::string yield_to_kubevirt = "auto";
  std::string driver = "portworx"; // "portworx", "csi-topology" or "longhorn"
  std::string vm_cool_off_annotation = "schedopt.libopenstorage.org/last-migration-time";
  /// Each optimization kind's own settings (config/kind_settings.hpp) as validated text by
  /// config-file key; each kind reads its own typed, with its row defaults for a missing key.
  kind_setting_values kind_values;

  // -- process --
  std::string kubeconfig; // empty: in-cluster config, else $KUBECONFIG, else ~/.kube/config
  std::string context;    // kubeconfig context; empty: current-context
  std::string config_file;
  bool leader_elect = false;
  std::string lease_namespace; // filled by load: pod namespace file, else "default"
  std::string lease_name = "schedopt-leader";
  duration lease_duration = std::chrono::seconds(15);
  duration renew_deadline = std::chrono::seconds(10);
  duration retry_period = std::chrono::seconds(2);
  /// /metrics: HTTPS, each scrape authenticated and authorized by the API server
  /// (docs/design.md §4.6), unless metrics_secure is off (plain HTTP, for local use).
  std::string metrics_listen = ":8443";
  bool metrics_secure = true;
  std::string metrics_cert_file; // PEM chain; empty (with the key): a self-signed certificate
  std::string metrics_key_file;
  /// /healthz and /readyz: plain HTTP for the kubelet, a server of their own.
  std::string health_listen = ":8081";
  /// /healthz fails once the API server has not answered for this long.
  duration api_unreachable_window = std::chrono::minutes(2);
  bool dry_run = false;
  std::string log_format = "text"; // "text" or "json"
  std::string log_level = "info";  // trace, debug, info, warn, error, critical, off
  double api_qps = 20;
  int64_t api_burst = 30;
  /// CAF worker threads; 0: the cgroup v2 CPU quota (cpu.max), else the host's cores.
  int64_t workers = 0;

  // -- storage drivers --
  // The portworx-api Service of an operator install (namespace portworx), TLS on: the
  // token must never cross the network in clear text (docs/configuration.md).
  std::string portworx_endpoint = "https://portworx-api.portworx.svc:9021";
  std::string portworx_token_file; // re-read by the driver; only ever sent over https://
  std::string portworx_ca_file;    // PEM CA bundle for an https:// SDK endpoint; empty: system CAs
  /// CSI driver names whose PVs csi-topology owns; empty: any PV with hostname affinity.
  std::vector<std::string> csi_topology_drivers;
};

/// One row of the settings table: how a setting is spelled in every source.
struct setting_info {
  std::string key;           // config file key, camelCase: "coolOffPeriod"
  std::string flag;          // "--cool-off-period"
  std::string env;           // "SCHEDOPT_COOL_OFF_PERIOD"
  std::string default_text;  // "1h"
  std::string description;   // one line
};

/// Every core setting, in documentation order.
const std::vector<setting_info>& all_settings();
/// Every core setting, then each kind's rows in the order `kinds` lists them.
std::vector<setting_info> all_settings(const std::vector<kind_settings_table>& kinds);

/// Every setting as (key, value text) for the startup log, kinds' rows after the core
/// ones. No setting holds a secret: the Portworx token is read from portworxTokenFile,
/// only the path is a setting.
std::vector<std::pair<std::string, std::string>>
effective_settings(const settings& s, const std::vector<kind_settings_table>& kinds = {});

/// docs/configuration.md table: | Setting | Flag | Environment | Default | Description |,
/// the core rows, then a section with a table of its own per kind that has settings.
std::string settings_markdown_table(const std::vector<kind_settings_table>& kinds = {});

} // namespace schedopt
