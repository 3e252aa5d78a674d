// Prometheus registry: storage and text rendering.
#include "k8s/metrics.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <dirent.h>
#include <unistd.h>

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

/// HELP text escapes backslash and newline (label values also escape the quote).
std::string escape_help(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
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

void metrics_registry::describe_once(const std::string& name,
                                     const std::function<void(metrics_registry&)>& describe) {
  {
    std::lock_guard<std::mutex> guard{mtx_};
    if (!described_once_.insert(name).second)
      return;
  }
  describe(*this); // describe_* take the lock themselves
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

void metrics_registry::counter_set(const std::string& name, const metric_labels& labels,
                                   double value) {
  std::lock_guard<std::mutex> guard{mtx_};
  get(name, kind::counter).values[labels].value = value;
}

void metrics_registry::add_collector(collector c) {
  std::lock_guard<std::mutex> guard{mtx_};
  collectors_.push_back(std::move(c));
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
  std::vector<collector> collectors;
  {
    std::lock_guard<std::mutex> guard{mtx_};
    collectors = collectors_;
  }
  for (auto& c : collectors)
    c(const_cast<metrics_registry&>(*this));
  std::lock_guard<std::mutex> guard{mtx_};
  std::string out;
  for (auto& [name, f] : families_) {
    if (!f.help.empty())
      out += "# HELP " + name + " " + escape_help(f.help) + "\n";
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

namespace {

/// Seconds since the epoch at boot (the btime line of /proc/stat), 0 when unknown.
double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("btime ", 0) == 0)
      return std::strtod(line.c_str() + 6, nullptr);
  return 0;
}

void collect_process_metrics(metrics_registry& m) {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name, which is in parentheses and may hold spaces.
  auto close = stat.rfind(')');
  if (close != std::string::npos) {
    std::istringstream fields(stat.substr(close + 1));
    std::vector<std::string> f; // f[0] is field 3 (state)
    for (std::string w; fields >> w;)
      f.push_back(w);
    double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    if (f.size() > 21 && ticks > 0) {
      double utime = std::strtod(f[11].c_str(), nullptr);  // field 14
      double stime = std::strtod(f[12].c_str(), nullptr);  // field 15
      double start = std::strtod(f[19].c_str(), nullptr);  // field 22
      double rss = std::strtod(f[21].c_str(), nullptr);    // field 24 (pages)
      m.counter_set("process_cpu_seconds_total", {}, (utime + stime) / ticks);
      m.gauge_set("process_resident_memory_bytes", {}, rss * page);
      static const double boot = boot_time_seconds();
      if (boot > 0)
        m.gauge_set("process_start_time_seconds", {}, boot + start / ticks);
    }
  }
  if (DIR* d = opendir("/proc/self/fd")) {
    double n = 0;
    while (auto* e = readdir(d))
      if (e->d_name[0] != '.')
        ++n;
    closedir(d);
    m.gauge_set("process_open_fds", {}, n - 1); // not the descriptor reading the directory
  }
}

} // namespace

void register_process_metrics(metrics_registry& m) {
  m.describe_counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.");
  m.describe_gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  m.describe_gauge("process_open_fds", "Number of open file descriptors.");
  m.describe_gauge("process_start_time_seconds",
                   "Start time of the process since unix epoch in seconds.");
  m.add_collector(collect_process_metrics);
}

} // namespace schedopt::k8s
