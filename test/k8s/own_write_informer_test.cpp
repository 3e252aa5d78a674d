// The VirtualMachine informer against schedopt-sim: it keeps the cool-off record of
// each VM only, and stores this controller's own writes (atom::observed) without letting
// the watch events that were already on their way put the older version back.
#include <boost/test/unit_test.hpp>

#include <thread>

#include <caf/scoped_actor.hpp>
#include <nlohmann/json.hpp>

#include "actors/informer_actor.hpp"
#include "model/decode.hpp"
#include "sim_client_fixture.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
namespace k8s = schedopt::k8s;
using vm_t = schedopt::virtual_machine;

namespace {

struct vm_informer_fixture {
  schedopt::test::sim_client t{{"--vmis", "3", "--nodes", "2"}};
  schedopt::informer_actor<vm_t> vms;

  explicit vm_informer_fixture(bool only_worth_keeping = false) {
    schedopt::informer_options o;
    o.kept.cool_off_annotations = {"cool/at", "cool/at-request-uid"};
    o.kept.only_worth_keeping = only_worth_keeping;
    vms = t.env.own(schedopt::spawn_informer<vm_t>(*t.env.sys, t.client, o));
    BOOST_REQUIRE(eventually([&] { return synced(); }, 30s));
  }

  template <class Pred>
  bool eventually(Pred p, std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (p())
        return true;
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }

  bool synced() {
    caf::scoped_actor self{*t.env.sys};
    bool out = false;
    self->request(vms, 10s, schedopt::atom::synced_v).receive([&](bool b) { out = b; },
                                                              [&](caf::error&) {});
    return out;
  }

  std::vector<vm_t> stored() {
    caf::scoped_actor self{*t.env.sys};
    std::vector<vm_t> out;
    self->request(vms, 10s, schedopt::atom::snapshot_v)
      .receive([&](schedopt::shared_list<vm_t>& v) { out = schedopt::values_of(v); },
               [&](caf::error&) {});
    return out;
  }

  std::optional<vm_t> stored(const vm_t& which) {
    for (auto& vm : stored())
      if (vm.metadata.namespace_ == which.metadata.namespace_ && vm.metadata.name == which.metadata.name)
        return vm;
    return std::nullopt;
  }

  /// Every VM, from the API server.
  std::vector<vm_t> listed() {
    k8s::list_request every_vm;
    every_vm.res = k8s::resources::vms;
    auto r = t.call<k8s::list_response>(every_vm);
    BOOST_REQUIRE_MESSAGE(r, schedopt::error_message(r.error));
    std::vector<vm_t> out;
    for (auto& page : r.value.pages) {
      auto list = schedopt::decode_list<vm_t>(page);
      BOOST_REQUIRE(list);
      for (auto& vm : list->items)
        out.push_back(vm);
    }
    return out;
  }

  /// Sets annotations on the VM for real; returns the VM as the patch answered it.
  vm_t annotate(const vm_t& vm, const json& annotations) {
    json body{{"metadata", {{"annotations", annotations}}}};
    auto r = t.call<k8s::api_response>(k8s::patch_request{
      k8s::resources::vms, vm.metadata.namespace_, vm.metadata.name, body.dump(), false, false});
    BOOST_REQUIRE_MESSAGE(r, schedopt::error_message(r.error));
    auto decoded = schedopt::decode<vm_t>(r.value.body);
    BOOST_REQUIRE(decoded);
    return *decoded;
  }
};

/// The VM informer as the VM kind runs it: holding only VMs with a record or opt-out label.
struct kept_vm_informer_fixture : vm_informer_fixture {
  kept_vm_informer_fixture() : vm_informer_fixture(true) {}
};

} // namespace

BOOST_AUTO_TEST_SUITE(own_write_informer)

BOOST_FIXTURE_TEST_CASE(a_store_of_what_is_worth_keeping_holds_vms_with_a_record,
                        kept_vm_informer_fixture) {
  auto all = listed();
  BOOST_REQUIRE(!all.empty());
  for (auto& vm : stored()) // none has a record yet: only opt-out labels are held
    BOOST_CHECK(vm.opted_out);
  auto vm = all.front();
  annotate(vm, {{"cool/at", "2026-12-01T10:00:00Z"}, {"unrelated", "x"}});
  BOOST_CHECK(eventually([&] { return stored(vm).has_value(); }, 10s));
  // The record goes: so does the VM, from the store.
  annotate(vm, {{"cool/at", nullptr}});
  BOOST_CHECK(eventually([&] { return !stored(vm).has_value(); }, 10s));
}

BOOST_FIXTURE_TEST_CASE(an_own_write_without_a_record_holds_older_events_back,
                        kept_vm_informer_fixture) {
  auto vm = listed().front();
  annotate(vm, {{"cool/at", "2026-12-01T10:00:00Z"}});
  BOOST_REQUIRE(eventually([&] { return stored(vm).has_value(); }, 10s));
  // This controller restores the VM to no record; its answer is far ahead of the watch,
  // so the next real write (a record again) reaches the watch as an older version.
  auto ours = annotate(vm, {{"cool/at", nullptr}});
  ours.metadata.resource_version =
    std::to_string(std::stoull(ours.metadata.resource_version.str()) + 1000000);
  caf::anon_send(vms, schedopt::atom::observed_v, ours);
  annotate(vm, {{"cool/at", "2026-12-01T11:00:00Z"}});
  std::this_thread::sleep_for(1s); // its watch event arrives meanwhile
  auto held = stored(vm);
  BOOST_REQUIRE(held); // the own write, held though it has no record
  BOOST_CHECK_EQUAL(held->metadata.resource_version, ours.metadata.resource_version);
  BOOST_CHECK(held->metadata.annotations.empty());
}

BOOST_FIXTURE_TEST_CASE(the_store_keeps_the_cool_off_record_only, vm_informer_fixture) {
  auto all = stored();
  BOOST_REQUIRE(!all.empty()); // the scenario gives most VMIs an owning VM
  annotate(all[0], {{"cool/at", "2026-12-01T10:00:00Z"}, {"unrelated", "x"}});
  BOOST_CHECK(eventually(
    [&] {
      auto vm = stored(all[0]);
      return vm && vm->metadata.annotations.count("cool/at");
    },
    10s));
  auto vm = stored(all[0]);
  BOOST_REQUIRE(vm);
  BOOST_CHECK(vm->metadata.annotations
              == (schedopt::string_map{{"cool/at", "2026-12-01T10:00:00Z"}}));
}

BOOST_FIXTURE_TEST_CASE(an_own_write_is_not_undone_by_older_watch_events, vm_informer_fixture) {
  auto vm = stored().front();
  // This controller's write, as its answer reports it. The version is set far ahead so
  // that the next real write (below) reaches the watch as an older version, as the
  // events already in flight when an own write's answer arrives do.
  auto ours = annotate(vm, {{"cool/at", "2026-12-01T10:00:00Z"}});
  ours.metadata.resource_version =
    std::to_string(std::stoull(ours.metadata.resource_version) + 1000000);
  caf::anon_send(vms, schedopt::atom::observed_v, ours);
  BOOST_CHECK(eventually(
    [&] {
      auto held = stored(vm);
      return held && held->metadata.resource_version == ours.metadata.resource_version;
    },
    10s));
  auto theirs = annotate(vm, {{"cool/at", "2026-12-01T11:00:00Z"}});
  std::this_thread::sleep_for(1s); // the watch event of `theirs` arrives meanwhile
  auto held = stored(vm);
  BOOST_REQUIRE(held);
  BOOST_CHECK_EQUAL(held->metadata.resource_version, ours.metadata.resource_version);
  BOOST_CHECK_EQUAL(held->metadata.annotations["cool/at"], "2026-12-01T10:00:00Z");
  // An own write older than what the store holds is not stored either.
  auto stale = theirs;
  stale.metadata.resource_version = "1";
  stale.metadata.annotations["cool/at"] = "2020-01-01T00:00:00Z";
  caf::anon_send(vms, schedopt::atom::observed_v, stale);
  std::this_thread::sleep_for(200ms);
  BOOST_CHECK_EQUAL(stored(vm)->metadata.annotations["cool/at"], "2026-12-01T10:00:00Z");
}

BOOST_FIXTURE_TEST_CASE(an_own_write_is_stored_before_its_watch_event, vm_informer_fixture) {
  auto vm = stored().front();
  auto ours = annotate(vm, {{"cool/at", "2026-12-01T12:00:00Z"}});
  caf::scoped_actor self{*t.env.sys};
  self->send(vms, schedopt::atom::observed_v, ours);
  // The informer's mailbox is ordered: a snapshot asked after the send sees the write.
  self->request(vms, 10s, schedopt::atom::snapshot_v)
    .receive(
      [&](schedopt::shared_list<vm_t>& all) {
        bool found = false;
        for (auto& x : all)
          if (x->metadata.name == vm.metadata.name && x->metadata.namespace_ == vm.metadata.namespace_) {
            found = true;
            BOOST_CHECK_EQUAL(x->metadata.resource_version, ours.metadata.resource_version);
          }
        BOOST_CHECK(found);
      },
      [&](caf::error& e) { BOOST_FAIL(schedopt::error_message(e)); });
}

BOOST_AUTO_TEST_SUITE_END()
