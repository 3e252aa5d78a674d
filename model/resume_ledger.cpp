// Resume accounting; see resume_ledger.hpp.
#include "model/resume_ledger.hpp"

#include <algorithm>


namespace schedopt {

namespace {

std::string key_of(const kind_detail& d) { return vmi_key(d.namespace_, d.name); }

} // namespace

resume_ledger::resume_ledger(const kind_status_block& recorded) {
  int64_t named_skips = 0;
  for (const auto& d : recorded.details) {
    named_.insert(key_of(d));
    if (d.status == detail_status::skipped)
      ++named_skips;
    else
      engine_done_.insert(key_of(d));
  }
  unnamed_skips_ = std::max<int64_t>(0, recorded.skipped - named_skips);
}

bool resume_ledger::accounted(const std::string& key) const { return named_.count(key) > 0; }

int64_t resume_ledger::slots_used(const std::set<std::string>& adopted) const {
  std::set<std::string> used = engine_done_;
  used.insert(adopted.begin(), adopted.end());
  return static_cast<int64_t>(used.size());
}

std::vector<kind_detail> resume_ledger::new_skips(const std::vector<kind_detail>& skips) const {
  std::vector<kind_detail> fresh;
  for (const auto& d : skips)
    if (!accounted(key_of(d)))
      fresh.push_back(d);
  auto already = static_cast<std::size_t>(std::min<int64_t>(
    unnamed_skips_, static_cast<int64_t>(fresh.size())));
  // Which of them were the unnamed ones cannot be known, and does not matter: they have
  // no detail (the details were full), only the count has to be exact.
  fresh.erase(fresh.begin(), fresh.begin() + static_cast<std::ptrdiff_t>(already));
  return fresh;
}

} // namespace schedopt
