// A kind's settings rows: their values' lookup and the checks they share with core rows.
#include "config/kind_settings.hpp"

#include "config/value_parsers.hpp"

namespace schedopt {

std::string kind_value_text(const kind_setting_values& values, const kind_settings_table& table,
                            const std::string& key) {
  if (auto it = values.find(key); it != values.end())
    return it->second;
  for (const auto& row : table.rows)
    if (row.key == key)
      return row.default_text;
  return {};
}

// The texts of config/settings.cpp's int_field and duration_field, so a kind's row and a
// core row refuse a bad value alike.
kind_value_check int_at_least(int64_t min) {
  return [=](const std::string& text) -> std::string {
    int64_t v = 0;
    if (auto e = config_detail::parse_int(text, v); !e.empty())
      return e;
    if (v < min)
      return "must be >= " + std::to_string(min);
    return {};
  };
}

namespace {

kind_value_check duration_check(bool must_be_positive) {
  return [=](const std::string& text) -> std::string {
    duration d{};
    if (auto e = config_detail::parse_duration(text, d); !e.empty())
      return e;
    if (must_be_positive && d.count() <= 0)
      return "must be > 0";
    return {};
  };
}

} // namespace

kind_value_check any_duration() {
  return duration_check(false);
}

kind_value_check positive_duration() {
  return duration_check(true);
}

} // namespace schedopt
