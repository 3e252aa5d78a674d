// Helpers of the deploy suite for deploy/prometheus and deploy/grafana: promtool, the
// PrometheusRule's .spec as a plain rules file, and the metric names a PromQL expression
// selects.
#pragma once

#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include "deploy/deploy_support.hpp"

namespace schedopt::deploy_test {

/// promtool's path. deploy/bootstrap.sh installs it (Debian package prometheus), so a
/// test that needs it fails without it instead of skipping.
inline std::string require_promtool() {
  std::string path = on_path("promtool");
  BOOST_REQUIRE_MESSAGE(!path.empty(),
                        "promtool missing: deploy/bootstrap.sh installs it (Debian package prometheus)");
  return path;
}

/// The shipped PrometheusRule object.
inline YAML::Node prometheus_rule() { return YAML::LoadFile(source_dir + "/deploy/prometheus/prometheusrule.yaml"); }

/// Writes the PrometheusRule's .spec (its rule groups) to `file`, the plain rules file
/// promtool and a Prometheus without the Operator read, as kube-prometheus extracts it
/// for its own promtool tests.
inline void write_rules_file(const fs::path& file) {
  YAML::Emitter out;
  out << prometheus_rule()["spec"];
  std::ofstream(file) << out.c_str() << "\n";
}

/// Every alert rule of the PrometheusRule (each with alert, expr, ...).
inline std::vector<YAML::Node> shipped_alerts() {
  std::vector<YAML::Node> out;
  for (const auto& group : prometheus_rule()["spec"]["groups"])
    for (const auto& rule : group["rules"])
      if (rule["alert"])
        out.push_back(rule);
  return out;
}

/// The metric names a PromQL expression selects: what is left once string literals,
/// label matchers, ranges, grouping clauses (by, on, ...), numbers and durations are
/// removed, less function names (a word before "(") and keywords.
inline std::set<std::string> promql_metric_names(std::string expr) {
  static const std::regex strings(R"re("(\\.|[^"\\])*"|'(\\.|[^'\\])*')re");
  static const std::regex matchers(R"(\{[^}]*\})");
  static const std::regex ranges(R"(\[[^\]]*\])");
  static const std::regex grouping(R"(\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\))");
  static const std::regex token(R"([0-9][0-9a-zA-Z_.]*|[a-zA-Z_:][a-zA-Z0-9_:]*)");
  static const std::set<std::string> keywords = {"and", "or", "unless", "by", "without", "on",
                                                 "ignoring", "group_left", "group_right", "bool",
                                                 "offset", "inf", "nan", "atan2"};
  expr = std::regex_replace(expr, strings, "\"\"");
  expr = std::regex_replace(expr, matchers, " ");
  expr = std::regex_replace(expr, ranges, " ");
  expr = std::regex_replace(expr, grouping, " ");
  std::set<std::string> names;
  for (std::sregex_iterator it(expr.begin(), expr.end(), token), end; it != end; ++it) {
    std::string word = it->str();
    if (std::isdigit(static_cast<unsigned char>(word[0])))
      continue; // a number or a duration
    std::size_t after = it->position() + word.size();
    while (after < expr.size() && std::isspace(static_cast<unsigned char>(expr[after])))
      ++after;
    if (after < expr.size() && expr[after] == '(')
      continue; // a function or an aggregation
    std::string lower;
    for (char c : word)
      lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!keywords.count(lower))
      names.insert(word);
  }
  return names;
}

/// The series names a /metrics page (text format) declares: every family of a "# TYPE"
/// line, a histogram as its _bucket, _sum and _count series, a summary as itself, _sum
/// and _count.
inline std::set<std::string> exposed_series_names(const std::string& page) {
  std::set<std::string> out;
  std::istringstream lines(page);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string hash, type_word, name, type;
    if (!(words >> hash >> type_word >> name >> type) || hash != "#" || type_word != "TYPE")
      continue;
    if (type == "histogram") {
      for (const char* suffix : {"_bucket", "_sum", "_count"})
        out.insert(name + suffix);
    } else if (type == "summary") {
      for (const char* suffix : {"", "_sum", "_count"})
        out.insert(name + suffix);
    } else {
      out.insert(name);
    }
  }
  return out;
}

} // namespace schedopt::deploy_test
