// A small thread-safe Prometheus registry (counters, gauges, histograms with labels)
// rendered in the text exposition format; one default instance serves /metrics.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace schedopt::k8s {

using metric_labels = std::vector<std::pair<std::string, std::string>>;

class metrics_registry {
public:
  /// Declares a metric's help text (and buckets for histograms) before or after first use.
  void describe_counter(const std::string& name, const std::string& help);
  void describe_gauge(const std::string& name, const std::string& help);
  void describe_histogram(const std::string& name, const std::string& help,
                          std::vector<double> buckets);

  /// Runs `describe` the first time any caller names `name`, never again: a site that
  /// describes a metric where it first uses it calls this on every use, at the cost of
  /// one set lookup.
  void describe_once(const std::string& name,
                     const std::function<void(metrics_registry&)>& describe);

  void counter_add(const std::string& name, const metric_labels& labels, double value = 1);
  void gauge_set(const std::string& name, const metric_labels& labels, double value);
  void gauge_add(const std::string& name, const metric_labels& labels, double value);
  /// Sets a counter mirrored from elsewhere (e.g. the kernel's CPU time); for collectors.
  void counter_set(const std::string& name, const metric_labels& labels, double value);
  void observe(const std::string& name, const metric_labels& labels, double value);

  /// Current value of a counter or gauge (0 when absent); for tests and health checks.
  double value(const std::string& name, const metric_labels& labels = {}) const;
  /// Number of observations of a histogram series.
  uint64_t count(const std::string& name, const metric_labels& labels = {}) const;

  /// A function render() calls first (outside the registry's lock) to refresh values
  /// computed at scrape time, such as the process_* metrics.
  using collector = std::function<void(metrics_registry&)>;
  void add_collector(collector c);

  /// Text exposition format 0.0.4, metrics sorted by name; runs the collectors first.
  std::string render() const;

private:
  enum class kind { counter, gauge, histogram };
  struct series {
    double value = 0; // counter / gauge
    std::vector<uint64_t> bucket_counts;
    double sum = 0;
    uint64_t count = 0;
  };
  struct family {
    kind type = kind::counter;
    std::string help;
    std::vector<double> buckets;
    std::map<metric_labels, series> values;
  };
  family& get(const std::string& name, kind type);

  mutable std::mutex mtx_;
  std::map<std::string, family> families_;
  std::vector<collector> collectors_;
  std::set<std::string> described_once_;
};

/// The process-wide registry.
metrics_registry& default_metrics();

/// Prometheus' default latency buckets (seconds).
std::vector<double> default_latency_buckets();

/// Registers a collector for the standard process metrics, read from /proc at each
/// scrape: process_resident_memory_bytes, process_cpu_seconds_total, process_open_fds,
/// process_start_time_seconds (Linux; nothing is set where /proc is missing).
void register_process_metrics(metrics_registry& m);

} // namespace schedopt::k8s
