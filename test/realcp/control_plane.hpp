// The real control plane as a test fixture, as controller-runtime's envtest gives one:
// test/controlplane/run.sh started as a child in a process group of its own (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler, kwok on request), ready once
// it prints `ready <url>`, stopped with SIGTERM so it stops kube-apiserver before etcd.
// Its url(), ca_file() and token() (the admin) make it an endpoint for the e2e helpers.
#pragma once

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedopt::realcp {

/// The binaries' folder test/controlplane/build.sh built for the pinned release; empty
/// when that build has not run (the message then says how to run it).
inline std::string control_plane_bin(std::string& why_not) {
  std::string cmd = std::string("'") + SCHEDOPT_SOURCE_DIR + "/test/controlplane/build.sh' --locate";
  std::string out;
  if (FILE* pipe = popen(cmd.c_str(), "r")) {
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe))
      out += buffer;
    pclose(pipe);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
    out.pop_back();
  if (out.empty() || access((out + "/complete").c_str(), F_OK) != 0) {
    why_not = "the control plane is not built: run test/controlplane/build.sh (needs Go >= 1.26)";
    return {};
  }
  return out + "/bin";
}

struct control_plane_options {
  bool kwok = false;                          // kwok as every node's kubelet
  std::string node_monitor_grace_period = "40s"; // kube-controller-manager's, as upstream's default
  std::chrono::seconds ready_timeout{120};
};

class control_plane {
public:
  explicit control_plane(control_plane_options options = {}) {
    auto bin = control_plane_bin(error_);
    if (bin.empty())
      return;
    char tmpl[] = "/tmp/schedopt-realcp-XXXXXX";
    if (!mkdtemp(tmpl)) {
      error_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    std::vector<std::string> args = {std::string(SCHEDOPT_SOURCE_DIR) + "/test/controlplane/run.sh",
                                     "--dir", dir_, "--bin", bin,
                                     "--node-monitor-grace-period", options.node_monitor_grace_period};
    if (options.kwok)
      args.push_back("--kwok");
    start(args, options.ready_timeout);
  }

  ~control_plane() {
    stop();
    if (!dir_.empty()) {
      std::string cmd = "rm -rf '" + dir_ + "'";
      if (std::system(cmd.c_str()) != 0)
        std::fprintf(stderr, "control_plane: could not remove %s\n", dir_.c_str());
    }
  }

  control_plane(const control_plane&) = delete;
  control_plane& operator=(const control_plane&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // The endpoint the e2e helpers (e2e/kube_calls.hpp) call, as the admin.
  std::string url() const { return value("SERVER"); }
  std::string ca_file() const { return value("CA_FILE"); }
  std::string token() const { return value("ADMIN_TOKEN"); }

  /// A value of run.sh's env file: ADMIN_KUBECONFIG, REQUESTER_TOKEN, AUDIT_LOG, BIN, ...
  std::string value(const std::string& key) const {
    auto it = env_.find(key);
    return it == env_.end() ? std::string() : it->second;
  }
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

  /// The audit log's events, one JSON text per line, as kube-apiserver wrote them.
  std::vector<std::string> audit_lines() const {
    std::vector<std::string> lines;
    std::ifstream in(value("AUDIT_LOG"));
    for (std::string line; std::getline(in, line);)
      if (!line.empty())
        lines.push_back(line);
    return lines;
  }

  /// A component's log (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok).
  std::string log(const std::string& component) const {
    std::ifstream in(dir_ + "/logs/" + component + ".log");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  /// SIGTERM to run.sh, which stops its children in reverse order; SIGKILL to the whole
  /// group after `grace`. Returns run.sh's exit status (-1 if it had to be killed).
  int stop(std::chrono::seconds grace = std::chrono::seconds(30)) {
    if (pid_ <= 0)
      return status_;
    kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + grace;
    int raw = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &raw, WNOHANG) == pid_) {
        status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
        pid_ = 0;
        return status_;
      }
      usleep(50 * 1000);
    }
    kill(-pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = 0;
    status_ = -1;
    return status_;
  }

private:
  void start(const std::vector<std::string>& args, std::chrono::seconds ready_timeout) {
    int out[2];
    if (pipe(out) != 0) {
      error_ = "pipe failed";
      return;
    }
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0); // the group a last-resort SIGKILL reaches
      dup2(out[1], STDOUT_FILENO);
      int err = open((dir_ + "/run.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(err, STDERR_FILENO);
      close(out[0]);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + ready_timeout;
    while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      pollfd p{out[0], POLLIN, 0};
      if (poll(&p, 1, 200) <= 0)
        continue;
      char buffer[256];
      auto n = read(out[0], buffer, sizeof buffer);
      if (n <= 0)
        break;
      line.append(buffer, static_cast<std::size_t>(n));
    }
    close(out[0]);
    if (line.rfind("ready ", 0) != 0) {
      std::ifstream in(dir_ + "/run.log");
      std::stringstream text;
      text << in.rdbuf();
      error_ = "run.sh did not print ready: " + text.str();
      stop(std::chrono::seconds(5));
      return;
    }
    std::ifstream env(dir_ + "/env");
    for (std::string kv; std::getline(env, kv);)
      if (auto eq = kv.find('='); eq != std::string::npos)
        env_[kv.substr(0, eq)] = kv.substr(eq + 1);
  }

  std::string dir_;
  std::string error_;
  std::map<std::string, std::string> env_;
  pid_t pid_ = 0;
  int status_ = 0;
};

} // namespace schedopt::realcp
