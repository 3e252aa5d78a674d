// Parsing and matching of label and field selectors (apimachinery's labels/fields
// packages, the subset clients send).
#include "sim/selectors.hpp"

#include <cctype>

namespace schedopt::sim {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string{s};
}

/// Splits on commas outside parentheses.
std::vector<std::string> split_terms(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : text) {
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

bool valid_key(const std::string& key) {
  if (key.empty())
    return false;
  for (char c : key)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/'))
      return false;
  return true;
}

error bad_selector(std::string_view text, const std::string& why) {
  return make_error(ec::invalid_request,
                    "unable to parse requirement: " + why + " in selector \"" + std::string{text} + "\"",
                    400);
}

} // namespace

// Follows kubernetes v1.36.3 staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go,
// LabelSelectorAsSelector: matchLabels as equality, matchExpressions In / NotIn (values
// required), Exists / DoesNotExist (no values).
expected<label_selector> label_selector::from_object(const nlohmann::json& selector) {
  label_selector sel;
  if (!selector.is_object())
    return sel;
  auto bad = [](const std::string& why) { return make_error(ec::invalid_value, why, 422); };
  if (auto labels = selector.find("matchLabels"); labels != selector.end() && labels->is_object())
    for (const auto& [key, value] : labels->items()) {
      if (!value.is_string())
        return bad("matchLabels value of \"" + key + "\" is not a string");
      sel.requirements_.push_back({key, label_requirement::op::equals, {value.get<std::string>()}});
    }
  if (auto exprs = selector.find("matchExpressions"); exprs != selector.end() && exprs->is_array())
    for (const auto& expr : *exprs) {
      if (!expr.is_object())
        return bad("a matchExpressions entry is not an object");
      label_requirement r;
      r.key = expr.value("key", std::string{});
      auto op = expr.value("operator", std::string{});
      for (const auto& v : expr.value("values", nlohmann::json::array()))
        if (v.is_string())
          r.values.push_back(v.get<std::string>());
      if (op == "In" || op == "NotIn") {
        r.operation = op == "In" ? label_requirement::op::in : label_requirement::op::not_in;
        if (r.values.empty())
          return bad("for 'in', 'notin' operators, values set can't be empty");
      } else if (op == "Exists" || op == "DoesNotExist") {
        r.operation = op == "Exists" ? label_requirement::op::exists : label_requirement::op::not_exists;
        if (!r.values.empty())
          return bad("values set must be empty for exists and does not exist");
      } else {
        return bad("\"" + op + "\" is not a valid label selector operator");
      }
      sel.requirements_.push_back(std::move(r));
    }
  return sel;
}

expected<label_selector> label_selector::parse(std::string_view text) {
  label_selector sel;
  if (trim(text).empty())
    return sel;
  for (auto& term : split_terms(text)) {
    if (term.empty())
      return bad_selector(text, "empty requirement");
    label_requirement req;
    if (term[0] == '!') {
      req.key = trim(term.substr(1));
      req.operation = label_requirement::op::not_exists;
    } else if (auto paren = term.find('('); paren != std::string::npos) {
      if (term.back() != ')')
        return bad_selector(text, "missing ')'");
      auto head = trim(term.substr(0, paren));
      auto space = head.find_last_of(" \t");
      if (space == std::string::npos)
        return bad_selector(text, "expected 'in' or 'notin'");
      auto op = trim(head.substr(space + 1));
      req.key = trim(head.substr(0, space));
      if (op == "in")
        req.operation = label_requirement::op::in;
      else if (op == "notin")
        req.operation = label_requirement::op::not_in;
      else
        return bad_selector(text, "unknown operator \"" + op + "\"");
      auto inner = term.substr(paren + 1, term.size() - paren - 2);
      for (auto& v : split_terms(inner))
        if (!v.empty())
          req.values.push_back(v);
    } else if (auto ne = term.find("!="); ne != std::string::npos) {
      req.key = trim(term.substr(0, ne));
      req.operation = label_requirement::op::not_equals;
      req.values.push_back(trim(term.substr(ne + 2)));
    } else if (auto eq = term.find('='); eq != std::string::npos) {
      req.key = trim(term.substr(0, eq));
      auto rest = term.substr(eq + 1);
      if (!rest.empty() && rest[0] == '=')
        rest = rest.substr(1);
      req.operation = label_requirement::op::equals;
      req.values.push_back(trim(rest));
    } else {
      req.key = trim(term);
      req.operation = label_requirement::op::exists;
    }
    if (!valid_key(req.key))
      return bad_selector(text, "invalid label key \"" + req.key + "\"");
    sel.requirements_.push_back(std::move(req));
  }
  return sel;
}

bool label_selector::matches(const nlohmann::json& labels) const {
  for (auto& req : requirements_) {
    const nlohmann::json* value = nullptr;
    if (labels.is_object()) {
      auto it = labels.find(req.key);
      if (it != labels.end() && it->is_string())
        value = &*it;
    }
    auto in_values = [&] {
      if (value == nullptr)
        return false;
      auto& v = value->get_ref<const std::string&>();
      for (auto& candidate : req.values)
        if (candidate == v)
          return true;
      return false;
    };
    using op = label_requirement::op;
    switch (req.operation) {
      case op::equals:
      case op::in:
        if (!in_values())
          return false;
        break;
      case op::not_equals:
      case op::not_in:
        if (in_values())
          return false;
        break;
      case op::exists:
        if (value == nullptr)
          return false;
        break;
      case op::not_exists:
        if (value != nullptr)
          return false;
        break;
    }
  }
  return true;
}

bool label_selector::matches_object(const nlohmann::json& object) const {
  if (requirements_.empty())
    return true;
  static const nlohmann::json none;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object())
    return matches(none);
  auto labels = meta->find("labels");
  return matches(labels == meta->end() ? none : *labels);
}

expected<field_selector> field_selector::parse(std::string_view text) {
  field_selector sel;
  if (trim(text).empty())
    return sel;
  for (auto& term : split_terms(text)) {
    field_requirement req;
    auto ne = term.find("!=");
    auto eq = term.find('=');
    if (ne != std::string::npos) {
      req.path = trim(term.substr(0, ne));
      req.value = trim(term.substr(ne + 2));
      req.negated = true;
    } else if (eq != std::string::npos) {
      req.path = trim(term.substr(0, eq));
      auto rest = term.substr(eq + 1);
      if (!rest.empty() && rest[0] == '=')
        rest = rest.substr(1);
      req.value = trim(rest);
    } else {
      return make_error(ec::invalid_request,
                        "invalid selector: '" + std::string{text} + "'; can't understand '" + term + "'",
                        400);
    }
    if (req.path.empty())
      return make_error(ec::invalid_request, "invalid field selector \"" + std::string{text} + "\"", 400);
    sel.requirements_.push_back(std::move(req));
  }
  return sel;
}

std::string field_value(const nlohmann::json& object, const std::string& path) {
  const nlohmann::json* cur = &object;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto dot = path.find('.', start);
    auto part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object())
      return {};
    auto it = cur->find(part);
    if (it == cur->end())
      return {};
    cur = &*it;
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  if (cur->is_string())
    return cur->get<std::string>();
  if (cur->is_null())
    return {};
  return cur->dump();
}

bool field_selector::matches(const nlohmann::json& object) const {
  for (auto& req : requirements_) {
    bool equal = field_value(object, req.path) == req.value;
    if (equal == req.negated)
      return false;
  }
  return true;
}

} // namespace schedopt::sim
