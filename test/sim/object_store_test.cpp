// Unit tests of the simulator's object store (no HTTP): versions, conflicts, status
// subresource, generation, finalizers, watch history and 410.
#include <boost/test/unit_test.hpp>

#include "sim/object_store.hpp"

using schedopt::ec;
using schedopt::sim::json;
using schedopt::sim::object_store;
using schedopt::sim::resource_type;

namespace {

resource_type crd_type() {
  resource_type t;
  t.group = "example.io";
  t.version = "v1";
  t.kind = "Widget";
  t.plural = "widgets";
  t.singular = "widget";
  t.list_kind = "WidgetList";
  t.namespaced = true;
  t.status_subresource = true;
  return t;
}

const std::string key = "widgets.example.io";

json widget(const std::string& name, int size = 1) {
  return {{"apiVersion", "example.io/v1"},
          {"kind", "Widget"},
          {"metadata", {{"name", name}, {"namespace", "ns1"}}},
          {"spec", {{"size", size}}}};
}

struct store_fixture {
  object_store store{100};
  store_fixture() { store.register_type(crd_type()); }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(object_store_suite, store_fixture)

BOOST_AUTO_TEST_CASE(create_fills_metadata_and_rejects_duplicates) {
  auto made = store.create(key, widget("a"));
  BOOST_REQUIRE(made);
  auto& meta = (*made)["metadata"];
  BOOST_TEST(meta["uid"].get<std::string>().size() == 36u);
  BOOST_TEST(meta["generation"].get<int>() == 1);
  BOOST_TEST(!meta["creationTimestamp"].get<std::string>().empty());
  BOOST_TEST(meta["resourceVersion"].get<std::string>() == std::to_string(store.resource_version()));
  auto again = store.create(key, widget("a"));
  BOOST_REQUIRE(!again);
  BOOST_TEST(again.err().http_status == 409);
  BOOST_TEST(again.err().code == ec::already_exists);
  BOOST_TEST(again.err().message == "widgets.example.io \"a\" already exists");
}

BOOST_AUTO_TEST_CASE(generate_name_appends_five_characters) {
  auto obj = widget("");
  obj["metadata"].erase("name");
  obj["metadata"]["generateName"] = "w-";
  auto made = store.create(key, obj);
  BOOST_REQUIRE(made);
  auto name = (*made)["metadata"]["name"].get<std::string>();
  BOOST_TEST(name.size() == 7u);
  BOOST_TEST(name.rfind("w-", 0) == 0u);
  auto nameless = widget("");
  nameless["metadata"].erase("name");
  auto refused = store.create(key, nameless);
  BOOST_REQUIRE(!refused);
  BOOST_TEST(refused.err().http_status == 422);
}

BOOST_AUTO_TEST_CASE(replace_with_stale_version_conflicts) {
  auto made = store.create(key, widget("a"));
  BOOST_REQUIRE(made);
  auto first = *made;
  auto updated = first;
  updated["spec"]["size"] = 2;
  auto ok = store.replace(key, updated, false);
  BOOST_REQUIRE(ok);
  BOOST_TEST((*ok)["metadata"]["generation"].get<int>() == 2);
  auto stale = first;
  stale["spec"]["size"] = 3;
  auto conflict = store.replace(key, stale, false);
  BOOST_REQUIRE(!conflict);
  BOOST_TEST(conflict.err().http_status == 409);
  BOOST_TEST(conflict.err().message
             == "Operation cannot be fulfilled on widgets.example.io \"a\": the object has been "
                "modified; please apply your changes to the latest version and try again");
}

BOOST_AUTO_TEST_CASE(status_subresource_separates_spec_and_status) {
  auto made = store.create(key, widget("a"));
  BOOST_REQUIRE(made);
  auto with_status = *made;
  with_status["status"] = {{"phase", "Ready"}};
  with_status["spec"]["size"] = 5;
  // Main resource: status ignored, spec taken.
  auto main = store.replace(key, with_status, false);
  BOOST_REQUIRE(main);
  BOOST_TEST(!main->contains("status"));
  BOOST_TEST((*main)["spec"]["size"].get<int>() == 5);
  // /status: status taken, spec ignored, generation unchanged.
  auto status_update = *main;
  status_update["status"] = {{"phase", "Ready"}};
  status_update["spec"]["size"] = 9;
  auto status = store.replace(key, status_update, true);
  BOOST_REQUIRE(status);
  BOOST_TEST((*status)["status"]["phase"].get<std::string>() == "Ready");
  BOOST_TEST((*status)["spec"]["size"].get<int>() == 5);
  BOOST_TEST((*status)["metadata"]["generation"].get<int>() == 2);
}

BOOST_AUTO_TEST_CASE(no_op_update_keeps_resource_version) {
  auto made = store.create(key, widget("a"));
  BOOST_REQUIRE(made);
  auto before = store.resource_version();
  auto same = store.modify(key, "ns1", "a", [](json&) { return true; });
  BOOST_REQUIRE(same);
  BOOST_TEST(store.resource_version() == before);
}

BOOST_AUTO_TEST_CASE(finalizers_delay_deletion) {
  auto obj = widget("a");
  obj["metadata"]["finalizers"] = {"example.io/guard"};
  BOOST_REQUIRE(store.create(key, obj));
  auto removed = store.remove(key, "ns1", "a");
  BOOST_REQUIRE(removed);
  BOOST_TEST((*removed)["metadata"].contains("deletionTimestamp"));
  BOOST_REQUIRE(store.get(key, "ns1", "a"));
  auto cleared = store.modify(key, "ns1", "a", [](json& o) {
    o["metadata"].erase("finalizers");
    return true;
  });
  BOOST_REQUIRE(cleared);
  auto gone = store.get(key, "ns1", "a");
  BOOST_REQUIRE(!gone);
  BOOST_TEST(gone.err().http_status == 404);
  BOOST_TEST(gone.err().message == "widgets.example.io \"a\" not found");
}

BOOST_AUTO_TEST_CASE(events_since_and_expiry) {
  auto start = store.resource_version();
  BOOST_REQUIRE(store.create(key, widget("a")));
  BOOST_REQUIRE(store.modify(key, "ns1", "a", [](json& o) {
    o["spec"]["size"] = 7;
    return true;
  }));
  BOOST_REQUIRE(store.remove(key, "ns1", "a"));
  auto events = store.events_since(key, "", start);
  BOOST_REQUIRE(events);
  BOOST_REQUIRE_EQUAL(events->size(), 3u);
  BOOST_TEST((*events)[0].type == "ADDED");
  BOOST_TEST((*events)[1].type == "MODIFIED");
  BOOST_TEST((*events)[2].type == "DELETED");
  BOOST_TEST((*events)[2].resource_version == store.resource_version());
  // Push the first events out of the 100-event history.
  for (int i = 0; i < 120; ++i)
    BOOST_REQUIRE(store.create(key, widget("w" + std::to_string(i))));
  auto expired = store.events_since(key, "", start);
  BOOST_REQUIRE(!expired);
  BOOST_TEST(expired.err().http_status == 410);
  BOOST_TEST(expired.err().code == ec::gone);
}

BOOST_AUTO_TEST_CASE(list_is_sorted_and_namespace_filtered) {
  BOOST_REQUIRE(store.create(key, widget("b")));
  BOOST_REQUIRE(store.create(key, widget("a")));
  auto other = widget("c");
  other["metadata"]["namespace"] = "ns0";
  BOOST_REQUIRE(store.create(key, other));
  auto all = store.list(key);
  BOOST_REQUIRE_EQUAL(all.items.size(), 3u);
  BOOST_TEST(all.items[0]["metadata"]["name"].get<std::string>() == "c");
  BOOST_TEST(all.items[1]["metadata"]["name"].get<std::string>() == "a");
  auto ns1 = store.list(key, "ns1");
  BOOST_TEST(ns1.items.size() == 2u);
  auto snap = store.list_stored(key, "ns1");
  BOOST_REQUIRE_EQUAL(snap.items.size(), 2u);
  BOOST_TEST(json::parse(snap.items[0]->text) == *snap.items[0]->parsed());
}

BOOST_AUTO_TEST_CASE(admission_hook_can_reject_and_mutate) {
  store.set_admission(key, [](json& obj) -> std::optional<schedopt::error> {
    if (obj["spec"]["size"].get<int>() > 10)
      return schedopt::make_error(ec::invalid_request, "too big", 400);
    obj["metadata"]["labels"]["admitted"] = "yes";
    return std::nullopt;
  });
  auto refused = store.create(key, widget("big", 11));
  BOOST_REQUIRE(!refused);
  BOOST_TEST(refused.err().message == "too big");
  auto made = store.create(key, widget("small", 1));
  BOOST_REQUIRE(made);
  BOOST_TEST((*made)["metadata"]["labels"]["admitted"].get<std::string>() == "yes");
}

BOOST_AUTO_TEST_CASE(wait_for_change_wakes_on_write) {
  auto seen = store.resource_version();
  auto unchanged = store.wait_for_change(seen, std::chrono::milliseconds(10));
  BOOST_TEST(unchanged == seen);
  BOOST_REQUIRE(store.create(key, widget("a")));
  BOOST_TEST(store.wait_for_change(seen, std::chrono::milliseconds(10)) > seen);
}

BOOST_AUTO_TEST_CASE(text_only_type_keeps_no_tree_and_the_same_semantics) {
  object_store text_store{100};
  text_store.keep_as_text(key); // before the type exists, as populate() does
  text_store.register_type(crd_type());
  auto made = text_store.create(key, widget("a", 1));
  BOOST_REQUIRE(made);
  auto snap = text_store.list_stored(key);
  BOOST_REQUIRE_EQUAL(snap.items.size(), 1u);
  BOOST_TEST(!snap.items[0]->tree);
  BOOST_TEST(json::parse(snap.items[0]->text) == *made);
  BOOST_TEST(*snap.items[0]->parsed() == *made);

  // Writes parse the stored text: generation still follows .spec, status stays apart.
  auto grown = text_store.modify(key, "ns1", "a", [](json& obj) {
    obj["spec"]["size"] = 2;
    obj["status"] = {{"ready", true}};
    return true;
  });
  BOOST_REQUIRE(grown);
  BOOST_TEST((*grown)["metadata"]["generation"].get<int>() == 2);
  BOOST_TEST(!grown->contains("status")); // the status subresource owns .status
  auto got = text_store.get(key, "ns1", "a");
  BOOST_REQUIRE(got);
  BOOST_TEST(*got == *grown);
  auto stale = *made;
  stale["spec"]["size"] = 3;
  auto refused = text_store.replace(key, stale, false);
  BOOST_REQUIRE(!refused);
  BOOST_TEST(refused.err().http_status == 409);

  auto events = text_store.events_since(key, "", 0);
  BOOST_REQUIRE(events);
  BOOST_REQUIRE_EQUAL(events->size(), 2u);
  BOOST_TEST((*events)[0].type == "ADDED");
  BOOST_TEST((*events)[0].object == *made);
  BOOST_TEST((*events)[1].object == *grown);

  // A type not named keeps its tree beside the text.
  store.create(key, widget("b"));
  BOOST_TEST(store.list_stored(key).items[0]->tree != nullptr);
}

BOOST_AUTO_TEST_CASE(observer_replay_shows_existing_objects_first) {
  BOOST_REQUIRE(store.create(key, widget("a")));
  BOOST_REQUIRE(store.create(key, widget("b")));
  std::vector<std::string> seen;
  store.add_observer(
    key,
    [&](const object_store::change& c) {
      seen.push_back(c.type + " " + c.object["metadata"]["name"].get<std::string>() + " "
                     + std::to_string(c.resource_version));
    },
    /*replay_current=*/true);
  BOOST_REQUIRE_EQUAL(seen.size(), 2u);
  BOOST_TEST(seen[0] == "ADDED a 1");
  BOOST_TEST(seen[1] == "ADDED b 2");
  BOOST_REQUIRE(store.remove(key, "ns1", "a"));
  BOOST_REQUIRE_EQUAL(seen.size(), 3u);
  BOOST_TEST(seen[2] == "DELETED a 3");
}

BOOST_AUTO_TEST_SUITE_END()
