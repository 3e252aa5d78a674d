// Newline-delimited watch events -> (type, raw object JSON).
#include "k8s/watch_parser.hpp"

#include <simdjson.h>

namespace schedopt::k8s {

struct watch_stream_parser::parser_holder {
  simdjson::ondemand::parser parser;
};

watch_stream_parser::watch_stream_parser(std::size_t max_line)
  : max_line_(max_line), parser_(std::make_unique<parser_holder>()) {
}

watch_stream_parser::~watch_stream_parser() = default;

void watch_stream_parser::reset() {
  buffer_.clear();
  start_ = 0;
  scanned_ = 0;
}

namespace {

expected<bool> parse_line(simdjson::ondemand::parser& parser, const char* data, std::size_t len,
                          std::size_t capacity, watch_event_view& out) {
  auto fail = [&](const char* what) {
    std::string preview{data, std::min<std::size_t>(len, 80)};
    return make_error(ec::parse_error, std::string{"watch event: "} + what + " in `" + preview
                                         + (len > 80 ? "...`" : "`"));
  };
  simdjson::padded_string_view view{data, len, capacity};
  auto doc = parser.iterate(view);
  if (doc.error())
    return fail("malformed JSON");
  simdjson::ondemand::object obj;
  if (doc.get_object().get(obj))
    return fail("not an object");
  bool have_type = false;
  bool have_object = false;
  for (auto field : obj) {
    std::string_view key;
    if (field.unescaped_key().get(key))
      return fail("bad key");
    if (key == "type") {
      std::string_view type;
      if (field.value().get_string().get(type))
        return fail("type is not a string");
      out.type = std::string{type};
      have_type = true;
    } else if (key == "object") {
      simdjson::ondemand::object o;
      if (field.value().get_object().get(o))
        return fail("object is not an object");
      std::string_view raw;
      if (o.raw_json().get(raw))
        return fail("malformed object");
      out.object = raw;
      have_object = true;
    }
  }
  if (!have_type || !have_object)
    return fail("missing type or object");
  if (out.type == "BOOKMARK") {
    // Small object; parse again for metadata.resourceVersion.
    simdjson::padded_string copy{out.object};
    simdjson::ondemand::parser small;
    auto bdoc = small.iterate(copy);
    std::string_view rv;
    if (!bdoc.error() && !bdoc["metadata"]["resourceVersion"].get_string().get(rv))
      out.resource_version = std::string{rv};
  }
  return true;
}

} // namespace

template <class F>
expected<std::size_t> watch_stream_parser::split(std::string_view chunk, F&& on_line) {
  // Keep SIMDJSON_PADDING spare bytes after the data so lines parse in place.
  if (buffer_.capacity() < buffer_.size() + chunk.size() + simdjson::SIMDJSON_PADDING)
    buffer_.reserve(2 * (buffer_.size() + chunk.size()) + simdjson::SIMDJSON_PADDING);
  buffer_.append(chunk.data(), chunk.size());
  std::size_t lines = 0;
  while (true) {
    auto nl = buffer_.find('\n', scanned_);
    if (nl == std::string::npos) {
      scanned_ = buffer_.size();
      if (buffer_.size() - start_ > max_line_) {
        reset();
        return make_error(ec::parse_error, "watch event longer than "
                                             + std::to_string(max_line_) + " bytes");
      }
      break;
    }
    auto len = nl - start_;
    const char* line = buffer_.data() + start_;
    // Trim a trailing '\r' and skip blank keep-alive lines.
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
      --len;
    auto capacity = buffer_.capacity() - start_;
    start_ = nl + 1;
    scanned_ = start_;
    if (len > 0) {
      if (auto ok = on_line(line, len, capacity); !ok)
        return ok.err();
      ++lines;
    }
  }
  // Compact once the consumed prefix dominates.
  if (start_ > 0 && (start_ == buffer_.size() || start_ > buffer_.size() / 2)) {
    buffer_.erase(0, start_);
    scanned_ -= start_;
    start_ = 0;
  }
  return lines;
}

expected<std::size_t> watch_stream_parser::feed(std::string_view chunk, const callback& on_event) {
  return split(chunk, [&](const char* line, std::size_t len, std::size_t capacity) {
    watch_event_view ev;
    auto ok = parse_line(parser_->parser, line, len, capacity, ev);
    if (ok)
      on_event(ev);
    return ok;
  });
}

expected<std::size_t> watch_stream_parser::feed_lines(std::string_view chunk,
                                                      const line_callback& on_line) {
  return split(chunk, [&](const char* line, std::size_t len, std::size_t) -> expected<bool> {
    on_line(std::string_view{line, len});
    return true;
  });
}

} // namespace schedopt::k8s
