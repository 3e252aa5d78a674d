// Go durations (model/duration): parse, and what parses formats back to the same value.
#include "fuzz_support.hpp"
#include "model/duration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  auto text = fuzz::as_text(data, size);
  auto d = parse_go_duration(text);
  if (!d) {
    FUZZ_CHECK(d.err().code == ec::invalid_duration);
    return 0;
  }
  FUZZ_CHECK(d->count() >= 0);
  auto formatted = format_go_duration(*d);
  auto again = parse_go_duration(formatted);
  FUZZ_CHECK(again && *again == *d);
  return 0;
}
