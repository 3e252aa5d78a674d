// See json_array_stream.hpp.
#include "model/json_array_stream.hpp"
#include "model/json_split.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace schedopt {

namespace {

// As json_split: deeper elements are left alone.
using json_scan::max_depth;
using json_scan::is_space;
// What follows the array is the envelope's few closing bytes; more is not a bulk answer.
constexpr std::size_t max_tail = 1 << 20;

// Inside a string only `"` and `\\` matter, and string contents are most of a bulk
// answer's bytes (read on the thread that downloads it): they are
// skipped 16 bytes at a time where SSE2 is there (every x86-64), byte by byte elsewhere.
std::size_t next_quote_or_backslash(std::string_view bytes, std::size_t i) {
  const std::size_t n = bytes.size();
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= n; i += 16) {
    __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes.data() + i));
    auto hits = static_cast<unsigned>(_mm_movemask_epi8(
      _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash))));
    if (hits != 0)
      return i + static_cast<std::size_t>(__builtin_ctz(hits));
  }
#endif
  while (i < n && bytes[i] != '"' && bytes[i] != '\\')
    ++i;
  return i;
}

} // namespace

json_array_stream::json_array_stream(std::string key) : key_(std::move(key)) {}

// The prefix must read `{`, `"<key>"`, `:`, `[` (with spaces between): decided as soon as
// enough has arrived; any other start keeps the whole document for the usual parse.
void json_array_stream::read_prefix() {
  std::size_t i = 0;
  auto space = [&] {
    while (i < prefix_.size() && is_space(prefix_[i]))
      ++i;
    return i < prefix_.size();
  };
  auto expect = [&](char c) -> int { // 1 matched, 0 needs more, -1 mismatch
    if (!space())
      return 0;
    return prefix_[i++] == c ? 1 : -1;
  };
  auto step = expect('{');
  if (step == 1)
    step = expect('"');
  if (step == 1) {
    if (prefix_.size() < i + key_.size() + 1)
      return; // the key has not all arrived
    if (prefix_.compare(i, key_.size(), key_) != 0 || prefix_[i + key_.size()] != '"') {
      state_ = shape::whole;
      return;
    }
    i += key_.size() + 1;
    step = expect(':');
  }
  if (step == 1)
    step = expect('[');
  if (step == 0)
    return;
  if (step == -1) {
    state_ = shape::whole;
    return;
  }
  rest_ = prefix_.substr(i);
  prefix_.resize(i); // with the `[`
  prefix_.pop_back(); // the envelope puts `[]` back
  state_ = shape::streaming;
  phase_ = phase::between;
}

void json_array_stream::feed(std::string_view bytes,
                             const std::function<void(std::string_view)>& element) {
  if (state_ == shape::broken)
    return;
  if (state_ == shape::unknown || state_ == shape::whole) {
    prefix_.append(bytes);
    if (state_ == shape::unknown)
      read_prefix();
    if (state_ != shape::streaming)
      return;
    auto rest = std::move(rest_); // what came after `[` with the prefix
    rest_.clear();
    scan(rest, element);
    return;
  }
  scan(bytes, element);
}

// Element text is copied once per piece (a span), not byte by byte, and an element that
// lies whole in one piece is handed out as a view of it.
void json_array_stream::scan(std::string_view bytes,
                             const std::function<void(std::string_view)>& element) {
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  std::size_t span = 0; // where this piece's part of the current element starts
  while (i < n && state_ != shape::broken) {
    switch (phase_) {
    case phase::prefix:
      return;
    case phase::after:
      tail_.append(bytes.substr(i));
      if (tail_.size() > max_tail)
        state_ = shape::broken;
      return;
    case phase::between: {
      char c = bytes[i];
      if (is_space(c)) {
        ++i;
        continue;
      }
      if (c == ',' || (c == ']' && need_element_)) { // `[,1]`, `[1,,2]`, `[1,]`
        state_ = shape::broken;
        return;
      }
      if (c == ']') {
        phase_ = phase::after;
        ++i;
        continue;
      }
      phase_ = phase::element;
      current_.clear();
      depth_ = 0;
      in_string_ = escape_ = false;
      span = i;
      break;
    }
    case phase::element:
      break;
    }
    for (; i < n; ++i) {
      char c = bytes[i];
      if (in_string_) {
        if (escape_) {
          escape_ = false;
          continue;
        }
        i = next_quote_or_backslash(bytes, i);
        if (i == n)
          break;
        if (bytes[i] == '\\')
          escape_ = true;
        else
          in_string_ = false;
        continue;
      }
      if (c == '"') {
        in_string_ = true;
        continue;
      }
      if (c == '{' || c == '[') {
        if (++depth_ > max_depth) {
          state_ = shape::broken;
          return;
        }
        continue;
      }
      if ((c == '}' || c == ']') && depth_ > 0) {
        --depth_;
        continue;
      }
      if (c != ']' && c != '}' && (c != ',' || depth_ != 0))
        continue;
      if (c == '}') { // `[{...}}`: unbalanced
        state_ = shape::broken;
        return;
      }
      // The element ends before `c` (`,` or the array's `]`).
      std::string_view text;
      if (current_.empty()) {
        text = bytes.substr(span, i - span);
      } else {
        current_.append(bytes.substr(span, i - span));
        text = current_;
      }
      while (!text.empty() && is_space(text.back()))
        text.remove_suffix(1);
      if (element)
        element(text);
      current_.clear();
      phase_ = c == ']' ? phase::after : phase::between;
      need_element_ = c == ',';
      ++i;
      break;
    }
    if (phase_ == phase::element && i >= n)
      current_.append(bytes.substr(span));
  }
}

} // namespace schedopt
