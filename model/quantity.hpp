// Kubernetes resource quantities (resource.Quantity): "500m", "2", "1.5", "4Gi", "8G",
// "128974848", "1e3". Parsed into integers (CPU millicores, memory bytes), rounded up as
// the API server rounds, and printed back compactly for reasons.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace schedopt {

/// The quantity times `scale` (1 for bytes, 1000 for millicores), rounded up. nullopt
/// for text that is no quantity, a negative one, or one beyond int64.
std::optional<int64_t> parse_quantity(std::string_view text, int64_t scale = 1);

/// CPU millicores: "2" for 2000, "500m" for 500.
std::string format_cpu(int64_t millis);

/// Bytes in the largest binary unit that fits: "8Gi", "512Mi", "1.5Gi" (one decimal,
/// rounded down so a free amount never reads as more than it is), "100" below 1Ki.
std::string format_memory(int64_t bytes);

} // namespace schedopt
