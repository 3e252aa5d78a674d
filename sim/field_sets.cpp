#include "sim/field_sets.hpp"

#include <algorithm>
#include <iterator>

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

bool is_map(const json* v) { return v != nullptr && v->is_object(); }

void compare_into(const json* before, const json* after, field_path& at, field_comparison& out) {
  bool granular = (is_map(before) || before == nullptr) && (is_map(after) || after == nullptr);
  if (granular) {
    std::set<std::string> keys;
    if (before != nullptr)
      for (auto it = before->begin(); it != before->end(); ++it)
        keys.insert(it.key());
    if (after != nullptr)
      for (auto it = after->begin(); it != after->end(); ++it)
        keys.insert(it.key());
    for (const auto& key : keys) {
      const json* b = before != nullptr && before->contains(key) ? &before->at(key) : nullptr;
      const json* a = after != nullptr && after->contains(key) ? &after->at(key) : nullptr;
      at.push_back(key);
      compare_into(b, a, at, out);
      at.pop_back();
    }
    if (!at.empty()) {
      if (before == nullptr)
        out.added.insert(at);
      else if (after == nullptr)
        out.removed.insert(at);
    }
    return;
  }
  if (before == nullptr)
    out.added.insert(at);
  else if (after == nullptr)
    out.removed.insert(at);
  else if (*before != *after)
    out.modified.insert(at);
}

void fields_into(const json& value, field_path& at, field_set& out) {
  if (value.is_object() && !value.empty()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      at.push_back(it.key());
      fields_into(it.value(), at, out);
      at.pop_back();
    }
    return;
  }
  if (!at.empty())
    out.insert(at);
}

bool starts_with(const field_path& path, const field_path& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

void decode_into(const json& node, field_path& at, field_set& out) {
  if (!node.is_object())
    return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const auto& key = it.key();
    if (key == ".") {
      if (!at.empty())
        out.insert(at);
    } else if (key.rfind("f:", 0) == 0) {
      at.push_back(key.substr(2));
      if (it.value().empty())
        out.insert(at);
      else
        decode_into(it.value(), at, out);
      at.pop_back();
    } else if (!at.empty()) {
      out.insert(at); // an element of a list: the list, at this granularity
    }
  }
}

} // namespace

field_comparison compare_fields(const json& before, const json& after) {
  field_comparison out;
  field_path at;
  compare_into(&before, &after, at, out);
  return out;
}

field_set fields_of(const json& object) {
  field_set out;
  field_path at;
  fields_into(object, at, out);
  return out;
}

field_set without_subtree(const field_set& set, const field_path& path) {
  field_set out;
  for (const auto& p : set)
    if (!starts_with(p, path))
      out.insert(p);
  return out;
}

bool holds_subtree(const field_set& set, const field_path& path) {
  auto first = set.lower_bound(path); // the paths under `path` sort right after it
  return first != set.end() && starts_with(*first, path);
}

field_set only_subtree(const field_set& set, const field_path& path) {
  field_set out;
  for (const auto& p : set)
    if (starts_with(p, path))
      out.insert(p);
  return out;
}

field_set set_union(const field_set& a, const field_set& b) {
  field_set out = a;
  out.insert(b.begin(), b.end());
  return out;
}

field_set set_difference(const field_set& a, const field_set& b) {
  field_set out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

field_set set_intersection(const field_set& a, const field_set& b) {
  field_set out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

json encode_fields_v1(const field_set& set) {
  json root = json::object();
  for (const auto& path : set) {
    json* node = &root;
    for (const auto& name : path) {
      auto& child = (*node)["f:" + name];
      if (child.is_null())
        child = json::object();
      node = &child;
    }
  }
  // The "." marker on members that have members under them.
  for (const auto& path : set) {
    json* node = &root;
    for (const auto& name : path)
      node = &(*node)["f:" + name];
    if (!node->empty() && !node->contains("."))
      (*node)["."] = json::object();
  }
  return root;
}

field_set decode_fields_v1(const json& fields) {
  field_set out;
  field_path at;
  decode_into(fields, at, out);
  return out;
}

std::string path_text(const field_path& path) {
  std::string out;
  for (const auto& name : path)
    out += "." + name;
  return out;
}

void erase_path(json& object, const field_path& path) {
  json* node = &object;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (!node->is_object() || !node->contains(path[i]))
      return;
    node = &(*node)[path[i]];
  }
  if (!path.empty() && node->is_object())
    node->erase(path.back());
}

} // namespace schedopt::sim
