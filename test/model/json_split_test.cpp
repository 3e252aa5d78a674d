// Cutting a list page's array out of the document (model/json_split.hpp), and the
// decoders that read a page element by element giving what a whole-page parse gives.
#include <boost/test/unit_test.hpp>

#include <malloc.h>

#include "model/decode.hpp"
#include "model/json_split.hpp"
#include "model/portworx_sdk.hpp"

using namespace schedopt;

namespace {

std::size_t heap_in_use() {
  auto info = mallinfo2();
  return info.uordblks + info.hblkhd;
}

std::string volumes_answer(int count) {
  std::string out = R"({"volumes":[)";
  for (int i = 0; i < count; ++i) {
    if (i > 0)
      out += ',';
    auto id = std::to_string(100000 + i);
    out += R"({"name":"pv-)" + id + R"(","labels":{"pvc":"claim-)" + id + R"("},"volume":{"id":")"
           + id + R"(","locator":{"name":"pv-)" + id
           + R"("},"replica_sets":[{"nodes":["node-a-0000-1111","node-b-2222-3333"]}],)"
           + R"("spec":{"size":"21474836480","ha_level":"2","cos":"HIGH"}}})";
  }
  return out + "]}";
}

} // namespace

BOOST_AUTO_TEST_SUITE(json_split)

BOOST_AUTO_TEST_CASE(cuts_the_top_level_array_out) {
  auto s = split_top_level_array(
    R"( {"kind":"L","metadata":{"items":[9]},"items":[ {"a":"x,]}\"["} , 5,null ,[1,[2]]],"tail":{"items":1}} )",
    "items");
  BOOST_REQUIRE(s);
  BOOST_REQUIRE_EQUAL(s->elements.size(), 4u);
  BOOST_CHECK_EQUAL(s->elements[0], R"({"a":"x,]}\"["})");
  BOOST_CHECK_EQUAL(s->elements[1], "5");
  BOOST_CHECK_EQUAL(s->elements[2], "null");
  BOOST_CHECK_EQUAL(s->elements[3], "[1,[2]]");
  BOOST_CHECK_EQUAL(s->envelope,
                    R"( {"kind":"L","metadata":{"items":[9]},"items":[],"tail":{"items":1}} )");
  auto empty = split_top_level_array(R"({"items":[ ]})", "items");
  BOOST_REQUIRE(empty);
  BOOST_CHECK(empty->elements.empty());
  BOOST_CHECK_EQUAL(empty->envelope, R"({"items":[]})");
}

BOOST_AUTO_TEST_CASE(leaves_what_it_cannot_cut_to_the_whole_parse) {
  for (const char* doc : {R"({"metadata":{}})", R"({"items":{}})", R"({"items":null})",
                          R"({"it\u0065ms":[1],"items":[2]})", R"({"items":[1,]})",
                          R"({"items":[1,,2]})", R"({"items":[{"a":1})", R"({"items":["x)",
                          R"([{"items":[1]}])", R"({"a":"b" "items":[1]})", ""}) {
    BOOST_TEST_CONTEXT(doc) { BOOST_CHECK(!split_top_level_array(doc, "items")); }
  }
  std::string deep = R"({"items":[)" + std::string(1200, '[') + std::string(1200, ']') + "]}";
  BOOST_CHECK(!split_top_level_array(deep, "items"));
}

BOOST_AUTO_TEST_CASE(a_split_page_decodes_as_a_whole_one) {
  auto list = decode_list<node>(R"({"kind":"NodeList","metadata":{"resourceVersion":"7",
    "continue":"c1"},"items":[{"metadata":{"name":"a","labels":{"zone":"z1"}}},null,
    {"metadata":{"name":"b"},"spec":{"unschedulable":"no"}},7,{"metadata":{"name":"c"}}]})");
  BOOST_REQUIRE(list);
  BOOST_CHECK_EQUAL(list->resource_version, "7");
  BOOST_CHECK_EQUAL(list->continue_token, "c1");
  BOOST_REQUIRE_EQUAL(list->items.size(), 2u);
  BOOST_CHECK_EQUAL(list->items[0].metadata.labels.at("zone"), "z1");
  BOOST_CHECK_EQUAL(list->items[1].metadata.name, "c");
  BOOST_REQUIRE_EQUAL(list->skipped.size(), 2u);
  BOOST_CHECK_EQUAL(list->skipped[0].name, "b");
  BOOST_CHECK_EQUAL(list->skipped[0].why.message, "items[2].spec.unschedulable: expected boolean, got string");
  BOOST_CHECK_EQUAL(list->skipped[1].why.message, "items[3]: expected object, got number");
}

BOOST_AUTO_TEST_CASE(an_invalid_item_still_fails_the_whole_page) {
  auto list = decode_list<node>(R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":tru}}]})");
  BOOST_REQUIRE(!list);
  BOOST_CHECK_EQUAL(list.err().message.rfind("malformed JSON", 0), 0u);
  auto tail = decode_list<node>(R"({"items":[{"metadata":{"name":"a"}}],"metadata":{"continue":5}})");
  BOOST_REQUIRE(!tail);
  BOOST_CHECK_EQUAL(tail.err().message, "metadata.continue: expected string, got number");
  auto bad_volume = decode_sdk_volume_inspect_with_filters(R"({"volumes":[{"volume":{"id":"1"}},{"volume":{"id":2}}]})");
  BOOST_REQUIRE(!bad_volume);
  BOOST_CHECK_EQUAL(bad_volume.err().message, "volumes[1].volume.id: expected string, got number");
}

// A thread's parser used to keep the capacity of the largest answer it parsed (~14.7
// bytes allocated per byte of JSON) for the process's life.
BOOST_AUTO_TEST_CASE(a_large_answer_leaves_no_page_sized_parser_behind) {
  auto answer = volumes_answer(20000);
  BOOST_REQUIRE_GT(answer.size(), 4u << 20);
  auto before = heap_in_use();
  {
    auto vols = decode_sdk_volume_inspect_with_filters(answer);
    BOOST_REQUIRE(vols);
    BOOST_REQUIRE_EQUAL(vols->size(), 20000u);
    BOOST_CHECK_EQUAL((*vols)[19999].id, "119999");
    BOOST_CHECK_EQUAL((*vols)[19999].replica_node_ids.size(), 2u);
  }
  auto after = heap_in_use();
  BOOST_CHECK_LT(after, before + answer.size() / 4);
}

BOOST_AUTO_TEST_SUITE_END()
