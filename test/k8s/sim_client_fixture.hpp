// Test fixture: a schedopt-sim child process plus an actor system with the API client
// spawned from the simulator's kubeconfig; helpers for blocking calls.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/actors.hpp"
#include "actors/api_client_actor.hpp"
#include "actors/system_config.hpp"
#include "k8s/api_types.hpp"
#include "k8s/cluster_config.hpp"
#include "model/decode.hpp"
#include "sim/sim_process.hpp"

namespace schedopt::test {

struct actor_env {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::vector<caf::actor> owned; // stopped explicitly: timers keep actors alive otherwise

  actor_env() {
    register_schedopt_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }

  template <class Handle>
  Handle own(Handle h) {
    owned.push_back(caf::actor_cast<caf::actor>(h));
    return h;
  }

  void stop_all() {
    for (auto& a : owned)
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    owned.clear();
  }

  ~actor_env() {
    stop_all();
  }
};

template <class Resp>
struct call_result {
  Resp value;
  caf::error error;
  explicit operator bool() const { return !error; }
};

struct sim_client {
  sim_process sim;
  actor_env env;
  api_client_actor client;

  explicit sim_client(std::vector<std::string> args = {}, api_client_options opts = {})
    : sim(std::move(args)) {
    BOOST_REQUIRE_MESSAGE(sim.ok(), sim.error());
    auto cfg = k8s::load_kubeconfig(sim.kubeconfig());
    BOOST_REQUIRE_MESSAGE(cfg.has_value(), (cfg ? std::string{} : cfg.err().message));
    config = *cfg;
    auto c = spawn_api_client(*env.sys, config, opts);
    BOOST_REQUIRE(c);
    client = env.own(*c);
  }

  ~sim_client() {
    client = nullptr;
    env.stop_all();
  }

  template <class Resp, class Req>
  call_result<Resp> call(const Req& req, std::chrono::seconds timeout = std::chrono::seconds{120}) {
    caf::scoped_actor self{*env.sys};
    call_result<Resp> out;
    self->request(client, timeout, req)
      .receive([&](Resp& r) { out.value = std::move(r); },
               [&](caf::error& e) { out.error = std::move(e); });
    return out;
  }

  call_result<k8s::api_response> get(const k8s::get_request& r) {
    return call<k8s::api_response>(r);
  }
  call_result<k8s::api_response> create(const k8s::create_request& r) {
    return call<k8s::api_response>(r);
  }
  call_result<k8s::list_response> list(const k8s::list_request& r) {
    return call<k8s::list_response>(r);
  }

  /// The Events in namespace `ns` (first page), as the simulator stores them.
  std::vector<event> events_in(const std::string& ns) {
    k8s::list_request lr;
    lr.res = k8s::resources::events;
    lr.namespace_ = ns;
    auto listed = list(lr);
    BOOST_REQUIRE(listed);
    auto events = decode_list<event>(listed.value.pages.at(0));
    BOOST_REQUIRE(events.has_value());
    return std::move(events->items);
  }

  /// Waits until the recorder has written or dropped every queued event.
  void flush_events(const event_recorder_actor& recorder) {
    caf::scoped_actor self{*env.sys};
    bool flushed = false;
    self->request(recorder, std::chrono::seconds{30}, atom::flush_v)
      .receive([&](bool b) { flushed = b; }, [&](caf::error&) {});
    BOOST_REQUIRE(flushed);
  }

  k8s::cluster_config config;
};

} // namespace schedopt::test
