// longhorn storage driver: replica nodes from its replicas.longhorn.io informer
// (running replicas only, following adds, moves and deletes), volumes.longhorn.io
// looked up only for volumes with no running replica, queries held until the first
// list, ownership by CSI driver name.
#include <boost/test/unit_test.hpp>

#include "actor_fixture.hpp"
#include "actors/drivers/longhorn_driver.hpp"
#include "actors/drivers/storage_drivers.hpp"
#include "model/longhorn.hpp"

using namespace schedopt;
using namespace schedopt::test;

namespace {

persistent_volume pv(const std::string& name, const std::string& handle,
                     const std::string& driver = longhorn_csi_driver) {
  persistent_volume v;
  v.metadata.name = name;
  v.csi_driver = driver;
  v.volume_handle = handle;
  return v;
}

longhorn_replica replica(const std::string& name, const std::string& volume,
                         const std::string& node, const std::string& state = "running") {
  longhorn_replica r;
  r.metadata.name = name;
  r.metadata.namespace_ = longhorn_namespace;
  r.metadata.uid = "uid-" + name;
  r.metadata.resource_version = "1";
  r.volume_name = volume;
  r.node_id = node;
  r.current_state = state;
  return r;
}

struct longhorn_fixture : actor_fixture {
  std::shared_ptr<api_log> api = std::make_shared<api_log>();
  std::shared_ptr<informer_log<longhorn_replica>> replicas =
    std::make_shared<informer_log<longhorn_replica>>();

  longhorn_fixture() {
    // volumes.longhorn.io: "vol-stopped" exists, every other volume does not.
    api->respond = [](const api_call& c) -> api_answer {
      if (c.verb == "get" && c.res == k8s::resources::longhorn_volumes && c.name == "vol-stopped")
        return k8s::api_response{200, R"({"metadata":{"name":"vol-stopped"}})"};
      return api_error(ec::not_found, 404,
                       "volumes.longhorn.io \"" + c.name + "\" not found");
    };
  }

  storage_driver_actor spawn_aut(longhorn_driver_options options = {}) {
    auto mock_api = track(spawn_mock_api(sys, api));
    auto informer = track(spawn_mock_informer(sys, replicas));
    auto aut = track(spawn_longhorn_driver(sys, mock_api, informer, options));
    sched.run();
    return aut;
  }

  replica_answer query(const storage_driver_actor& aut, std::vector<persistent_volume> volumes) {
    replica_query q;
    q.volumes = share_all(std::move(volumes));
    auto answer = ask<replica_answer>(sys, aut, q);
    sched.run();
    BOOST_REQUIRE(answer->value);
    return *answer->value;
  }

  std::size_t volume_gets() const {
    std::size_t n = 0;
    for (auto& c : api->calls_of("get"))
      if (c.res == k8s::resources::longhorn_volumes)
        ++n;
    return n;
  }
};

using nodes = replica_nodes;

} // namespace

BOOST_FIXTURE_TEST_SUITE(longhorn_driver, longhorn_fixture)

BOOST_AUTO_TEST_CASE(running_replicas_are_the_replica_nodes_by_volume_handle) {
  replicas->objects = {replica("vol-a-r-1", "vol-a", "n3"), replica("vol-a-r-2", "vol-a", "n1"),
                       replica("vol-a-r-3", "vol-a", "n2", "starting"),
                       replica("vol-a-r-4", "vol-a", "n4", "stopped"),
                       replica("vol-b-r-1", "vol-b", "n2")};
  auto aut = spawn_aut();
  BOOST_REQUIRE_EQUAL(replicas->subscribers.size(), 1u);
  BOOST_CHECK(!replicas->subscribers.front().object); // every replica, not one
  auto a = query(aut, {pv("pvc-1", "vol-a"), pv("pvc-2", "vol-b")});
  BOOST_REQUIRE_EQUAL(a.replicas.size(), 2u);
  BOOST_CHECK_EQUAL(a.replicas.count("pvc-1"), 1u); // keyed by PV name
  BOOST_CHECK((a.replicas.at("pvc-1") == nodes{"n1", "n3"}));
  BOOST_CHECK_EQUAL(a.replicas.count("pvc-2"), 1u);
  BOOST_CHECK((a.replicas.at("pvc-2") == nodes{"n2"}));
  BOOST_CHECK(a.errors.empty());
  BOOST_CHECK_EQUAL(volume_gets(), 0u); // no lookup when replicas run
  BOOST_CHECK(api->calls_of("list").empty()); // the informer lists, not the driver
}

BOOST_AUTO_TEST_CASE(missing_volume_is_not_found_and_stopped_volume_has_no_running_replica) {
  replicas->objects = {replica("vol-stopped-r-1", "vol-stopped", "n1", "stopped"),
                       replica("vol-a-r-1", "vol-a", "n2")};
  auto aut = spawn_aut();
  auto a = query(aut, {pv("pvc-gone", "vol-gone"), pv("pvc-a", "vol-a"),
                       pv("pvc-stopped", "vol-stopped")});
  BOOST_REQUIRE_EQUAL(a.replicas.size(), 1u);
  BOOST_CHECK_EQUAL(a.replicas.count("pvc-a"), 1u);
  BOOST_REQUIRE_EQUAL(a.errors.size(), 2u);
  std::map<std::string, std::string> errors{a.errors.begin(), a.errors.end()};
  BOOST_CHECK_EQUAL(errors["pvc-gone"], "longhorn volume \"vol-gone\" not found");
  BOOST_CHECK_EQUAL(errors["pvc-stopped"],
                    "longhorn volume \"vol-stopped\" has no running replica (1 replica objects)");
  BOOST_REQUIRE_EQUAL(volume_gets(), 2u);
  for (auto& c : api->calls_of("get"))
    BOOST_CHECK_EQUAL(c.namespace_, longhorn_namespace);
}

BOOST_AUTO_TEST_CASE(a_failed_volume_lookup_is_a_per_volume_error) {
  api->respond = [](const api_call&) -> api_answer {
    return api_error(ec::server_error, 503, "the server is currently unable to handle the request");
  };
  auto aut = spawn_aut();
  auto a = query(aut, {pv("pvc-x", "vol-x")});
  BOOST_CHECK(a.replicas.empty());
  BOOST_REQUIRE_EQUAL(a.errors.size(), 1u);
  BOOST_CHECK_NE(a.errors[0].second.find("reading it failed"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(follows_replicas_starting_running_moving_and_deleted) {
  auto old_r = replica("vol-a-r-1", "vol-a", "n1");
  replicas->objects = {old_r, replica("vol-a-r-2", "vol-a", "n2")};
  auto aut = spawn_aut();
  BOOST_CHECK((query(aut, {pv("pvc-a", "vol-a")}).replicas.at("pvc-a") == nodes{"n1", "n2"}));

  // Rebuild on n3 as Longhorn does it: a new replica starts, runs; the old one stops, goes.
  auto fresh = replica("vol-a-r-3", "vol-a", "n3", "starting");
  replicas->push_added(fresh);
  sched.run();
  BOOST_CHECK((query(aut, {pv("pvc-a", "vol-a")}).replicas.at("pvc-a") == nodes{"n1", "n2"}));
  auto running = fresh;
  running.current_state = "running";
  running.metadata.resource_version = "2";
  replicas->push_updated(fresh, running);
  auto stopped = old_r;
  stopped.current_state = "stopped";
  stopped.metadata.resource_version = "2";
  replicas->push_updated(old_r, stopped);
  sched.run();
  BOOST_CHECK((query(aut, {pv("pvc-a", "vol-a")}).replicas.at("pvc-a") == nodes{"n2", "n3"}));
  replicas->push_deleted(stopped);
  sched.run();
  BOOST_CHECK((query(aut, {pv("pvc-a", "vol-a")}).replicas.at("pvc-a") == nodes{"n2", "n3"}));

  // A replica whose nodeID changes in place (evicted and rescheduled) follows too.
  auto moved = replica("vol-a-r-2", "vol-a", "n5");
  moved.metadata.resource_version = "3";
  replicas->push_updated(replica("vol-a-r-2", "vol-a", "n2"), moved);
  sched.run();
  BOOST_CHECK((query(aut, {pv("pvc-a", "vol-a")}).replicas.at("pvc-a") == nodes{"n3", "n5"}));
}

BOOST_AUTO_TEST_CASE(queries_wait_for_the_first_list) {
  replicas->synced = false;
  replicas->objects = {replica("vol-a-r-1", "vol-a", "n1")};
  auto aut = spawn_aut();
  replica_query q;
  q.volumes = share_all(std::vector<persistent_volume>{pv("pvc-a", "vol-a")});
  auto answer = ask<replica_answer>(sys, aut, q);
  sched.run();
  BOOST_CHECK(!answer->arrived());
  replicas->push_added(replica("vol-a-r-2", "vol-a", "n2"));
  for (auto& s : replicas->subscribers)
    caf::anon_send(s.who, informer_synced<longhorn_replica>{"7"});
  sched.run();
  BOOST_REQUIRE(answer->value);
  BOOST_CHECK((answer->value->replicas.begin()->second == nodes{"n1", "n2"}));
}

BOOST_AUTO_TEST_CASE(a_never_synced_informer_fails_the_query_after_the_timeout) {
  replicas->synced = false;
  longhorn_driver_options options;
  options.sync_timeout = std::chrono::seconds(30);
  auto aut = spawn_aut(options);
  replica_query q;
  q.volumes = share_all(std::vector<persistent_volume>{pv("pvc-a", "vol-a")});
  auto answer = ask<replica_answer>(sys, aut, q);
  advance(std::chrono::seconds(29), std::chrono::seconds(1));
  BOOST_CHECK(!answer->arrived());
  advance(std::chrono::seconds(2), std::chrono::seconds(1));
  BOOST_REQUIRE(answer->error);
  BOOST_CHECK(error_code(*answer->error) == ec::driver_error);
  BOOST_CHECK_NE(error_message(*answer->error).find("replicas.longhorn.io"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(owns_only_longhorn_csi_pvs) {
  auto entry = find_storage_driver("longhorn");
  BOOST_REQUIRE(entry);
  BOOST_CHECK(entry->owns(pv("a", "vol-a"), settings{}));
  BOOST_CHECK(!entry->owns(pv("a", "vol-a", "pxd.portworx.com"), settings{}));
  BOOST_CHECK(!entry->owns(pv("a", "vol-a", "topology.csi.schedopt.io"), settings{}));
}

BOOST_AUTO_TEST_CASE(registered_driver_lists_and_watches_replicas_in_longhorn_system) {
  auto entry = find_storage_driver("longhorn");
  BOOST_REQUIRE(entry);
  BOOST_CHECK(!entry->spawn(sys, settings{})); // needs the API client
  auto mock_api = track(spawn_mock_api(sys, api));
  auto spawned = entry->spawn(sys, settings{}, mock_api);
  BOOST_REQUIRE(spawned);
  auto aut = track(*spawned);
  sched.run();
  auto lists = api->calls_of("list");
  BOOST_REQUIRE_GE(lists.size(), 1u);
  BOOST_CHECK(lists[0].res == k8s::resources::longhorn_replicas);
  BOOST_CHECK_EQUAL(lists[0].res.group, "longhorn.io");
  BOOST_CHECK_EQUAL(lists[0].res.version, "v1beta2");
  BOOST_CHECK_EQUAL(lists[0].namespace_, longhorn_namespace);
  // The mock API answers lists with no page, so the informer never syncs: the query
  // fails after the sync timeout rather than hanging the run.
  replica_query q;
  q.volumes = share_all(std::vector<persistent_volume>{pv("pvc-a", "vol-a")});
  auto answer = ask<replica_answer>(sys, aut, q);
  advance(std::chrono::seconds(31), std::chrono::seconds(1));
  BOOST_REQUIRE(answer->error);
  BOOST_CHECK(error_code(*answer->error) == ec::driver_error);
  BOOST_CHECK_GT(api->calls_of("list").size(), 1u); // the informer retried meanwhile
  // The informer is linked: it stops with the driver.
  caf::anon_send_exit(aut, caf::exit_reason::user_shutdown);
  sched.run();
}

BOOST_AUTO_TEST_SUITE_END()
