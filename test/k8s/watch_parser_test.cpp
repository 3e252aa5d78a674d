// Watch stream splitting: events split anywhere, 1 MB objects, bookmarks, bad lines.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "k8s/watch_parser.hpp"

using schedopt::k8s::watch_event_view;
using schedopt::k8s::watch_stream_parser;

namespace {

struct seen {
  std::string type;
  std::string object;
  std::string rv;
};

std::vector<seen> feed_in_pieces(watch_stream_parser& p, const std::string& body, size_t piece) {
  std::vector<seen> out;
  for (size_t i = 0; i < body.size(); i += piece) {
    auto chunk = std::string_view{body}.substr(i, piece);
    auto r = p.feed(chunk, [&](const watch_event_view& ev) {
      out.push_back({ev.type, std::string{ev.object}, ev.resource_version});
    });
    BOOST_REQUIRE_MESSAGE(r.has_value(), (r.has_value() ? std::string{} : r.err().message));
  }
  return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(watch_parser_splits_events_at_every_chunk_size) {
  std::string body = R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}})"
                     "\n"
                     R"({"object":{"metadata":{"name":"b"}},"type":"MODIFIED"})"
                     "\r\n\n"
                     R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"42"}}})"
                     "\n";
  for (size_t piece : {1, 2, 3, 7, 16, 64, 1000}) {
    watch_stream_parser p;
    auto events = feed_in_pieces(p, body, piece);
    BOOST_REQUIRE_EQUAL(events.size(), 3u);
    BOOST_CHECK_EQUAL(events[0].type, "ADDED");
    BOOST_CHECK_EQUAL(events[0].object, R"({"metadata":{"name":"a","resourceVersion":"5"}})");
    BOOST_CHECK_EQUAL(events[1].type, "MODIFIED");
    BOOST_CHECK_EQUAL(events[1].object, R"({"metadata":{"name":"b"}})");
    BOOST_CHECK_EQUAL(events[2].type, "BOOKMARK");
    BOOST_CHECK_EQUAL(events[2].rv, "42");
    BOOST_CHECK_EQUAL(p.buffered(), 0u);
  }
}

BOOST_AUTO_TEST_CASE(watch_parser_keeps_partial_line_until_newline) {
  watch_stream_parser p;
  int n = 0;
  auto r = p.feed(R"({"type":"ADDED","object":{"a":1}})", [&](const watch_event_view&) { ++n; });
  BOOST_REQUIRE(r.has_value());
  BOOST_CHECK_EQUAL(n, 0);
  BOOST_CHECK_GT(p.buffered(), 0u);
  r = p.feed("\n", [&](const watch_event_view&) { ++n; });
  BOOST_CHECK_EQUAL(n, 1);
}

BOOST_AUTO_TEST_CASE(watch_parser_handles_a_one_megabyte_object) {
  std::string big(1024 * 1024, 'x');
  std::string body = R"({"type":"ADDED","object":{"kind":"ConfigMap","data":{"blob":")" + big
                     + "\"}}}\n";
  for (size_t piece : {size_t{1000}, size_t{16384}, size_t{65536}}) {
    watch_stream_parser p;
    auto events = feed_in_pieces(p, body, piece);
    BOOST_REQUIRE_EQUAL(events.size(), 1u);
    BOOST_CHECK_EQUAL(events[0].object.size(), big.size() + 39);
    BOOST_CHECK(events[0].object.find(big) != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(watch_parser_reports_malformed_lines) {
  watch_stream_parser p;
  auto r = p.feed("{\"type\":\"ADDED\",\"object\":{\"a\":}\n", [](const watch_event_view&) {});
  BOOST_REQUIRE(!r.has_value());
  BOOST_CHECK(r.err().message.find("watch event") != std::string::npos);
  watch_stream_parser q;
  auto missing = q.feed("{\"type\":\"ADDED\"}\n", [](const watch_event_view&) {});
  BOOST_CHECK(!missing.has_value());
}

BOOST_AUTO_TEST_CASE(watch_parser_limits_line_length) {
  watch_stream_parser p{1000};
  auto r = p.feed(std::string(2000, 'a'), [](const watch_event_view&) {});
  BOOST_CHECK(!r.has_value());
}

BOOST_AUTO_TEST_CASE(watch_parser_line_mode_yields_whole_lines) {
  watch_stream_parser p;
  std::vector<std::string> lines;
  std::string body = "{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"";
  for (char c : body)
    BOOST_REQUIRE(p.feed_lines(std::string_view{&c, 1},
                               [&](std::string_view l) { lines.emplace_back(l); }).has_value());
  BOOST_REQUIRE_EQUAL(lines.size(), 2u);
  BOOST_CHECK_EQUAL(lines[0], "{\"a\":1}");
  BOOST_CHECK_EQUAL(lines[1], "{\"b\":2}");
}
