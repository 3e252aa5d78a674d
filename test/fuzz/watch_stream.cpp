// The watch stream (k8s/watch_parser) and the watch event decoder (decode_watch_event<T>,
// identify_watch_event): the input is a stream body fed in chunks whose sizes derive
// from the input itself. Framing must not depend on where the chunks split. run.sh caps
// an input at 4096 bytes (-max_len): every byte is framed three times and every line
// decoded twice, and larger seeds slowed the target badly.
#include <vector>

#include "fuzz_support.hpp"
#include "k8s/watch_parser.hpp"
#include "model/decode.hpp"

namespace {

using namespace schedopt;

template <class T>
void decode_line(std::string_view line) {
  auto ev = decode_watch_event<T>(line);
  if (ev) {
    FUZZ_CHECK(!ev->type.empty());
    return;
  }
  FUZZ_CHECK(ev.err().code != ec::none);
  auto id = identify_watch_event(line, ev.err());
  FUZZ_CHECK(id.why.code == ev.err().code);
}

void decode_line(unsigned selector, std::string_view line) {
  switch (selector % 10) {
    case 0: decode_line<virtual_machine_instance>(line); break;
    case 1: decode_line<virtual_machine_instance_migration>(line); break;
    case 2: decode_line<virtual_machine>(line); break;
    case 3: decode_line<persistent_volume_claim>(line); break;
    case 4: decode_line<persistent_volume>(line); break;
    case 5: decode_line<node>(line); break;
    case 6: decode_line<lease>(line); break;
    case 7: decode_line<event>(line); break;
    case 8: decode_line<api_status>(line); break;
    default: decode_line<scheduling_optimization>(line); break;
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  auto body = fuzz::as_text(data, size);
  // FNV-1a of the input: the decoder's type and the chunk sizes.
  uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i)
    h = (h ^ data[i]) * 1099511628211ull;
  auto next = [&h] {
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
    return h;
  };
  std::vector<std::string_view> chunks;
  for (std::size_t at = 0; at < body.size();) {
    std::size_t n = 1 + next() % (next() % 4 == 0 ? 512 : 16);
    n = std::min(n, body.size() - at);
    chunks.push_back(body.substr(at, n));
    at += n;
  }

  // Line framing, whole versus chunked: the same lines either way.
  std::vector<std::string> whole_lines, chunked_lines;
  {
    k8s::watch_stream_parser p;
    auto n = p.feed_lines(body, [&](std::string_view l) { whole_lines.emplace_back(l); });
    FUZZ_CHECK(n && *n == whole_lines.size());
  }
  k8s::watch_stream_parser lines_parser;
  std::size_t counted = 0;
  for (auto c : chunks) {
    auto n = lines_parser.feed_lines(c, [&](std::string_view l) {
      FUZZ_CHECK(!l.empty());
      chunked_lines.emplace_back(l);
    });
    FUZZ_CHECK(n);
    counted += *n;
    FUZZ_CHECK(lines_parser.buffered() <= body.size());
  }
  FUZZ_CHECK(counted == chunked_lines.size());
  FUZZ_CHECK(whole_lines == chunked_lines);
  unsigned selector = static_cast<unsigned>(next());
  for (const auto& l : chunked_lines)
    decode_line(selector, l);

  // Events (type + raw object) with a line limit well under -max_len, so over-long
  // lines fail too.
  k8s::watch_stream_parser events(1024);
  for (auto c : chunks) {
    auto n = events.feed(c, [&](const k8s::watch_event_view& ev) {
      FUZZ_CHECK(ev.object.size() <= body.size());
      decode_line(selector, std::string{"{\"type\":\"ADDED\",\"object\":"}
                              + std::string{ev.object} + "}");
    });
    if (!n) {
      FUZZ_CHECK(n.err().code == ec::parse_error);
      events.reset();
    }
  }
  return 0;
}
