// What every optimization kind's run does alike, whatever it optimizes: take the run
// (resumed counters, the run's deadline), read informer snapshots side by side, warn of a
// clamped value, say that maxRunDuration stopped it, fail it, and reply once with the
// Warning event that names what failed. A kind's actor state derives from kind_run_state
// and its phases call these (docs/design.md "How to add a kind").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <caf/typed_response_promise.hpp>
#include <spdlog/spdlog.h>

#include "actors/controller_context.hpp"
#include "actors/logging.hpp"
#include "actors/opted_out_namespaces.hpp"
#include "actors/system_config.hpp"
#include "k8s/metrics.hpp"
#include "model/name_list.hpp"
#include "model/placement/run_floors.hpp"
#include "model/placement/scoring.hpp"

namespace schedopt {

/// How a kind words the Warning event of its failures: {"MigrationFailed", "live
/// migrations failed"} reads "3 live migrations failed: ns/a, ns/b, ns/c".
struct failure_wording {
  const char* reason;
  const char* what;
};

struct kind_run_state {
  kind_run_state(std::string field, failure_wording wording)
    : kind_field(std::move(field)), wording(wording) {}

  const std::string kind_field; // the kind's spec field and status block
  const failure_wording wording;
  controller_context ctx;
  scheduling_optimization request;
  bool resume = false;
  caf::typed_response_promise<kind_result> promise;
  kind_result result;
  /// "<ns>/<name>" of each failure, named in the reply's Warning event.
  std::vector<std::string> failed;
  timestamp run_deadline{}; // nothing new starts past it (maxRunDuration)
  bool replied = false;
};

/// Takes `run` in: the request, whether it resumes, the counters the kind's block
/// recorded (resumed runs go on from them) and the deadline maxRunDuration leaves from
/// the run's first start.
void take_run(kind_run_state& st, kind_run& run, timestamp now);

/// Replies once: the Warning event naming what failed, the result, and the actor quits.
template <class Self>
void finish_run(Self self) {
  auto& st = self->state;
  if (st.replied)
    return;
  st.replied = true;
  if (!st.failed.empty())
    self->send(st.ctx.events,
               event_record{request_reference(st.request), "Warning", st.wording.reason,
                            std::to_string(st.failed.size()) + " " + st.wording.what + ": "
                              + first_names(st.failed, 10)});
  st.promise.deliver(st.result);
  self->quit();
}

/// The run fails as a whole (the first failure answers; later ones are dropped).
template <class Self>
void fail_run(Self self, run_failure_kind kind, std::string why) {
  auto& st = self->state;
  if (st.replied)
    return;
  log_kv(spdlog::level::err, st.kind_field + " run failed",
         {{"request", st.request.metadata.name}, {"error", why}});
  st.result.run_failure = run_failure{kind, std::move(why)};
  finish_run(self);
}

/// A spec value was clamped (`reason`, e.g. "CoolOffClamped"): logged and an Event on
/// the request. Nothing when `message` is empty.
template <class Self>
void warn_clamped(Self self, const char* reason, const std::string& message) {
  if (message.empty())
    return;
  auto& st = self->state;
  log_kv(spdlog::level::warn, message, {{"request", st.request.metadata.name}});
  self->send(st.ctx.events, event_record{request_reference(st.request), "Warning", reason, message});
}

/// maxRunDuration passed: the result says so, and the log and an Event say what the
/// kind stops starting (`stops`, e.g. "no new evictions").
template <class Self>
void say_deadline_reached(Self self, const std::string& stops) {
  auto& st = self->state;
  auto why = run_deadline_reason(st.ctx.config.max_run_duration);
  st.result.stopped_by = why;
  log_kv(spdlog::level::warn, why + ": " + stops, {{"request", st.request.metadata.name}});
  self->send(st.ctx.events, event_record{request_reference(st.request), "Warning",
                                         "RunDeadlineReached",
                                         why + ": the rest is left for a later request"});
}

/// Asks the storage driver where the query's volumes have replicas; `answered` gets the
/// answer with every node list normalized. A driver words its own failures
/// (ec::driver_error); any other error, such as a driver actor that is gone, is worded
/// here; either goes to `failed` as the run's failure reason.
template <class Self, class Answered, class Failed>
void ask_driver(Self self, replica_query query, Answered answered, Failed failed) {
  self->request(self->state.ctx.driver_actor, caf::infinite, std::move(query))
    .then(
      [=](replica_answer& answer) mutable {
        for (auto& [pv, nodes] : answer.replicas)
          normalize(nodes);
        for (auto& nodes : answer.by_position.sets())
          normalize(nodes);
        answered(answer);
      },
      [=](caf::error& err) mutable {
        auto why = error_message(err);
        if (error_code(err) != ec::driver_error)
          why = driver_failure_reason(why);
        failed(std::move(why));
      });
}

/// As above; a failure fails the run.
template <class Self, class Answered>
void ask_driver(Self self, replica_query query, Answered answered) {
  ask_driver(self, std::move(query), std::move(answered),
             [=](std::string why) { fail_run(self, run_failure_kind::driver, std::move(why)); });
}

/// Reads the namespaces labelled to be left alone (actors/opted_out_namespaces.hpp) and
/// hands their names to `answered`; an answer that cannot be trusted fails the run.
template <class Self, class Answered>
void read_opted_out(Self self, Answered answered) {
  read_opted_out_namespaces(self, self->state.ctx.api, std::move(answered), [=](std::string why) {
    fail_run(self, run_failure_kind::api, std::move(why));
  });
}

/// The placement gauge of a kind's last evaluation (`schedopt_vmis`, `schedopt_pods`), by
/// state.
template <class Counts>
void publish_placement(const char* gauge, const Counts& c) {
  auto& m = k8s::default_metrics();
  m.gauge_set(gauge, {{"state", "hyperconverged"}}, double(c.hyperconverged));
  m.gauge_set(gauge, {{"state", "semi"}}, double(c.semi));
  m.gauge_set(gauge, {{"state", "non"}}, double(c.non));
  m.gauge_set(gauge, {{"state", "no_driver_volume"}}, double(c.no_driver_volumes));
}

/// Asks several informers for their snapshots at once and goes on when the last has
/// answered: one round trip for all, instead of one nested callback per informer. Each
/// answer is handed to its `keep` as it arrives (a snapshot shares the store's objects,
/// copied nowhere); the first failure fails the run and later answers are dropped.
template <class Self>
class snapshot_reads {
public:
  explicit snapshot_reads(Self self) : self_(self), pending_(std::make_shared<pending>()) {}

  template <class T, class Keep>
  snapshot_reads& add(const informer_actor<T>& informer, Keep keep) {
    auto pending = pending_;
    auto self = self_;
    ++pending->waiting;
    self_->request(informer, caf::infinite, atom::snapshot_v)
      .then(
        [=](shared_list<T>& items) mutable {
          if (pending->failed)
            return;
          keep(std::move(items));
          if (--pending->waiting == 0 && pending->all_read)
            pending->all_read();
        },
        [=](caf::error& err) {
          if (pending->failed)
            return;
          pending->failed = true;
          fail_run(self, run_failure_kind::internal,
                   "informer snapshot failed: " + error_message(err));
        });
    return *this;
  }

  /// Runs `all_read` once every snapshot is in (at once when none was asked).
  void then(std::function<void()> all_read) {
    if (pending_->waiting == 0)
      return all_read();
    pending_->all_read = std::move(all_read);
  }

private:
  struct pending {
    int waiting = 0;
    bool failed = false;
    std::function<void()> all_read;
  };
  Self self_;
  std::shared_ptr<pending> pending_;
};

template <class Self>
snapshot_reads<Self> read_snapshots(Self self) {
  return snapshot_reads<Self>{self};
}

} // namespace schedopt
