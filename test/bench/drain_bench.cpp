// Benchmark (prints figures, not a test): a node drain during a run, with schedopt's
// yielding to KubeVirt's own waiting migrations on and off (yieldToKubevirt true and
// false; auto, the default, is true before KubeVirt's priority queue and false with it),
// per KubeVirt release. Each sample starts `schedopt-sim serve` with a misplaced fleet
// and `schedopt run` as a separate process, creates a request, drains one node a few
// seconds into the run (POST /admin/drain: cordon, drain taint, KubeVirt's evacuations),
// and measures by polling the simulator:
//   - time to empty: from the drain to the drained node running no VMI;
//   - makespan: from the request's creation to its Final stage.
// Both come from the API server's objects, never from the controller's word. Loopback
// only; every wait is bounded.
// Usage: drain_bench [--versions 1.6,1.9] [--seeds N] [--nodes N] [--vmis N]
//                    [--drain-after-ms MS] [--migration-ms MS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/child_process.hpp"
#include "e2e/kube_calls.hpp"
#include "sim/sim_process.hpp"

using namespace std::chrono_literals;
using schedopt::e2e::child_process;
using schedopt::e2e::json;
using schedopt::test::sim_process;
using steady = std::chrono::steady_clock;

namespace {

struct options {
  std::vector<std::string> versions = {"1.6", "1.9"};
  long seeds = 3;
  long nodes = 8;
  long vmis = 160;
  long drain_after_ms = 4000;
  long migration_ms = 1000;
};

struct sample {
  double empty_s = -1;    // drain to drained node empty
  double makespan_s = -1; // request created to Final
  long on_node = 0;       // VMIs on the drained node when it was drained
  long successful = 0, failed = 0, skipped = 0;
};

const std::string drained = "node-02";

long running_on(const sim_process& sim, const std::string& node) {
  long n = 0;
  for (auto& v : schedopt::e2e::items(sim, schedopt::e2e::vmis_path))
    if (v.value("/status/nodeName"_json_pointer, std::string()) == node
        && v.value("/status/phase"_json_pointer, std::string()) == "Running")
      ++n;
  return n;
}

double seconds_since(steady::time_point t) {
  return std::chrono::duration<double>(steady::now() - t).count();
}

/// One drain during one run; nullopt (with the cause on stderr) when it did not finish.
std::optional<sample> run_one(const options& o, const std::string& version, bool yield, long seed) {
  sim_process sim({"--nodes", std::to_string(o.nodes), "--vmis", std::to_string(o.vmis),
                   "--misplaced", "0.5", "--driver", "portworx", "--seed", std::to_string(seed),
                   "--migration-duration", std::to_string(o.migration_ms) + "ms",
                   "--kubevirt-version", version},
                  "drain-bench-token", 60s);
  if (!sim.ok()) {
    std::fprintf(stderr, "drain_bench: schedopt-sim: %s\n", sim.error().c_str());
    return std::nullopt;
  }
  child_process controller({"run", "--kubeconfig", sim.kubeconfig(), "--driver", "portworx",
                            "--portworx-endpoint", sim.sdk_url(), "--metrics-listen", "127.0.0.1:0",
                            "--metrics-secure=false", "--health-listen", "127.0.0.1:0",
                            "--log-format", "text", "--log-level", "info",
                            std::string("--yield-to-kubevirt=") + (yield ? "true" : "false")});
  schedopt::e2e::eventually([&] { return controller.metrics_port() != 0 || !controller.running(); },
                            60s, 20ms);
  if (controller.metrics_port() == 0) {
    std::fprintf(stderr, "drain_bench: controller not serving: %s\n", controller.log_tail(20).c_str());
    return std::nullopt;
  }
  sample s;
  const std::string name = "drain-bench";
  const auto path = schedopt::e2e::requests_path + "/" + name;
  json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
               {"kind", "SchedulingOptimization"},
               {"metadata", {{"name", name}}},
               {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  try {
    schedopt::e2e::call(sim, "POST", schedopt::e2e::requests_path, body, 201);
    auto created = steady::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(o.drain_after_ms));
    s.on_node = running_on(sim, drained);
    schedopt::e2e::call(sim, "POST", "/admin/drain?node=" + drained);
    auto drain = steady::now();
    json request;
    bool done = schedopt::e2e::eventually(
      [&] {
        if (s.empty_s < 0 && running_on(sim, drained) == 0)
          s.empty_s = seconds_since(drain);
        if (s.makespan_s < 0) {
          request = schedopt::e2e::get(sim, path);
          if (request.value("/status/stage"_json_pointer, std::string()) == "Final")
            s.makespan_s = seconds_since(created);
        }
        return s.empty_s >= 0 && s.makespan_s >= 0;
      },
      600s, 100ms);
    if (!done) {
      std::fprintf(stderr, "drain_bench: %s yield=%d seed %ld: not done (empty %.1f s, makespan %.1f s)\n",
                   version.c_str(), yield, seed, s.empty_s, s.makespan_s);
      return std::nullopt;
    }
    auto counters = request.value("/status/vmHyperconvergence"_json_pointer, json::object());
    s.successful = counters.value("successful", 0L);
    s.failed = counters.value("failed", 0L);
    s.skipped = counters.value("skipped", 0L);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "drain_bench: %s\n", e.what());
    return std::nullopt;
  }
  controller.terminate();
  return s;
}

struct spread {
  double median = 0, min = 0, max = 0;
};

spread spread_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

std::string show(const spread& s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f s (%.1f–%.1f)", s.median, s.min, s.max);
  return buf;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');)
    if (!part.empty())
      out.push_back(part);
  return out;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  auto usage = [] {
    std::fprintf(stderr, "usage: drain_bench [--versions 1.6,1.9] [--seeds N] [--nodes N] [--vmis N] "
                         "[--drain-after-ms MS] [--migration-ms MS]\n");
    return 2;
  };
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc)
      return usage();
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--versions") {
      o.versions = split_commas(value);
      continue;
    }
    long n = std::atol(value.c_str());
    long* field = flag == "--seeds" ? &o.seeds
                : flag == "--nodes" ? &o.nodes
                : flag == "--vmis" ? &o.vmis
                : flag == "--drain-after-ms" ? &o.drain_after_ms
                : flag == "--migration-ms" ? &o.migration_ms : nullptr;
    if (!field || n <= 0)
      return usage();
    *field = n;
  }
  if (o.versions.empty())
    return usage();

  std::printf("Drain during a run: %ld nodes, %ld VMIs (half misplaced), migrations of %ld ms, "
              "KubeVirt's default caps; %s drained %.1f s into the run; %ld seeds each\n\n",
              o.nodes, o.vmis, o.migration_ms, drained.c_str(), o.drain_after_ms / 1000.0, o.seeds);
  std::printf("| KubeVirt | yieldToKubevirt | VMIs on the node | time to empty the drained node "
              "| schedopt's makespan | successful / failed / skipped |\n|---|---|---|---|---|---|\n");
  for (auto& version : o.versions)
    for (bool yield : {true, false}) {
      std::vector<double> empty, makespan;
      long on_node = 0, ok = 0, failed = 0, skipped = 0;
      for (long seed = 1; seed <= o.seeds; ++seed) {
        auto s = run_one(o, version, yield, seed);
        if (!s)
          return 1;
        std::fprintf(stderr, "drain_bench: %s yield=%d seed %ld: empty %.1f s, makespan %.1f s\n",
                     version.c_str(), yield, seed, s->empty_s, s->makespan_s);
        empty.push_back(s->empty_s);
        makespan.push_back(s->makespan_s);
        on_node += s->on_node;
        ok += s->successful;
        failed += s->failed;
        skipped += s->skipped;
      }
      std::printf("| %s | %s | %.0f | %s | %s | %ld / %ld / %ld |\n", version.c_str(),
                  yield ? "true" : "false", double(on_node) / o.seeds, show(spread_of(empty)).c_str(),
                  show(spread_of(makespan)).c_str(), ok, failed, skipped);
      std::fflush(stdout);
    }
  std::printf("\nmedian (min–max) over the seeds; counters summed over them\n");
  return 0;
}
