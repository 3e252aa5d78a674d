// RFC 3339 timestamps (model/timestamp): parse, and a parsed time formats (seconds and
// microseconds) to text that parses back to the same time at that precision.
#include <chrono>

#include "fuzz_support.hpp"
#include "model/timestamp.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  using namespace std::chrono;
  auto text = fuzz::as_text(data, size);
  auto t = parse_rfc3339(text);
  if (!t) {
    FUZZ_CHECK(t.err().code == ec::invalid_timestamp);
    return 0;
  }
  auto seconds = format_rfc3339(*t);
  auto micro = format_rfc3339_micro(*t);
  // A numeric offset can carry a year-0000 or year-9999 time outside the 4-digit range.
  if (seconds.size() != 20 || seconds[0] == '-')
    return 0;
  auto s = parse_rfc3339(seconds);
  FUZZ_CHECK(s && *s == floor<std::chrono::seconds>(*t));
  auto m = parse_rfc3339(micro);
  FUZZ_CHECK(m && *m == floor<microseconds>(*t));
  return 0;
}
