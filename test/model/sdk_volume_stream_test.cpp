// The bulk SDK answer decoded while it downloads (model/json_array_stream,
// sdk_volume_stream): however the body is cut into pieces, the result and the errors
// are those of decoding it whole.
#include <boost/test/unit_test.hpp>

#include "model/json_array_stream.hpp"
#include "model/portworx_sdk.hpp"

using namespace schedopt;

namespace {

const std::string answer = R"( {"volumes" : [
    {"volume":{"id":"111","locator":{"name":"pv-a"},
               "replica_sets":[{"nodes":["px2","px1"]},{"nodes":["px3","px1"]}]},
     "name":"pv-a","labels":{"pvc":"a \"quoted\" ]},["}},
    null,
    {"volume":{"id":"222","locator":{"name":"pv-b"},"replicaSets":[{"nodes":["px9"]}]}}] } )";

/// The body fed in pieces of `piece` bytes.
expected<std::vector<sdk_volume>> streamed(const std::string& body, std::size_t piece) {
  sdk_volume_stream s;
  for (std::size_t i = 0; i < body.size(); i += piece)
    s.feed(std::string_view{body}.substr(i, piece));
  BOOST_CHECK_EQUAL(s.size(), body.size());
  return s.finish();
}

std::string outcome(const expected<std::vector<sdk_volume>>& r) {
  if (!r)
    return "error: " + r.err().message;
  std::string out;
  for (auto& v : *r) {
    out += v.id + "/" + v.name + ":";
    for (auto& n : v.replica_node_ids)
      out += n + ",";
    out += ";";
  }
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sdk_volume_stream_suite)

BOOST_AUTO_TEST_CASE(every_cut_of_the_body_decodes_as_the_whole_body) {
  auto whole = outcome(decode_sdk_volume_inspect_with_filters(answer));
  BOOST_REQUIRE_EQUAL(whole, "111/pv-a:px1,px2,px3,;222/pv-b:px9,;");
  for (std::size_t piece = 1; piece <= answer.size(); ++piece)
    BOOST_CHECK_MESSAGE(outcome(streamed(answer, piece)) == whole, "pieces of " << piece);
}

BOOST_AUTO_TEST_CASE(errors_are_those_of_the_whole_decode_or_name_the_element) {
  // Shaped otherwise: kept whole, so decoded exactly as before.
  for (std::string body : {std::string{"{}"}, std::string{R"({"other":1,"volumes":[]})"},
                           std::string{"[1]"}, std::string{"not json"},
                           std::string{R"({"vol\u0075mes":[]})"}}) {
    for (std::size_t piece : {1u, 3u, 64u})
      BOOST_CHECK_EQUAL(outcome(streamed(body, piece)),
                        outcome(decode_sdk_volume_inspect_with_filters(body)));
  }
  // An element with a field of the wrong type: the same message as decoding whole.
  std::string wrong = R"({"volumes":[{"volume":{"id":"1"}},{"volume":{"id":"2","replica_sets":[{"nodes":"px1"}]}}]})";
  BOOST_CHECK_EQUAL(outcome(streamed(wrong, 7)), outcome(decode_sdk_volume_inspect_with_filters(wrong)));
  BOOST_CHECK_NE(outcome(streamed(wrong, 7)).find("volumes[1].volume.replica_sets[0].nodes"),
                 std::string::npos);
  // Not JSON inside an element, a body cut short, brackets that do not balance, a
  // trailing comma, a wrong envelope after the array: each fails, saying where.
  BOOST_CHECK_EQUAL(outcome(streamed(R"({"volumes":[{"volume":{"id":"1"}},{"volume":{id}}]})", 5)),
                    "error: volumes[1]: not valid JSON");
  BOOST_CHECK_EQUAL(outcome(streamed(R"({"volumes":[{"volume":{"id":"1"}},{"vol)", 5)),
                    "error: the answer ends inside volumes[1]");
  BOOST_CHECK_EQUAL(outcome(streamed(R"({"volumes":[{"volume":{"id":"1"}}}]})", 4)),
                    "error: volumes[0]: brackets or strings do not balance");
  BOOST_CHECK(!streamed(R"({"volumes":[{"volume":{"id":"1"}},]})", 2));
  BOOST_CHECK(!streamed(R"({"volumes":[,{"volume":{"id":"1"}}]})", 2));
  BOOST_CHECK(!streamed(R"({"volumes":[{"volume":{"id":"1"}}],"more":})", 2));
  BOOST_CHECK(!streamed(R"({"volumes":[{"volume":{"id":"1"}}])", 2)); // no closing brace
}

BOOST_AUTO_TEST_CASE(only_the_element_being_read_is_held) {
  json_array_stream s{"volumes"};
  std::vector<std::string> got;
  auto take = [&](std::string_view e) { got.emplace_back(e); };
  s.feed(R"({"volumes":[ {"a":[1,2]} , "x]", )", take);
  BOOST_CHECK(s.state() == json_array_stream::shape::streaming);
  BOOST_REQUIRE_EQUAL(got.size(), 2u);
  BOOST_CHECK_EQUAL(got[0], R"({"a":[1,2]})");
  BOOST_CHECK_EQUAL(got[1], R"("x]")");
  s.feed(R"(3 ] , "k": {} })", take);
  BOOST_REQUIRE_EQUAL(got.size(), 3u);
  BOOST_CHECK_EQUAL(got[2], "3");
  BOOST_CHECK(s.array_closed());
  BOOST_CHECK_EQUAL(s.envelope(), R"({"volumes":[] , "k": {} })");
}

// With a sink the volumes are handed over as they decode, none collected: the sink sees
// what the collecting decode returns, for a streamed body and for one decoded whole.
BOOST_AUTO_TEST_CASE(a_sink_gets_each_volume_and_nothing_is_collected) {
  for (std::string body : {answer, std::string{R"({"other":1,"volumes":[{"volume":{"id":"7"}}]})"}}) {
    auto whole = outcome(decode_sdk_volume_inspect_with_filters(body));
    std::vector<sdk_volume> sunk;
    sdk_volume_stream s{[&](sdk_volume&& v) { sunk.push_back(std::move(v)); }};
    for (std::size_t i = 0; i < body.size(); i += 5)
      s.feed(std::string_view{body}.substr(i, 5));
    auto r = s.finish();
    BOOST_REQUIRE(r);
    BOOST_CHECK(r->empty());
    BOOST_CHECK_EQUAL(s.count(), sunk.size());
    BOOST_CHECK_EQUAL(outcome(sunk), whole);
  }
}

BOOST_AUTO_TEST_SUITE_END()
