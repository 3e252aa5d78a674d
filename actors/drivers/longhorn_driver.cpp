// longhorn: PVs of CSI driver driver.longhorn.io; the volume handle is the Longhorn
// volume name; its replica nodes are the spec.nodeID of its replicas.longhorn.io
// objects whose status.currentState is running (docs/design.md §6). The replicas come from one
// informer (list+watch in longhorn-system) the driver subscribes to; a volume without
// a running replica is looked up in volumes.longhorn.io to tell "not found" from "no
// replica running" — both are per-volume errors, so only that VM is skipped.
#include "actors/drivers/longhorn_driver.hpp"

#include <memory>
#include <utility>

#include <caf/actor_clock.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/drivers/storage_drivers.hpp"
#include "actors/informer_actor.hpp"
#include "actors/system_config.hpp"
#include "model/longhorn.hpp"
#include "model/outcome.hpp"

namespace schedopt {

namespace {

bool longhorn_owns(const persistent_volume& pv, const settings&) {
  return pv.csi_driver == longhorn_csi_driver;
}

/// The Longhorn volume a PV is: its CSI volume handle (Longhorn's CSI driver uses the
/// volume name), the PV name when a hand-made PV has none.
std::string longhorn_volume_of(const persistent_volume& pv) {
  return pv.volume_handle.empty() ? pv.metadata.name.str() : pv.volume_handle.str();
}

struct waiting_query {
  replica_query query;
  caf::typed_response_promise<replica_answer> promise;
  caf::actor_clock::time_point since;
};

struct longhorn_driver_state {
  static inline const char* name = "longhorn-driver";
  api_client_actor api;
  longhorn_replica_informer_actor replicas;
  longhorn_driver_options options;
  /// Keyed by uid (namespace/name when the object has none).
  longhorn_replica_index replicas_by_volume;
  bool synced = false;
  std::vector<waiting_query> waiting;
};

using driver_pointer = longhorn_driver_actor::stateful_pointer<longhorn_driver_state>;

std::string key_of(const longhorn_replica& r) {
  return r.metadata.uid.empty() ? r.metadata.namespace_ + "/" + r.metadata.name
                                : r.metadata.uid;
}

/// One answer being assembled: volumes with running replicas are answered at once,
/// the others once their volumes.longhorn.io GET returns.
struct pending_answer {
  replica_answer answer;
  caf::typed_response_promise<replica_answer> promise;
  std::size_t outstanding = 0;
  void finish_one() {
    if (--outstanding == 0)
      promise.deliver(std::move(answer));
  }
};

void answer_query(driver_pointer self, const replica_query& q,
                  caf::typed_response_promise<replica_answer> promise) {
  auto& st = self->state;
  auto& index = st.replicas_by_volume;
  auto pending = std::make_shared<pending_answer>();
  pending->promise = std::move(promise);
  pending->outstanding = 1; // released below, after every lookup is sent
  for (auto& shared : q.volumes) {
    const auto& pv = *shared;
    auto volume = longhorn_volume_of(pv);
    if (auto nodes = index.running_nodes(volume); !nodes.empty()) {
      pending->answer.replicas.emplace(pv.metadata.name, replica_nodes(nodes.begin(), nodes.end()));
      continue;
    }
    auto objects = index.replica_objects(volume);
    ++pending->outstanding;
    auto pv_name = pv.metadata.name;
    self
      ->request(st.api, st.options.get_timeout,
                k8s::get_request{k8s::resources::longhorn_volumes, longhorn_namespace, volume, ""})
      .then(
        [pending, pv_name, volume, objects](const k8s::api_response&) {
          pending->answer.errors.emplace_back(
            pv_name, "longhorn volume \"" + volume + "\" has no running replica ("
                       + std::to_string(objects) + " replica objects)");
          pending->finish_one();
        },
        [pending, pv_name, volume](const caf::error& err) {
          if (error_code(err) == ec::not_found)
            pending->answer.errors.emplace_back(pv_name,
                                                "longhorn volume \"" + volume + "\" not found");
          else
            pending->answer.errors.emplace_back(
              pv_name, "longhorn volume \"" + volume
                         + "\" has no running replica and reading it failed: "
                         + error_message(err));
          pending->finish_one();
        });
  }
  pending->finish_one();
}

void answer_waiting(driver_pointer self) {
  auto waiting = std::move(self->state.waiting);
  self->state.waiting.clear();
  for (auto& w : waiting)
    answer_query(self, w.query, std::move(w.promise));
}

longhorn_driver_actor::behavior_type
longhorn_driver(driver_pointer self, api_client_actor api,
                longhorn_replica_informer_actor replicas, longhorn_driver_options options) {
  auto& st = self->state;
  st.api = std::move(api);
  st.replicas = std::move(replicas);
  st.options = options;
  self->link_to(st.replicas);
  self->send(st.replicas, atom::subscribe_v,
             caf::actor_cast<informer_subscriber_actor<longhorn_replica>>(self));
  return {
    [=](const replica_query& q) -> caf::result<replica_answer> {
      auto promise = self->make_response_promise<replica_answer>();
      if (self->state.synced) {
        answer_query(self, q, promise);
        return promise;
      }
      self->state.waiting.push_back({q, promise, self->clock().now()});
      self->delayed_send(self, self->state.options.sync_timeout, atom::timeout_v);
      return promise;
    },
    [](const http_completion&) {},
    [=](const object_added<longhorn_replica>& x) {
      self->state.replicas_by_volume.upsert(key_of(x.object), x.object);
    },
    [=](const object_updated<longhorn_replica>& x) {
      self->state.replicas_by_volume.erase(key_of(x.old_object));
      self->state.replicas_by_volume.upsert(key_of(x.object), x.object);
    },
    [=](const object_deleted<longhorn_replica>& x) {
      self->state.replicas_by_volume.erase(key_of(x.object));
    },
    [=](const informer_synced<longhorn_replica>&) {
      self->state.synced = true;
      answer_waiting(self);
    },
    [=](atom::timeout) {
      auto& st = self->state;
      if (st.synced)
        return;
      auto now = self->clock().now();
      std::vector<waiting_query> still;
      for (auto& w : st.waiting) {
        if (now - w.since < st.options.sync_timeout) {
          still.push_back(std::move(w));
          continue;
        }
        w.promise.deliver(to_caf_error(
          ec::driver_error,
          driver_failure_reason(
            "longhorn: replicas.longhorn.io in namespace " + std::string{longhorn_namespace}
            + " not listed within "
            + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                st.options.sync_timeout)
                                .count())
            + "s (is Longhorn installed, and may schedopt list and watch replicas.longhorn.io "
              "there?)")));
      }
      st.waiting = std::move(still);
    },
  };
}

} // namespace

longhorn_driver_actor spawn_longhorn_driver(caf::actor_system& sys, api_client_actor api,
                                            longhorn_replica_informer_actor replicas,
                                            longhorn_driver_options options) {
  return sys.spawn(longhorn_driver, std::move(api), std::move(replicas), options);
}

storage_driver_entry longhorn_driver_entry() {
  return {"longhorn", longhorn_owns,
          [](caf::actor_system& sys, const settings&,
             const api_client_actor& api) -> caf::expected<storage_driver_actor> {
            if (!api)
              return to_caf_error(ec::config_error,
                                  "the longhorn driver reads replicas.longhorn.io and needs "
                                  "the Kubernetes API client");
            informer_options opts;
            opts.namespace_ = longhorn_namespace;
            auto replicas = spawn_informer<longhorn_replica>(sys, api, opts);
            return storage_driver_actor{spawn_longhorn_driver(sys, api, replicas)};
          }};
}

} // namespace schedopt
