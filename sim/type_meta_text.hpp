// The apiVersion and kind members at the top level of an object's JSON text, found
// without parsing it: a list of a built-in kind serves its items without them, as Go's
// typed list encoding does (apimachinery pkg/runtime/helper.go WithVersionEncoder.Encode
// sets the kind on the encoded list only; a custom resource list's items keep theirs),
// and the list handler streams stored texts it does not want to re-serialize.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedopt::sim {

/// Byte ranges [first, second) of `text` to leave out: each apiVersion or kind member
/// at the top level with its separating comma. Empty when there are none.
std::vector<std::pair<std::size_t, std::size_t>> type_meta_ranges(std::string_view text);

/// Appends `text` to `out` without `ranges` (sorted, disjoint).
void append_without(std::string& out, std::string_view text,
                    const std::vector<std::pair<std::size_t, std::size_t>>& ranges);

} // namespace schedopt::sim
