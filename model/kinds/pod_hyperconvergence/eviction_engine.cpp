// One run's evictions (see eviction_engine.hpp).
#include "model/kinds/pod_hyperconvergence/eviction_engine.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace schedopt::pod_hyperconvergence {

namespace {

timestamp::duration to_clock(duration d) {
  return std::chrono::duration_cast<timestamp::duration>(d);
}

} // namespace

eviction_engine::eviction_engine(engine_settings settings, timestamp opened)
    : settings_(std::move(settings)),
      queue_(settings_.max_parallel),
      window_(opened, settings_.run_deadline, settings_.settle_grace) {}

eviction_engine::owner_record& eviction_engine::owner_of(const workload_ref& w,
                                                         const string_map& annotations) {
  auto key = describe(w);
  auto i = owners_.find(key);
  if (i != owners_.end())
    return i->second;
  owner_record o;
  o.owner = w;
  o.before = eviction_record_of(annotations, settings_.cool_off_key);
  o.entries = read_eviction_ledger(annotations, settings_.cool_off_key, settings_.request_uid);
  return owners_.emplace(key, std::move(o)).first->second;
}

void eviction_engine::set_entry(owner_record& o, const ledger_entry& e) {
  auto i = std::find_if(o.entries.begin(), o.entries.end(),
                        [&](const ledger_entry& x) { return x.name == e.name; });
  if (i == o.entries.end())
    o.entries.push_back(e);
  else if (*i == e)
    return;
  else
    *i = e;
  o.dirty = true;
}

void eviction_engine::remove_entry(owner_record& o, const std::string& pod_name) {
  auto i = std::find_if(o.entries.begin(), o.entries.end(),
                        [&](const ledger_entry& x) { return x.name == pod_name; });
  if (i == o.entries.end())
    return;
  o.entries.erase(i);
  o.dirty = true;
}

void eviction_engine::add(const eviction_candidate& c, const string_map& owner_annotations) {
  auto key = pod_key(c.target->metadata.namespace_, c.target->metadata.name);
  if (candidates_.count(key))
    return;
  auto& o = owner_of(c.owner, owner_annotations);
  candidate cand;
  cand.namespace_ = c.target->metadata.namespace_;
  cand.name = c.target->metadata.name;
  cand.c = c;
  cand.workload = describe(c.owner);
  // A resumed run finds the entry of a pod it recorded but never evicted: the record
  // stands, the eviction is simply sent.
  for (const auto& e : o.entries)
    if (e.name == c.target->metadata.name && e.uid == std::string(c.target->metadata.uid)) {
      cand.record = evicted_from_ledger(e, c.owner);
      cand.record.best_nodes = c.best_nodes;
      cand.recorded = true;
      cand.admitted = true;
    }
  candidates_.emplace(key, std::move(cand));
  if (stopped_ || closed_) {
    outstanding_.push_back(key);
    candidates_.at(key).at = phase::done;
    return;
  }
  queue_.push(key);
}

void eviction_engine::adopt(const evicted_pod& e, const string_map& owner_annotations,
                            timestamp now) {
  auto key = pod_key(e.namespace_, e.name);
  if (candidates_.count(key))
    return;
  owner_of(e.owner, owner_annotations);
  candidate cand;
  cand.namespace_ = e.namespace_;
  cand.name = e.name;
  cand.record = e;
  cand.c.owner = e.owner;
  cand.c.best_nodes = e.best_nodes;
  cand.workload = describe(e.owner);
  cand.recorded = true;
  cand.admitted = true;
  cand.at = phase::awaiting;
  auto from = std::max(e.evicted_at, now);
  auto whole = std::chrono::ceil<std::chrono::seconds>(from - e.evicted_at);
  cand.ready_by = e.evicted_at + whole + to_clock(settings_.ready_timeout);
  candidates_.emplace(key, std::move(cand));
  queue_.mark_in_flight(key);
}

void eviction_engine::drop_entry(const workload_ref& owner, const string_map& owner_annotations,
                                 const std::string& pod_name) {
  remove_entry(owner_of(owner, owner_annotations), pod_name);
}

std::vector<owner_write> eviction_engine::take_owner_writes(timestamp now) {
  if (!closed_ && !stopped_) {
    while (auto key = queue_.next_admittable(now)) {
      auto& cand = candidates_.at(*key);
      if (!cand.admitted) {
        cand.admitted = true;
        cand.record = eviction_record(cand.c, now);
      }
      if (cand.recorded) {
        cand.at = phase::ready;
      } else {
        cand.at = phase::recording;
        set_entry(owners_.at(cand.workload), ledger_entry_of(cand.record));
      }
    }
  }
  std::vector<owner_write> out;
  for (auto& [name, o] : owners_) {
    if (!o.dirty || o.writing)
      continue;
    o.dirty = false;
    o.writing = true;
    o.covering.clear();
    for (auto& [key, cand] : candidates_)
      if (cand.workload == name && cand.at == phase::recording)
        o.covering.insert(key);
    out.push_back({name, cool_off_holder_of(o.owner),
                   eviction_record_patch(settings_.cool_off_key, settings_.request_uid,
                                         o.entries, o.before)
                     .dump()});
  }
  return out;
}

void eviction_engine::owner_written(const std::string& workload, const std::string& error,
                                    timestamp) {
  auto i = owners_.find(workload);
  if (i == owners_.end())
    return;
  auto& o = i->second;
  o.writing = false;
  auto covering = std::move(o.covering);
  o.covering.clear();
  for (const auto& key : covering) {
    auto& cand = candidates_.at(key);
    if (cand.at != phase::recording)
      continue;
    if (error.empty()) {
      cand.recorded = true;
      cand.at = phase::ready;
      continue;
    }
    // Evicting without the record would let a restarted run, or the next request,
    // evict the workload again within its cool-off: the pod stays.
    remove_entry(o, cand.record.name);
    finish(cand, {cand.record.name, cand.record.namespace_, pod_result::failed,
                  make_pod_reason(pod_reason::eviction_failed,
                                  "cool-off record not written on " + workload + ": " + error)});
  }
}

std::vector<eviction_call> eviction_engine::take_evictions() {
  std::vector<eviction_call> out;
  for (auto& [key, cand] : candidates_) {
    if (cand.at != phase::ready)
      continue;
    if (stopped_ || closed_) { // the request went away, or the run's time is up
      queue_.finish(key);
      end_unevicted(cand);
      continue;
    }
    cand.at = phase::evicting;
    ++cand.attempts;
    out.push_back({key, cand.record.namespace_, cand.record.name, cand.record.uid});
  }
  return out;
}

void eviction_engine::eviction_answered(const std::string& key, const eviction_decision& d,
                                        timestamp now) {
  auto i = candidates_.find(key);
  if (i == candidates_.end() || i->second.at != phase::evicting)
    return;
  auto& cand = i->second;
  switch (d.verdict) {
    case eviction_verdict::evicted:
    case eviction_verdict::gone: {
      cand.at = phase::awaiting;
      auto whole = std::chrono::ceil<std::chrono::seconds>(now - cand.record.evicted_at);
      cand.ready_by = cand.record.evicted_at + whole + to_clock(settings_.ready_timeout);
      window_.progress(now);
      accepted_.push_back({key, cand.record.owner, cand.record.best_nodes, d.verdict});
      return;
    }
    case eviction_verdict::blocked:
    case eviction_verdict::transient:
      cand.last = d;
      if (stopped_ || closed_ || !window_.open(now, awaiting())) {
        queue_.finish(key);
        end_unevicted(cand);
        return;
      }
      cand.at = phase::queued;
      queue_.defer(key, now + eviction_retry_delay(cand.attempts, d.retry_after));
      return;
    case eviction_verdict::failed:
      remove_entry(owners_.at(cand.workload), cand.record.name);
      finish(cand, {cand.record.name, cand.record.namespace_, pod_result::failed, d.message});
      return;
  }
}

void eviction_engine::observe(const shared_list<pod>& pods, timestamp now) {
  std::set<std::string> claimed;
  for (const auto& [key, cand] : candidates_)
    if (!cand.claimed_uid.empty())
      claimed.insert(cand.claimed_uid);
  for (auto& [key, cand] : candidates_) {
    if (cand.at != phase::awaiting)
      continue;
    auto others = claimed;
    others.erase(cand.claimed_uid);
    auto timeout = std::chrono::duration_cast<duration>(cand.ready_by - cand.record.evicted_at);
    auto v = judge_replacement(cand.record, pods, now, timeout, others);
    if (!v.pod_uid.empty() && cand.record.owner.kind == workload_kind::replica_set
        && v.pod_uid != cand.claimed_uid) {
      claimed.erase(cand.claimed_uid);
      cand.claimed_uid = v.pod_uid;
      claimed.insert(v.pod_uid);
    }
    if (v.state == replacement_state::waiting)
      continue;
    window_.progress(now);
    finish(cand, {cand.record.name, cand.record.namespace_,
                  v.state == replacement_state::successful ? pod_result::successful
                                                           : pod_result::failed,
                  v.reason});
  }
}

void eviction_engine::advance(timestamp now) {
  if (!closed_ && !window_.open(now, awaiting()))
    close_window();
}

void eviction_engine::close_window() {
  closed_ = true;
  for (const auto& key : queue_.take_waiting())
    end_unevicted(candidates_.at(key));
}

void eviction_engine::stop() {
  stopped_ = true;
  for (const auto& key : queue_.take_waiting()) {
    auto& cand = candidates_.at(key);
    cand.at = phase::done;
    outstanding_.push_back(key);
    remove_entry(owners_.at(cand.workload), cand.name);
  }
}

void eviction_engine::finish(candidate& cand, pod_detail outcome) {
  cand.at = phase::done;
  queue_.finish(pod_key(outcome.namespace_, outcome.name));
  outcomes_.push_back(std::move(outcome));
}

void eviction_engine::end_unevicted(candidate& cand) {
  remove_entry(owners_.at(cand.workload), cand.name);
  if (cand.last) {
    finish(cand, unevicted_outcome(cand.namespace_, cand.name, *cand.last));
    return;
  }
  cand.at = phase::done;
  outstanding_.push_back(pod_key(cand.namespace_, cand.name));
}

std::vector<pod_detail> eviction_engine::take_outcomes() {
  std::vector<pod_detail> out;
  out.swap(outcomes_);
  return out;
}

std::vector<accepted_eviction> eviction_engine::take_accepted() {
  std::vector<accepted_eviction> out;
  out.swap(accepted_);
  return out;
}

bool eviction_engine::finished() const {
  if (!queue_.idle())
    return false;
  return std::none_of(owners_.begin(), owners_.end(),
                      [](const auto& o) { return o.second.dirty || o.second.writing; });
}

std::size_t eviction_engine::awaiting() const {
  return static_cast<std::size_t>(
    std::count_if(candidates_.begin(), candidates_.end(),
                  [](const auto& c) { return c.second.at == phase::awaiting; }));
}

std::optional<timestamp> eviction_engine::next_wakeup() const {
  std::optional<timestamp> out;
  auto consider = [&](timestamp t) {
    if (!out || t < *out)
      out = t;
  };
  if (!closed_ && !stopped_) {
    if (queue_.in_flight() < queue_.capacity()) // a full queue admits on an answer, not a time
      if (auto due = queue_.next_due())
        consider(*due);
    if (queue_.waiting() > 0 || queue_.in_flight() > 0)
      consider(awaiting() > 0 ? settings_.run_deadline : window_.closes_at());
  }
  for (const auto& [key, cand] : candidates_)
    if (cand.at == phase::awaiting)
      consider(cand.ready_by);
  return out;
}

} // namespace schedopt::pod_hyperconvergence
