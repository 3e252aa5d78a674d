// Shared helpers of the libFuzzer targets (docs/testing.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

/// An invariant the code under test promises; a violation aborts, so libFuzzer records
/// the input as a crash like any sanitizer finding.
#define FUZZ_CHECK(cond)                                                                    \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "fuzz invariant violated: %s (%s:%d)\n", #cond, __FILE__,        \
                   __LINE__);                                                               \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)

/// For a target's own checking code: not the code under test, so its branches would
/// only hand libFuzzer features to chase and cost a coverage callback per compare.
/// noinline: coverage is added after inlining, so an inlined copy would be instrumented.
#define FUZZ_NO_COVERAGE __attribute__((noinline, no_sanitize("coverage")))

namespace schedopt::fuzz {

inline std::string_view as_text(const uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Whether `text` is well-formed UTF-8 (no truncated or overlong sequence, no surrogate).
FUZZ_NO_COVERAGE inline bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 9;
    if (n == 9 || i + n >= text.size()) // not a lead byte, or the sequence is cut
      return false;
    uint32_t cp = n == 0 ? c : c & (0x3F >> n);
    for (std::size_t k = 1; k <= n; ++k) {
      auto d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80)
        return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr uint32_t min_of[] = {0, 0x80, 0x800, 0x10000};
    if (cp < min_of[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += n + 1;
  }
  return true;
}

/// $TMPDIR, else /tmp: where the file-based targets pretend their input lives.
inline std::string temp_dir() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

} // namespace schedopt::fuzz
