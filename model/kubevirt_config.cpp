// KubeVirt CR fields (the metadata is read by model/decode.cpp like every object's),
// KubeVirt's defaults and the bounds derived from them.
#include "model/kubevirt_config.hpp"

#include <algorithm>
#include <cstdlib>

#include "model/decode_reader.hpp"
#include "model/placement/node_admission.hpp"
#include "model/ownership_labels.hpp"

namespace schedopt {

namespace detail {

// Called by model/decode.cpp's read_into(kubevirt_cr&) after the metadata.
void read_kubevirt_cr(decode_reader& r, const json_object& root, kubevirt_cr& out) {
  auto configuration = r.child(r.child(root, "spec"), "configuration");
  auto migrations = r.child(configuration, "migrations");
  r.read(migrations, "parallelMigrationsPerCluster", out.parallel_migrations_per_cluster);
  r.read(migrations, "parallelOutboundMigrationsPerNode",
         out.parallel_outbound_migrations_per_node);
  r.read(migrations, "completionTimeoutPerGiB", out.completion_timeout_per_gib);
  r.read(migrations, "progressTimeout", out.progress_timeout);
  r.read(r.child(configuration, "developerConfiguration"), "featureGates", out.feature_gates);
  auto status = r.child(root, "status");
  r.read(status, "phase", out.phase);
  r.read(status, "observedKubeVirtVersion", out.observed_version);
}

} // namespace detail

std::optional<std::pair<int, int>> parse_kubevirt_version(const std::string& text) {
  std::string_view s = text;
  if (!s.empty() && s.front() == 'v')
    s.remove_prefix(1);
  auto number = [&](int& out) {
    std::size_t n = 0;
    while (n < s.size() && n < 6 && s[n] >= '0' && s[n] <= '9')
      ++n;
    if (n == 0)
      return false;
    out = std::atoi(std::string{s.substr(0, n)}.c_str());
    s.remove_prefix(n);
    return true;
  };
  int major = 0, minor = 0;
  if (!number(major) || s.empty() || s.front() != '.')
    return std::nullopt;
  s.remove_prefix(1);
  if (!number(minor))
    return std::nullopt;
  return std::pair{major, minor};
}

bool operator==(const kubevirt_migration_limits& a, const kubevirt_migration_limits& b) {
  return a.parallel_migrations_per_cluster == b.parallel_migrations_per_cluster
         && a.parallel_outbound_migrations_per_node == b.parallel_outbound_migrations_per_node
         && a.completion_timeout_per_gib == b.completion_timeout_per_gib
         && a.progress_timeout_seconds == b.progress_timeout_seconds
         && a.pinning_supported == b.pinning_supported && a.priority_queue == b.priority_queue
         && a.version == b.version;
}

yield_mode yield_mode_of(const std::string& text) {
  if (text == "true")
    return yield_mode::always;
  if (text == "false")
    return yield_mode::never;
  return yield_mode::automatic;
}

bool yields_to_kubevirt(yield_mode mode, const kubevirt_migration_limits& limits,
                        int64_t kubevirt_waiting) {
  if (kubevirt_waiting <= 0 || mode == yield_mode::never)
    return false;
  return mode == yield_mode::always || !limits.priority_queue;
}

kubevirt_migration_limits migration_limits_of(const kubevirt_cr& cr) {
  kubevirt_migration_limits out;
  out.version = cr.observed_version;
  auto version = parse_kubevirt_version(cr.observed_version);
  // KubeVirt 1.4 lowered the default from 800 (MigrationCompletionTimeoutPerGiB).
  if (version && *version < std::pair{1, 4})
    out.completion_timeout_per_gib = 800;
  out.pinning_supported = !version || *version >= std::pair{1, 6};
  // pkg/virt-config/featuregate: MigrationPriorityQueue Alpha in 1.7, Beta in 1.8 (both
  // off unless listed), GA in 1.9 (always on).
  bool listed = std::find(cr.feature_gates.begin(), cr.feature_gates.end(),
                          "MigrationPriorityQueue") != cr.feature_gates.end();
  out.priority_queue = version && (*version >= std::pair{1, 9} || (*version >= std::pair{1, 7} && listed));
  // The API server's schema takes 0 and negatives; KubeVirt would then not migrate at
  // all (a cap of 0), which is no limit schedopt can follow: the default stands.
  auto take = [](const std::optional<int64_t>& v, int64_t& field) {
    if (v && *v > 0)
      field = *v;
  };
  take(cr.parallel_migrations_per_cluster, out.parallel_migrations_per_cluster);
  take(cr.parallel_outbound_migrations_per_node, out.parallel_outbound_migrations_per_node);
  take(cr.completion_timeout_per_gib, out.completion_timeout_per_gib);
  take(cr.progress_timeout, out.progress_timeout_seconds);
  return out;
}

int64_t in_flight_capacity(int64_t effective, bool explicit_setting,
                           const std::optional<kubevirt_migration_limits>& limits) {
  if (explicit_setting || !limits)
    return effective;
  return std::max<int64_t>(1, std::min(effective, limits->parallel_migrations_per_cluster));
}

std::optional<int64_t> migration_data_size_gb(const virtual_machine_instance& vmi) {
  auto bytes = vmi.guest_memory_bytes ? vmi.guest_memory_bytes : vmi.requests.memory_bytes;
  if (!bytes || *bytes <= 0)
    return std::nullopt;
  constexpr int64_t giga = 1000 * 1000 * 1000;
  return (*bytes + giga - 1) / giga;
}

duration migration_timeout_for(const virtual_machine_instance& vmi,
                               std::optional<duration> configured,
                               const std::optional<kubevirt_migration_limits>& limits,
                               duration fallback) {
  if (configured)
    return *configured;
  auto size = migration_data_size_gb(vmi);
  if (!limits || !size)
    return fallback;
  return std::chrono::seconds(limits->completion_timeout_per_gib * *size
                              + limits->progress_timeout_seconds);
}

bool is_kubevirt_migration_waiting(const virtual_machine_instance_migration& m) {
  return !is_schedopt_migration(m) && (m.phase.empty() || m.phase == "Pending");
}

bool kubevirt_waiting_migrations::observe(const std::string& key,
                                          const virtual_machine_instance_migration& m) {
  if (is_kubevirt_migration_waiting(m))
    return waiting_.insert(key).second;
  return erase(key);
}

bool kubevirt_waiting_migrations::erase(const std::string& key) {
  return waiting_.erase(key) > 0;
}

bool closed_to_migrations(const node& n) {
  if (n.unschedulable)
    return true;
  return std::any_of(n.taints.begin(), n.taints.end(),
                     [](const taint& t) { return t.key == kubevirt_drain_taint; });
}

} // namespace schedopt
