// One object decoder of model/decode.hpp on arbitrary bytes, built once per type
// (SCHEDOPT_FUZZ_TYPE): decode<T> must return a value or an error, never crash or leak.
#include "fuzz_support.hpp"
#include "model/decode.hpp"

#ifndef SCHEDOPT_FUZZ_TYPE
#error "SCHEDOPT_FUZZ_TYPE names the model type to decode"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  auto text = fuzz::as_text(data, size);
  auto decoded = decode<SCHEDOPT_FUZZ_TYPE>(text);
  if (!decoded)
    FUZZ_CHECK(decoded.err().code != ec::none && !decoded.err().message.empty());
  return 0;
}
