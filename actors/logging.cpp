// See logging.hpp. For JSON lines the message goes through a custom pattern flag that
// escapes it as a JSON string (spdlog 1.10 has no JSON formatter of its own).
#include "actors/logging.hpp"

#include <cstdio>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace schedopt {

namespace {

class json_escaped_message : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    for (char c : msg.payload) {
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
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<json_escaped_message>();
  }
};

} // namespace

void configure_logging(const std::string& format, const std::string& level) {
  auto logger = spdlog::get("schedopt");
  if (!logger)
    logger = spdlog::stderr_color_mt("schedopt");
  spdlog::set_default_logger(logger);
  if (format == "json") {
    auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
    formatter->add_flag<json_escaped_message>('*').set_pattern(
      R"({"ts":"%Y-%m-%dT%H:%M:%S.%fZ","level":"%l","msg":"%*"})");
    spdlog::set_formatter(std::move(formatter));
  } else {
    spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%-5l%$ %v", spdlog::pattern_time_type::utc);
  }
  spdlog::set_level(spdlog::level::from_str(level));
}

} // namespace schedopt
