// Leader elector: GET the Lease every retry period, create/renew/take over through
// optimistic writes, tell subscribers when leadership starts or stops.
#include "actors/leader_elector_actor.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <caf/typed_response_promise.hpp>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"
#include "k8s/leader_election.hpp"
#include "model/decode.hpp"
#include "model/encode.hpp"

namespace schedopt {

namespace {

struct leader_elector_state {
  static inline const char* name = "leader-elector";
  api_client_actor client;
  leader_election_options opts;
  std::unique_ptr<k8s::leader_election_logic> logic;
  std::vector<leadership_subscriber_actor> subscribers;
  bool announced = false; // subscribers were told started_leading
  bool busy = false;      // a GET/write round is outstanding
  bool released = false;
};

using elector_pointer = leader_elector_actor::stateful_pointer<leader_elector_state>;

void announce(elector_pointer self, bool leading) {
  auto& st = self->state;
  if (st.announced == leading)
    return;
  st.announced = leading;
  spdlog::info("leader election: {} {} lease {}/{}", st.opts.identity,
               leading ? "acquired" : "lost", st.opts.namespace_, st.opts.lease_name);
  for (auto& sub : st.subscribers) {
    if (leading)
      self->send(sub, atom::started_leading_v);
    else
      self->send(sub, atom::stopped_leading_v);
  }
}

// A failed round: a leader that could not renew within the renew deadline steps down.
// A conflict is the contest working (another replica wrote first): debug. Anything else
// (403 from missing RBAC, an unreachable API) would leave a replica silently never
// leading: warn.
void round_failed(elector_pointer self, const std::string& why, bool contested = false) {
  auto& st = self->state;
  st.busy = false;
  if (contested)
    spdlog::debug("leader election: {}: {}", st.opts.identity, why);
  else
    spdlog::warn("leader election: lease {}/{}: {}", st.opts.namespace_, st.opts.lease_name, why);
  if (st.logic->is_leader()
      && self->clock().now() - st.logic->last_renew() > st.opts.renew_deadline) {
    st.logic->lost();
    announce(self, false);
  }
}

void write(elector_pointer self, const k8s::lease_decision& d) {
  auto& st = self->state;
  auto body = to_json(d.record).dump();
  auto on_ok = [=](k8s::api_response& resp) {
    auto& st = self->state;
    st.busy = false;
    if (st.released)
      return;
    auto stored = decode_lease(resp.body);
    if (!stored) {
      round_failed(self, "cannot decode Lease: " + stored.err().message);
      return;
    }
    st.logic->written(*stored, self->clock().now());
    announce(self, st.logic->is_leader());
  };
  auto on_err = [=](caf::error& err) {
    round_failed(self, error_message(err), error_code(err) == ec::conflict);
  };
  if (d.action == k8s::lease_decision::create) {
    self->request(st.client, caf::infinite,
                  k8s::create_request{k8s::resources::leases, st.opts.namespace_, body})
      .then(on_ok, on_err);
  } else {
    self->request(st.client, caf::infinite,
                  k8s::update_request{k8s::resources::leases, st.opts.namespace_,
                                      st.opts.lease_name, body, false})
      .then(on_ok, on_err);
  }
}

void attempt(elector_pointer self) {
  auto& st = self->state;
  if (st.busy || st.released)
    return;
  st.busy = true;
  auto decide = [=](const std::optional<lease>& current) {
    auto& st = self->state;
    if (st.released) {
      st.busy = false;
      return;
    }
    auto d = st.logic->decide(current, self->clock().now(), std::chrono::system_clock::now());
    if (d.action == k8s::lease_decision::wait) {
      st.busy = false;
      announce(self, false); // someone else holds a valid lease
      return;
    }
    write(self, d);
  };
  self->request(st.client, caf::infinite,
                k8s::get_request{k8s::resources::leases, st.opts.namespace_, st.opts.lease_name, {}})
    .then(
      [=](k8s::api_response& resp) {
        auto current = decode_lease(resp.body);
        if (!current) {
          round_failed(self, "cannot decode Lease: " + current.err().message);
          return;
        }
        decide(std::optional<lease>{std::move(*current)});
      },
      [=](caf::error& err) {
        if (error_code(err) == ec::not_found)
          decide(std::nullopt);
        else
          round_failed(self, error_message(err));
      });
}

leader_elector_actor::behavior_type leader_elector(elector_pointer self, api_client_actor client,
                                                   leader_election_options opts) {
  auto& st = self->state;
  st.client = std::move(client);
  st.opts = std::move(opts);
  st.logic = std::make_unique<k8s::leader_election_logic>(
    st.opts.identity, st.opts.namespace_, st.opts.lease_name,
    k8s::leader_election_timing{st.opts.lease_duration, st.opts.renew_deadline,
                                st.opts.retry_period});
  self->send(self, atom::tick_v);
  return {
    [=](atom::subscribe, leadership_subscriber_actor sub) {
      self->state.subscribers.push_back(sub);
      if (self->state.announced)
        self->send(sub, atom::started_leading_v);
    },
    [=](atom::leading) { return self->state.announced; },
    [=](atom::release) -> caf::result<bool> {
      auto& st = self->state;
      auto record = st.logic->release_record(std::chrono::system_clock::now());
      st.released = true;
      if (!record) {
        announce(self, false);
        return false;
      }
      auto rp = self->make_response_promise<bool>();
      st.logic->lost();
      announce(self, false);
      auto put = [=](const lease& r) {
        return self->request(self->state.client, caf::infinite,
                             k8s::update_request{k8s::resources::leases, self->state.opts.namespace_,
                                                 self->state.opts.lease_name,
                                                 to_json(r).dump(), false});
      };
      auto give_up = [=](const caf::error& err) mutable {
        spdlog::warn("leader election: release failed: {}", error_message(err));
        rp.deliver(false);
      };
      put(*record).then(
        [=](k8s::api_response&) mutable { rp.deliver(true); },
        [=](caf::error& err) mutable {
          if (error_code(err) != ec::conflict) {
            give_up(err);
            return;
          }
          // A renewal landed after the record we built on: release the Lease as it is
          // now, if it is still ours.
          self->request(self->state.client, caf::infinite,
                        k8s::get_request{k8s::resources::leases, self->state.opts.namespace_,
                                         self->state.opts.lease_name, {}})
            .then(
              [=](k8s::api_response& resp) mutable {
                auto current = decode_lease(resp.body);
                if (!current || current->holder_identity != self->state.opts.identity) {
                  rp.deliver(false);
                  return;
                }
                put(k8s::released_lease(*current, std::chrono::system_clock::now()))
                  .then([=](k8s::api_response&) mutable { rp.deliver(true); },
                        [=](caf::error& err2) mutable { give_up(err2); });
              },
              [=](caf::error& err2) mutable { give_up(err2); });
        });
      return rp;
    },
    [=](atom::tick) {
      auto& st = self->state;
      if (st.released)
        return;
      // Step down on time even if the last round is still hanging.
      if (st.logic->is_leader()
          && self->clock().now() - st.logic->last_renew() > st.opts.renew_deadline) {
        st.logic->lost();
        announce(self, false);
      }
      attempt(self);
      self->delayed_send(self, st.opts.retry_period, atom::tick_v);
    },
  };
}

} // namespace

leader_elector_actor spawn_leader_elector(caf::actor_system& sys, api_client_actor client,
                                          leader_election_options options) {
  return sys.spawn(leader_elector, std::move(client), std::move(options));
}

} // namespace schedopt
