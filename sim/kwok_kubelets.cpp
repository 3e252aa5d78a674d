// Configured as kwok's own deployment (kustomize/kwok/kwok.yaml) is, Leases of 40 s,
// with the stages of kustomize/stage/node/fast, node/heartbeat-with-lease and pod/fast;
// but every node managed, where that deployment takes the nodes annotated
// kwok.x-k8s.io/node=fake: attach's cluster has no other kubelets.
#include "sim/kwok_kubelets.hpp"

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include <cerrno>
#include <cstring>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedopt::sim {

kwok_kubelets::~kwok_kubelets() { stop(); }

expected<bool> kwok_kubelets::start(const std::string& dir, const std::string& kubeconfig) {
  namespace fs = std::filesystem;
  auto binary = dir + "/bin/kwok";
  if (access(binary.c_str(), X_OK) != 0)
    return make_error(ec::config_error, "--kwok " + dir + ": no executable bin/kwok there (test/controlplane/"
                                        "build.sh prints such a folder)");
  std::string stages;
  std::error_code err;
  for (auto& entry : fs::directory_iterator(dir + "/kwok-stages", err))
    if (entry.path().extension() == ".yaml")
      stages += (stages.empty() ? "" : ",") + entry.path().string();
  if (stages.empty())
    return make_error(ec::config_error, "--kwok " + dir + ": no stages in kwok-stages/");
  std::vector<std::string> args = {binary, "--kubeconfig", kubeconfig, "--manage-all-nodes=true",
                                   "--node-lease-duration-seconds", "40", "--config", stages};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) {
    pid_ = 0;
    return make_error(ec::config_error, "cannot start " + binary + ": " + std::string(strerror(errno)));
  }
  if (pid_ == 0) {
    // Gone with the simulator, however it ends: no kubelet heartbeats for a world that
    // no longer runs.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    // The simulator blocks SIGTERM in every thread to sigwait for it; kwok must not.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // Its log joins the simulator's, on stderr; stdout is the simulator's `ready` line.
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return true;
}

void kwok_kubelets::stop() {
  if (pid_ <= 0)
    return;
  kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = 0;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = 0;
}

} // namespace schedopt::sim
