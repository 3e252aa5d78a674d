// kubectl-style text tables: columns aligned with three spaces, "-" for an empty cell.
#pragma once

#include <string>
#include <vector>

namespace schedopt {

/// One line per row (the first is the header), each ending with a newline; `indent`
/// is put before every line.
std::string render_text_table(std::vector<std::vector<std::string>> rows,
                              const std::string& indent = "");

/// The items joined with `separator` (plan and explain list nodes this way).
std::string join(const std::vector<std::string>& items, const std::string& separator = ",");

} // namespace schedopt
