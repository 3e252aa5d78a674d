// `schedopt run`: the controller process. Leader election (optional) gates the work; a
// lost lease ends the process at once with exit code 1; SIGTERM/SIGINT release the
// lease and exit 0.
#include <atomic>
#include <chrono>
#include <thread>
#include <csignal>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/after.hpp>
#include <caf/send.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/api_client_actor.hpp"
#include "actors/controller_actor.hpp"
#include "actors/controller_stack.hpp"
#include "actors/leader_elector_actor.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "commands/commands.hpp"
#include "commands/local_stack.hpp"
#include "commands/process_signals.hpp"
#include "commands/served_endpoints.hpp"
#include "k8s/metrics.hpp"

namespace schedopt {

namespace {

// Set before the lease is released on SIGTERM: the elector then reports stopped_leading
// too, and that one is expected, not a loss.
std::atomic<bool> releasing_for_shutdown{false};
// Set on SIGTERM: the controller stopping then is the plan, not a failure.
std::atomic<bool> termination_started{false};

leadership_subscriber_actor::behavior_type leadership_gate(controller_actor controller) {
  return {
    [=](atom::started_leading) {
      spdlog::info("leader election: this replica leads");
      k8s::default_metrics().gauge_set("schedopt_leader", {}, 1);
      caf::anon_send(controller, atom::run_v);
    },
    [=](atom::stopped_leading) {
      if (releasing_for_shutdown.load()) {
        spdlog::info("leader election: stepped down for shutdown");
        return;
      }
      // Another replica may already act: stop every write now, not after a clean-up.
      spdlog::critical("leader election: lease lost; exiting");
      spdlog::default_logger()->flush();
      _exit(1);
    },
  };
}

/// SIGTERM (docs/design.md §4.2): create no more VMIMs, flush status (the stage stays Migrating so
/// the successor adopts the migrations still in flight), release the Lease, exit 0 —
/// all within 5 s, as the kubelet's grace period expects.
void shut_down(caf::actor_system& sys, const controller_stack& stack, controller_actor controller,
               leader_elector_actor elector) {
  using namespace std::chrono_literals;
  auto started = std::chrono::steady_clock::now();
  termination_started = true;
  spdlog::info("shutting down: no new migrations; the ones in flight continue and are "
               "adopted by the next leader");
  // A watchdog, not the plan: every actor of a run is linked to the controller, so the
  // system drains in milliseconds. If anything still holds it at 4.5 s, the status and
  // the Lease are already handled: exit as the kubelet would force us to.
  std::thread([] {
    std::this_thread::sleep_for(4500ms);
    spdlog::error("shutdown: actors still alive after 4.5 s; exiting anyway");
    spdlog::default_logger()->flush();
    _exit(0);
  }).detach();
  {
    // The controller's exit reaches the request, kind, supervisor, candidates and VMIM
    // watches through their links: nothing creates a VMIM after this.
    caf::scoped_actor self{sys};
    self->monitor(controller);
    caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
    self->receive([](const caf::down_msg&) {}, caf::after(1s) >> [] {
      spdlog::warn("shutdown: controller did not stop within 1 s");
    });
  }
  // Stop the work before giving the Lease away, so no write follows the release.
  bool flushed = flush_status(sys, stack, 2s);
  spdlog::info("shutdown: status {}", flushed ? "flushed" : "flush incomplete (2 s)");
  if (elector) {
    releasing_for_shutdown = true;
    caf::scoped_actor self{sys};
    self->request(elector, 1500ms, atom::release_v)
      .receive([](bool released) { spdlog::info("lease released: {}", released); },
               [](caf::error&) { spdlog::warn("lease release failed"); });
  }
  stop_controller_stack(stack);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
    std::chrono::steady_clock::now() - started);
  spdlog::info("shutdown complete in {} ms", took.count());
}

std::string replica_identity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string{host} + "_" + std::to_string(getpid());
}

} // namespace

int run_command(const settings& cfg) {
  configure_logging(cfg.log_format, cfg.log_level);
  block_termination_signals();
  auto identity = replica_identity();
  // With leader election, the controller's writes go out only while this replica's
  // renewals are within their deadline; without it, always.
  auto writes = cfg.leader_elect ? std::make_shared<write_gate>() : nullptr;
  auto local = start_local_stack(cfg, identity, writes);
  if (!local) {
    spdlog::error("{}", local.err().message);
    return 2;
  }
  auto& sys = *(*local)->system;
  auto* stack = &(*local)->stack;
  const auto& cluster = (*local)->cluster;
  // 1 while this replica may work: at once without leader election, else once it leads.
  // Set before anything is served, so /metrics never lacks it.
  k8s::default_metrics().describe_gauge("schedopt_leader", "1 while this replica holds the leader Lease.");
  k8s::default_metrics().gauge_set("schedopt_leader", {}, cfg.leader_elect ? 0 : 1);
  // The probes answer from here on (/readyz 503 until the informers synced).
  auto endpoints = serve_endpoints(sys, cluster, cfg);
  if (!endpoints) {
    spdlog::error("{}", endpoints.err().message);
    stop_controller_stack(*stack); // or the actor system would wait for it forever
    return 2;
  }
  auto& health = *(*endpoints)->health;
  spdlog::info("schedopt run: API server {} ({}), driver {}, dry run {}", cluster.server,
               cluster.source, cfg.driver, cfg.dry_run);
  // SIGTERM is honoured while waiting too (an informer that cannot list, e.g. for want
  // of RBAC, never syncs): the stack is stopped so the actor system can shut down.
  for (int waited = 0; !wait_until_synced(sys, *stack, std::chrono::seconds(1)); ++waited) {
    if (termination_requested()) {
      spdlog::info("shutting down before the informers synced");
      stop_controller_stack(*stack);
      return 0;
    }
    if (waited % 10 == 9)
      spdlog::warn("informers not synced yet; still waiting");
  }
  auto controller = spawn_controller(sys, stack->ctx, stack->requests);
  {
    // Ready = informers synced and healthy, on every replica (docs/design.md §4.6); healthy = the
    // controller actor lives and the API server answered within the window.
    auto controller_alive = std::make_shared<std::atomic<bool>>(true);
    controller->attach_functor([controller_alive](const caf::error&) { *controller_alive = false; });
    auto window = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      cfg.api_unreachable_window);
    health.set_health_check([controller_alive, window]() -> std::string {
      if (!*controller_alive && !termination_started)
        return "controller actor is not running";
      auto silent = std::chrono::steady_clock::now() - last_api_answer();
      if (silent > window)
        return "API server has not answered for "
               + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(silent).count())
               + "s";
      return "";
    });
    health.set_ready(true);
  }
  leader_elector_actor elector;
  if (cfg.leader_elect) {
    leader_election_options le;
    // The pod's namespace in cluster (the service account's namespace file), else the
    // kubeconfig context's namespace: where deploy/rbac grants the Lease.
    le.namespace_ = cfg.lease_namespace.empty() ? cluster.namespace_ : cfg.lease_namespace;
    le.lease_name = cfg.lease_name;
    le.identity = identity;
    le.lease_duration = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.lease_duration);
    le.renew_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.renew_deadline);
    le.retry_period = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.retry_period);
    le.writes = writes;
    spdlog::info("leader election on lease {}/{} as {}", le.namespace_, le.lease_name,
                 le.identity);
    // As client-go's elector, with a client of its own: its own connection and rate limit,
    // so renewals never queue behind list pages, status patches or VMIM creates. No
    // retries inside a round (the next retry period is the retry) and no request outlives
    // the renew deadline (client-go bounds each renew attempt by it).
    api_client_options elector_api;
    elector_api.qps = 5; // client-go's rest.Config default; a renewal is one request per retryPeriod
    elector_api.burst = 10;
    elector_api.max_pending = 16;
    elector_api.max_retries = 0;
    elector_api.request_timeout = le.renew_deadline;
    elector_api.user_agent += " (" + identity + ")";
    auto elector_client = spawn_api_client(sys, cluster, elector_api);
    if (!elector_client) {
      spdlog::error("leader election: {}", error_message(elector_client.error()));
      stop_controller_stack(*stack);
      return 2;
    }
    elector = spawn_leader_elector(sys, *elector_client, le);
    auto gate = sys.spawn(leadership_gate, controller);
    caf::anon_send(elector, atom::subscribe_v, gate);
  } else {
    caf::anon_send(controller, atom::run_v);
  }
  wait_for_termination_signal();
  shut_down(sys, *stack, controller, elector);
  stop_controller_stack(*stack);
  return 0;
}

} // namespace schedopt
