// spdlog set-up: text or one JSON object per line (--log-format), level (--log-level).
#pragma once

#include <string>

namespace schedopt {

void configure_logging(const std::string& format, const std::string& level);

} // namespace schedopt
