// Test helper shared by test/sim, test/k8s and test/e2e: runs `schedopt-sim serve` as a
// child process on 127.0.0.1:0, waits for its `ready <url>` line, stops it with SIGTERM.
#pragma once

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedopt::test {

/// A real API server for `schedopt-sim attach` to put its world into (test/realcp's
/// control plane): its kubeconfig, URL, CA file and a token allowed everything.
struct attach_target {
  std::string kubeconfig;
  std::string url;
  std::string ca_file;
  std::string token;
  std::string audit_log; // kube-apiserver's JSON audit log: the judge of the tests
};

class sim_process {
public:
  /// Starts the simulator with `extra_args` appended to
  /// `serve --listen 127.0.0.1:0 --kubeconfig-out <dir>/kubeconfig --token <token>
  ///  --sdk-endpoint-out <dir>/sdk-url`. Check ok() / error() afterwards.
  /// The binary is $SCHEDOPT_SIM_BINARY, else SCHEDOPT_BINARY_DIR/schedopt-sim.
  explicit sim_process(std::vector<std::string> extra_args = {},
                       std::string token = "sim-test-token",
                       std::chrono::seconds ready_timeout = std::chrono::seconds(120))
    : token_(std::move(token)) {
    char tmpl[] = "/tmp/schedopt-sim-test-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      error_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    kubeconfig_ = dir_ + "/kubeconfig";
    sdk_url_file_ = dir_ + "/sdk-url";
    std::vector<std::string> args = {binary(),        "serve",       "--listen",
                                     "127.0.0.1:0",   "--kubeconfig-out", kubeconfig_,
                                     "--token",       token_,        "--sdk-endpoint-out",
                                     sdk_url_file_};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    sdk_token_ = value_of(extra_args, "--sdk-token");
    sdk_ca_file_ = value_of(extra_args, "--sdk-ca-out");
    if (!sdk_token_.empty())
      std::ofstream(sdk_token_file()) << sdk_token_ << "\n"; // the newline an editor leaves
    start(args, ready_timeout);
  }

  /// Starts `schedopt-sim attach --kubeconfig <target>` with `extra_args`: the same world,
  /// in a real API server, which url(), token() and ca_file() then name; kubeconfig()
  /// names attach's fault proxy in front of it (--kubeconfig-out), for the clients under
  /// test, and /admin/... calls go to attach's admin endpoint.
  sim_process(const attach_target& target, std::vector<std::string> extra_args,
              std::chrono::seconds ready_timeout = std::chrono::seconds(180))
    : token_(target.token) {
    char tmpl[] = "/tmp/schedopt-sim-test-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      error_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    // The clients under test go through attach's fault proxy (faults only when asked);
    // the test's own calls go to the server directly.
    kubeconfig_ = dir_ + "/proxied.kubeconfig";
    sdk_url_file_ = dir_ + "/sdk-url";
    url_ = target.url;
    ca_file_ = target.ca_file;
    audit_log_ = target.audit_log;
    std::vector<std::string> args = {binary(),           "attach",          "--kubeconfig",
                                     target.kubeconfig,  "--kubeconfig-out", kubeconfig_,
                                     "--sdk-endpoint-out", sdk_url_file_,   "--admin-endpoint-out",
                                     dir_ + "/admin-url"};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    sdk_token_ = value_of(extra_args, "--sdk-token");
    sdk_ca_file_ = value_of(extra_args, "--sdk-ca-out");
    if (!sdk_token_.empty())
      std::ofstream(sdk_token_file()) << sdk_token_ << "\n";
    start(args, ready_timeout);
  }

  ~sim_process() {
    stop();
    if (!dir_.empty()) {
      std::string cmd = "rm -rf '" + dir_ + "'";
      if (std::system(cmd.c_str()) != 0) {
        // Leftover temp files are harmless.
      }
    }
  }

  sim_process(const sim_process&) = delete;
  sim_process& operator=(const sim_process&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  /// "https://127.0.0.1:<port>"
  const std::string& url() const { return url_; }
  int port() const {
    auto colon = url_.rfind(':');
    return colon == std::string::npos ? 0 : std::atoi(url_.c_str() + colon + 1);
  }
  const std::string& kubeconfig() const { return kubeconfig_; }
  const std::string& token() const { return token_; }
  /// File holding the Portworx SDK gateway URL (one line).
  const std::string& sdk_url_file() const { return sdk_url_file_; }
  /// The SDK gateway URL read from sdk_url_file(), "" if absent.
  std::string sdk_url() const {
    std::ifstream in(sdk_url_file_);
    std::string line;
    std::getline(in, line);
    return line;
  }
  /// The bearer token the SDK gateway requires (--sdk-token), "" if none.
  const std::string& sdk_token() const { return sdk_token_; }
  /// The SDK gateway's own CA (--sdk-ca-out: it serves HTTPS), "" if it serves HTTP.
  const std::string& sdk_ca_file() const { return sdk_ca_file_; }
  /// <dir>/sdk-token holding sdk_token(), as a mounted Secret would; "" without a token.
  std::string sdk_token_file() const { return sdk_token_.empty() ? std::string() : dir_ + "/sdk-token"; }
  /// PEM of the simulator's CA, decoded from the kubeconfig, written to <dir>/ca.crt;
  /// attached, the real API server's CA.
  std::string ca_file() const { return ca_file_.empty() ? dir_ + "/ca.crt" : ca_file_; }
  /// Attached to a real API server rather than serving one.
  bool attached() const { return !ca_file_.empty(); }
  /// Where a request for `path` goes: attached, /admin/... to attach's own admin
  /// endpoint (plain HTTP, --admin-endpoint-out), everything else to url().
  std::string url_for(const std::string& path) const {
    if (!attached() || path.rfind("/admin/", 0) != 0)
      return url_;
    std::ifstream in(dir_ + "/admin-url");
    std::string line;
    std::getline(in, line);
    return line;
  }
  /// Attached: the API server's audit log.
  const std::string& audit_log() const { return audit_log_; }
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

  /// Peak resident set size of the child in KiB (VmHWM), -1 when unavailable.
  long peak_rss_kib() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind("VmHWM:", 0) == 0)
        return std::atol(line.c_str() + 6);
    return -1;
  }

  /// SIGTERM and wait; returns the exit status (as from waitpid's WEXITSTATUS), or -1
  /// when the child did not exit normally. Idempotent.
  int stop() {
    if (pid_ <= 0)
      return exit_status_;
    kill(pid_, SIGTERM);
    int status = 0;
    // Give it 20s to stop cleanly, then SIGKILL.
    for (int i = 0; i < 200; ++i) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return exit_status_;
      }
      usleep(100 * 1000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
    pid_ = -1;
    exit_status_ = -1;
    return exit_status_;
  }

  static std::string binary() {
    if (const char* env = std::getenv("SCHEDOPT_SIM_BINARY"))
      return env;
    return std::string(SCHEDOPT_BINARY_DIR) + "/schedopt-sim";
  }

private:
  static std::string value_of(const std::vector<std::string>& args, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == flag)
        return args[i + 1];
    return {};
  }

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
    if (pid_ < 0) {
      error_ = "fork failed";
      return;
    }
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      close(out[0]);
      close(out[1]);
      // Unblock signals the test runner may have blocked, so SIGTERM reaches the child.
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    auto deadline = std::chrono::steady_clock::now() + ready_timeout;
    while (line.find('\n') == std::string::npos) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        error_ = "schedopt-sim did not print `ready` in time";
        break;
      }
      pollfd pfd{out[0], POLLIN, 0};
      if (poll(&pfd, 1, static_cast<int>(left)) <= 0)
        continue;
      char buf[256];
      auto n = read(out[0], buf, sizeof buf);
      if (n <= 0) {
        error_ = "schedopt-sim exited before it was ready";
        break;
      }
      line.append(buf, static_cast<std::size_t>(n));
    }
    close(out[0]);
    if (!error_.empty()) {
      stop();
      return;
    }
    line = line.substr(0, line.find('\n'));
    if (attached() && line == "ready")
      return;
    if (line.rfind("ready ", 0) != 0) {
      error_ = "unexpected first line from schedopt-sim: " + line;
      stop();
      return;
    }
    url_ = line.substr(6);
    write_ca_file();
  }

  void write_ca_file() {
    std::ifstream in(kubeconfig_);
    std::string line;
    const std::string key = "certificate-authority-data:";
    while (std::getline(in, line)) {
      auto pos = line.find(key);
      if (pos == std::string::npos)
        continue;
      auto value = line.substr(pos + key.size());
      std::string b64;
      for (char c : value)
        if (c != ' ' && c != '"')
          b64 += c;
      std::ofstream(ca_file()) << decode_base64(b64);
      return;
    }
  }

  static std::string decode_base64(const std::string& in) {
    std::string out;
    unsigned val = 0; // unsigned: the shift wraps instead of overflowing (UBSan)
    int bits = -8;
    for (unsigned char c : in) {
      const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
      const char* p = std::strchr(table, c);
      if (c == '=' || p == nullptr || c == '\0')
        break;
      val = (val << 6) + static_cast<int>(p - table);
      bits += 6;
      if (bits >= 0) {
        out.push_back(static_cast<char>((val >> bits) & 0xFF));
        bits -= 8;
      }
    }
    return out;
  }

  std::string token_;
  std::string dir_;
  std::string kubeconfig_;
  std::string sdk_url_file_;
  std::string sdk_token_;
  std::string sdk_ca_file_;
  std::string url_;
  std::string ca_file_; // attached: the real API server's
  std::string audit_log_;
  std::string error_;
  pid_t pid_ = -1;
  int exit_status_ = -1;
};

} // namespace schedopt::test
