// Column widths are measured in bytes: node and VMI names are DNS labels (ASCII).
#include "model/text_table.hpp"

#include <algorithm>

namespace schedopt {

std::string render_text_table(std::vector<std::vector<std::string>> rows,
                              const std::string& indent) {
  std::vector<std::size_t> width;
  for (auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (row[i].empty())
        row[i] = "-";
      if (width.size() <= i)
        width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line.append(width[i] - row[i].size() + 3, ' ');
    }
    out += line;
    out += '\n';
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty())
      out += separator;
    out += s;
  }
  return out;
}

} // namespace schedopt
