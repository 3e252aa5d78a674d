// Sets of field paths, as server-side apply's bookkeeping (structured-merge-diff) keeps
// them: what an object's fields are, what changed between two versions, and the
// FieldsV1 encoding metadata.managedFields stores them in.
//
// The simulator has no schema for built-in types, so every list is atomic (one path
// ends at the list) where upstream keys associative lists by their merge keys; maps and
// objects are granular, as in upstream.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

using field_path = std::vector<std::string>; // field names from the object's root
using field_set = std::set<field_path>;

/// What changed from `before` to `after`. Follows sigs.k8s.io/structured-merge-diff v6
/// typed/compare.go (compareWalker): a map absent on one side is itself added or removed
/// beside its children; a leaf (scalar, list) present on both sides but unequal is modified.
struct field_comparison {
  field_set added;
  field_set modified;
  field_set removed;
};
field_comparison compare_fields(const nlohmann::json& before, const nlohmann::json& after);

/// The fields an applied configuration sets. Follows structured-merge-diff v6
/// typed/tofieldset.go (toFieldSetWalker): leaves, and maps that are empty or null; a
/// map with children is owned through them.
field_set fields_of(const nlohmann::json& object);

/// `set` without `path` and everything under it (fieldpath.Set.RecursiveDifference).
field_set without_subtree(const field_set& set, const field_path& path);
/// Whether `set` holds `path` or anything under it.
bool holds_subtree(const field_set& set, const field_path& path);
/// `set` keeping only `path` and what is under it.
field_set only_subtree(const field_set& set, const field_path& path);

field_set set_union(const field_set& a, const field_set& b);
field_set set_difference(const field_set& a, const field_set& b);
field_set set_intersection(const field_set& a, const field_set& b);

/// FieldsV1: {"f:data": {".": {}, "f:a": {}}}. A path that is a member and has members
/// under it carries the "." marker. Follows structured-merge-diff v6
/// fieldpath/serialize.go.
nlohmann::json encode_fields_v1(const field_set& set);
/// The inverse; a list element ("k:", "v:", "i:") is read as its whole list, the
/// granularity this simulator keeps.
field_set decode_fields_v1(const nlohmann::json& fields);

/// ".data.owner", as fieldpath.Path.String prints a path of field names.
std::string path_text(const field_path& path);

/// `object` with the leaf at `path` removed (nothing when absent).
void erase_path(nlohmann::json& object, const field_path& path);

} // namespace schedopt::sim
