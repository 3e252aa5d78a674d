// spdlog set-up: text or one JSON object per line (--log-format), level (--log-level);
// log_kv for lines about a request or VM that carry structured keys.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <spdlog/common.h>

namespace schedopt {

void configure_logging(const std::string& format, const std::string& level);

/// Structured keys of one log line (request, namespace, vmi, vmim, node, error, ...);
/// pairs with an empty value are left out.
using log_fields = std::vector<std::pair<std::string, std::string>>;

/// Logs `message` with `fields`: in text mode as `message key=value ...` (values with
/// spaces, quotes or '=' are quoted), in JSON mode as extra string keys of the line's
/// object next to ts, level and msg.
void log_kv(spdlog::level::level_enum level, const std::string& message,
            const log_fields& fields);

/// The text-mode rendering of log_kv (`message key=value ...`); for tests.
std::string format_kv_text(const std::string& message, const log_fields& fields);

} // namespace schedopt
