// The eviction ledger on a pod's owner (see eviction_ledger.hpp).
#include "model/kinds/pod_hyperconvergence/eviction_ledger.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace schedopt::pod_hyperconvergence {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  while (true) {
    auto end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos)
      return out;
    start = end + 1;
  }
}

std::optional<ledger_entry> parse_entry(const std::string& text) {
  auto parts = split(text, '/');
  if (parts.size() != 4 || parts[0].empty() || parts[1].empty())
    return std::nullopt;
  auto when = parse_rfc3339(parts[2]);
  if (!when)
    return std::nullopt;
  ledger_entry e{parts[0], parts[1], *when, {}};
  if (!parts[3].empty())
    e.best_nodes = split(parts[3], '+');
  return e;
}

} // namespace

std::string eviction_ledger_annotation(const std::string& key) { return key + "-pods"; }

bool operator==(const ledger_entry& a, const ledger_entry& b) {
  return a.name == b.name && a.uid == b.uid && a.evicted_at == b.evicted_at
         && a.best_nodes == b.best_nodes;
}

std::vector<ledger_entry> read_eviction_ledger(const string_map& owner_annotations,
                                               const std::string& key,
                                               const std::string& request_uid) {
  std::vector<ledger_entry> out;
  if (!cool_off_written_by(owner_annotations, key, request_uid))
    return out;
  auto i = owner_annotations.find(eviction_ledger_annotation(key));
  if (i == owner_annotations.end() || i->second.empty())
    return out;
  for (const auto& text : split(i->second, ','))
    if (auto e = parse_entry(text))
      out.push_back(std::move(*e));
  return out;
}

std::string format_eviction_ledger(const std::vector<ledger_entry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    if (!out.empty())
      out += ',';
    out += e.name + '/' + e.uid + '/' + format_rfc3339(e.evicted_at) + '/';
    for (std::size_t i = 0; i < e.best_nodes.size(); ++i)
      out += (i ? "+" : "") + e.best_nodes[i];
  }
  return out;
}

std::vector<std::string> eviction_record_keys(const std::string& key) {
  return {key, cool_off_request_annotation(key), eviction_ledger_annotation(key)};
}

string_map eviction_record_of(const string_map& owner_annotations, const std::string& key) {
  string_map out;
  for (const auto& k : eviction_record_keys(key))
    if (auto i = owner_annotations.find(k); i != owner_annotations.end())
      out.insert(*i);
  return out;
}

nlohmann::json eviction_record_patch(const std::string& key, const std::string& request_uid,
                                     const std::vector<ledger_entry>& entries,
                                     const string_map& before) {
  if (entries.empty()) {
    auto patch = cool_off_restore_patch(key, before);
    auto ledger = eviction_ledger_annotation(key);
    auto i = before.find(ledger);
    patch["metadata"]["annotations"][ledger] =
      i == before.end() ? nlohmann::json(nullptr) : nlohmann::json(i->second);
    return patch;
  }
  auto latest = std::max_element(entries.begin(), entries.end(),
                                 [](const ledger_entry& a, const ledger_entry& b) {
                                   return a.evicted_at < b.evicted_at;
                                 })->evicted_at;
  auto patch = cool_off_patch(key, latest, request_uid);
  patch["metadata"]["annotations"][eviction_ledger_annotation(key)] = format_eviction_ledger(entries);
  return patch;
}

evicted_pod evicted_from_ledger(const ledger_entry& e, const workload_ref& owner) {
  return {owner.namespace_, e.name, e.uid, owner, e.evicted_at, e.best_nodes};
}

ledger_entry ledger_entry_of(const evicted_pod& e) {
  return {e.name, e.uid, e.evicted_at, e.best_nodes};
}

} // namespace schedopt::pod_hyperconvergence
