// Wire-level: list paging under concurrent writes, selectors, watch from a
// resourceVersion, 410 Expired, selector transitions (bookmarks and compaction:
// wire_compaction_test.cpp).
#include <boost/test/unit_test.hpp>

#include <set>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;

namespace {

std::string create_namespace(const sim_process& sim, const std::string& name) {
  auto reply = http_request(sim, "POST", "/api/v1/namespaces",
                            R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + name + R"("}})");
  BOOST_REQUIRE_EQUAL(reply.status, 201);
  return name;
}

/// A fresh namespace holding ConfigMaps `names`; the path of its configmaps.
std::string configmaps_holding(const sim_process& sim, const std::string& prefix,
                               std::initializer_list<const char*> names) {
  auto base = "/api/v1/namespaces/" + create_namespace(sim, unique_name(prefix)) + "/configmaps";
  for (const char* name : names)
    http_request(sim, "POST", base, configmap_body(name));
  return base;
}

} // namespace

BOOST_AUTO_TEST_SUITE(wire_list_watch)

BOOST_AUTO_TEST_CASE(list_shape_and_empty_items) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto ns = create_namespace(sim, unique_name("empty"));
  auto reply = http_request(sim, "GET", "/api/v1/namespaces/" + ns + "/configmaps");
  BOOST_TEST(reply.status == 200);
  auto list = reply.json();
  BOOST_TEST(list["kind"] == "ConfigMapList");
  BOOST_TEST(list["apiVersion"] == "v1");
  BOOST_TEST(list["items"].is_array());
  BOOST_TEST(list["items"].empty());
  BOOST_TEST(!list["metadata"]["resourceVersion"].get<std::string>().empty());
}

BOOST_AUTO_TEST_CASE(paging_is_consistent_under_concurrent_writes) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto ns = create_namespace(sim, unique_name("paging"));
  std::set<std::string> originals;
  for (int i = 0; i < 40; ++i) {
    auto name = "cm-" + std::to_string(100 + i);
    BOOST_REQUIRE_EQUAL(http_request(sim, "POST", "/api/v1/namespaces/" + ns + "/configmaps",
                                     configmap_body(name)).status, 201);
    originals.insert(name);
  }
  std::atomic<bool> done{false};
  std::thread writer([&] {
    int i = 0;
    while (!done) {
      auto name = "cm-" + std::to_string(100 + (i % 40)) + "-extra";
      http_request(sim, "POST", "/api/v1/namespaces/" + ns + "/configmaps", configmap_body(name));
      http_request(sim, "DELETE", "/api/v1/namespaces/" + ns + "/configmaps/" + name);
      ++i;
    }
  });
  std::multiset<std::string> seen;
  std::string cont;
  std::string first_rv;
  int pages = 0;
  do {
    auto path = "/api/v1/namespaces/" + ns + "/configmaps?limit=7" + (cont.empty() ? "" : "&continue=" + cont);
    auto page = http_request(sim, "GET", path).json();
    BOOST_REQUIRE(page["items"].is_array());
    BOOST_TEST(page["items"].size() <= 7u);
    if (first_rv.empty())
      first_rv = page["metadata"]["resourceVersion"];
    else
      BOOST_TEST(page["metadata"]["resourceVersion"] == first_rv);
    for (auto& item : page["items"])
      seen.insert(item["metadata"]["name"].get<std::string>());
    cont = page["metadata"].value("continue", "");
    ++pages;
  } while (!cont.empty() && pages < 100);
  done = true;
  writer.join();
  BOOST_TEST(pages >= 6);
  for (auto& name : originals)
    BOOST_TEST(seen.count(name) == 1u, name << " seen " << seen.count(name) << " times");
  std::set<std::string> unique(seen.begin(), seen.end());
  BOOST_TEST(unique.size() == seen.size());
}

BOOST_AUTO_TEST_CASE(a_continue_whose_snapshot_expired_goes_on_from_one_fresh_snapshot) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto ns = create_namespace(sim, unique_name("expired"));
  auto path = "/api/v1/namespaces/" + ns + "/configmaps";
  auto create = [&](const std::string& name) {
    BOOST_REQUIRE_EQUAL(http_request(sim, "POST", path, configmap_body(name)).status, 201);
  };
  for (int i = 0; i < 9; ++i)
    create("cm-" + std::to_string(100 + i));
  auto page = [&](const std::string& cont) {
    auto reply = http_request(sim, "GET", path + "?limit=3" + (cont.empty() ? "" : "&continue=" + url_encode(cont)));
    BOOST_REQUIRE_EQUAL(reply.status, 200);
    return reply.json();
  };
  auto names = [](const json& list) {
    std::vector<std::string> out;
    for (auto& item : list["items"])
      out.push_back(item["metadata"]["name"]);
    return out;
  };
  auto first = page("");
  BOOST_TEST(names(first) == (std::vector<std::string>{"cm-100", "cm-101", "cm-102"}));
  // The pager keeps 64 snapshots: 64 more paged lists push this one out.
  for (int i = 0; i < 64; ++i)
    BOOST_REQUIRE(!page("")["metadata"].value("continue", "").empty());
  create("cm-103-late"); // after the first page's cursor: the current state has it
  auto second = page(first["metadata"]["continue"]);
  BOOST_TEST(names(second) == (std::vector<std::string>{"cm-103", "cm-103-late", "cm-104"}));
  BOOST_TEST(second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]);
  // The second page kept the state it listed: later writes stay out of later pages.
  create("cm-105-later");
  auto third = page(second["metadata"]["continue"]);
  BOOST_TEST(names(third) == (std::vector<std::string>{"cm-105", "cm-106", "cm-107"}));
}

BOOST_AUTO_TEST_CASE(label_and_field_selectors_filter_lists) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto ns = create_namespace(sim, unique_name("sel"));
  auto base = "/api/v1/namespaces/" + ns + "/configmaps";
  http_request(sim, "POST", base, configmap_body("a", R"({"app":"web","tier":"front"})"));
  http_request(sim, "POST", base, configmap_body("b", R"({"app":"db"})"));
  http_request(sim, "POST", base, configmap_body("c", R"({})"));
  auto names = [&](const std::string& query) {
    std::vector<std::string> out;
    auto list = http_request(sim, "GET", base + "?" + query).json();
    for (auto& item : list["items"])
      out.push_back(item["metadata"]["name"]);
    return out;
  };
  BOOST_TEST(names("labelSelector=" + url_encode("app=web")) == std::vector<std::string>{"a"});
  BOOST_TEST(names("labelSelector=" + url_encode("app in (web,db)")) == (std::vector<std::string>{"a", "b"}));
  BOOST_TEST(names("labelSelector=" + url_encode("!app")) == std::vector<std::string>{"c"});
  BOOST_TEST(names("labelSelector=" + url_encode("app,app!=web")) == std::vector<std::string>{"b"});
  BOOST_TEST(names("fieldSelector=" + url_encode("metadata.name=b")) == std::vector<std::string>{"b"});
  auto bad = http_request(sim, "GET", base + "?labelSelector=" + url_encode("app in (x"));
  BOOST_TEST(bad.status == 400);
  // All namespaces: the cluster-wide path sees this namespace's objects too.
  auto all = http_request(sim, "GET", "/api/v1/configmaps?fieldSelector=" + url_encode("metadata.namespace=" + ns)).json();
  BOOST_TEST(all["items"].size() == 3u);
}

BOOST_AUTO_TEST_CASE(watch_from_resource_version_sees_only_later_events) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto ns = create_namespace(sim, unique_name("watch"));
  auto base = "/api/v1/namespaces/" + ns + "/configmaps";
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", base, configmap_body("before")).status, 201);
  auto rv = http_request(sim, "GET", base).json()["metadata"]["resourceVersion"].get<std::string>();
  watch_reader watch(sim, base + "?watch=true&resourceVersion=" + rv);
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", base, configmap_body("after")).status, 201);
  BOOST_REQUIRE_EQUAL(http_request(sim, "PATCH", base + "/after", R"({"data":{"k":"v2"}})",
                                   "application/merge-patch+json").status, 200);
  BOOST_REQUIRE_EQUAL(http_request(sim, "DELETE", base + "/after").status, 200);
  BOOST_REQUIRE(watch.wait_for([](const std::vector<json>& lines) { return lines.size() >= 3; }));
  auto lines = watch.lines();
  BOOST_TEST(lines[0]["type"] == "ADDED");
  BOOST_TEST(lines[0]["object"]["metadata"]["name"] == "after");
  BOOST_TEST(lines[1]["type"] == "MODIFIED");
  BOOST_TEST(lines[1]["object"]["data"]["k"] == "v2");
  BOOST_TEST(lines[2]["type"] == "DELETED");
  BOOST_TEST(std::stoull(lines[2]["object"]["metadata"]["resourceVersion"].get<std::string>())
             > std::stoull(lines[1]["object"]["metadata"]["resourceVersion"].get<std::string>()));
  watch.stop();
  BOOST_TEST(watch.headers().find("Transfer-Encoding: chunked") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(watch_without_version_starts_with_current_state) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto base = configmaps_holding(sim, "initial", {"x", "y"});
  watch_reader watch(sim, base + "?watch=1&resourceVersion=0");
  BOOST_REQUIRE(watch.wait_for([](const std::vector<json>& lines) { return lines.size() >= 2; }));
  auto lines = watch.lines();
  BOOST_TEST(lines[0]["type"] == "ADDED");
  BOOST_TEST(lines[0]["object"]["metadata"]["name"] == "x");
  BOOST_TEST(lines[1]["object"]["metadata"]["name"] == "y");
}

// client-go's informers (WatchList on by default) wait for this bookmark before they call
// themselves synced; without it they never do.
BOOST_AUTO_TEST_CASE(a_watchlist_ends_its_initial_events_with_an_annotated_bookmark) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto base = configmaps_holding(sim, "watchlist", {"x", "y"});
  watch_reader watch(sim, base + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                                 "&allowWatchBookmarks=true");
  BOOST_REQUIRE(watch.wait_for([](const std::vector<json>& lines) { return lines.size() >= 3; }));
  auto lines = watch.lines();
  BOOST_TEST(lines[0]["type"] == "ADDED");
  BOOST_TEST(lines[1]["type"] == "ADDED");
  BOOST_TEST(lines[2]["type"] == "BOOKMARK");
  BOOST_TEST(lines[2].value("/object/metadata/annotations/k8s.io~1initial-events-end"_json_pointer, "") == "true");
  BOOST_TEST(lines[2]["object"]["kind"] == "ConfigMap");
  // A change after it is a plain event.
  http_request(sim, "POST", base, configmap_body("z"));
  BOOST_REQUIRE(watch.wait_for([](const std::vector<json>& lines) { return lines.size() >= 4; }));
  BOOST_TEST(watch.lines()[3]["type"] == "ADDED");
  BOOST_TEST(watch.lines()[3]["object"]["metadata"]["name"] == "z");
}

// sendInitialEvents=false with no resourceVersion: from now on, no initial events.
BOOST_AUTO_TEST_CASE(send_initial_events_false_starts_from_now) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto base = configmaps_holding(sim, "from-now", {"before"});
  watch_reader watch(sim, base + "?watch=1&sendInitialEvents=false");
  // Until the watch (connecting on its own thread) sees one: whichever it sees first is
  // a later one, never "before".
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    http_request(sim, "POST", base, configmap_body("after-" + std::to_string(i)));
    seen = watch.wait_for([](const std::vector<json>& lines) { return !lines.empty(); }, std::chrono::seconds(1));
  }
  BOOST_REQUIRE(seen);
  BOOST_TEST(watch.lines()[0]["object"]["metadata"]["name"].get<std::string>().rfind("after-", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(watch_timeout_ends_the_stream) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  watch_reader watch(sim, "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1");
  BOOST_TEST(watch.wait_finished(std::chrono::seconds(15)));
  BOOST_TEST(watch.status() == 200);
}

BOOST_AUTO_TEST_CASE(label_selector_watch_turns_transitions_into_added_and_deleted) {
  auto& sim = shared_sim();
  BOOST_REQUIRE(sim.ok());
  auto ns = create_namespace(sim, unique_name("transition"));
  auto base = "/api/v1/namespaces/" + ns + "/configmaps";
  http_request(sim, "POST", base, configmap_body("m", R"({"app":"other"})"));
  auto rv = http_request(sim, "GET", base).json()["metadata"]["resourceVersion"].get<std::string>();
  watch_reader watch(sim, base + "?watch=true&labelSelector=app%3Dweb&resourceVersion=" + rv);
  http_request(sim, "PATCH", base + "/m", R"({"metadata":{"labels":{"app":"web"}}})", "application/merge-patch+json");
  http_request(sim, "PATCH", base + "/m", R"({"metadata":{"labels":{"app":"gone"}}})", "application/merge-patch+json");
  BOOST_REQUIRE(watch.wait_for([](const std::vector<json>& lines) { return lines.size() >= 2; }));
  auto lines = watch.lines();
  BOOST_TEST(lines[0]["type"] == "ADDED");
  BOOST_TEST(lines[1]["type"] == "DELETED");
}

BOOST_AUTO_TEST_CASE(too_old_resource_version_is_410_expired) {
  sim_process sim({"--nodes", "2", "--vmis", "2", "--watch-history", "5"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  for (int i = 0; i < 12; ++i)
    http_request(sim, "POST", "/api/v1/namespaces/default/configmaps", configmap_body("old-" + std::to_string(i)));
  watch_reader watch(sim, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1");
  BOOST_REQUIRE(watch.wait_finished());
  auto lines = watch.lines();
  BOOST_REQUIRE_EQUAL(lines.size(), 1u);
  BOOST_TEST(lines[0]["type"] == "ERROR");
  BOOST_TEST(lines[0]["object"]["kind"] == "Status");
  BOOST_TEST(lines[0]["object"]["code"] == 410);
  BOOST_TEST(lines[0]["object"]["reason"] == "Expired");
  BOOST_TEST(sim.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
