// schedopt-sim: the simulated cluster binary. Wires store, CRDs, world (KubeVirt,
// storage, scenario) and the HTTPS API server; prints `ready <url>`; stops on SIGTERM.
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <pthread.h>
#include <random>
#include <thread>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/answer_faults.hpp"
#include "sim/api_server.hpp"
#include "sim/attach_admin.hpp"
#include "sim/attached_world.hpp"
#include "sim/events_v1.hpp"
#include "sim/fault_proxy.hpp"
#include "sim/crd_loader.hpp"
#include "sim/kubevirt_config.hpp"
#include "sim/kubevirt_version.hpp"
#include "sim/kubeconfig_writer.hpp"
#include "sim/kwok_kubelets.hpp"
#include "sim/object_store.hpp"
#include "sim/partitions.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/service_accounts.hpp"
#include "sim/sim_options.hpp"
#include "sim/structural_schema.hpp"
#include "sim/tls.hpp"
#include "sim/upstream_client.hpp"
#include "sim/world.hpp"
#include "schedopt_version.hpp"

namespace {

using namespace schedopt;
using namespace schedopt::sim;

int fail(const std::string& message, int code = 1) {
  std::cerr << "schedopt-sim: " << message << std::endl;
  return code;
}

std::string random_token() {
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::string token = "sim-";
  for (int i = 0; i < 32; ++i)
    token += alphabet[rd() % (sizeof(alphabet) - 1)];
  return token;
}

bool write_file(const std::string& path, const std::string& text) {
  auto tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out)
      return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

/// Built-in types plus the CRDs; CRD objects are stored so `kubectl get crd` works.
/// The VMIM CRD takes the shape of the KubeVirt release answered as.
expected<resource_registry> load_registry(object_store& store, const std::string& crd_dir,
                                          kubevirt_version kubevirt) {
  resource_registry registry;
  for (auto& r : builtin_resources())
    registry.add(r);
  auto crds = load_crd_dir(crd_dir, [kubevirt](nlohmann::json& crd) { shape_vmim_crd(crd, kubevirt); });
  if (!crds)
    return crds.err();
  for (auto& crd : *crds)
    registry.add(crd.resource);
  for (auto& r : registry.all())
    store.register_type(r.type);
  // Served from the core Events' store, so registered with the store under that type only.
  registry.add(events_v1_resource());
  for (auto& crd : *crds)
    if (auto schema = crd.resource.schema)
      store.set_validator(crd.resource.type.key(),
                          [schema](nlohmann::json& object, const nlohmann::json* old, bool status_only) {
                            return enforce_schema(*schema, object, old, status_only);
                          });
  store.set_validator("customresourcedefinitions.apiextensions.k8s.io", validate_crd_schemas);
  for (auto& crd : *crds)
    store.create("customresourcedefinitions.apiextensions.k8s.io", crd.manifest);
  return registry;
}

/// Types the world registered on its own (no CRD manifest for them) are served too.
void serve_unlisted_types(object_store& store, resource_registry& registry) {
  for (auto& type : store.types()) {
    if (registry.find(type.group, type.version, type.plural) != nullptr)
      continue;
    served_resource r;
    r.type = type;
    r.versions = {type.version};
    r.custom = !type.group.empty() && type.group.find(".k8s.io") == std::string::npos;
    registry.add(r);
  }
}

/// With --sdk-ca-out, the SDK gateway's TLS material, its CA written there: a CA of its
/// own, as a Portworx install's is apart from the cluster's.
expected<std::optional<tls_material>> sdk_gateway_tls(const serve_options& o) {
  if (o.sdk_ca_out.empty())
    return std::optional<tls_material>{};
  auto made = make_tls_material("schedopt-sim-portworx-ca");
  if (!made)
    return made.err();
  if (!write_file(o.sdk_ca_out, made->ca_cert_pem))
    return make_error(ec::config_error, "cannot write \"" + o.sdk_ca_out + "\"");
  return std::optional<tls_material>(std::move(*made));
}

/// Blocks until SIGTERM or SIGINT (blocked in every thread, so sigwait receives them).
void wait_for_stop_signal() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  int received = 0;
  sigwait(&signals, &received);
}

/// Runs `action` once `delay` has passed, unless stopped first (a scenario's timed
/// failover or drain); never when not `enabled`.
class delayed_action {
public:
  delayed_action(bool enabled, std::chrono::milliseconds delay, std::function<void()> action) {
    if (!enabled)
      return;
    thread_ = std::thread([this, delay, action = std::move(action)] {
      std::unique_lock<std::mutex> guard(mtx_);
      if (cv_.wait_for(guard, delay, [&] { return stopping_; }))
        return;
      guard.unlock();
      action();
    });
  }
  ~delayed_action() { stop(); }

  void stop() {
    {
      std::lock_guard<std::mutex> guard(mtx_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

private:
  std::mutex mtx_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

/// --failover-after: a pool failover that long after ready, as `serve` and `attach` run it.
delayed_action timed_failover(const serve_options& o, world& sim_world) {
  return delayed_action(o.failover_after.count() > 0, o.failover_after, [&o, &sim_world] {
    if (auto request = sim_world.failover(); !request)
      std::cerr << "schedopt-sim: failover failed: " << request.err().message << std::endl;
  });
}

/// The partition --partition-user-agent and its companions ask for, counted from now,
/// when the server is about to serve: the flags' "after" is time since the simulator
/// started.
std::shared_ptr<network_partitions> partitions_from_flags(const serve_options& o) {
  auto partitions = std::make_shared<network_partitions>();
  if (!o.partition.user_agent.empty()) {
    partition_rule cut;
    cut.user_agent = o.partition.user_agent;
    cut.start = std::chrono::steady_clock::now()
                + std::chrono::duration_cast<std::chrono::steady_clock::duration>(o.partition.after);
    cut.end = cut.start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(o.partition.length);
    partitions->add(cut);
  }
  return partitions;
}

/// attach --kubeconfig-out: the fault proxy in front of the API server, and a kubeconfig
/// for the clients under test naming it, with the attach kubeconfig's token.
expected<std::unique_ptr<fault_proxy>> start_fault_proxy(const sim_command& cmd, fault_proxy_options options) {
  auto upstream = read_kubeconfig(cmd.attach_kubeconfig);
  if (!upstream)
    return upstream.err();
  options.upstream = *upstream;
  auto tls = make_tls_material("schedopt-sim-fault-proxy-ca");
  if (!tls)
    return tls.err();
  auto proxy = std::make_unique<fault_proxy>(std::move(options));
  auto url = proxy->start(*tls);
  if (!url)
    return url.err();
  if (auto written = write_kubeconfig(cmd.serve.kubeconfig_out, *url, tls->ca_cert_pem, upstream->token); !written)
    return written.err();
  return proxy;
}

delayed_action timed_drain(const serve_options& o, world& sim_world) {
  return delayed_action(!o.drain_node.empty(), o.drain_after, [&o, &sim_world] {
    if (auto drained = sim_world.drain(o.drain_node); !drained)
      std::cerr << "schedopt-sim: drain failed: " << drained.err().message << std::endl;
  });
}

int serve(const serve_options& o) {
  object_store store(o.watch_history);
  auto crd_dir = o.crd_dir.empty() ? std::string(SCHEDOPT_DEPLOY_DIR) + "/../sim/crds" : o.crd_dir;
  auto registry = load_registry(store, crd_dir, o.scenario.kubevirt);
  if (!registry)
    return fail(registry.err().message);
  world sim_world(store, o.scenario);
  auto broken_answers = std::make_shared<answer_faults>();
  sim_world.set_answer_faults(broken_answers);
  serve_unlisted_types(store, *registry);
  for (auto ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    store.create("namespaces", namespace_object(ns));
  // KubeVirt's CR, holding what the cap flags say; the simulated virt-controller reads
  // it back on every tick, so `kubectl patch kubevirt kubevirt -n kubevirt` applies live.
  if (auto made = create_kubevirt_cr(store, o.scenario.kubevirt,
                                     {{"parallelMigrationsPerCluster", o.scenario.parallel_migrations_per_cluster},
                                      {"parallelOutboundMigrationsPerNode",
                                       o.scenario.parallel_outbound_migrations_per_node}});
      !made)
    return fail("cannot create the KubeVirt CR: " + made.err().message);
  auto sdk_tls = sdk_gateway_tls(o);
  if (!sdk_tls)
    return fail(sdk_tls.err().message);
  if (auto started = sim_world.start(o.sdk_port, o.sdk_token, std::move(*sdk_tls)); !started)
    return fail("cannot start the simulated world: " + started.err().message);

  auto tls = make_tls_material();
  if (!tls)
    return fail(tls.err().message);
  api_server_options server_options;
  server_options.host = o.listen_host;
  server_options.port = o.listen_port;
  server_options.token = o.token.empty() ? random_token() : o.token;
  server_options.faults = o.faults;
  server_options.faults.seed = o.scenario.seed;
  server_options.broken_answers = broken_answers;
  server_options.partitions = partitions_from_flags(o);
  server_options.authorization = o.authorization;
  server_options.compaction_interval = o.compaction_interval;
  server_options.bookmark_interval = o.bookmark_interval;
  auto accounts = std::make_shared<service_account_tokens>();
  std::vector<std::string> account_tokens;
  for (auto& sa : o.service_accounts) {
    auto token = accounts->issue(store, sa.ns, sa.name);
    if (!token)
      return fail(token.err().message);
    account_tokens.push_back(*token);
  }
  server_options.service_accounts = accounts;
  api_server server(store, std::move(*registry), server_options);
  server.set_failover_handler([&](const std::string& node) { return sim_world.failover(node); });
  if (auto started = server.start(*tls); !started)
    return fail(started.err().message);
  if (auto written = write_kubeconfig(o.kubeconfig_out, server.url(), tls->ca_cert_pem,
                                      server_options.token);
      !written)
    return fail(written.err().message);
  for (std::size_t i = 0; i < o.service_accounts.size(); ++i) {
    auto& sa = o.service_accounts[i];
    if (auto written = write_service_account_dir(sa.dir, account_tokens[i], tls->ca_cert_pem, sa.ns);
        !written)
      return fail(written.err().message);
  }
  if (!o.sdk_endpoint_out.empty() && !write_file(o.sdk_endpoint_out, sim_world.sdk_url() + "\n"))
    return fail("cannot write \"" + o.sdk_endpoint_out + "\"");

  auto failover_timer = timed_failover(o, sim_world);
  server.set_drain_handler([&](const std::string& node) { return sim_world.drain(node); });
  auto drain_timer = timed_drain(o, sim_world);
  std::cout << "ready " << server.url() << std::endl;
  wait_for_stop_signal();
  failover_timer.stop();
  drain_timer.stop();
  server.stop();
  sim_world.stop();
  return 0;
}

int attach(const sim_command& cmd) {
  const auto& o = cmd.serve;
  kwok_kubelets kubelets;
  if (!cmd.kwok_dir.empty())
    if (auto started = kubelets.start(cmd.kwok_dir, cmd.attach_kubeconfig); !started)
      return fail(started.err().message);
  attached_world attached;
  // --crd-dir replaces sim/crds and deploy/crd's SchedulingOptimization CRD both.
  auto crd_dir = o.crd_dir.empty() ? std::string(SCHEDOPT_DEPLOY_DIR) + "/../sim/crds" : o.crd_dir;
  auto schedopt_crd_dir = o.crd_dir.empty() ? std::string(SCHEDOPT_DEPLOY_DIR) + "/crd" : std::string();
  if (auto started = attached.start(cmd.attach_kubeconfig, o, crd_dir, schedopt_crd_dir); !started)
    return fail(started.err().message);
  auto& sim_world = attached.simulated();
  auto broken_answers = std::make_shared<answer_faults>();
  sim_world.set_answer_faults(broken_answers);
  auto sdk_tls = sdk_gateway_tls(o);
  if (!sdk_tls)
    return fail(sdk_tls.err().message);
  if (auto started = sim_world.start(o.sdk_port, o.sdk_token, std::move(*sdk_tls)); !started)
    return fail("cannot start the simulated world: " + started.err().message);
  auto faults = o.faults;
  faults.seed = o.scenario.seed;
  auto partitions = partitions_from_flags(o);
  std::unique_ptr<fault_proxy> proxy;
  if (!o.kubeconfig_out.empty()) {
    auto started = start_fault_proxy(cmd, {{}, faults, broken_answers, partitions});
    if (!started)
      return fail("cannot start the fault proxy: " + started.err().message);
    proxy = std::move(*started);
  }
  // The server's controllers make the pods at its pace: a bound that grows with them.
  auto pods_bound = std::chrono::seconds(120 + (std::max(0, o.scenario.pods) + std::max(0, o.scenario.vmis)) / 10);
  if (auto running = attached.wait_pods_running(pods_bound); !running)
    return fail(running.err().message);
  if (!o.sdk_endpoint_out.empty() && !write_file(o.sdk_endpoint_out, sim_world.sdk_url() + "\n"))
    return fail("cannot write \"" + o.sdk_endpoint_out + "\"");
  attach_admin admin{sim_world, broken_answers, partitions};
  if (!cmd.admin_endpoint_out.empty()) {
    auto url = admin.start();
    if (!url)
      return fail(url.err().message);
    if (!write_file(cmd.admin_endpoint_out, *url + "\n"))
      return fail("cannot write \"" + cmd.admin_endpoint_out + "\"");
  }

  auto failover_timer = timed_failover(o, sim_world);
  auto drain_timer = timed_drain(o, sim_world);
  std::cout << "ready" << std::endl;
  wait_for_stop_signal();
  failover_timer.stop();
  drain_timer.stop();
  admin.stop();
  if (proxy)
    proxy->stop();
  attached.stop();
  kubelets.stop();
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  // Block the stop signals in every thread (inherited) so sigwait in main receives them;
  // ignore SIGPIPE so a client hanging up mid-watch is a write error, not a crash.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // stdout carries the one `ready` line a caller waits for; logs go to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("schedopt-sim"));
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << "schedopt-sim " << build_version << " (revision " << build_revision << ")\n";
    return 0;
  }
  auto cmd = parse_sim_command_line(args);
  if (!cmd)
    return fail(cmd.err().message, 2);
  switch (cmd->what) {
    case sim_command::kind::help:
      std::cout << sim_usage();
      return 0;
    case sim_command::kind::serve_help:
      std::cout << serve_usage();
      return 0;
    case sim_command::kind::attach_help:
      std::cout << attach_usage();
      return 0;
    case sim_command::kind::serve:
      break;
    case sim_command::kind::attach:
      try {
        return attach(*cmd);
      } catch (const std::exception& e) {
        return fail(std::string{"unexpected error: "} + e.what());
      }
  }
  try {
    return serve(cmd->serve);
  } catch (const std::exception& e) {
    return fail(std::string{"unexpected error: "} + e.what());
  }
}
