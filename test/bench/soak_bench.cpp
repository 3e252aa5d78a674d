// Benchmark (prints figures, not a test): a year of requests on one controller. Starts
// `schedopt-sim serve` with a small fleet and `schedopt run` as a separate process, then
// creates SchedulingOptimizations back to back, each deleted once Final (its creator owns
// deletion), and samples the controller's RSS, open file descriptors and CPU per request
// at fixed request numbers. A controller that keeps something per request it ever served
// shows it here as a slope. CPU per request is the mean over the 100 requests before each
// sample, so every row is measured over the same number of requests; the spread over all
// such windows shows how much of a difference is noise. Loopback only; every wait is
// bounded.
// The controller's client-side API limit is raised (--api-qps, default 1000 here): at its
// own default of 20/s back-to-back requests wait on the limiter most of the time, and
// the CPU figure would measure idle wakeups while waiting instead of the work a request
// costs. `--api-qps 0` keeps the controller's default.
// Usage: soak_bench [--requests N] [--vmis N] [--api-qps N] [--timeout-seconds S]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/process_figures.hpp"
#include "e2e/child_process.hpp"
#include "e2e/kube_calls.hpp"
#include "sim/sim_process.hpp"

using namespace std::chrono_literals;
using schedopt::e2e::child_process;
using schedopt::e2e::json;
using schedopt::test::sim_process;

namespace {

struct options {
  long requests = 2000;
  long vmis = 200;
  long api_qps = 1000; // 0: the controller's default
  long timeout_seconds = 3600;
};

struct sample {
  long request = 0;    // requests finished when sampled
  long rss_kib = 0;
  long open_fds = 0;
  double cpu_ms_per_request = 0; // over the window of requests before the sample
  double wall_ms_per_request = 0;
};

long open_fds_of(pid_t pid) {
  std::error_code ec;
  long n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++n;
  return ec ? -1 : n;
}

constexpr long window = 100; // requests per CPU figure

bool wanted(long request, long total) {
  return request == 1 || request == window || request % 500 == 0 || request == total;
}

/// One request from create to delete; "" on success, else what went wrong.
std::string one_request(const sim_process& sim, long number, std::chrono::seconds budget) {
  auto name = "soak-" + std::to_string(number);
  json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
               {"kind", "SchedulingOptimization"},
               {"metadata", {{"name", name}}},
               {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
  auto path = schedopt::e2e::requests_path + "/" + name;
  try {
    schedopt::e2e::call(sim, "POST", schedopt::e2e::requests_path, body, 201);
    bool final = schedopt::e2e::eventually(
      [&] {
        auto so = schedopt::e2e::get(sim, path);
        return so.value("/status/stage"_json_pointer, std::string()) == "Final";
      },
      budget, 5ms);
    if (!final)
      return name + " not Final within " + std::to_string(budget.count()) + " s";
    schedopt::e2e::call(sim, "DELETE", path);
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

int run(const options& o) {
  // 10 % misplaced: the first request migrates them, later ones find them cooling off, so
  // every request evaluates, skips and writes a full status.
  sim_process sim({"--nodes", "6", "--vmis", std::to_string(o.vmis), "--misplaced", "0.1",
                   "--driver", "portworx", "--migration-duration", "200ms", "--seed", "3"},
                  "soak-bench-token", 60s);
  if (!sim.ok()) {
    std::fprintf(stderr, "soak_bench: schedopt-sim: %s\n", sim.error().c_str());
    return 1;
  }
  std::vector<std::string> args{"run", "--kubeconfig", sim.kubeconfig(), "--driver", "portworx",
                                 "--portworx-endpoint", sim.sdk_url(), "--metrics-listen", "127.0.0.1:0",
                                 "--metrics-secure=false", "--health-listen", "127.0.0.1:0",
                                 "--log-format", "text", "--log-level", "info",
                                 "--status-flush-interval", "20ms"};
  if (o.api_qps > 0)
    args.insert(args.end(), {"--api-qps", std::to_string(o.api_qps), "--api-burst", std::to_string(o.api_qps)});
  child_process controller(args);

  int port = 0;
  schedopt::e2e::eventually([&] { return (port = controller.metrics_port()) != 0 || !controller.running(); },
                            60s, 20ms);
  if (port == 0) {
    std::fprintf(stderr, "soak_bench: controller not serving: %s\n", controller.log_tail(20).c_str());
    return 1;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_seconds);
  std::vector<sample> samples;
  std::vector<double> window_cpu; // ms per request, every full window
  double cpu_before = schedopt::bench::cpu_seconds_precise_of(controller.pid());
  auto wall_before = std::chrono::steady_clock::now();
  long since = 0;
  for (long n = 1; n <= o.requests; ++n) {
    auto left = std::chrono::duration_cast<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !controller.running()) {
      std::fprintf(stderr, "soak_bench: stopped at request %ld: %s\n", n,
                   controller.running() ? "out of time" : controller.log_tail(20).c_str());
      return 1;
    }
    if (auto failed = one_request(sim, n, std::min(left, std::chrono::seconds(300))); !failed.empty()) {
      std::fprintf(stderr, "soak_bench: request %ld: %s\n", n, failed.c_str());
      return 1;
    }
    ++since;
    // A window ends every `window` requests (and after request 1, whose figure is the
    // start-up's); a sample is taken at the end of a wanted one.
    if (n != 1 && n % window != 0 && n != o.requests)
      continue;
    double cpu = schedopt::bench::cpu_seconds_precise_of(controller.pid());
    auto wall = std::chrono::steady_clock::now();
    double cpu_ms = (cpu - cpu_before) * 1000 / since;
    double wall_ms = std::chrono::duration<double, std::milli>(wall - wall_before).count() / since;
    if (n != 1 && since >= window - 1) // the first window is requests 2 to 100
      window_cpu.push_back(cpu_ms);
    if (wanted(n, o.requests)) {
      samples.push_back({n, schedopt::bench::vm_rss_kib(controller.pid()), open_fds_of(controller.pid()),
                         cpu_ms, wall_ms});
      auto& s = samples.back();
      std::fprintf(stderr, "soak_bench: request %ld: RSS %ld KiB, %ld fds, %.2f ms CPU/request\n", n,
                   s.rss_kib, s.open_fds, s.cpu_ms_per_request);
    }
    cpu_before = cpu;
    wall_before = wall;
    since = 0;
  }
  std::printf("Soak: %ld requests back to back, each deleted once Final (%ld VMIs, 6 nodes, "
              "API limit %s)\n\n",
              o.requests, o.vmis, o.api_qps > 0 ? (std::to_string(o.api_qps) + "/s").c_str() : "default");
  std::printf("| request | controller RSS | open fds | CPU per request | wall per request |\n"
              "|---|---|---|---|---|\n");
  for (auto& s : samples)
    std::printf("| %ld | %.1f MiB | %ld | %.2f ms | %.1f ms |\n", s.request, s.rss_kib / 1024.0,
                s.open_fds, s.cpu_ms_per_request, s.wall_ms_per_request);
  const sample* at100 = nullptr;
  for (auto& s : samples)
    if (s.request == 100)
      at100 = &s;
  if (at100 && samples.back().request > 100) {
    auto& last = samples.back();
    auto change = [](double from, double to) { return from > 0 ? (to - from) * 100 / from : 0.0; };
    std::printf("\nrequest %ld vs request 100: RSS %+.1f %%, open fds %+ld, CPU per request %+.1f %%\n",
                last.request, change(at100->rss_kib, last.rss_kib), last.open_fds - at100->open_fds,
                change(at100->cpu_ms_per_request, last.cpu_ms_per_request));
  }
  if (!window_cpu.empty()) {
    std::sort(window_cpu.begin(), window_cpu.end());
    std::printf("CPU per request over the %zu windows of %ld requests: min %.2f ms, median %.2f ms, "
                "max %.2f ms\n",
                window_cpu.size(), window, window_cpu.front(), window_cpu[window_cpu.size() / 2],
                window_cpu.back());
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  options o;
  auto usage = [] {
    std::fprintf(stderr, "usage: soak_bench [--requests N] [--vmis N] [--timeout-seconds S]\n");
    return 2;
  };
  for (int i = 1; i < argc; i += 2) {
    std::string flag = argv[i];
    long value = i + 1 < argc ? std::atol(argv[i + 1]) : -1;
    long* field = flag == "--requests" ? &o.requests
                : flag == "--vmis" ? &o.vmis
                : flag == "--api-qps" ? &o.api_qps
                : flag == "--timeout-seconds" ? &o.timeout_seconds : nullptr;
    if (!field || value < 0 || (value == 0 && field != &o.api_qps))
      return usage();
    *field = value;
  }
  return run(o);
}
