// See access_reviews.hpp. Field names and omissions follow k8s.io/api
// authentication/v1 and authorization/v1 types.go (every spec field is omitempty).
#include "k8s/access_reviews.hpp"

#include <nlohmann/json.hpp>

namespace schedopt::k8s {

namespace {

using json = nlohmann::json;

/// JSON text of `v`; bytes that are not UTF-8 (a hostile header) become U+FFFD instead
/// of an exception, so such a token is simply one the API server does not know.
std::string dump(const json& v) {
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s)
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

expected<json> parse_object(std::string_view body, const char* kind) {
  auto doc = json::parse(body.begin(), body.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return make_error(ec::parse_error, std::string(kind) + " answer is not a JSON object");
  return doc;
}

std::vector<std::string> strings_of(const json& v) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& s : v)
      if (s.is_string())
        out.push_back(s.get<std::string>());
  return out;
}

std::string string_of(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

bool bool_of(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

} // namespace

std::optional<std::string> bearer_token(std::string_view header) {
  while (!header.empty() && is_space(header.front()))
    header.remove_prefix(1);
  while (!header.empty() && is_space(header.back()))
    header.remove_suffix(1);
  if (header.empty())
    return std::nullopt;
  // strings.SplitN(auth, " ", 3): the first two fields end at the first two spaces.
  auto first = header.find(' ');
  if (first == std::string_view::npos || lower(header.substr(0, first)) != "bearer")
    return std::nullopt;
  auto rest = header.substr(first + 1);
  auto token = rest.substr(0, rest.find(' '));
  if (token.empty())
    return std::nullopt;
  return std::string{token};
}

std::string token_review_body(const std::string& token) {
  return dump(json{{"apiVersion", "authentication.k8s.io/v1"},
                   {"kind", "TokenReview"},
                   {"spec", {{"token", token}}}});
}

expected<token_review_answer> read_token_review(std::string_view body) {
  auto doc = parse_object(body, "TokenReview");
  if (!doc)
    return doc.err();
  auto status = doc->value("status", json::object());
  if (!status.is_object())
    return make_error(ec::type_mismatch, "TokenReview answer: status is not an object");
  token_review_answer out;
  out.authenticated = bool_of(status, "authenticated");
  out.error = string_of(status, "error");
  auto user = status.value("user", json::object());
  if (user.is_object()) {
    out.user.name = string_of(user, "username");
    out.user.uid = string_of(user, "uid");
    out.user.groups = strings_of(user.value("groups", json::array()));
    auto extra = user.value("extra", json::object());
    if (extra.is_object())
      for (auto it = extra.begin(); it != extra.end(); ++it)
        out.user.extra[it.key()] = strings_of(it.value());
  }
  return out;
}

std::string access_review_spec(const reviewed_user& user, const std::string& verb,
                               const std::string& path) {
  json spec = {{"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.name.empty())
    spec["user"] = user.name;
  if (!user.groups.empty())
    spec["groups"] = user.groups;
  if (!user.extra.empty())
    spec["extra"] = user.extra;
  if (!user.uid.empty())
    spec["uid"] = user.uid;
  return dump(spec);
}

std::string access_review_body(const std::string& spec) {
  return dump(json{{"apiVersion", "authorization.k8s.io/v1"},
                   {"kind", "SubjectAccessReview"},
                   {"spec", json::parse(spec)}});
}

expected<access_review_answer> read_access_review(std::string_view body) {
  auto doc = parse_object(body, "SubjectAccessReview");
  if (!doc)
    return doc.err();
  auto status = doc->value("status", json::object());
  if (!status.is_object())
    return make_error(ec::type_mismatch, "SubjectAccessReview answer: status is not an object");
  return access_review_answer{bool_of(status, "allowed"), bool_of(status, "denied"),
                              string_of(status, "reason")};
}

} // namespace schedopt::k8s
