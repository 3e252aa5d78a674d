// decode_list<T> (list pages) on arbitrary bytes; the type is chosen by the input's
// first byte so one target covers every listed resource.
#include "fuzz_support.hpp"
#include "model/decode.hpp"

namespace {

using namespace schedopt;

template <class T>
void decode_page(std::string_view text) {
  auto page = decode_list<T>(text);
  if (!page) {
    FUZZ_CHECK(page.err().code != ec::none && !page.err().message.empty());
    return;
  }
  for (const auto& s : page->skipped)
    FUZZ_CHECK(s.why.code != ec::none && !s.why.message.empty());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size == 0)
    return 0;
  auto text = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 10) {
    case 0: decode_page<virtual_machine_instance>(text); break;
    case 1: decode_page<virtual_machine_instance_migration>(text); break;
    case 2: decode_page<virtual_machine>(text); break;
    case 3: decode_page<persistent_volume_claim>(text); break;
    case 4: decode_page<persistent_volume>(text); break;
    case 5: decode_page<node>(text); break;
    case 6: decode_page<lease>(text); break;
    case 7: decode_page<event>(text); break;
    case 8: decode_page<api_status>(text); break;
    default: decode_page<scheduling_optimization>(text); break;
  }
  return 0;
}
