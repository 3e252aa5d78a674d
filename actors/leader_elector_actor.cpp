// Leader elector: client-go's tryAcquireOrRenew every retry period. The leader renews
// with one PUT of the Lease it last wrote and reads it only when that fails; a replica
// that is not leading reads, then creates or takes over through optimistic writes.
// Subscribers hear when leadership starts or stops.
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
  bool busy = false;      // a round is outstanding
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

/// Follows client-go v0.36.3 tools/leaderelection/leaderelection.go, renew: a leader
/// that has not renewed within renewDeadline stops leading (OnStoppedLeading), whether
/// its last attempt failed or still hangs. The write gate shuts first, so nothing the
/// controller still has queued goes out.
void check_renew_deadline(elector_pointer self) {
  auto& st = self->state;
  if (!st.logic->is_leader()
      || self->clock().now() - st.logic->last_renew() < st.opts.renew_deadline)
    return;
  if (st.opts.writes)
    st.opts.writes->close();
  spdlog::warn("leader election: {}: no renewal of lease {}/{} for {} ms (renewDeadline)",
               st.opts.identity, st.opts.namespace_, st.opts.lease_name,
               st.opts.renew_deadline.count());
  st.logic->lost();
  announce(self, false);
}

// A failed round. A conflict is the contest working (another replica wrote first): debug.
// Anything else (403 from missing RBAC, an unreachable API) would leave a replica
// silently never leading: warn.
void round_failed(elector_pointer self, const std::string& why, bool contested = false) {
  auto& st = self->state;
  st.busy = false;
  if (contested)
    spdlog::debug("leader election: {}: {}", st.opts.identity, why);
  else
    spdlog::warn("leader election: lease {}/{}: {}", st.opts.namespace_, st.opts.lease_name, why);
  check_renew_deadline(self);
}

/// The server took `stored`, written at `sent`: the gate opens until sent + renewDeadline
/// and a timer checks the deadline then.
void wrote(elector_pointer self, const lease& stored, caf::actor_clock::time_point sent) {
  auto& st = self->state;
  st.busy = false;
  if (st.released)
    return;
  st.logic->written(stored, sent);
  if (st.logic->is_leader()) {
    if (st.opts.writes)
      st.opts.writes->open_until(sent + st.opts.renew_deadline);
    auto due = sent + st.opts.renew_deadline - self->clock().now();
    self->delayed_send(self, std::max<caf::timespan>(due, caf::timespan::zero()), atom::timeout_v);
  }
  announce(self, st.logic->is_leader());
}

void write(elector_pointer self, const k8s::lease_decision& d) {
  auto& st = self->state;
  auto sent = self->clock().now();
  auto on_ok = [=](k8s::api_response& resp) {
    auto stored = decode_lease(resp.body);
    if (!stored) {
      round_failed(self, "cannot decode Lease: " + stored.err().message);
      return;
    }
    wrote(self, *stored, sent);
  };
  auto on_err = [=](caf::error& err) {
    round_failed(self, error_message(err), error_code(err) == ec::conflict);
  };
  if (d.action == k8s::lease_decision::create) {
    self->request(st.client, caf::infinite,
                  k8s::create_request{k8s::resources::leases, st.opts.namespace_,
                                      to_json(d.record).dump()})
      .then(on_ok, on_err);
  } else {
    self->request(st.client, caf::infinite,
                  k8s::update_request{k8s::resources::leases, st.opts.namespace_,
                                      st.opts.lease_name, to_json(d.record).dump(), false})
      .then(on_ok, on_err);
  }
}

/// tryAcquireOrRenew's slow path: GET the Lease (or find it missing), then create,
/// take over, renew, or wait while someone else holds it.
void read_and_decide(elector_pointer self) {
  auto& st = self->state;
  auto decide = [=](const std::optional<lease>& current) {
    auto& st = self->state;
    if (st.released) {
      st.busy = false;
      return;
    }
    auto d = st.logic->decide(current, self->clock().now(), std::chrono::system_clock::now());
    if (d.action == k8s::lease_decision::wait) {
      st.busy = false;
      if (st.announced && st.opts.writes)
        st.opts.writes->close();
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

void attempt(elector_pointer self) {
  auto& st = self->state;
  if (st.busy || st.released)
    return;
  st.busy = true;
  auto renewal = st.logic->renewal(self->clock().now(), std::chrono::system_clock::now());
  if (!renewal) {
    read_and_decide(self);
    return;
  }
  // The fast path: one PUT of the Lease as last written. Any failure (a conflict after
  // someone else wrote, a timeout) falls back to reading it, within the same round.
  auto sent = self->clock().now();
  self->request(st.client, caf::infinite,
                k8s::update_request{k8s::resources::leases, st.opts.namespace_,
                                    st.opts.lease_name, to_json(*renewal).dump(), false})
    .then(
      [=](k8s::api_response& resp) {
        auto stored = decode_lease(resp.body);
        if (!stored) {
          round_failed(self, "cannot decode Lease: " + stored.err().message);
          return;
        }
        wrote(self, *stored, sent);
      },
      [=](caf::error& err) {
        spdlog::debug("leader election: {}: optimistic renewal failed ({}); reading the Lease",
                      self->state.opts.identity, error_message(err));
        if (self->state.released) {
          self->state.busy = false;
          return;
        }
        check_renew_deadline(self);
        read_and_decide(self);
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
      if (st.opts.writes)
        st.opts.writes->close();
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
      check_renew_deadline(self);
      attempt(self);
      self->delayed_send(self, st.opts.retry_period, atom::tick_v);
    },
    [=](atom::timeout) {
      if (!self->state.released)
        check_renew_deadline(self);
    },
  };
}

} // namespace

leader_elector_actor spawn_leader_elector(caf::actor_system& sys, api_client_actor client,
                                          leader_election_options options) {
  return sys.spawn(leader_elector, std::move(client), std::move(options));
}

} // namespace schedopt
