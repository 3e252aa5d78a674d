#include "sim/go_json_errors.hpp"

#include <cstdio>
#include <vector>

namespace schedopt::sim {

namespace {

/// Go's quoteChar: the byte as a rune, in strconv.Quote's escapes, in single quotes.
std::string quote_char(unsigned char c) {
  if (c == '\'')
    return "'\\''";
  if (c == '"')
    return "'\"'";
  switch (c) {
    case '\a': return "'\\a'";
    case '\b': return "'\\b'";
    case '\f': return "'\\f'";
    case '\n': return "'\\n'";
    case '\r': return "'\\r'";
    case '\t': return "'\\t'";
    case '\v': return "'\\v'";
    case '\\': return "'\\\\'";
    default: break;
  }
  char buf[16];
  if (c < 0x20 || c == 0x7f) {
    std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
    return buf;
  }
  if (c < 0x7f)
    return std::string("'") + static_cast<char>(c) + "'";
  // U+0080..U+00FF: strconv.IsPrint holds for U+00A1..U+00FF but U+00AD.
  if (c >= 0xa1 && c != 0xad) {
    std::string out = "'";
    out += static_cast<char>(0xc0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3f));
    return out + "'";
  }
  std::snprintf(buf, sizeof buf, "'\\u%04x'", c);
  return buf;
}

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_hex(unsigned char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/// scanner.go's step functions, one state per step function.
class scanner {
public:
  /// Feeds one byte; false once an error is recorded.
  bool step(unsigned char c) {
    switch (state_) {
      case state::begin_value_or_empty:
        if (is_space(c))
          return true;
        if (c == ']')
          return end_value(c);
        return begin_value(c);
      case state::begin_value: return begin_value(c);
      case state::begin_string_or_empty:
        if (is_space(c))
          return true;
        if (c == '}') {
          stack_.back() = parse::object_value;
          return end_value(c);
        }
        return begin_string(c);
      case state::begin_string: return begin_string(c);
      case state::end_value: return end_value(c);
      case state::end_top:
        if (!is_space(c))
          return fail(c, "after top-level value");
        return true;
      case state::in_string:
        if (c == '"')
          return to(state::end_value);
        if (c == '\\')
          return to(state::in_string_escape);
        if (c < 0x20)
          return fail(c, "in string literal");
        return true;
      case state::in_string_escape:
        if (c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't' || c == '\\' || c == '/' || c == '"')
          return to(state::in_string);
        if (c == 'u') {
          hex_left_ = 4;
          return to(state::in_string_escape_u);
        }
        return fail(c, "in string escape code");
      case state::in_string_escape_u:
        if (!is_hex(c))
          return fail(c, "in \\u hexadecimal character escape");
        if (--hex_left_ == 0)
          state_ = state::in_string;
        return true;
      case state::negative:
        if (c == '0')
          return to(state::zero);
        if (c >= '1' && c <= '9')
          return to(state::digits);
        return fail(c, "in numeric literal");
      case state::digits:
        if (is_digit(c))
          return true;
        return zero(c);
      case state::zero: return zero(c);
      case state::dot:
        if (is_digit(c))
          return to(state::dot_digits);
        return fail(c, "after decimal point in numeric literal");
      case state::dot_digits:
        if (is_digit(c))
          return true;
        if (c == 'e' || c == 'E')
          return to(state::exponent);
        return end_value(c);
      case state::exponent:
        if (c == '+' || c == '-')
          return to(state::exponent_sign);
        [[fallthrough]];
      case state::exponent_sign:
        if (is_digit(c))
          return to(state::exponent_digits);
        return fail(c, "in exponent of numeric literal");
      case state::exponent_digits:
        if (is_digit(c))
          return true;
        return end_value(c);
      case state::literal:
        if (c != static_cast<unsigned char>(literal_[literal_at_]))
          return fail(c, "in literal " + literal_ + " (expecting '" + literal_[literal_at_] + "')");
        if (++literal_at_ == literal_.size())
          state_ = state::end_value;
        return true;
      case state::failed: return false;
    }
    return false;
  }

  /// scanner.eof: a literal or number ends at a space; anything else unfinished is an
  /// unexpected end.
  void end_of_input() {
    if (!error_.empty() || end_top_)
      return;
    step(' ');
    if (error_.empty() && !end_top_)
      error_ = "unexpected end of JSON input";
  }

  const std::string& error() const { return error_; }

private:
  enum class state {
    begin_value_or_empty, begin_value, begin_string_or_empty, begin_string, end_value, end_top,
    in_string, in_string_escape, in_string_escape_u, negative, digits, zero, dot, dot_digits,
    exponent, exponent_sign, exponent_digits, literal, failed
  };
  enum class parse { object_key, object_value, array_value };

  bool to(state next) {
    state_ = next;
    return true;
  }

  bool fail(unsigned char c, const std::string& context) {
    error_ = "invalid character " + quote_char(c) + " " + context;
    state_ = state::failed;
    return false;
  }

  bool begin_value(unsigned char c) {
    if (is_space(c))
      return true;
    switch (c) {
      case '{': stack_.push_back(parse::object_key); return to(state::begin_string_or_empty);
      case '[': stack_.push_back(parse::array_value); return to(state::begin_value_or_empty);
      case '"': return to(state::in_string);
      case '-': return to(state::negative);
      case '0': return to(state::zero);
      case 't': return begin_literal("true");
      case 'f': return begin_literal("false");
      case 'n': return begin_literal("null");
      default: break;
    }
    if (c >= '1' && c <= '9')
      return to(state::digits);
    return fail(c, "looking for beginning of value");
  }

  bool begin_literal(const char* word) {
    literal_ = word;
    literal_at_ = 1;
    return to(state::literal);
  }

  bool begin_string(unsigned char c) {
    if (is_space(c))
      return true;
    if (c == '"')
      return to(state::in_string);
    return fail(c, "looking for beginning of object key string");
  }

  bool zero(unsigned char c) {
    if (c == '.')
      return to(state::dot);
    if (c == 'e' || c == 'E')
      return to(state::exponent);
    return end_value(c);
  }

  bool end_value(unsigned char c) {
    if (stack_.empty()) {
      end_top_ = true;
      state_ = state::end_top;
      return step(c);
    }
    if (is_space(c))
      return to(state::end_value);
    switch (stack_.back()) {
      case parse::object_key:
        if (c == ':') {
          stack_.back() = parse::object_value;
          return to(state::begin_value);
        }
        return fail(c, "after object key");
      case parse::object_value:
        if (c == ',') {
          stack_.back() = parse::object_key;
          return to(state::begin_string);
        }
        if (c == '}') {
          stack_.pop_back();
          return to(state::end_value);
        }
        return fail(c, "after object key:value pair");
      case parse::array_value:
        if (c == ',')
          return to(state::begin_value);
        if (c == ']') {
          stack_.pop_back();
          return to(state::end_value);
        }
        return fail(c, "after array element");
    }
    return false;
  }

  state state_ = state::begin_value;
  std::vector<parse> stack_;
  std::string literal_;
  std::size_t literal_at_ = 0;
  int hex_left_ = 0;
  bool end_top_ = false;
  std::string error_;
};

} // namespace

std::optional<std::string> go_json_syntax_error(std::string_view text) {
  scanner s;
  for (unsigned char c : text)
    if (!s.step(c))
      return s.error();
  s.end_of_input();
  if (s.error().empty())
    return std::nullopt;
  return s.error();
}

std::string summarize_data(std::string_view text, std::size_t max) {
  if (text.empty())
    return "<empty>";
  bool cut = text.size() > max;
  auto shown = text.substr(0, max);
  if (text.front() == '{')
    return std::string(shown) + (cut ? " ..." : "");
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : shown) {
    out += digits[c >> 4];
    out += digits[c & 0xf];
  }
  return out + (cut ? " ..." : "");
}

} // namespace schedopt::sim
