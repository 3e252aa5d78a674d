// Storage compaction and bookmarks on the wire, as kube-apiserver has them: a continue
// token older than the compacted revision answers 410 Expired with a token that reads
// the rest at the latest revision; compaction runs every interval to the revision seen
// one interval before; bookmarks come about every interval and just before a watch's
// timeout, whatever else the watch carries.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <thread>

#include "wire_fixture.hpp"
#include "wire_http.hpp"

using namespace schedopt::test;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

/// A namespace of `count` ConfigMaps cm-100, cm-101, ...; returns their list path.
std::string filled_namespace(const sim_process& sim, const std::string& prefix, int count) {
  auto ns = unique_name(prefix);
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", "/api/v1/namespaces",
                                   R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})")
                        .status,
                      201);
  auto path = "/api/v1/namespaces/" + ns + "/configmaps";
  for (int i = 0; i < count; ++i)
    BOOST_REQUIRE_EQUAL(http_request(sim, "POST", path, configmap_body("cm-" + std::to_string(100 + i))).status, 201);
  return path;
}

http_reply page(const sim_process& sim, const std::string& path, const std::string& cont) {
  return http_request(sim, "GET", path + "?limit=2" + (cont.empty() ? "" : "&continue=" + url_encode(cont)));
}

std::vector<std::string> names(const json& list) {
  std::vector<std::string> out;
  for (auto& item : list["items"])
    out.push_back(item["metadata"]["name"]);
  return out;
}

const std::string inconsistent_continue =
  "The provided continue parameter is too old to display a consistent list result. You can start a "
  "new list without the continue parameter, or use the continue token in this response to retrieve "
  "the remainder of the results. Continuing with the provided token results in an inconsistent list "
  "- objects that were created, modified, or deleted between the time the first chunk was returned "
  "and now may show up in the list.";

sim_process& fast_compaction_sim() {
  static sim_process sim({"--nodes", "2", "--vmis", "2", "--seed", "5", "--compaction-interval", "1s",
                          "--bookmark-interval", "1s"});
  return sim;
}

} // namespace

BOOST_AUTO_TEST_SUITE(wire_compaction)

BOOST_AUTO_TEST_CASE(a_continue_past_compaction_is_410_expired_with_a_token_for_the_rest) {
  auto& sim = shared_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto path = filled_namespace(sim, "compacted", 5);
  auto first = page(sim, path, "");
  BOOST_REQUIRE_EQUAL(first.status, 200);
  auto token = first.json()["metadata"]["continue"].get<std::string>();
  // Compacting at the first page's own revision leaves it readable.
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", "/admin/compact").status, 200);
  BOOST_TEST(page(sim, path, token).status == 200);

  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", path, configmap_body("cm-101-late")).status, 201);
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", "/admin/compact").status, 200);
  auto expired = page(sim, path, token);
  BOOST_TEST(expired.status == 410);
  auto body = expired.json();
  BOOST_TEST(body["reason"] == "Expired");
  BOOST_TEST(body["code"] == 410);
  BOOST_TEST(body["message"] == inconsistent_continue);
  auto rest_token = body["metadata"].value("continue", "");
  BOOST_REQUIRE(!rest_token.empty());

  // The rest, at the latest revision: the late object is in it.
  std::vector<std::string> rest;
  std::string cont = rest_token;
  while (!cont.empty()) {
    auto next = page(sim, path, cont);
    BOOST_REQUIRE_EQUAL(next.status, 200);
    for (auto& n : names(next.json()))
      rest.push_back(n);
    cont = next.json()["metadata"].value("continue", "");
  }
  BOOST_TEST(rest == (std::vector<std::string>{"cm-101-late", "cm-102", "cm-103", "cm-104"}));
  // A new list without the token works as ever.
  BOOST_TEST(names(page(sim, path, "").json()) == (std::vector<std::string>{"cm-100", "cm-101"}));
}

BOOST_AUTO_TEST_CASE(compaction_runs_every_interval_to_the_revision_seen_one_interval_before) {
  auto& sim = fast_compaction_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto path = filled_namespace(sim, "interval", 4);
  auto first = page(sim, path, "");
  auto token = first.json()["metadata"]["continue"].get<std::string>();
  BOOST_REQUIRE_EQUAL(http_request(sim, "POST", path, configmap_body("cm-late")).status, 201);
  // Readable for at least one interval, gone after two.
  BOOST_TEST(page(sim, path, token).status == 200);
  std::this_thread::sleep_for(2500ms);
  BOOST_TEST(page(sim, path, token).status == 410);
}

BOOST_AUTO_TEST_CASE(bookmarks_come_every_interval_even_while_events_flow) {
  auto& sim = fast_compaction_sim();
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto path = filled_namespace(sim, "bookmarks", 1);
  auto rv = http_request(sim, "GET", path).json()["metadata"]["resourceVersion"].get<std::string>();
  watch_reader watch(sim, path + "?watch=true&allowWatchBookmarks=true&resourceVersion=" + rv);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; !done && i < 200; ++i) {
      http_request(sim, "POST", path, configmap_body("busy-" + std::to_string(i)));
      std::this_thread::sleep_for(50ms);
    }
  });
  bool bookmarked = watch.wait_for([](const std::vector<json>& lines) {
    for (auto& l : lines)
      if (l["type"] == "BOOKMARK")
        return true;
    return false;
  });
  done = true;
  writer.join();
  BOOST_TEST(bookmarked);
  std::size_t added = 0;
  for (auto& l : watch.lines())
    added += l["type"] == "ADDED" ? 1 : 0;
  BOOST_TEST(added > 0u);
}

// kube-apiserver sends a bookmark only when it carries a resourceVersion newer than the
// watcher's (cacher/cache_watcher.go process); a pre-timeout bookmark on a resource that
// did not change is never sent, as the differential suite showed.
BOOST_AUTO_TEST_CASE(a_bookmark_comes_just_before_the_watch_times_out) {
  auto& sim = shared_sim(); // bookmarks every minute: only the pre-timeout one is due
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto path = filled_namespace(sim, "pretimeout", 1);
  auto rv = http_request(sim, "GET", path).json()["metadata"]["resourceVersion"].get<std::string>();
  auto start = std::chrono::steady_clock::now();
  watch_reader watch(sim, path + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=" + rv);
  // A change the watch does not show (another namespace) moves the resourceVersion on.
  filled_namespace(sim, "pretimeout-elsewhere", 1);
  BOOST_REQUIRE(watch.wait_for([](const std::vector<json>& lines) { return !lines.empty(); }));
  auto waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  auto first = watch.lines()[0];
  BOOST_TEST(first["type"] == "BOOKMARK");
  BOOST_TEST(first["object"]["kind"] == "ConfigMap");
  BOOST_TEST(first["object"]["metadata"].size() == 1u);
  BOOST_TEST(std::stoull(first["object"]["metadata"]["resourceVersion"].get<std::string>()) >= std::stoull(rv));
  // Due 2 s before the 4 s timeout, not at once.
  BOOST_TEST(waited_ms >= 1500);
}

BOOST_AUTO_TEST_CASE(a_quiet_watch_ends_without_a_bookmark) {
  // A server of its own, whose world has nothing to change meanwhile.
  sim_process sim({"--nodes", "1", "--vmis", "1", "--seed", "7"});
  BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
  auto path = filled_namespace(sim, "quiet", 1);
  auto rv = http_request(sim, "GET", path).json()["metadata"]["resourceVersion"].get<std::string>();
  watch_reader watch(sim, path + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=3&resourceVersion=" + rv);
  BOOST_REQUIRE(watch.wait_finished());
  BOOST_TEST(watch.status() == 200);
  BOOST_TEST(watch.lines().empty(), "lines: " << watch.lines().size());
}

BOOST_AUTO_TEST_SUITE_END()
