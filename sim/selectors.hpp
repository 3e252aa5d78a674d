// Label and field selectors as the Kubernetes API parses and applies them on list and
// watch (?labelSelector=..., ?fieldSelector=...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/error.hpp"

namespace schedopt::sim {

struct label_requirement {
  enum class op { equals, not_equals, in, not_in, exists, not_exists };
  std::string key;
  op operation = op::equals;
  std::vector<std::string> values;
};

class label_selector {
public:
  /// "a=b,c!=d,e in (x,y),f notin (z),g,!h"; an empty string selects everything.
  static expected<label_selector> parse(std::string_view text);
  /// A metav1.LabelSelector object ({matchLabels, matchExpressions}) as
  /// apimachinery's LabelSelectorAsSelector converts it: an empty object selects
  /// everything; an unknown operator or a value list of the wrong length is an error.
  /// The caller decides what a null selector means (policy/v1 PDBs: nothing).
  static expected<label_selector> from_object(const nlohmann::json& selector);
  /// `labels` is metadata.labels (may be null or absent).
  bool matches(const nlohmann::json& labels) const;
  bool matches_object(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<label_requirement>& requirements() const { return requirements_; }

private:
  std::vector<label_requirement> requirements_;
};

struct field_requirement {
  std::string path; // dotted: metadata.name, status.phase, spec.nodeName
  std::string value;
  bool negated = false;
};

class field_selector {
public:
  /// "metadata.name=x,status.phase!=Running"; `=` and `==` are the same.
  static expected<field_selector> parse(std::string_view text);
  bool matches(const nlohmann::json& object) const;
  bool empty() const { return requirements_.empty(); }

private:
  std::vector<field_requirement> requirements_;
};

/// The value at a dotted path rendered as a field selector compares it ("" when absent).
std::string field_value(const nlohmann::json& object, const std::string& path);

} // namespace schedopt::sim
