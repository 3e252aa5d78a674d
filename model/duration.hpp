// Go duration strings (time.ParseDuration / Duration.String), as coolOffPeriod uses them.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "model/error.hpp"

namespace schedopt {

using duration = std::chrono::nanoseconds;

/// Parses "90s", "1h30m", "1.5h", "300ms", "2h45m10.5s", "0". Negative values, empty
/// strings, missing units and unknown units are errors naming the input.
expected<duration> parse_go_duration(std::string_view text);

/// Prints as Go does: "1h30m0s", "300ms", "0s".
std::string format_go_duration(duration d);

} // namespace schedopt
