// See worker_count.hpp.
#include "model/worker_count.hpp"

#include <algorithm>
#include <charconv>

namespace schedopt {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::optional<uint64_t> parse_count(std::string_view s) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty())
    return std::nullopt;
  return v;
}

} // namespace

std::optional<unsigned> cpu_max_cores(std::string_view cpu_max) {
  auto line = trim(cpu_max);
  auto space = line.find(' ');
  if (space == std::string_view::npos)
    return std::nullopt;
  auto quota_text = line.substr(0, space);
  auto period = parse_count(trim(line.substr(space + 1)));
  if (!period || *period == 0 || quota_text == "max")
    return std::nullopt;
  auto quota = parse_count(quota_text);
  if (!quota)
    return std::nullopt;
  auto cores = (*quota + *period - 1) / *period;
  return static_cast<unsigned>(std::clamp<uint64_t>(cores, 1, 1u << 16));
}

unsigned worker_count(int64_t configured, std::optional<unsigned> quota_cores,
                      unsigned host_cores) {
  if (configured > 0)
    return static_cast<unsigned>(std::min<int64_t>(configured, 1 << 16));
  unsigned n = host_cores;
  if (quota_cores)
    n = host_cores > 0 ? std::min(*quota_cores, host_cores) : *quota_cores;
  return std::max(1u, n);
}

} // namespace schedopt
