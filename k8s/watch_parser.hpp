// Splits a watch body (newline-delimited JSON events, arriving in arbitrary chunks) into
// events: type plus the raw JSON of the object. Parsed with simdjson without copying lines.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "model/error.hpp"

namespace schedopt::k8s {

struct watch_event_view {
  std::string type;        // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  std::string_view object; // raw JSON of "object", valid during the callback only
  std::string resource_version; // metadata.resourceVersion, filled for BOOKMARK only
};

class watch_stream_parser {
public:
  using callback = std::function<void(const watch_event_view&)>;

  explicit watch_stream_parser(std::size_t max_line = 64 * 1024 * 1024);
  ~watch_stream_parser();

  /// Appends `chunk` and calls `on_event` for every complete line. Returns the number of
  /// events, or a parse_error (malformed event, or a line longer than max_line).
  expected<std::size_t> feed(std::string_view chunk, const callback& on_event);

  /// Line splitting only: calls `on_line` for every complete non-blank line (without
  /// the newline); for callers that decode whole events themselves (decode_watch_event).
  using line_callback = std::function<void(std::string_view)>;
  expected<std::size_t> feed_lines(std::string_view chunk, const line_callback& on_line);

  /// Bytes waiting for their newline.
  std::size_t buffered() const { return buffer_.size() - start_; }

  void reset();

private:
  template <class F>
  expected<std::size_t> split(std::string_view chunk, F&& on_line);

  std::string buffer_;
  std::size_t start_ = 0; // first byte not yet consumed
  std::size_t scanned_ = 0; // bytes already searched for '\n'
  std::size_t max_line_;
  struct parser_holder;
  std::unique_ptr<parser_holder> parser_;
};

} // namespace schedopt::k8s
