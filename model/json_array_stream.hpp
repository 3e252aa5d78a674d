// Cuts the elements of one top-level array out of a JSON document that arrives in
// pieces, so a bulk answer is decoded while it downloads and is never held whole: the
// Portworx inspectwithfilters answer grows with every volume of the cluster.
// The scanner keeps its place (string, escape, depth) across pieces, so every byte is
// looked at once however the pieces are cut, and only the element being read is kept.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace schedopt {

class json_array_stream {
public:
  /// What the document turned out to be so far.
  enum class shape {
    unknown,   // its start has not arrived yet
    streaming, // {"<key>":[ ... seen: elements are handed out as they complete
    whole,     // shaped otherwise (another member first, not an object, an escaped key):
               // every byte is kept in whole_text() for the caller's usual parse
    broken,    // the array's elements do not balance, or nest past simdjson's depth
  };

  explicit json_array_stream(std::string key);

  /// Feeds the next bytes; `element` gets each complete element's text, in order.
  void feed(std::string_view bytes, const std::function<void(std::string_view)>& element);

  shape state() const { return state_; }
  /// streaming: the array was closed (the rest is in envelope()).
  bool array_closed() const { return phase_ == phase::after; }
  /// streaming: the document without its elements (`{"<key>":[]}` plus what followed
  /// the array), to be parsed and type-checked as the whole document would be.
  std::string envelope() const { return prefix_ + "[]" + tail_; }
  /// whole: the document so far.
  const std::string& whole_text() const { return prefix_; }

private:
  enum class phase { prefix, between, element, after };
  void read_prefix();
  void scan(std::string_view bytes, const std::function<void(std::string_view)>& element);

  std::string key_;
  shape state_ = shape::unknown;
  phase phase_ = phase::prefix;
  std::string prefix_;  // up to and without the array's `[` (everything, once whole)
  std::string rest_;    // bytes after `[` that came in the prefix's last piece
  std::string current_; // the element being read
  std::string tail_;    // after the array's `]`
  std::size_t depth_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool need_element_ = false; // after a `,`: another element must follow
};

} // namespace schedopt
