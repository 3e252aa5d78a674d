// The names an Event message lists: a kind's "N live migrations failed: a, b, ..." names
// the first few items and says there are more, so one message stays short at any scale.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace schedopt {

/// The first `shown` names joined by ", ", then ", ..." when there are more.
std::string first_names(const std::vector<std::string>& names, std::size_t shown);

} // namespace schedopt
