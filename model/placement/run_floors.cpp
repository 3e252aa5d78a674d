#include "model/placement/run_floors.hpp"

#include "model/reason.hpp"

namespace schedopt {

namespace {

/// A request's value quoted in a message: cut, since a request may carry anything.
std::string quoted(const std::string& value) {
  constexpr std::size_t shown = 64;
  if (value.size() <= shown)
    return "\"" + value + "\"";
  return "\"" + value.substr(0, shown) + "...\" (" + std::to_string(value.size()) + " bytes)";
}

} // namespace

cool_off_choice choose_cool_off(const std::optional<std::string>& requested,
                                duration cluster_default, duration floor,
                                std::string_view kind) {
  cool_off_choice out;
  out.effective = cluster_default;
  if (requested) {
    auto parsed = parse_go_duration(*requested);
    if (!parsed) {
      // The parser's message may quote the value again: the whole is cut too.
      out.error = truncate_utf8("invalid spec." + std::string(kind) + ".coolOffPeriod "
                                  + quoted(*requested) + ": " + parsed.err().message,
                                max_reason_bytes);
      return out;
    }
    out.effective = *parsed;
  }
  if (out.effective < floor) {
    out.clamped = "coolOffPeriod " + format_go_duration(out.effective)
                  + " is below the cluster's minCoolOffPeriod; "
                  + format_go_duration(floor) + " is used";
    out.effective = floor;
  }
  return out;
}

duration run_time_left(const std::string& start_timestamp, timestamp now, duration max_run) {
  auto started = parse_rfc3339(start_timestamp);
  auto from = started && *started <= now ? *started : now;
  auto end = from + std::chrono::duration_cast<timestamp::duration>(max_run);
  return end > now ? std::chrono::duration_cast<duration>(end - now) : duration{0};
}

std::string run_deadline_reason(duration max_run) {
  return "maxRunDuration " + format_go_duration(max_run) + " reached";
}

} // namespace schedopt
