// See logging.hpp. For JSON lines the message goes through a custom pattern flag that
// escapes it as a JSON string (spdlog 1.10 has no JSON formatter of its own); log_kv's
// keys reach a second flag through a thread-local (the logger's sink is synchronous, so
// the line is formatted on the calling thread).
#include "actors/logging.hpp"

#include <atomic>
#include <cstdio>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace schedopt {

namespace {

std::atomic<bool> json_lines{false};
thread_local const log_fields* current_fields = nullptr;

/// Longest message or field value written whole: values come from requests and API
/// answers, and one oversized field (a megabyte coolOffPeriod) must not become a
/// megabyte log line.
constexpr std::size_t max_logged_value = 1024;

/// `text` cut to max_logged_value bytes, with how much was cut said at the end.
std::string_view capped(std::string_view text, std::string& note) {
  if (text.size() <= max_logged_value)
    return text;
  note = "...(" + std::to_string(text.size() - max_logged_value) + " more bytes)";
  return text.substr(0, max_logged_value);
}

void append_json_escaped(std::string_view whole, spdlog::memory_buf_t& dest) {
  std::string note;
  auto text = capped(whole, note);
  for (char c : text) {
    switch (c) {
      case '"': dest.append(std::string_view{"\\\""}); break;
      case '\\': dest.append(std::string_view{"\\\\"}); break;
      case '\n': dest.append(std::string_view{"\\n"}); break;
      case '\t': dest.append(std::string_view{"\\t"}); break;
      case '\r': dest.append(std::string_view{"\\r"}); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          dest.append(std::string_view{buf});
        } else {
          dest.push_back(c);
        }
    }
  }
  dest.append(std::string_view{note});
}

/// Text lines go to terminals and to line-based collectors: a control character from
/// outside data (a carriage return, an ANSI escape) could rewrite what an operator sees
/// or split one line in two, so each is written as a visible escape instead.
void append_text_escaped(std::string_view text, std::string& dest) {
  std::string note;
  for (char c : capped(text, note)) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
      dest += "\\n";
    } else if (c == '\r') {
      dest += "\\r";
    } else if (c == '\t') {
      dest += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      dest += buf;
    } else {
      dest += c;
    }
  }
  dest += note;
}

class text_escaped_message : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    std::string out;
    append_text_escaped(std::string_view{msg.payload.data(), msg.payload.size()}, out);
    dest.append(std::string_view{out});
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<text_escaped_message>();
  }
};

class json_escaped_message : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    append_json_escaped(std::string_view{msg.payload.data(), msg.payload.size()}, dest);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<json_escaped_message>();
  }
};

/// `,"key":"value"` for each of log_kv's fields (nothing for plain spdlog calls).
class json_fields : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (current_fields == nullptr)
      return;
    for (auto& [key, value] : *current_fields) {
      if (value.empty() || key == "ts" || key == "level" || key == "msg")
        continue;
      dest.append(std::string_view{",\""});
      append_json_escaped(key, dest);
      dest.append(std::string_view{"\":\""});
      append_json_escaped(value, dest);
      dest.push_back('"');
    }
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<json_fields>();
  }
};

bool needs_quotes(const std::string& v) {
  if (v.empty())
    return true;
  for (char c : v)
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      return true;
  return false;
}

} // namespace

void configure_logging(const std::string& format, const std::string& level) {
  auto logger = spdlog::get("schedopt");
  if (!logger)
    logger = spdlog::stderr_color_mt("schedopt");
  spdlog::set_default_logger(logger);
  if (format == "json") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    formatter->add_flag<json_escaped_message>('*').add_flag<json_fields>('&').set_pattern(
      R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":"%*"%&})");
    spdlog::set_formatter(std::move(formatter));
    json_lines = true;
  } else {
    auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    formatter->add_flag<text_escaped_message>('*').set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%-5l%$ %*");
    spdlog::set_formatter(std::move(formatter));
    json_lines = false;
  }
  spdlog::set_level(spdlog::level::from_str(level));
}

std::string format_kv_text(const std::string& message, const log_fields& fields) {
  std::string out = message;
  for (auto& [key, value] : fields) {
    if (value.empty())
      continue;
    out += ' ';
    out += key;
    out += '=';
    if (!needs_quotes(value)) {
      out += value;
      continue;
    }
    // Quotes and backslashes escaped here; control characters when the line is written.
    out += '"';
    std::string note;
    for (char c : capped(value, note)) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    out += note;
    out += '"';
  }
  return out;
}

void log_kv(spdlog::level::level_enum level, const std::string& message,
            const log_fields& fields) {
  auto logger = spdlog::default_logger_raw();
  if (!logger->should_log(level))
    return;
  if (!json_lines) {
    logger->log(level, "{}", format_kv_text(message, fields));
    return;
  }
  current_fields = &fields;
  logger->log(level, "{}", message);
  current_fields = nullptr;
}

} // namespace schedopt
