// Per-VM reasons are "<Enum>: <detail>" (clients split on the first ": "), capped at
// 256 bytes on a UTF-8 boundary so a status never grows without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "model/wire_enums.hpp"

namespace schedopt {

constexpr std::size_t max_reason_bytes = 256;

/// Cuts `text` to at most `max_bytes` without splitting a UTF-8 sequence.
std::string truncate_utf8(std::string_view text, std::size_t max_bytes);

/// "<kind>: <detail>" (the kind alone when there is no detail), capped at
/// max_reason_bytes.
std::string make_reason(reason_kind kind, std::string_view detail);

/// The same from a reason's wire text, for every kind's own reason enum.
std::string make_reason(std::string_view kind, std::string_view detail);

/// Splits a reason on its first ": " into {kind, detail}; kind is empty when absent.
std::pair<std::string, std::string> split_reason(std::string_view reason);

} // namespace schedopt
