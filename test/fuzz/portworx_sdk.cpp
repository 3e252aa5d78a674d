// The Portworx SDK gateway's answers (model/portworx_sdk), one target per endpoint
// (SCHEDOPT_FUZZ_SDK): a value or an error, never a crash; the error body reader too.
#include "fuzz_support.hpp"
#include "model/portworx_sdk.hpp"

#ifndef SCHEDOPT_FUZZ_SDK
#error "SCHEDOPT_FUZZ_SDK selects the SDK answer decoder"
#endif

namespace {

using namespace schedopt;

template <class T>
void check(const expected<T>& answer) {
  if (!answer)
    FUZZ_CHECK(answer.err().code != ec::none && !answer.err().message.empty());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto text = fuzz::as_text(data, size);
#if SCHEDOPT_FUZZ_SDK == 1 // GET /v1/volumes/inspect/{id}
  check(decode_sdk_volume_inspect(text));
#elif SCHEDOPT_FUZZ_SDK == 2 // POST /v1/volumes/inspectwithfilters
  check(decode_sdk_volume_inspect_with_filters(text));
#elif SCHEDOPT_FUZZ_SDK == 3 // GET /v1/nodes, GET /v1/nodes/filters
  check(decode_sdk_node_enumerate(text));
  check(decode_sdk_node_enumerate_with_filters(text));
#elif SCHEDOPT_FUZZ_SDK == 4 // GET /v1/nodes/inspect/{id}
  check(decode_sdk_node_inspect(text));
#endif
  (void)sdk_error_message(text); // every non-2xx body
  return 0;
}
