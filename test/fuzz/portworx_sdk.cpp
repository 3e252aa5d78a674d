// The Portworx SDK gateway's answers (model/portworx_sdk), one target per endpoint
// (SCHEDOPT_FUZZ_SDK): a value or an error, never a crash; the error body reader too; the
// bulk answer also streamed in pieces (sdk_volume_stream), which must agree with it.
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
  // Decoded whole, and as the driver reads it, in pieces as they arrive (cut here every
  // 1 + size % 61 bytes): whatever decodes whole decodes the same in pieces.
  auto whole = decode_sdk_volume_inspect_with_filters(text);
  check(whole);
  sdk_volume_stream stream;
  std::size_t piece = 1 + size % 61;
  for (std::size_t i = 0; i < text.size(); i += piece)
    stream.feed(text.substr(i, piece));
  auto streamed = stream.finish();
  check(streamed);
  if (whole) {
    FUZZ_CHECK(streamed.has_value());
    FUZZ_CHECK(streamed->size() == whole->size());
    for (std::size_t i = 0; i < whole->size(); ++i) {
      FUZZ_CHECK((*streamed)[i].id == (*whole)[i].id);
      FUZZ_CHECK((*streamed)[i].name == (*whole)[i].name);
      FUZZ_CHECK((*streamed)[i].replica_node_ids == (*whole)[i].replica_node_ids);
    }
  }
#elif SCHEDOPT_FUZZ_SDK == 3 // GET /v1/nodes, GET /v1/nodes/filters
  check(decode_sdk_node_enumerate(text));
  check(decode_sdk_node_enumerate_with_filters(text));
#elif SCHEDOPT_FUZZ_SDK == 4 // GET /v1/nodes/inspect/{id}
  check(decode_sdk_node_inspect(text));
#endif
  (void)sdk_error_message(text); // every non-2xx body
  return 0;
}
