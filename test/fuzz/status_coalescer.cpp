// The status coalescer (model/status_coalescer) driven by a random sequence of updates,
// with its invariants asserted after every step: counters never decrease (a resume may
// start them again from what was written), details never exceed the cap, every reason
// is at most 256 bytes of whole UTF-8 sequences, due()/next_due() agree, and every
// patch decodes back to the counters it was taken from. The checks are FUZZ_NO_COVERAGE:
// libFuzzer is steered by the coalescer's branches, not by the checker's.
#include <algorithm>
#include <optional>

#include "fuzz_support.hpp"
#include "model/decode.hpp"
#include "model/kinds/vm_hyperconvergence/spec.hpp"
#include "model/reason.hpp"
#include "model/status_coalescer.hpp"

namespace {

using namespace schedopt;

class input {
public:
  input(const uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  template <class T>
  T pick(std::initializer_list<T> items) {
    return items.begin()[byte() % items.size()];
  }
  /// Valid UTF-8 of 1- to 4-byte sequences, up to ~600 bytes so the 256-byte cap bites.
  std::string text() {
    std::size_t n = byte();
    uint64_t h = 0x9E3779B97F4A7C15ull ^ byte();
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
      h ^= h << 13, h ^= h >> 7, h ^= h << 17;
      switch (h % 8) {
        case 0: out += "\xC3\xA9"; break;         // é
        case 1: out += "\xE2\x82\xAC"; break;     // €
        case 2: out += "\xF0\x9F\x98\x80"; break; // 😀
        default: out += static_cast<char>(0x20 + h % 95);
      }
    }
    return out;
  }

private:
  const uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

/// Steps per input: room to fill the largest detail cap (39) and to patch, shrink and
/// restore around it. 256 made each input slow (every step re-checks every detail) and
/// the target explored little; run.sh's -max_len=1024 matches it.
constexpr int max_steps = 64;

FUZZ_NO_COVERAGE void check_reason(const std::string& r) {
  FUZZ_CHECK(r.size() <= max_reason_bytes);
  FUZZ_CHECK(fuzz::valid_utf8(r));
}

/// The object as the API server holds it after the patch: its status plus a name. A
/// splice, not a JSON round trip: the patch is `[{"op":"test",...},{"op":"add","path":
/// "/status","value":...}]` or the add alone (take_patch), and the decoder is what must
/// accept the status as written.
FUZZ_NO_COVERAGE scheduling_optimization_status check_patch(const std::string& patch,
                                                            const status_coalescer& c) {
  static const std::string uid_test = R"([{"op":"test","path":"/metadata/uid","value":)";
  static const std::string add_status = R"({"op":"add","path":"/status","value":)";
  FUZZ_CHECK(patch.rfind("[", 0) == 0 && patch.size() > 2
             && patch.compare(patch.size() - 2, 2, "}]") == 0);
  auto add = patch.find(add_status);
  FUZZ_CHECK(add != std::string::npos);
  FUZZ_CHECK(add == 1 || patch.rfind(uid_test, 0) == 0);
  auto value = patch.substr(add + add_status.size(),
                            patch.size() - 2 - add - add_status.size());
  auto merged = R"({"metadata":{"name":"so"},"status":)" + value + "}";
  auto so = decode_scheduling_optimization(merged);
  if (!so)
    std::fprintf(stderr, "patch %s does not decode: %s\n", patch.c_str(),
                 so.err().message.c_str());
  FUZZ_CHECK(so);
  FUZZ_CHECK(so->status.reason == c.current().reason);
  FUZZ_CHECK(so->status.stage == c.current().stage);
  const auto* mine = block_of(c.current(), vm_hyperconvergence_kind);
  const auto* theirs = block_of(so->status, vm_hyperconvergence_kind);
  FUZZ_CHECK((mine != nullptr) == (theirs != nullptr));
  if (mine) {
    FUZZ_CHECK(theirs->successful == mine->successful && theirs->skipped == mine->skipped
               && theirs->failed == mine->failed);
    FUZZ_CHECK(theirs->details.size() == mine->details.size());
  }
  return so->status;
}

/// What must hold after every step; the floors move up to what was seen.
FUZZ_NO_COVERAGE void check_step(const status_coalescer& c, timestamp now, std::size_t cap,
                                 kind_status_block& floor_counts,
                                 coalescer_stats& floor_stats) {
  const auto& s = c.current();
  check_reason(s.reason);
  if (const auto* block = block_of(s, vm_hyperconvergence_kind)) {
    const auto& vh = *block;
    FUZZ_CHECK(vh.successful >= floor_counts.successful && vh.skipped >= floor_counts.skipped
               && vh.failed >= floor_counts.failed);
    floor_counts.successful = vh.successful;
    floor_counts.skipped = vh.skipped;
    floor_counts.failed = vh.failed;
    FUZZ_CHECK(vh.details.size() <= cap);
    FUZZ_CHECK(static_cast<int64_t>(vh.details.size())
               <= vh.successful + vh.skipped + vh.failed);
    for (const auto& d : vh.details)
      check_reason(d.reason);
  }
  const auto& st = c.stats();
  FUZZ_CHECK(st.updates >= floor_stats.updates && st.patches >= floor_stats.patches
             && st.coalesced >= floor_stats.coalesced && st.coalesced <= st.updates);
  floor_stats = st;
  if (auto t = c.next_due())
    FUZZ_CHECK(c.due(std::max(*t, now)));
  else
    FUZZ_CHECK(!c.due(now));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace std::chrono;
  input in{data, size};
  std::size_t cap = in.byte() % 40;
  status_coalescer c{seconds{1 + in.byte() % 10}, seconds{1 + in.byte() % 60}, cap};
  timestamp now = timestamp{} + seconds{1'800'000'000};
  std::optional<scheduling_optimization_status> written;
  kind_status_block floor_counts; // counters seen so far
  coalescer_stats floor_stats;
  auto reason = [&] {
    return make_reason(in.pick({reason_kind::not_live_migratable, reason_kind::cooling_off,
                                reason_kind::migration_run_failed, reason_kind::no_target_node}),
                       in.text());
  };
  for (int steps = 0; !in.empty() && steps < max_steps; ++steps) {
    switch (in.byte() % 10) {
      case 0:
        c.set_stage(in.pick({request_stage::pending, request_stage::evaluating,
                             request_stage::migrating}),
                    in.pick({request_status::pending, request_status::in_progress}), now);
        break;
      case 1: c.set_observed_generation(in.byte()); break;
      case 2: c.set_reason(reason()); break;
      case 3: {
        kind_detail d;
        d.namespace_ = in.pick({"default", "ns-a", "ns-b"});
        d.name = "vm-" + std::to_string(in.byte() % 64);
        d.status = in.pick({detail_status::successful, detail_status::skipped,
                            detail_status::failed});
        if (d.status != detail_status::successful)
          d.reason = reason();
        c.add_result(vm_hyperconvergence_kind, d);
        break;
      }
      case 4: c.reserve_details(vm_hyperconvergence_kind, in.byte() % 16); break;
      case 5:
        c.finish(in.pick({request_status::successful, request_status::partial_success,
                          request_status::failed}),
                 reason(), now);
        break;
      case 6:
        if (c.shrink_details())
          cap = c.current().kinds.at(vm_hyperconvergence_kind).details.size();
        break;
      case 7: {
        bool with_uid = in.byte() % 2;
        written = check_patch(c.take_patch(now, with_uid ? "uid-1" : ""), c);
        break;
      }
      case 8: now += milliseconds{in.byte() * 250}; break;
      case 9:
        // A successor resumes from what was last written (nothing, when nothing was).
        c.restore(written.value_or(scheduling_optimization_status{}), now);
        if (const auto* block = written ? block_of(*written, vm_hyperconvergence_kind) : nullptr) {
          floor_counts = *block;
          cap = std::max(cap, block->details.size());
        } else {
          floor_counts = kind_status_block{};
        }
        break;
    }
    check_step(c, now, cap, floor_counts, floor_stats);
  }
  return 0;
}
