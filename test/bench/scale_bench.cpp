// Benchmark (prints figures, not a test): schedopt at scale against schedopt-sim. Per
// rung of the ladder it starts `schedopt-sim serve` with N VMIs (50 nodes, 2 Portworx
// volumes per VMI, 1 % misplaced), runs `schedopt run` as a separate process, creates one
// SchedulingOptimization and prints one table: informer sync, evaluation, request → first
// VMIM, makespan and an ideal client's makespan on the same scenario (a fresh simulator,
// same seed, every VMIM schedopt created made at once, KubeVirt's caps pacing them), API
// requests per migrated VM, status patches vs updates, controller CPU and peak RSS,
// simulator peak RSS. With --peers, each peer (test/bench/peer: a controller-runtime or
// client-go cache over the same objects) first syncs against the same simulator, and one
// more table sets its sync time and peak RSS beside schedopt's. With --cluster real the
// rung's world is put into the real control plane (test/controlplane: kube-apiserver, etcd,
// kwok) by `schedopt-sim attach`, and the peers and schedopt talk to kube-apiserver as its
// admin; kube-apiserver's audit log is then the record, and there is no ideal client.
// Loopback only; every wait is bounded.
// Usage: scale_bench [--scenario ladder|makespan|churn] [--vmis N[,N...]] [--timeout-seconds S]
//        [--migration-duration DUR] [--parallel N] [--log-dir DIR]
//        [--vmi-churn PER_SECOND] [--churn-minutes M] [--peers controller-runtime,client-go]
//        [--cluster sim|real]
//        (ladder: 50 nodes, 1 % misplaced, default 1000,10000,100000; makespan: 3,000
//        VMIs, 300 misplaced over 30 nodes, KubeVirt's cap and maxParallelMigrations 5;
//        churn: 100,000 VMIs whose status the simulator updates 1,000 times a second, the
//        idle controller's CPU and RSS sampled each minute for 10 minutes before the request)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ctime>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "e2e/child_process.hpp"
#include "e2e/controller_identity.hpp"
#include "bench/peer_cache.hpp"
#include "bench/process_figures.hpp"
#include "e2e/kube_calls.hpp"
#include "realcp/control_plane.hpp"
#include "realcp/nodes_ready.hpp"
#include "sim/sim_process.hpp"

using namespace std::chrono_literals;
using schedopt::e2e::child_process;
using schedopt::e2e::json;
using schedopt::test::sim_process;
using schedopt::bench::cpu_seconds_of;
using schedopt::bench::read_file;
using schedopt::bench::vm_hwm_kib;
using wall_clock = std::chrono::system_clock;

namespace {

struct options {
  std::string scenario = "ladder";
  std::vector<long> ladder{1000, 10000, 100000};
  int nodes = 50;
  double misplaced = 0.01;
  int timeout_seconds = 600;
  std::string migration_duration = "1s";
  int parallel = 20; // the simulator's cluster cap and the controller's maxParallelMigrations
  long max_per_run = 100; // maxNonHyperconvergedPerRun
  std::string log_dir;    // where each rung's controller log is kept ("" = not kept)
  long vmi_churn = 0;     // VMI status updates per second the simulator writes (0 = none)
  int churn_minutes = 0;  // minutes the idle controller is sampled under churn before the request
  std::vector<std::string> peers; // peer clients run before schedopt ("" = none)
  bool real_cluster = false;      // the world in the real control plane (attach), not in serve
};

/// The controller under VMI status churn, sampled at the end of each minute before the
/// request: CPU used in that minute (share of one core) and RSS then.
struct churn_sample {
  int minute = 0;
  double cpu_share = -1;
  long rss_kib = -1;
};

/// One VMIM schedopt created, for the ideal client to create again.
struct migration {
  std::string namespace_;
  std::string vmi;
  std::string target;
};

struct figures {
  long vmis = 0;
  double sync_s = -1;
  long ready_rss_kib = -1; // the controller's VmHWM once ready
  std::vector<schedopt::bench::peer_figures> peers;
  double evaluation_s = -1;
  double first_vmim_s = -1;
  double first_vmim_by_timestamp_s = -1;
  double makespan_s = -1;
  std::string outcome;
  long migrated = 0;
  long vmims = 0;
  std::map<std::string, long> writes_by_verb; // audit, controller identity
  std::map<std::string, long> writes_by_resource; // "<verb> <resource>[/<sub>]"
  std::vector<migration> migrations;              // schedopt's, for the ideal client
  double ideal_makespan_s = -1;
  std::string ideal_outcome;
  std::map<std::string, long> reads_by_verb;  // controller metrics (get, list, watch)
  double status_patches = 0;
  double status_updates = 0;
  double cpu_s = -1;
  long peak_rss_kib = -1;
  long sim_peak_rss_kib = -1;
  double sim_ready_s = -1;
  std::string load;
  std::vector<churn_sample> churn;
};

/// RFC 3339 UTC ("2026-12-01T12:00:00Z", with or without .mmm) → seconds since the epoch.
double parse_rfc3339(const std::string& text) {
  std::tm tm{};
  if (text.size() < 19 || !strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm))
    return -1;
  double frac = 0;
  if (text.size() > 19 && text[19] == '.')
    frac = std::atof(("0" + text.substr(19, text.find('Z') - 19)).c_str());
  return static_cast<double>(timegm(&tm)) + frac;
}

double seconds_since_epoch(wall_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

/// The UTC timestamp of the first log line containing `needle` (text log format:
/// "2026-12-01T12:00:00.123Z info  ..."), -1 when absent.
double log_time_of(const std::string& log, const std::string& needle) {
  auto at = log.find(needle);
  if (at == std::string::npos)
    return -1;
  auto start = log.rfind('\n', at);
  start = start == std::string::npos ? 0 : start + 1;
  return parse_rfc3339(log.substr(start, 24));
}

/// Sum of every sample of `name` in a Prometheus text page, per value of `label`
/// ("" = one total under "").
std::map<std::string, double> metric_by(const std::string& page, const std::string& name,
                                        const std::string& label) {
  std::map<std::string, double> out;
  std::istringstream in(page);
  std::string line;
  std::regex label_re(label.empty() ? std::string("$^") : label + "=\"([^\"]*)\"");
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) != 0 || (line.size() > name.size() && line[name.size()] != '{'
                                     && line[name.size()] != ' '))
      continue;
    std::smatch m;
    std::string key = !label.empty() && std::regex_search(line, m, label_re) ? m[1].str() : "";
    out[key] += std::atof(line.substr(line.rfind(' ') + 1).c_str());
  }
  return out;
}

std::string load_average() {
  auto text = read_file("/proc/loadavg");
  std::istringstream in(text);
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

std::string fmt_s(double s) {
  if (s < 0)
    return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, s < 10 ? "%.3f s" : "%.1f s", s);
  return buf;
}

std::string fmt_mib(long kib) {
  if (kib < 0)
    return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", kib / 1024.0);
  return buf;
}

std::string per_vm(long count, long migrated) {
  char buf[48];
  if (migrated <= 0)
    std::snprintf(buf, sizeof buf, "%ld (no VM migrated)", count);
  else
    std::snprintf(buf, sizeof buf, "%ld (%.2f / VM)", count, static_cast<double>(count) / migrated);
  return buf;
}

std::vector<std::string> sim_args(const options& o, long vmis) {
  std::vector<std::string> args = {"--nodes", std::to_string(o.nodes), "--vmis", std::to_string(vmis),
                                   "--volumes-per-vmi", "2", "--misplaced", std::to_string(o.misplaced),
                                   "--driver", "portworx", "--migration-duration", o.migration_duration,
                                   "--parallel-migrations-per-cluster", std::to_string(o.parallel),
                                   "--seed", "7"};
  if (o.vmi_churn > 0) {
    args.push_back("--vmi-churn");
    args.push_back(std::to_string(o.vmi_churn));
  }
  return args;
}

/// Samples the idle controller once a minute for `o.churn_minutes` while the simulator
/// churns VMI status; stops early when the controller exits or the deadline nears.
std::vector<churn_sample> sample_under_churn(const options& o, child_process& controller,
                                             std::chrono::steady_clock::time_point deadline) {
  std::vector<churn_sample> out;
  double cpu_before = cpu_seconds_of(controller.pid());
  for (int minute = 1; minute <= o.churn_minutes; ++minute) {
    auto until = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    if (until > deadline)
      break;
    while (std::chrono::steady_clock::now() < until && controller.running())
      std::this_thread::sleep_for(200ms);
    if (!controller.running())
      break;
    double cpu = cpu_seconds_of(controller.pid());
    out.push_back({minute, (cpu - cpu_before) / 60.0, schedopt::bench::vm_rss_kib(controller.pid())});
    cpu_before = cpu;
    std::fprintf(stderr, "scale_bench: churn minute %d: CPU %.1f %% of a core, RSS %ld KiB\n", minute,
                 out.back().cpu_share * 100, out.back().rss_kib);
  }
  return out;
}

figures run_rung(const options& o, long vmis) {
  figures f;
  f.vmis = vmis;
  f.load = load_average();
  std::unique_ptr<schedopt::realcp::control_plane> plane;
  if (o.real_cluster) {
    schedopt::realcp::control_plane_options with_kwok;
    with_kwok.kwok = true;
    plane = std::make_unique<schedopt::realcp::control_plane>(with_kwok);
    if (!plane->ok()) {
      f.outcome = "control plane: " + plane->error();
      return f;
    }
  }
  auto sim_start = std::chrono::steady_clock::now();
  // Seeding kube-apiserver takes minutes where serve takes seconds (docs/benchmarks.md).
  auto process = plane ? std::make_unique<sim_process>(
                           schedopt::test::attach_target{plane->value("ADMIN_KUBECONFIG"), plane->url(),
                                                         plane->ca_file(), plane->token(),
                                                         plane->value("AUDIT_LOG")},
                           sim_args(o, vmis), std::chrono::seconds(o.timeout_seconds))
                       : std::make_unique<sim_process>(sim_args(o, vmis), "scale-bench-token",
                                                       std::chrono::seconds(120));
  sim_process& sim = *process;
  if (!sim.ok()) {
    f.outcome = "schedopt-sim: " + sim.error();
    return f;
  }
  if (plane && !schedopt::realcp::all_nodes_ready(sim, std::chrono::seconds(120))) {
    f.outcome = "kwok did not make every node Ready";
    return f;
  }
  f.sim_ready_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sim_start).count();
  // The clients measured: on the real control plane straight to kube-apiserver, not through
  // attach's fault proxy.
  auto kubeconfig = plane ? plane->value("ADMIN_KUBECONFIG") : sim.kubeconfig();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_seconds);
  auto left = [&] {
    return std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
  };

  // The peers first, one at a time, on the same objects, each gone before schedopt starts.
  for (auto& client : o.peers)
    f.peers.push_back(schedopt::bench::run_peer(SCHEDOPT_BINARY_DIR, client, kubeconfig,
                                                static_cast<int>(left().count())));

  auto controller_start = std::chrono::steady_clock::now();
  child_process controller({"run", "--kubeconfig", kubeconfig, "--driver", "portworx",
                            "--portworx-endpoint", sim.sdk_url(), "--metrics-listen",
                            "127.0.0.1:0", "--metrics-secure=false", "--health-listen",
                            "127.0.0.1:0", "--log-format", "text", "--log-level", "info",
                            "--max-parallel-migrations", std::to_string(o.parallel),
                            "--max-parallel-migrations-limit", std::to_string(o.parallel),
                            "--max-non-hyperconverged-per-run", std::to_string(o.max_per_run)});
  int port = 0, health_port = 0;
  schedopt::e2e::eventually(
    [&] {
      port = controller.metrics_port();
      health_port = controller.health_port();
      return (port != 0 && health_port != 0) || !controller.running();
    },
    left(), 20ms);
  std::string base = "http://127.0.0.1:" + std::to_string(port);
  std::string probes = "http://127.0.0.1:" + std::to_string(health_port);
  bool ready = port != 0 && health_port != 0 && schedopt::e2e::eventually(
    [&] { return schedopt::e2e::plain_get(probes + "/readyz").status == 200 || !controller.running(); },
    left(), 20ms);
  if (!ready || !controller.running()) {
    f.outcome = "controller not ready: " + controller.log_tail(20);
    return f;
  }
  f.sync_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - controller_start).count();
  f.ready_rss_kib = vm_hwm_kib(controller.pid());
  if (o.churn_minutes > 0)
    f.churn = sample_under_churn(o, controller, deadline);

  json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
               {"kind", "SchedulingOptimization"},
               {"metadata", {{"name", "scale-bench"}}},
               {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  auto created_at = seconds_since_epoch(wall_clock::now());
  json created;
  try {
    created = schedopt::e2e::call(sim, "POST", schedopt::e2e::requests_path, body, 201);
  } catch (const std::exception& e) {
    f.outcome = e.what();
    return f;
  }
  auto creation_timestamp = parse_rfc3339(created.value("/metadata/creationTimestamp"_json_pointer, std::string()));
  json last;
  bool final = schedopt::e2e::eventually(
    [&] {
      try {
        last = schedopt::e2e::get(sim, schedopt::e2e::requests_path + "/scale-bench");
      } catch (const std::exception&) {
        return false;
      }
      return last.value("/status/stage"_json_pointer, std::string()) == "Final";
    },
    left(), 100ms);
  f.outcome = final ? last.value("/status/status"_json_pointer,
                                 last.value("/status/phase"_json_pointer, std::string("Final")))
                    : "not Final within " + std::to_string(o.timeout_seconds) + " s";

  // Figures the controller holds, read before it exits.
  auto page = schedopt::e2e::plain_get(base + "/metrics").body;
  for (auto& [verb, n] : metric_by(page, "schedopt_api_requests_total", "verb"))
    if (verb == "get" || verb == "list" || verb == "watch")
      f.reads_by_verb[verb] = static_cast<long>(n);
  f.status_patches = metric_by(page, "schedopt_status_patches_total", "")[""];
  f.status_updates = metric_by(page, "schedopt_status_updates_total", "")[""];
  f.cpu_s = cpu_seconds_of(controller.pid());
  f.peak_rss_kib = vm_hwm_kib(controller.pid());
  f.sim_peak_rss_kib = sim.peak_rss_kib();
  auto log = controller.err();
  if (!o.log_dir.empty()) {
    std::error_code made;
    std::filesystem::create_directories(o.log_dir, made); // the log is lost if it cannot be
    auto path = o.log_dir + "/scale_bench-" + o.scenario + "-" + std::to_string(vmis) + ".log";
    if (!(std::ofstream(path) << log))
      std::fprintf(stderr, "scale_bench: cannot write %s\n", path.c_str());
  }
  auto started = log_time_of(log, "request started");
  auto considered = log_time_of(log, "VMIs considered");
  if (started > 0 && considered > 0)
    f.evaluation_s = considered - started;
  auto final_logged = log_time_of(log, "request Final");
  if (final)
    f.makespan_s = (final_logged > 0 ? final_logged : seconds_since_epoch(wall_clock::now())) - created_at;

  auto audit = schedopt::e2e::audit(sim);
  double first = -1;
  for (auto& v : audit.value("vmims", json::array())) {
    if (!schedopt::e2e::is_controller_identity(v.value("createdBy", std::string())))
      continue;
    ++f.vmims;
    if (v.value("phase", std::string()) == "Succeeded")
      ++f.migrated;
    f.migrations.push_back({v.value("namespace", std::string()), v.value("vmi", std::string()),
                            v.value("targetNode", std::string())});
    auto t = parse_rfc3339(v.value("createdAt", std::string()));
    if (t > 0 && (first < 0 || t < first))
      first = t;
  }
  if (first > 0) {
    f.first_vmim_s = first - created_at;
    if (creation_timestamp > 0)
      f.first_vmim_by_timestamp_s = first - creation_timestamp;
  }
  for (auto& w : audit.value("writes", json::array()))
    if (schedopt::e2e::is_controller_identity(w.value("identity", std::string()))) {
      auto verb = w.value("verb", std::string("?"));
      auto sub = w.value("subresource", std::string());
      ++f.writes_by_verb[verb];
      ++f.writes_by_resource[verb + " " + w.value("resource", std::string("?"))
                             + (sub.empty() ? "" : "/" + sub)];
    }
  controller.terminate();
  return f;
}

/// The ideal client on the same scenario: a fresh simulator (same seed, so the same VMIs
/// on the same nodes), every VMIM schedopt created made at once by 8 HTTP clients, each
/// pinned where schedopt pinned it; KubeVirt's caps then pace them. Its makespan runs
/// from the first create to the last VMIM's finishedAt (audit).
void run_ideal(const options& o, figures& f) {
  if (f.migrations.empty()) {
    f.ideal_outcome = "no VMIM to repeat";
    return;
  }
  sim_process sim(sim_args(o, f.vmis), "scale-bench-token", std::chrono::seconds(120));
  if (!sim.ok()) {
    f.ideal_outcome = "schedopt-sim: " + sim.error();
    return;
  }
  auto start = seconds_since_epoch(wall_clock::now());
  std::atomic<std::size_t> next{0};
  std::atomic<long> rejected{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&] {
      for (std::size_t i; (i = next++) < f.migrations.size();) {
        auto& m = f.migrations[i];
        json body = {{"apiVersion", "kubevirt.io/v1"},
                     {"kind", "VirtualMachineInstanceMigration"},
                     {"metadata", {{"generateName", m.vmi + "-ideal-"}}},
                     {"spec", {{"vmiName", m.vmi}}}};
        if (!m.target.empty())
          body["spec"]["addedNodeSelector"] = {{"kubernetes.io/hostname", m.target}};
        auto reply = schedopt::test::http_request(sim, "POST", schedopt::e2e::vmims_in(m.namespace_),
                                                  body.dump());
        if (reply.status != 201)
          ++rejected;
      }
    });
  for (auto& c : clients)
    c.join();
  long total = 0, succeeded = 0, final_count = 0;
  double last = -1;
  bool done = schedopt::e2e::eventually(
    [&] {
      auto audit = schedopt::test::http_request(sim, "GET", "/admin/audit").json();
      total = succeeded = final_count = 0;
      last = -1;
      for (auto& v : audit.value("vmims", json::array())) {
        ++total;
        auto phase = v.value("phase", std::string());
        if (phase != "Succeeded" && phase != "Failed")
          continue;
        ++final_count;
        succeeded += phase == "Succeeded";
        last = std::max(last, parse_rfc3339(v.value("finishedAt", std::string())));
      }
      return total > 0 && final_count == total;
    },
    std::chrono::seconds(o.timeout_seconds), 100ms);
  f.ideal_outcome = std::to_string(total) + " VMIMs, " + std::to_string(succeeded)
                    + " succeeded, " + std::to_string(rejected.load()) + " creates rejected";
  if (done && last > 0)
    f.ideal_makespan_s = last - start;
  else
    f.ideal_outcome += "; not all final within " + std::to_string(o.timeout_seconds) + " s";
}

/// The churn samples, and the two figures the churn goal names: the highest CPU share of a
/// minute from minute 2 on, and RSS growth from minute 2 to the last.
void print_churn(const options& o, const figures& f) {
  if (f.churn.empty())
    return;
  std::printf("\nIdle under %ld VMI status updates a second (controller, per minute):\n\n", o.vmi_churn);
  std::printf("| minute | CPU (share of one core) | RSS |\n|---|---|---|\n");
  double worst = 0;
  for (auto& c : f.churn) {
    std::printf("| %d | %.1f %% | %s |\n", c.minute, c.cpu_share * 100, fmt_mib(c.rss_kib).c_str());
    if (c.minute >= 2)
      worst = std::max(worst, c.cpu_share);
  }
  if (f.churn.size() >= 2) {
    auto& second = f.churn[1];
    auto& last = f.churn.back();
    std::printf("\n| churn figure | value |\n|---|---|\n");
    std::printf("| highest CPU of a minute, minute 2 on | %.1f %% of one core |\n", worst * 100);
    if (second.rss_kib > 0 && last.rss_kib > 0)
      std::printf("| RSS minute 2 → minute %d | %s → %s (%+.1f %%) |\n", last.minute,
                  fmt_mib(second.rss_kib).c_str(), fmt_mib(last.rss_kib).c_str(),
                  100.0 * (double)(last.rss_kib - second.rss_kib) / (double)second.rss_kib);
  }
}

/// schedopt beside its peers on the same objects: ready (or synced) and peak RSS then.
void print_peers(const figures& f) {
  if (f.peers.empty())
    return;
  std::printf("\n| Client (%ld VMIs) | ready / synced | peak RSS once ready / synced |\n"
              "|---|---|---|\n", f.vmis);
  std::printf("| schedopt (start → /readyz 200) | %s | %s |\n", fmt_s(f.sync_s).c_str(),
              fmt_mib(f.ready_rss_kib).c_str());
  for (auto& p : f.peers)
    std::printf("| %s (start → every informer synced; %ld objects)%s | %s | %s |\n",
                p.client == "client-go" ? "client-go v0.37 dynamic informers"
                                        : "controller-runtime v0.25 typed cache",
                p.objects, p.error.empty() ? "" : (": " + p.error).c_str(),
                fmt_s(p.synced_s).c_str(), fmt_mib(p.peak_rss_kib).c_str());
}

void print(const options& o, const figures& f) {
  std::printf("\n### %s on %s: %ld VMIs (%d nodes, 2 Portworx volumes per VMI, %.0f %% misplaced; "
              "migration %s, KubeVirt's cluster cap and maxParallelMigrations %d, "
              "maxNonHyperconvergedPerRun %ld; load before: %s)\n\n",
              o.scenario.c_str(), o.real_cluster ? "kube-apiserver + etcd" : "schedopt-sim", f.vmis,
              o.nodes, o.misplaced * 100, o.migration_duration.c_str(), o.parallel, o.max_per_run,
              f.load.c_str());
  std::printf("| Figure | Value |\n|---|---|\n");
  std::printf("| outcome | %s; %ld VMIMs, %ld migrated |\n", f.outcome.c_str(), f.vmims, f.migrated);
  std::printf("| simulator ready (`%s` → `ready`) | %s |\n", o.real_cluster ? "attach" : "serve",
              fmt_s(f.sim_ready_s).c_str());
  std::printf("| informer sync (controller start → /readyz 200) | %s |\n", fmt_s(f.sync_s).c_str());
  std::printf("| evaluation (log: request started → VMIs considered) | %s |\n",
              fmt_s(f.evaluation_s).c_str());
  std::printf("| request → first VMIM (audit createdAt − POST time; − creationTimestamp, 1 s grain) "
              "| %s; %s |\n",
              fmt_s(f.first_vmim_s).c_str(), fmt_s(f.first_vmim_by_timestamp_s).c_str());
  std::printf("| makespan (POST → log: request Final) | %s |\n", fmt_s(f.makespan_s).c_str());
  std::printf("| ideal client's makespan (all VMIMs at once → last finishedAt; %s) | %s |\n",
              f.ideal_outcome.c_str(), fmt_s(f.ideal_makespan_s).c_str());
  if (f.makespan_s > 0 && f.ideal_makespan_s > 0)
    std::printf("| makespan / ideal | %.3f |\n", f.makespan_s / f.ideal_makespan_s);
  for (auto& [verb, n] : f.writes_by_verb)
    std::printf("| API writes: %s (audit) | %s |\n", verb.c_str(), per_vm(n, f.migrated).c_str());
  for (auto& [what, n] : f.writes_by_resource)
    std::printf("| API writes: %s (audit) | %s |\n", what.c_str(), per_vm(n, f.migrated).c_str());
  auto count = [&](const std::string& what) {
    auto i = f.writes_by_resource.find(what);
    return i == f.writes_by_resource.end() ? 0L : i->second;
  };
  long engine_writes = count("create virtualmachineinstancemigrations")
                       + count("patch virtualmachines") + count("patch virtualmachineinstances")
                       + count("patch schedulingoptimizations/status");
  std::printf("| API writes per migrated VM: VMIM create + cool-off + status (audit) | %s |\n",
              per_vm(engine_writes, f.migrated).c_str());
  for (auto& [verb, n] : f.reads_by_verb)
    std::printf("| API reads: %s (controller metrics) | %s |\n", verb.c_str(),
                per_vm(n, f.migrated).c_str());
  std::printf("| status patches / status updates | %.0f / %.0f |\n", f.status_patches, f.status_updates);
  std::printf("| controller CPU (utime+stime) | %s |\n", fmt_s(f.cpu_s).c_str());
  std::printf("| controller peak RSS (VmHWM) | %s |\n", fmt_mib(f.peak_rss_kib).c_str());
  std::printf("| simulator peak RSS (VmHWM) | %s |\n", fmt_mib(f.sim_peak_rss_kib).c_str());
  print_churn(o, f);
  print_peers(f);
  std::fflush(stdout);
}

bool parse_args(int argc, char** argv, options& o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--scenario") {
      o.scenario = value();
      if (o.scenario == "makespan") {
        o.ladder = {3000};
        o.nodes = 30;
        o.misplaced = 0.1;
        o.parallel = 5;
        o.max_per_run = 300;
      } else if (o.scenario == "churn") {
        o.ladder = {100000};
        o.vmi_churn = 1000;
        o.churn_minutes = 10;
        o.timeout_seconds = 1800;
      } else if (o.scenario != "ladder") {
        return false;
      }
    } else if (a == "--vmis") {
      o.ladder.clear();
      std::stringstream ss(value());
      std::string item;
      while (std::getline(ss, item, ','))
        if (std::atol(item.c_str()) > 0)
          o.ladder.push_back(std::atol(item.c_str()));
      if (o.ladder.empty())
        return false;
    } else if (a == "--peers") {
      std::stringstream ss(value());
      for (std::string item; std::getline(ss, item, ',');) {
        if (item != "controller-runtime" && item != "client-go")
          return false;
        o.peers.push_back(item);
      }
    } else if (a == "--cluster") {
      auto which = value();
      if (which != "sim" && which != "real")
        return false;
      o.real_cluster = which == "real";
    } else if (a == "--log-dir") {
      o.log_dir = value();
    } else if (a == "--timeout-seconds") {
      o.timeout_seconds = std::atoi(value().c_str());
    } else if (a == "--migration-duration") {
      o.migration_duration = value();
    } else if (a == "--vmi-churn") {
      o.vmi_churn = std::atol(value().c_str());
    } else if (a == "--churn-minutes") {
      o.churn_minutes = std::atoi(value().c_str());
    } else if (a == "--parallel") {
      o.parallel = std::atoi(value().c_str());
    } else {
      return false;
    }
  }
  return o.timeout_seconds > 0 && o.parallel > 0 && o.vmi_churn >= 0 && o.churn_minutes >= 0;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse_args(argc, argv, o)) {
    std::fprintf(stderr, "usage: scale_bench [--scenario ladder|makespan|churn] [--vmis N[,N...]] "
                         "[--timeout-seconds S] [--migration-duration DUR] [--parallel N] "
                         "[--log-dir DIR] [--vmi-churn PER_SECOND] [--churn-minutes M] "
                         "[--peers controller-runtime,client-go] [--cluster sim|real]\n");
    return 2;
  }
  if (!o.peers.empty()) {
    auto built = schedopt::bench::build_peer(SCHEDOPT_BINARY_DIR);
    if (!built.empty()) {
      std::fprintf(stderr, "scale_bench: %s\n", built.c_str());
      return 1;
    }
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  std::printf("scale_bench: %ld cores, schedopt %s\n", sysconf(_SC_NPROCESSORS_ONLN),
              schedopt::e2e::schedopt_binary().c_str());
  int rc = 0;
  for (auto n : o.ladder) {
    auto f = run_rung(o, n);
    // The churn scenario measures the idle controller; the ideal client needs serve.
    if (f.makespan_s > 0 && o.churn_minutes == 0 && !o.real_cluster)
      run_ideal(o, f);
    print(o, f);
    if (f.makespan_s < 0)
      rc = 1;
  }
  curl_global_cleanup();
  return rc;
}
