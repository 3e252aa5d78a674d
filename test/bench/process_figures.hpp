// What the benchmarks read about a child process from /proc: CPU seconds (in clock ticks,
// or in nanoseconds for the threads alive), current and peak RSS.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/types.h>
#include <unistd.h>

namespace schedopt::bench {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Peak resident set size (VmHWM) of `pid` in KiB, -1 when unavailable.
inline long vm_hwm_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return -1;
}

/// Current resident set size (VmRSS) of `pid` in KiB, -1 when unavailable.
inline long vm_rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return -1;
}

/// utime + stime of `pid` from /proc/<pid>/stat (fields 14 and 15, after the comm).
inline double cpu_seconds_of(pid_t pid) {
  auto stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  if (close == std::string::npos)
    return -1;
  std::istringstream rest(stat.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14)
      utime = std::atof(field.c_str());
    if (i == 15)
      stime = std::atof(field.c_str());
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

/// Nanosecond CPU time of `pid`'s live threads (first field of each
/// /proc/<pid>/task/<tid>/schedstat), for figures too small for clock ticks: a thread
/// that has exited no longer counts, so use it only for processes whose threads live as
/// long as they do. -1 when unavailable.
inline double cpu_seconds_precise_of(pid_t pid) {
  std::error_code ec;
  double ns = 0;
  bool any = false;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::ifstream in(it->path() / "schedstat");
    double on_cpu = 0;
    if (in >> on_cpu) {
      ns += on_cpu;
      any = true;
    }
  }
  return any ? ns / 1e9 : -1;
}

} // namespace schedopt::bench
