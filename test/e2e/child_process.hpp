// Runs a program (schedopt) as a child process with stdout and stderr in temp files, so a
// test can signal it, wait for it with a bound, and print its log when something fails.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedopt::e2e {

/// $SCHEDOPT_BINARY, else SCHEDOPT_BINARY_DIR/schedopt.
inline std::string schedopt_binary() {
  if (const char* env = std::getenv("SCHEDOPT_BINARY"))
    return env;
  return std::string(SCHEDOPT_BINARY_DIR) + "/schedopt";
}

class child_process {
public:
  explicit child_process(std::vector<std::string> args) {
    char tmpl[] = "/tmp/schedopt-e2e-XXXXXX";
    dir_ = mkdtemp(tmpl) ? tmpl : "/tmp";
    out_file_ = dir_ + "/stdout";
    err_file_ = dir_ + "/stderr";
    args.insert(args.begin(), schedopt_binary());
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {
      int out = open(out_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, STDOUT_FILENO);
      dup2(err, STDERR_FILENO);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }

  ~child_process() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::string cmd = "rm -rf '" + dir_ + "'";
    if (dir_ != "/tmp" && std::system(cmd.c_str()) != 0) {
      // Leftover temp files are harmless.
    }
  }

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const { return pid_; }
  bool running() {
    reap(false);
    return pid_ > 0;
  }

  void signal(int sig) {
    if (pid_ > 0)
      kill(pid_, sig);
  }

  /// Exit code once the child ended within `timeout`; -1 if still running (or killed by a
  /// signal: then -100 - signal).
  int wait_exit(std::chrono::seconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
      reap(false);
      if (pid_ > 0)
        usleep(50 * 1000);
    }
    return pid_ > 0 ? -1 : exit_code_;
  }

  /// SIGTERM, wait up to 20 s, then SIGKILL; the exit code as wait_exit reports it.
  int terminate() {
    signal(SIGTERM);
    int code = wait_exit(std::chrono::seconds(20));
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      reap(true);
      return -1;
    }
    return code;
  }

  /// SIGKILL and reap.
  void kill_hard() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      reap(true);
    }
  }

  std::string out() const { return read(out_file_); }
  std::string err() const { return read(err_file_); }

  /// The last `lines` lines of stderr (the log).
  std::string log_tail(std::size_t lines = 150) const {
    auto text = err();
    std::size_t pos = text.size();
    for (std::size_t n = 0; n <= lines && pos > 0; ++n) {
      pos = text.rfind('\n', pos - 1);
      if (pos == std::string::npos) {
        pos = 0;
        break;
      }
    }
    return text.substr(pos);
  }

  /// The port schedopt logged for /metrics, 0 if not logged (yet).
  int metrics_port() const { return logged_port("/metrics on port ([0-9]+)"); }

  /// The port schedopt logged for /healthz and /readyz, 0 if not logged (yet).
  int health_port() const { return logged_port("/healthz and /readyz on port ([0-9]+)"); }

private:
  int logged_port(const char* pattern) const {
    std::smatch m;
    auto text = err();
    const std::regex re(pattern);
    return std::regex_search(text, m, re) ? std::atoi(m[1].str().c_str()) : 0;
  }

  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  void reap(bool block) {
    if (pid_ <= 0)
      return;
    int status = 0;
    if (waitpid(pid_, &status, block ? 0 : WNOHANG) == pid_) {
      pid_ = -1;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status)
                                     : (WIFSIGNALED(status) ? -100 - WTERMSIG(status) : -1);
    }
  }

  std::string dir_;
  std::string out_file_;
  std::string err_file_;
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

} // namespace schedopt::e2e
