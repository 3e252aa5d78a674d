// The API server's error and list bodies as k8s/ reads them: api_error(status, body)
// (the Status a failed call answers, any HTTP status) and read_list_metadata.
#include "fuzz_support.hpp"
#include "k8s/api_errors.hpp"
#include "k8s/requests.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  if (size < 2)
    return 0;
  int http_status = 100 + (data[0] << 8 | data[1]) % 500;
  auto body = fuzz::as_text(data + 2, size - 2);
  auto e = k8s::api_error(http_status, body);
  FUZZ_CHECK(e.code != ec::none && !e.message.empty());
  (void)k8s::read_list_metadata(body);
  return 0;
}
