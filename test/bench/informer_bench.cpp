// Benchmark (prints figures, not a test): list and decode N VMIs from schedopt-sim into a
// VMI informer's store, next to `kubectl get vmi -A -o json > /dev/null` on the same
// simulator. Usage: informer_bench [--vmis N] [--kubectl PATH] [--rounds R]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/api_client_actor.hpp"
#include "actors/informer_actor.hpp"
#include "actors/system_config.hpp"
#include "k8s/cluster_config.hpp"
#include "sim/sim_process.hpp"

using namespace std::chrono_literals;

namespace {

struct figures {
  double wall = 0;
  double cpu = 0;
  long peak_rss_kib = 0;
  size_t objects = 0;
};

double cpu_seconds(const rusage& u) {
  return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec
         + u.ru_stime.tv_usec / 1e6;
}

long self_peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::atol(line.c_str() + 6);
  return -1;
}

// Resets VmHWM to the current RSS (Linux >= 4.0), so each round reports its own peak.
void reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
}

figures run_informer(caf::actor_system& sys, const schedopt::k8s::cluster_config& cfg) {
  figures f;
  reset_peak_rss();
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  auto start = std::chrono::steady_clock::now();
  auto client = schedopt::spawn_api_client(sys, cfg);
  if (!client) {
    std::fprintf(stderr, "cannot spawn client\n");
    return f;
  }
  auto inf = schedopt::spawn_informer<schedopt::virtual_machine_instance>(sys, *client);
  caf::scoped_actor self{sys};
  bool synced = false;
  while (!synced) {
    self->request(inf, 60s, schedopt::atom::synced_v)
      .receive([&](bool b) { synced = b; }, [&](caf::error&) {});
    if (!synced)
      std::this_thread::sleep_for(2ms);
  }
  auto end = std::chrono::steady_clock::now();
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  f.peak_rss_kib = self_peak_rss_kib(); // the store alone, before the snapshot
  self->request(inf, 60s, schedopt::atom::snapshot_v)
    .receive([&](schedopt::shared_list<schedopt::virtual_machine_instance>& v) { f.objects = v.size(); },
             [&](caf::error&) {});
  f.wall = std::chrono::duration<double>(end - start).count();
  f.cpu = cpu_seconds(after) - cpu_seconds(before);
  self->send_exit(inf, caf::exit_reason::user_shutdown);
  self->send_exit(*client, caf::exit_reason::user_shutdown);
  self->wait_for(inf, *client); // the next round starts from a clean process
  return f;
}

figures run_kubectl(const std::string& kubectl, const std::string& kubeconfig) {
  figures f;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    execl(kubectl.c_str(), kubectl.c_str(), "--kubeconfig", kubeconfig.c_str(), "get", "vmi",
          "-A", "-o", "json", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  f.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.cpu = cpu_seconds(usage);
  f.peak_rss_kib = usage.ru_maxrss;
  f.objects = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 1 : 0;
  return f;
}

} // namespace

int main(int argc, char** argv) {
  int vmis = 10000;
  int rounds = 3;
  std::string kubectl = "/usr/bin/kubectl";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--vmis"))
      vmis = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--kubectl"))
      kubectl = argv[i + 1];
    else if (!std::strcmp(argv[i], "--rounds"))
      rounds = std::atoi(argv[i + 1]);
  }
  schedopt::test::sim_process sim{{"--vmis", std::to_string(vmis), "--nodes", "50"}};
  if (!sim.ok()) {
    std::fprintf(stderr, "simulator: %s\n", sim.error().c_str());
    return 1;
  }
  auto cfg = schedopt::k8s::load_kubeconfig(sim.kubeconfig());
  if (!cfg) {
    std::fprintf(stderr, "%s\n", cfg.err().message.c_str());
    return 1;
  }
  std::printf("simulator: schedopt-sim serve --vmis %d --nodes 50 (%s)\n", vmis, sim.url().c_str());
  std::printf("%-28s %10s %10s %14s %10s\n", "run", "wall s", "cpu s", "peak RSS MiB", "objects");
  std::vector<double> ours, theirs;
  {
    caf::actor_system_config conf;
    schedopt::register_schedopt_types(conf);
    caf::actor_system sys{conf};
    for (int r = 0; r < rounds; ++r) {
      auto f = run_informer(sys, *cfg);
      ours.push_back(f.wall);
      std::printf("%-28s %10.3f %10.3f %14.1f %10zu\n", "schedopt informer (list+decode)",
                  f.wall, f.cpu, f.peak_rss_kib / 1024.0, f.objects);
    }
  }
  bool have_kubectl = access(kubectl.c_str(), X_OK) == 0;
  for (int r = 0; have_kubectl && r < rounds; ++r) {
    auto f = run_kubectl(kubectl, sim.kubeconfig());
    theirs.push_back(f.wall);
    std::printf("%-28s %10.3f %10.3f %14.1f %10s\n", "kubectl get vmi -A -o json", f.wall, f.cpu,
                f.peak_rss_kib / 1024.0, f.objects ? "ok" : "FAILED");
  }
  if (!have_kubectl)
    std::printf("kubectl not found at %s: no comparison\n", kubectl.c_str());
  auto best = [](std::vector<double> v) {
    double b = 1e9;
    for (double x : v)
      b = std::min(b, x);
    return b;
  };
  if (!ours.empty() && !theirs.empty())
    std::printf("best wall time ratio kubectl / schedopt: %.2f\n", best(theirs) / best(ours));
  std::printf("simulator peak RSS MiB: %.1f\n", sim.peak_rss_kib() / 1024.0);
  return 0;
}
