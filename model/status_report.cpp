// `schedopt status` output: the request list kubectl shows, plus live progress.
#include "model/status_report.hpp"

#include <nlohmann/json.hpp>

#include "model/ownership_labels.hpp"
#include "model/text_table.hpp"

namespace schedopt {

namespace {

/// A counter summed over every kind's block; nullopt when the status has no block.
std::optional<int64_t> total(const scheduling_optimization_status& status,
                             int64_t kind_status_block::*field) {
  if (status.kinds.empty())
    return std::nullopt;
  int64_t sum = 0;
  for (const auto& [kind, block] : status.kinds)
    sum += block.*field;
  return sum;
}

std::string count(const scheduling_optimization_status& status,
                  int64_t kind_status_block::*field) {
  // kubectl leaves a printer column empty when its path is absent.
  auto n = total(status, field);
  return n ? std::to_string(*n) : std::string{};
}

std::string progress_line(const scheduling_optimization& so, const request_progress& p) {
  std::string stage = so.status.stage == request_stage::none ? "not yet picked up"
                                                              : to_string(so.status.stage);
  std::string moving = p.migrations_listed ? std::to_string(p.in_flight) + " in flight, "
                                                + std::to_string(p.pending) + " pending"
                                          : std::string("in flight and pending unknown");
  return so.metadata.name + " (" + stage + "): " + std::to_string(p.migrated)
         + " migrated, " + std::to_string(p.failed) + " failed, " + std::to_string(p.skipped)
         + " skipped, " + moving + "\n";
}

} // namespace

request_progress progress_of(const scheduling_optimization& request,
                             const std::vector<virtual_machine_instance_migration>& migrations) {
  request_progress p;
  p.migrated = total(request.status, &kind_status_block::successful).value_or(0);
  p.failed = total(request.status, &kind_status_block::failed).value_or(0);
  p.skipped = total(request.status, &kind_status_block::skipped).value_or(0);
  for (const auto& m : migrations) {
    auto uid = m.metadata.labels.find(labels::request_uid);
    if (uid == m.metadata.labels.end() || uid->second != request.metadata.uid
        || request.metadata.uid.empty() || is_final_phase(m.phase))
      continue;
    if (m.phase.empty() || m.phase == "Pending")
      ++p.pending;
    else
      ++p.in_flight;
  }
  return p;
}

std::string human_age(const std::string& created, timestamp now) {
  auto t = parse_rfc3339(created);
  if (!t)
    return "<unknown>";
  auto d = now - *t;
  if (d < -std::chrono::seconds(1))
    return "<invalid>";
  auto s = std::max<int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(d).count());
  auto with = [](int64_t major, const char* a, int64_t minor, const char* b) {
    return std::to_string(major) + a + (minor == 0 ? "" : std::to_string(minor) + b);
  };
  int64_t m = s / 60, h = s / 3600, days = h / 24, years = days / 365;
  if (s < 120)
    return std::to_string(s) + "s";
  if (m < 10)
    return with(m, "m", s % 60, "s");
  if (m < 180)
    return std::to_string(m) + "m";
  if (h < 8)
    return with(h, "h", m % 60, "m");
  if (h < 48)
    return std::to_string(h) + "h";
  if (h < 24 * 8)
    return with(days, "d", h % 24, "h");
  if (h < 24 * 365 * 2)
    return std::to_string(days) + "d";
  if (h < 24 * 365 * 8)
    return with(years, "y", days % 365, "d");
  return std::to_string(years) + "y";
}

std::string render_status_table(const std::vector<status_entry>& entries, timestamp now) {
  if (entries.empty())
    return "No SchedulingOptimizations found.\n";
  std::vector<std::vector<std::string>> rows{
    {"NAME", "STAGE", "STATUS", "SUCCESSFUL", "FAILED", "SKIPPED", "AGE"}};
  std::string progress;
  for (const auto& e : entries) {
    const auto& so = e.request;
    rows.push_back({so.metadata.name, to_string(so.status.stage), to_string(so.status.status),
                    count(so.status, &kind_status_block::successful),
                    count(so.status, &kind_status_block::failed),
                    count(so.status, &kind_status_block::skipped),
                    human_age(so.metadata.creation_timestamp, now)});
    if (e.progress)
      progress += progress_line(so, *e.progress);
  }
  auto out = render_text_table(std::move(rows));
  if (!progress.empty())
    out += "\nIn progress:\n" + progress;
  return out;
}

std::string render_status_json(const std::vector<status_entry>& entries) {
  auto arr = nlohmann::json::array();
  for (const auto& e : entries) {
    const auto& so = e.request;
    nlohmann::json o;
    o["name"] = so.metadata.name;
    o["uid"] = so.metadata.uid;
    o["stage"] = to_string(so.status.stage);
    o["status"] = to_string(so.status.status);
    o["reason"] = so.status.reason;
    o["successful"] = total(so.status, &kind_status_block::successful).value_or(0);
    o["failed"] = total(so.status, &kind_status_block::failed).value_or(0);
    o["skipped"] = total(so.status, &kind_status_block::skipped).value_or(0);
    o["creationTimestamp"] = so.metadata.creation_timestamp;
    o["startTimestamp"] = so.status.start_timestamp;
    o["finishTimestamp"] = so.status.finish_timestamp;
    if (const auto& p = e.progress) {
      auto known = [&](int64_t n) { return p->migrations_listed ? nlohmann::json(n) : nullptr; };
      o["progress"] = {{"migrated", p->migrated},
                       {"failed", p->failed},
                       {"skipped", p->skipped},
                       {"inFlight", known(p->in_flight)},
                       {"pending", known(p->pending)}};
    }
    arr.push_back(std::move(o));
  }
  return arr.dump(2) + "\n";
}

} // namespace schedopt
