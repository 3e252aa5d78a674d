// Informers against schedopt-sim: convergence under faults (drops, 410s, 5xx/429) with
// concurrent writers, per-object subscriptions, and a 1 MB object through a raw watch.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include <caf/typed_event_based_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/informer_actor.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_actors.hpp" // the pod informer's type IDs
#include "k8s/metrics.hpp"
#include "k8s/watch_parser.hpp"
#include "model/decode.hpp"
#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using schedopt::error_message;
namespace k8s = schedopt::k8s;
namespace res = schedopt::k8s::resources;
using vmi_t = schedopt::virtual_machine_instance;
using vmim_t = schedopt::virtual_machine_instance_migration;

namespace {

template <class T>
std::map<std::string, std::string> by_key(const std::vector<T>& items) {
  std::map<std::string, std::string> out;
  for (auto& i : items)
    out[i.metadata.namespace_ + "/" + i.metadata.name] = i.metadata.resource_version;
  return out;
}

template <class T>
std::vector<T> snapshot(schedopt::test::sim_client& t, schedopt::informer_actor<T> inf) {
  caf::scoped_actor self{*t.env.sys};
  std::vector<T> out;
  self->request(inf, 30s, schedopt::atom::snapshot_v)
    .receive([&](schedopt::shared_list<T>& v) { out = schedopt::values_of(v); }, [&](caf::error&) {});
  return out;
}

template <class T>
bool wait_synced(schedopt::test::sim_client& t, schedopt::informer_actor<T> inf,
                 std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  caf::scoped_actor self{*t.env.sys};
  while (std::chrono::steady_clock::now() < deadline) {
    bool synced = false;
    self->request(inf, 10s, schedopt::atom::synced_v)
      .receive([&](bool b) { synced = b; }, [&](caf::error&) {});
    if (synced)
      return true;
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

template <class T>
std::vector<T> fresh_list(schedopt::test::sim_client& t, const k8s::resource& r) {
  k8s::list_request req;
  req.res = r;
  req.limit = 500;
  auto pages = t.list(req);
  BOOST_REQUIRE_MESSAGE(pages, error_message(pages.error));
  std::vector<T> out;
  for (auto& p : pages.value.pages) {
    auto page = schedopt::decode_list<T>(p); // named: a temporary would die before the loop
    BOOST_REQUIRE_MESSAGE(page.has_value(), (page ? std::string{} : page.err().message));
    for (auto& item : page->items)
      out.push_back(std::move(item));
  }
  return out;
}

// Polls until the informer's store equals a fresh list (the simulated KubeVirt may still
// be moving VMIMs, so equality is reached when things settle).
template <class T>
bool converges(schedopt::test::sim_client& t, schedopt::informer_actor<T> inf,
               const k8s::resource& r, std::chrono::seconds limit, std::string& diff) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    auto want = by_key(fresh_list<T>(t, r));
    auto have = by_key(snapshot(t, inf));
    if (want == have)
      return true;
    diff = "list has " + std::to_string(want.size()) + ", store has " + std::to_string(have.size());
    std::this_thread::sleep_for(500ms);
  }
  return false;
}

} // namespace

BOOST_AUTO_TEST_CASE(informers_converge_under_faults_with_concurrent_writers) {
  schedopt::test::sim_client t{{"--vmis", "60", "--nodes", "6", "--fault-5xx-rate", "0.05",
                                "--fault-429-rate", "0.02", "--watch-drop-after", "2s",
                                "--watch-history", "5", "--migration-duration", "300ms"}};
  auto& m = k8s::default_metrics();
  auto relists = [&m] {
    return m.value("schedopt_informer_relists_total", {{"resource", "virtualmachineinstances"}})
           + m.value("schedopt_informer_relists_total", {{"resource", "virtualmachineinstancemigrations"}});
  };
  auto relists_before = relists();
  auto restarts_before = m.value("schedopt_watch_restarts_total", {{"resource", "virtualmachineinstances"}});
  schedopt::informer_options opts;
  opts.page_size = 25;
  auto vmis = t.env.own(schedopt::spawn_informer<vmi_t>(*t.env.sys, t.client, opts));
  auto vmims = t.env.own(schedopt::spawn_informer<vmim_t>(*t.env.sys, t.client, opts));
  BOOST_REQUIRE(wait_synced(t, vmis, 60s));
  BOOST_REQUIRE(wait_synced(t, vmims, 60s));
  auto initial = snapshot(t, vmis);
  BOOST_REQUIRE_EQUAL(initial.size(), 60u);

  // Writers: create VMIMs on VMIs (KubeVirt moves them through phases), label VMIs,
  // delete some VMIMs, for ~8 seconds, through two independent threads.
  std::atomic<int> created{0};
  auto writer = [&](int seed) {
    std::mt19937 rng(seed);
    auto until = std::chrono::steady_clock::now() + 8s;
    int i = 0;
    while (std::chrono::steady_clock::now() < until) {
      auto& v = initial[rng() % initial.size()];
      json vmim{{"apiVersion", "kubevirt.io/v1"},
                {"kind", "VirtualMachineInstanceMigration"},
                {"metadata", {{"generateName", "test-mig-"}, {"namespace", v.metadata.namespace_}}},
                {"spec", {{"vmiName", v.metadata.name}}}};
      if (t.create({res::vmims, v.metadata.namespace_, vmim.dump()}))
        ++created;
      json label{{"metadata", {{"labels", {{"writer", std::to_string(seed) + "-" + std::to_string(i++)}}}}}};
      t.call<k8s::api_response>(k8s::patch_request{res::vmis, v.metadata.namespace_,
                                                   v.metadata.name, label.dump(), false, false});
      if (rng() % 4 == 0) {
        auto current = fresh_list<vmim_t>(t, res::vmims);
        if (!current.empty()) {
          auto& victim = current[rng() % current.size()];
          t.call<k8s::api_response>(k8s::delete_request{res::vmims, victim.metadata.namespace_,
                                                        victim.metadata.name, {}, {}, {}});
        }
      }
    }
  };
  std::thread w1{writer, 1};
  std::thread w2{writer, 2};
  w1.join();
  w2.join();
  BOOST_TEST_MESSAGE("VMIMs created: " << created.load());
  BOOST_CHECK_GT(created.load(), 0);

  std::string diff;
  BOOST_CHECK_MESSAGE(converges(t, vmis, res::vmis, 90s, diff), "VMIs: " + diff);
  BOOST_CHECK_MESSAGE(converges(t, vmims, res::vmims, 90s, diff), "VMIMs: " + diff);
  BOOST_CHECK_GT(m.value("schedopt_watch_restarts_total", {{"resource", "virtualmachineinstances"}}),
                 restarts_before);
  // A 5-event history with two writers: resuming after a drop finds its resourceVersion
  // expired, so the store went through 410 relists (beyond the two initial lists).
  auto relisted = relists() - relists_before;
  BOOST_TEST_MESSAGE("relists (VMIs + VMIMs, 2 initial): " << relisted);
  BOOST_CHECK_GT(relisted, 2);
}

BOOST_AUTO_TEST_CASE(a_paged_list_whose_continue_expires_finishes_unpaged_and_syncs) {
  // Every request takes 400 ms and storage compacts every second, so a revision stays
  // readable for one to two seconds after the next write (sim/api_server.cpp,
  // run_compactor). A paged list of 12 VMIs, one a page, would take at least 4.8 s: it
  // outlives its continue token however its pages fall against the compactor's ticks
  // (at two a page it could finish between two), so only client-go's unpaged fallback
  // can finish it.
  schedopt::test::sim_client t{{"--vmis", "12", "--nodes", "3", "--latency", "400ms",
                                "--compaction-interval", "1s"}};
  auto& m = k8s::default_metrics();
  auto expired_before = m.value("schedopt_informer_list_expired_total", {{"resource", "virtualmachineinstances"}});
  // Compaction only makes a revision unreadable once something was written after it.
  auto target = fresh_list<vmi_t>(t, res::vmis).front();
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; !done; ++i) {
      json label{{"metadata", {{"labels", {{"writer", std::to_string(i)}}}}}};
      t.call<k8s::api_response>(k8s::patch_request{res::vmis, target.metadata.namespace_,
                                                   target.metadata.name, label.dump(), false, false});
    }
  });
  schedopt::informer_options opts;
  opts.page_size = 1;
  auto vmis = t.env.own(schedopt::spawn_informer<vmi_t>(*t.env.sys, t.client, opts));
  bool synced = wait_synced(t, vmis, 60s);
  done = true;
  writer.join();
  BOOST_REQUIRE(synced);
  BOOST_TEST(snapshot(t, vmis).size() == 12u);
  BOOST_TEST(m.value("schedopt_informer_list_expired_total", {{"resource", "virtualmachineinstances"}})
             > expired_before);
}

namespace {

struct recorded_notifications {
  std::mutex mtx;
  std::condition_variable cv;
  std::vector<std::string> log; // "added <name> <phase>", "updated ...", "deleted ...", "synced"
  void push(std::string s) {
    std::lock_guard<std::mutex> g{mtx};
    log.push_back(std::move(s));
    cv.notify_all();
  }
  bool wait_for(const std::function<bool(const std::vector<std::string>&)>& pred,
                std::chrono::seconds limit) {
    std::unique_lock<std::mutex> g{mtx};
    return cv.wait_for(g, limit, [&] { return pred(log); });
  }
};

schedopt::informer_subscriber_actor<vmim_t>::behavior_type
recording_subscriber(std::shared_ptr<recorded_notifications> rec) {
  return {
    [=](schedopt::object_added<vmim_t>& m) {
      rec->push("added " + m.object.metadata.name + " " + m.object.phase);
    },
    [=](schedopt::object_updated<vmim_t>& m) {
      rec->push("updated " + m.object.metadata.name + " " + m.object.phase);
    },
    [=](schedopt::object_deleted<vmim_t>& m) { rec->push("deleted " + m.object.metadata.name); },
    [=](schedopt::informer_synced<vmim_t>&) { rec->push("synced"); },
  };
}

} // namespace

BOOST_AUTO_TEST_CASE(informer_routes_one_object_to_its_subscriber) {
  schedopt::test::sim_client t{{"--vmis", "4", "--nodes", "3", "--migration-duration", "200ms"}};
  auto vmims = t.env.own(schedopt::spawn_informer<vmim_t>(*t.env.sys, t.client));
  BOOST_REQUIRE(wait_synced(t, vmims, 30s));
  auto vmi_list = fresh_list<vmi_t>(t, res::vmis);
  BOOST_REQUIRE_GE(vmi_list.size(), 2u);
  auto& a = vmi_list[0];
  auto& b = vmi_list[1];
  auto make = [&](const vmi_t& v, const std::string& name) {
    json vmim{{"apiVersion", "kubevirt.io/v1"},
              {"kind", "VirtualMachineInstanceMigration"},
              {"metadata", {{"name", name}, {"namespace", v.metadata.namespace_}}},
              {"spec", {{"vmiName", v.metadata.name}}}};
    auto r = t.create({res::vmims, v.metadata.namespace_, vmim.dump()});
    BOOST_REQUIRE_MESSAGE(r, error_message(r.error));
  };
  auto rec = std::make_shared<recorded_notifications>();
  auto sub = t.env.own(t.env.sys->spawn(recording_subscriber, rec));
  caf::anon_send(vmims, schedopt::atom::subscribe_v, sub, a.metadata.namespace_.str(),
                 std::string{"mig-a"});
  BOOST_REQUIRE(rec->wait_for([](auto& log) { return !log.empty(); }, 10s));
  make(b, "mig-b");
  make(a, "mig-a");
  BOOST_CHECK(rec->wait_for(
    [](auto& log) {
      return std::any_of(log.begin(), log.end(),
                         [](auto& s) { return s.find("mig-a Succeeded") != std::string::npos
                                              || s.find("mig-a Failed") != std::string::npos; });
    },
    60s));
  std::lock_guard<std::mutex> g{rec->mtx};
  BOOST_CHECK_EQUAL(rec->log.front(), "synced");
  for (auto& line : rec->log)
    BOOST_CHECK_MESSAGE(line.find("mig-b") == std::string::npos, line);
  BOOST_CHECK(std::any_of(rec->log.begin(), rec->log.end(),
                          [](auto& s) { return s.rfind("added mig-a", 0) == 0; }));
}

namespace {

struct raw_watch_result {
  std::mutex mtx;
  std::condition_variable cv;
  std::vector<std::pair<std::string, size_t>> events; // type, object size
  std::string big_value_prefix;
};

schedopt::watch_sink_actor::behavior_type
raw_sink(schedopt::watch_sink_actor::pointer self, std::shared_ptr<raw_watch_result> out) {
  auto parser = std::make_shared<k8s::watch_stream_parser>();
  return {
    [=](schedopt::watch_chunk& c) {
      parser->feed(c.data, [&](const k8s::watch_event_view& ev) {
        std::lock_guard<std::mutex> g{out->mtx};
        out->events.emplace_back(ev.type, ev.object.size());
        if (ev.object.size() > 1000000) {
          auto obj = json::parse(ev.object);
          out->big_value_prefix = obj["data"]["blob"].get<std::string>().substr(0, 16);
        }
        out->cv.notify_all();
      });
    },
    [=](schedopt::watch_closed&) {},
  };
}

} // namespace

BOOST_AUTO_TEST_CASE(watch_delivers_a_one_megabyte_object) {
  schedopt::test::sim_client t{{"--vmis", "1", "--nodes", "2"}};
  k8s::list_request lr;
  lr.res = res::configmaps;
  lr.namespace_ = "default";
  auto listed = t.list(lr);
  BOOST_REQUIRE(listed);
  auto out = std::make_shared<raw_watch_result>();
  auto sink = t.env.own(t.env.sys->spawn(raw_sink, out));
  k8s::watch_request wr;
  wr.res = res::configmaps;
  wr.namespace_ = "default";
  wr.resource_version = listed.value.resource_version;
  caf::scoped_actor self{*t.env.sys};
  uint64_t watch_id = 0;
  self->request(t.client, 30s, wr, sink).receive([&](uint64_t x) { watch_id = x; }, [&](caf::error&) {});
  BOOST_REQUIRE_GT(watch_id, 0u);
  std::string blob(1024 * 1024, 'z');
  blob.replace(0, 16, "0123456789abcdef");
  json cm{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
          {"metadata", {{"name", "big"}, {"namespace", "default"}}}, {"data", {{"blob", blob}}}};
  auto created = t.create({res::configmaps, "default", cm.dump()});
  BOOST_REQUIRE_MESSAGE(created, error_message(created.error));
  std::unique_lock<std::mutex> g{out->mtx};
  BOOST_REQUIRE(out->cv.wait_for(g, 30s, [&] { return !out->big_value_prefix.empty(); }));
  BOOST_CHECK_EQUAL(out->big_value_prefix, "0123456789abcdef");
  g.unlock();
  caf::anon_send(t.client, schedopt::atom::cancel_v, watch_id);
}

// An informer started on demand lists nothing until first asked about its content, then
// lists and watches like any other; the pod informer's label selector keeps KubeVirt's
// virt-launcher pods out of its store.
BOOST_AUTO_TEST_CASE(an_on_demand_informer_lists_only_once_asked) {
  using pod_t = schedopt::pod_hyperconvergence::pod;
  schedopt::test::sim_client t{{"--vmis", "4", "--nodes", "3", "--pods", "8"}};
  auto& m = schedopt::k8s::default_metrics();
  auto relists = [&] { return m.value("schedopt_informer_relists_total", {{"resource", "pods"}}); };
  auto before = relists();
  schedopt::informer_options opts;
  opts.on_demand = true;
  opts.label_selector = schedopt::pod_hyperconvergence::pod_informer_label_selector;
  auto pods = t.env.own(schedopt::spawn_informer<pod_t>(*t.env.sys, t.client, opts));
  std::this_thread::sleep_for(500ms);
  BOOST_CHECK_EQUAL(relists(), before); // nobody asked: no list
  BOOST_REQUIRE(wait_synced(t, pods, 30s));
  BOOST_CHECK_EQUAL(relists(), before + 1);
  auto stored = snapshot(t, pods);
  BOOST_CHECK_EQUAL(stored.size(), 8u); // the stateful pods, not the VMIs' launcher pods
  for (auto& p : stored)
    BOOST_CHECK(!schedopt::pod_hyperconvergence::is_virt_launcher(p));
}
