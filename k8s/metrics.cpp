// Prometheus registry: storage and text rendering.
#include "k8s/metrics.hpp"

#include <cmath>
#include <cstdio>

namespace schedopt::k8s {

namespace {

std::string escape_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_labels(const metric_labels& labels, const std::string& extra_key = {},
                          const std::string& extra_value = {}) {
  if (labels.empty() && extra_key.empty())
    return {};
  std::string out = "{";
  bool first = true;
  for (auto& [k, v] : labels) {
    if (!first)
      out += ',';
    first = false;
    out += k + "=\"" + escape_label(v) + "\"";
  }
  if (!extra_key.empty()) {
    if (!first)
      out += ',';
    out += extra_key + "=\"" + extra_value + "\"";
  }
  out += '}';
  return out;
}

std::string format_number(double v) {
  if (std::isinf(v))
    return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v))
    return "NaN";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

} // namespace

metrics_registry::family& metrics_registry::get(const std::string& name, kind type) {
  auto& f = families_[name];
  if (f.values.empty() && f.help.empty())
    f.type = type;
  if (type == kind::histogram && f.buckets.empty())
    f.buckets = default_latency_buckets();
  return f;
}

void metrics_registry::describe_counter(const std::string& name, const std::string& help) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& f = families_[name];
  f.type = kind::counter;
  f.help = help;
}

void metrics_registry::describe_gauge(const std::string& name, const std::string& help) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& f = families_[name];
  f.type = kind::gauge;
  f.help = help;
}

void metrics_registry::describe_histogram(const std::string& name, const std::string& help,
                                          std::vector<double> buckets) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& f = families_[name];
  f.type = kind::histogram;
  f.help = help;
  if (f.values.empty())
    f.buckets = std::move(buckets);
}

void metrics_registry::counter_add(const std::string& name, const metric_labels& labels,
                                   double value) {
  std::lock_guard<std::mutex> guard{mtx_};
  get(name, kind::counter).values[labels].value += value;
}

void metrics_registry::gauge_set(const std::string& name, const metric_labels& labels,
                                 double value) {
  std::lock_guard<std::mutex> guard{mtx_};
  get(name, kind::gauge).values[labels].value = value;
}

void metrics_registry::gauge_add(const std::string& name, const metric_labels& labels,
                                 double value) {
  std::lock_guard<std::mutex> guard{mtx_};
  get(name, kind::gauge).values[labels].value += value;
}

void metrics_registry::observe(const std::string& name, const metric_labels& labels,
                               double value) {
  std::lock_guard<std::mutex> guard{mtx_};
  auto& f = get(name, kind::histogram);
  auto& s = f.values[labels];
  if (s.bucket_counts.size() != f.buckets.size())
    s.bucket_counts.assign(f.buckets.size(), 0);
  for (size_t i = 0; i < f.buckets.size(); ++i)
    if (value <= f.buckets[i])
      ++s.bucket_counts[i];
  s.sum += value;
  ++s.count;
}

double metrics_registry::value(const std::string& name, const metric_labels& labels) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto f = families_.find(name);
  if (f == families_.end())
    return 0;
  auto s = f->second.values.find(labels);
  return s == f->second.values.end() ? 0 : s->second.value;
}

uint64_t metrics_registry::count(const std::string& name, const metric_labels& labels) const {
  std::lock_guard<std::mutex> guard{mtx_};
  auto f = families_.find(name);
  if (f == families_.end())
    return 0;
  auto s = f->second.values.find(labels);
  return s == f->second.values.end() ? 0 : s->second.count;
}

std::string metrics_registry::render() const {
  std::lock_guard<std::mutex> guard{mtx_};
  std::string out;
  for (auto& [name, f] : families_) {
    if (!f.help.empty())
      out += "# HELP " + name + " " + f.help + "\n";
    out += "# TYPE " + name + " "
           + (f.type == kind::counter ? "counter" : f.type == kind::gauge ? "gauge" : "histogram")
           + "\n";
    for (auto& [labels, s] : f.values) {
      if (f.type != kind::histogram) {
        out += name + format_labels(labels) + " " + format_number(s.value) + "\n";
        continue;
      }
      for (size_t i = 0; i < f.buckets.size(); ++i)
        out += name + "_bucket" + format_labels(labels, "le", format_number(f.buckets[i])) + " "
               + std::to_string(i < s.bucket_counts.size() ? s.bucket_counts[i] : 0) + "\n";
      out += name + "_bucket" + format_labels(labels, "le", "+Inf") + " "
             + std::to_string(s.count) + "\n";
      out += name + "_sum" + format_labels(labels) + " " + format_number(s.sum) + "\n";
      out += name + "_count" + format_labels(labels) + " " + std::to_string(s.count) + "\n";
    }
  }
  return out;
}

metrics_registry& default_metrics() {
  static metrics_registry instance;
  return instance;
}

std::vector<double> default_latency_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

} // namespace schedopt::k8s
