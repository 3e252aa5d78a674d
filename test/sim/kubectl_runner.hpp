// Runs stock kubectl binaries against a simulator: finds `kubectl` on PATH and the
// versioned kubectl.1.NN binaries installed beside the real one.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_process.hpp"

namespace schedopt::test {

struct kubectl_binary {
  std::string label; // "default", "1.27", "1.33"
  std::string path;
};

/// The default kubectl plus 1.27 and 1.33 when installed beside it.
inline std::vector<kubectl_binary> kubectl_binaries() {
  namespace fs = std::filesystem;
  std::vector<kubectl_binary> out;
  const char* path_env = std::getenv("PATH");
  std::string paths = path_env ? path_env : "";
  std::string found;
  std::size_t start = 0;
  while (start <= paths.size()) {
    auto end = paths.find(':', start);
    auto dir = paths.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::error_code ec;
    if (!dir.empty() && fs::exists(dir + "/kubectl", ec)) {
      found = dir + "/kubectl";
      break;
    }
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  if (found.empty())
    return out;
  out.push_back({"default", found});
  std::error_code ec;
  auto real = fs::canonical(found, ec);
  if (ec)
    return out;
  for (auto version : {"1.27", "1.33"}) {
    auto candidate = real.parent_path() / (std::string("kubectl.") + version);
    if (fs::exists(candidate, ec))
      out.push_back({version, candidate.string()});
  }
  return out;
}

struct kubectl_result {
  int exit_code = -1;
  std::string output; // stdout and stderr
};

/// `kubectl --kubeconfig <sim> <args>` with a 90s limit.
inline kubectl_result run_kubectl(const kubectl_binary& kubectl, const sim_process& sim,
                                  const std::string& args) {
  kubectl_result r;
  std::string cmd = "timeout 90 " + kubectl.path + " --kubeconfig " + sim.kubeconfig()
                    + " --cache-dir " + sim.dir() + "/kubecache-" + kubectl.label + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr)
    return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe) != nullptr)
    r.output += buf.data();
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// A long-running kubectl (get -w): output collected until kill().
class kubectl_stream {
public:
  kubectl_stream(const kubectl_binary& kubectl, const sim_process& sim, std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0)
      return;
    std::vector<std::string> argv_s = {kubectl.path, "--kubeconfig", sim.kubeconfig(), "--cache-dir",
                                       sim.dir() + "/kubecache-" + kubectl.label};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      close(fds[0]);
      close(fds[1]);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  ~kubectl_stream() { kill_it(); }

  /// Reads until `needle` appears in the output or `timeout_ms` passes.
  bool wait_for(const std::string& needle, int timeout_ms = 20000) {
    while (output_.find(needle) == std::string::npos) {
      if (fd_ < 0 || timeout_ms <= 0)
        return false;
      pollfd pfd{fd_, POLLIN, 0};
      int ready = poll(&pfd, 1, 200);
      timeout_ms -= 200;
      if (ready <= 0)
        continue;
      char buf[4096];
      auto n = read(fd_, buf, sizeof buf);
      if (n <= 0) {
        close(fd_);
        fd_ = -1;
        continue;
      }
      output_.append(buf, static_cast<std::size_t>(n));
    }
    return true;
  }

  const std::string& output() const { return output_; }

  void kill_it() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
  }

private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string output_;
};

} // namespace schedopt::test
