#include "sim/managed_fields.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <vector>

#include "model/timestamp.hpp"
#include "sim/field_errors.hpp"
#include "sim/field_sets.hpp"
#include "sim/structural_schema.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

struct entry {
  std::string manager;
  std::string operation; // "Apply" or "Update"
  std::string api_version;
  std::string subresource;
  std::string time;
  field_set fields;

  /// buildmanagerinfo.go BuildManagerIdentifier: an applier is one manager whatever
  /// version it applies in; an updater is one per version.
  bool same_manager(const entry& other) const {
    return manager == other.manager && operation == other.operation && subresource == other.subresource
           && (operation == "Apply" || api_version == other.api_version);
  }
};

std::vector<entry> decode_entries(const json& object) {
  std::vector<entry> out;
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object())
    return out;
  const auto& meta = object["metadata"];
  if (!meta.contains("managedFields") || !meta["managedFields"].is_array())
    return out;
  for (const auto& item : meta["managedFields"]) {
    if (!item.is_object())
      return {};
    entry e;
    auto text = [&](const char* key) {
      return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string{};
    };
    e.manager = text("manager");
    e.operation = text("operation");
    e.api_version = text("apiVersion");
    e.subresource = text("subresource");
    e.time = text("time");
    if (item.contains("fieldsV1"))
      e.fields = decode_fields_v1(item["fieldsV1"]);
    out.push_back(std::move(e));
  }
  return out;
}

/// managedfields.go encodeManagedFields: sorted by operation, time, manager, version,
/// subresource; an empty record is no managedFields at all.
void encode_entries(json& object, std::vector<entry> entries) {
  entries.erase(std::remove_if(entries.begin(), entries.end(), [](const entry& e) { return e.fields.empty(); }),
                entries.end());
  std::stable_sort(entries.begin(), entries.end(), [](const entry& a, const entry& b) {
    return std::tie(a.operation, a.time, a.manager, a.api_version, a.subresource)
           < std::tie(b.operation, b.time, b.manager, b.api_version, b.subresource);
  });
  auto& meta = object["metadata"];
  if (entries.empty()) {
    meta.erase("managedFields");
    return;
  }
  json out = json::array();
  for (const auto& e : entries) {
    json item = {{"manager", e.manager},       {"operation", e.operation},
                 {"apiVersion", e.api_version}, {"time", e.time},
                 {"fieldsType", "FieldsV1"},    {"fieldsV1", encode_fields_v1(e.fields)}};
    if (!e.subresource.empty())
      item["subresource"] = e.subresource;
    out.push_back(std::move(item));
  }
  meta["managedFields"] = std::move(out);
}

/// stripmeta.go's paths (exact members only) and the strategy's reset fields (whole
/// subtrees): what no manager is recorded as owning.
field_set owned_part(field_set set, const field_writer& writer) {
  static const std::vector<field_path> stripped = {
    {"apiVersion"},
    {"kind"},
    {"metadata"},
    {"metadata", "name"},
    {"metadata", "namespace"},
    {"metadata", "creationTimestamp"},
    {"metadata", "selfLink"},
    {"metadata", "uid"},
    {"metadata", "clusterName"},
    {"metadata", "generation"},
    {"metadata", "managedFields"},
    {"metadata", "resourceVersion"}};
  for (const auto& path : stripped)
    set.erase(path);
  if (writer.status_subresource)
    set = writer.subresource == "status" ? only_subtree(set, {"status"}) : without_subtree(set, {"status"});
  return set;
}

field_comparison owned_changes(const json& before, const json& after, const field_writer& writer) {
  auto c = compare_fields(before, after);
  return {owned_part(std::move(c.added), writer), owned_part(std::move(c.modified), writer),
          owned_part(std::move(c.removed), writer)};
}

entry writer_entry(const field_writer& writer, const char* operation) {
  entry e;
  e.manager = writer.manager;
  e.operation = operation;
  e.api_version = writer.api_version;
  e.subresource = writer.subresource;
  e.time = format_rfc3339(std::chrono::system_clock::now());
  return e;
}

/// conflict.go printManager.
std::string manager_text(const entry& e) {
  auto out = go_quote(e.manager);
  if (!e.subresource.empty())
    out += " with subresource " + go_quote(e.subresource);
  if (e.operation == "Update")
    out += " using " + e.api_version;
  return out;
}

/// conflict.go NewConflictError and getConflictMessage.
error conflict_error(std::vector<std::pair<std::string, std::string>> conflicts) { // manager, path
  std::sort(conflicts.begin(), conflicts.end());
  json causes = json::array();
  for (const auto& [manager, path] : conflicts)
    causes.push_back({{"reason", "FieldManagerConflict"}, {"message", "conflict with " + manager}, {"field", path}});
  std::string message;
  if (conflicts.size() == 1) {
    message = "Apply failed with 1 conflict: conflict with " + conflicts[0].first + ": " + conflicts[0].second;
  } else {
    message = "Apply failed with " + std::to_string(conflicts.size()) + " conflicts: ";
    std::string previous;
    bool first = true;
    for (const auto& [manager, path] : conflicts) {
      if (manager != previous) {
        message += (first ? "" : "\n") + std::string("conflicts with ") + manager + ":";
        previous = manager;
        first = false;
      }
      message += "\n- " + path;
    }
  }
  auto err = make_error(ec::conflict, message, 409);
  attach_status_details(err, {{"causes", causes}});
  return err;
}

void merge_into(json& target, const json& source) {
  for (auto it = source.begin(); it != source.end(); ++it) {
    if (it.value().is_null())
      target.erase(it.key());
    else if (it.value().is_object() && target.contains(it.key()) && target[it.key()].is_object())
      merge_into(target[it.key()], it.value());
    else
      target[it.key()] = it.value();
  }
}

bool owned_by_anyone(const std::vector<entry>& entries, const field_path& path) {
  return std::any_of(entries.begin(), entries.end(), [&](const entry& e) { return holds_subtree(e.fields, path); });
}

} // namespace

std::string manager_of(const std::string& field_manager, const std::string& user_agent) {
  if (!field_manager.empty())
    return field_manager;
  std::string out;
  for (char c : user_agent.substr(0, user_agent.find('/'))) {
    if (!std::isprint(static_cast<unsigned char>(c)))
      continue;
    if (out.size() >= 128)
      break;
    out += c;
  }
  return out.empty() ? "unknown" : out;
}

void record_update(json& updated, const json& live, const field_writer& writer) {
  if (!updated.is_object() || !updated.contains("metadata") || !updated["metadata"].is_object())
    return;
  // fieldmanager.go FieldManager.Update: a client's own record counts on the main
  // resource; otherwise, or when it cannot be read, the stored one.
  auto entries = writer.subresource.empty() ? decode_entries(updated) : std::vector<entry>{};
  bool own_record = !entries.empty();
  if (!own_record)
    entries = decode_entries(live);
  auto changes = owned_changes(live, updated, writer);
  if (changes.added.empty() && changes.modified.empty() && changes.removed.empty()) {
    // Nothing written: the record stays as it was (and a no-op write stays a no-op).
    if (own_record)
      return;
    auto& meta = updated["metadata"];
    if (live.contains("metadata") && live["metadata"].is_object() && live["metadata"].contains("managedFields"))
      meta["managedFields"] = live["metadata"]["managedFields"];
    else
      meta.erase("managedFields");
    return;
  }
  auto taken = set_union(changes.added, changes.modified);
  auto mine = writer_entry(writer, "Update");
  for (auto it = entries.begin(); it != entries.end();) {
    if (it->same_manager(mine)) {
      mine.fields = set_difference(it->fields, changes.removed);
      it = entries.erase(it);
      continue;
    }
    it->fields = set_difference(set_difference(it->fields, taken), changes.removed);
    ++it;
  }
  mine.fields = set_union(mine.fields, taken);
  entries.push_back(std::move(mine));
  encode_entries(updated, std::move(entries));
}

expected<json> apply_configuration(const json& live, const json& config, const field_writer& writer, bool force) {
  auto entries = decode_entries(live);
  auto mine = writer_entry(writer, "Apply");
  mine.fields = owned_part(fields_of(config), writer);
  field_set last;
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->same_manager(mine)) {
      last = it->fields;
      entries.erase(it);
      break;
    }
  json merged = live.is_object() ? live : json::object();
  json applied = config;
  if (applied.contains("metadata") && applied["metadata"].is_object())
    applied["metadata"].erase("managedFields");
  merge_into(merged, applied);
  // update.go Updater.prune: what this manager applied last time, applies no more, and
  // nobody else owns goes.
  for (const auto& path : set_difference(last, mine.fields))
    if (!owned_by_anyone(entries, path))
      erase_path(merged, path);
  auto changes = owned_changes(live, merged, writer);
  auto changed = set_union(changes.added, changes.modified);
  std::vector<std::pair<std::string, std::string>> conflicts;
  for (auto& e : entries)
    for (const auto& path : set_intersection(e.fields, changed))
      conflicts.emplace_back(manager_text(e), path_text(path));
  if (!conflicts.empty() && !force)
    return conflict_error(std::move(conflicts));
  for (auto& e : entries)
    e.fields = set_difference(set_difference(e.fields, changed), changes.removed);
  entries.push_back(std::move(mine));
  if (!merged.contains("metadata") || !merged["metadata"].is_object())
    merged["metadata"] = json::object();
  encode_entries(merged, std::move(entries));
  return merged;
}

} // namespace schedopt::sim
