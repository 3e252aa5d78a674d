// Running a kubeconfig exec credential plugin and reading its ExecCredential; the
// behaviour follows client-go's plugin/pkg/client/auth/exec/exec.go (refreshCredsLocked,
// getCreds, maybeRefreshCreds, wrapCmdRunErrorLocked) and the wire types of
// pkg/apis/clientauthentication/v1/types.go.
#include "k8s/exec_credential.hpp"

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

extern char** environ;

namespace schedopt::k8s {

namespace {

const char* v1 = "client.authentication.k8s.io/v1";

std::string who(const exec_config& cfg) {
  return "exec plugin \"" + cfg.command + "\" (user \"" + cfg.user + "\")";
}

error plugin_error(const exec_config& cfg, const std::string& what) {
  return make_error(ec::config_error, who(cfg) + ": " + what);
}

// Newlines and other control bytes flattened: the error must stay one line.
std::string one_line(std::string_view s) {
  std::string out;
  for (char c : s)
    out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

std::string first_line(const std::string& s) {
  auto start = s.find_first_not_of(" \t\r\n");
  if (start == std::string::npos)
    return {};
  auto end = s.find('\n', start);
  return one_line(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
}

std::string base64_encode(const std::string& in) {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += alphabet[(buffer >> bits) & 0x3F];
    }
  }
  if (bits > 0)
    out += alphabet[(buffer << (6 - bits)) & 0x3F];
  while (out.size() % 4 != 0)
    out += '=';
  return out;
}

// RFC 3339 as metav1.Time writes it: 2026-01-02T03:04:05Z, fractions and offsets allowed.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& s) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed)
        != 6
      || consumed == 0)
    return std::nullopt;
  std::size_t i = static_cast<std::size_t>(consumed);
  if (i < s.size() && s[i] == '.')
    for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
    }
  long offset = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    int hh = 0, mm = 0;
    if (std::sscanf(s.c_str() + i + 1, "%2d:%2d", &hh, &mm) != 2)
      return std::nullopt;
    offset = (s[i] == '-' ? -1 : 1) * (hh * 3600L + mm * 60L);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size())
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  auto t = timegm(&tm);
  if (t == static_cast<std::time_t>(-1))
    return std::nullopt;
  t -= offset;
  // system_clock counts nanoseconds on glibc and overflows past 2262: later is "never".
  constexpr std::time_t latest = 9'000'000'000; // year 2255
  if (t > latest)
    return std::chrono::system_clock::time_point::max();
  return std::chrono::system_clock::from_time_t(t);
}

// The environment handed to the plugin: ours, the user's env over it, then
// KUBERNETES_EXEC_INFO (client-go appends both to os.Environ(); the last of a name wins).
std::vector<std::string> plugin_environment(const exec_config& cfg) {
  std::vector<std::pair<std::string, std::string>> extra = cfg.env;
  extra.emplace_back("KUBERNETES_EXEC_INFO", exec_info_json(cfg));
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string entry = *e;
    auto name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [n, v] : extra)
      overridden = overridden || n == name;
    if (!overridden)
      out.push_back(std::move(entry));
  }
  for (const auto& [n, v] : extra) {
    bool later = false;
    for (auto& entry : out)
      if (entry.compare(0, n.size() + 1, n + "=") == 0) {
        entry = n + "=" + v; // the same name twice in env: the last one
        later = true;
      }
    if (!later)
      out.push_back(n + "=" + v);
  }
  return out;
}

struct run_output {
  std::string out;
  std::string err;
  int status = 0;
};

struct fd_closer {
  int fd = -1;
  ~fd_closer() {
    if (fd >= 0)
      ::close(fd);
  }
};

expected<run_output> spawn_and_read(const exec_config& cfg, const exec_limits& limits) {
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return plugin_error(cfg, std::string{"pipe: "} + std::strerror(errno));
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return plugin_error(cfg, std::string{"pipe: "} + std::strerror(errno));
  }
  fd_closer out_read{out_pipe[0]}, err_read{err_pipe[0]};
  fd_closer out_write{out_pipe[1]}, err_write{err_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // No stdin: an interactive prompt must fail, not wait for a terminal that is not there.
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // The plugin gets default signal handling whatever this process ignores or blocks.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv_s{cfg.command};
  argv_s.insert(argv_s.end(), cfg.args.begin(), cfg.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  auto env_s = plugin_environment(cfg);
  std::vector<char*> envp;
  for (auto& e : env_s)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  // posix_spawnp searches our PATH when the command has no '/', as exec.LookPath does.
  int rc = ::posix_spawnp(&pid, cfg.command.c_str(), &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    if (rc == ENOENT || rc == EACCES || rc == ENOEXEC) {
      std::string msg = std::string{"executable not found or not runnable ("} + std::strerror(rc) + ")";
      if (!cfg.install_hint.empty())
        msg += "; install hint: " + one_line(cfg.install_hint);
      return plugin_error(cfg, msg);
    }
    return plugin_error(cfg, std::string{"cannot start: "} + std::strerror(rc));
  }
  ::close(out_write.fd);
  out_write.fd = -1;
  ::close(err_write.fd);
  err_write.fd = -1;

  run_output result;
  std::string failure;
  auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  bool out_open = true, err_open = true;
  char buf[8192];
  while ((out_open || err_open) && failure.empty()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      failure = "did not finish within " + std::to_string(limits.timeout.count()) + " ms";
      break;
    }
    pollfd fds[2] = {{out_open ? out_read.fd : -1, POLLIN, 0}, {err_open ? err_read.fd : -1, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      failure = std::string{"poll: "} + std::strerror(errno);
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      auto got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR)
        continue;
      auto& sink = i == 0 ? result.out : result.err;
      if (got <= 0) {
        (i == 0 ? out_open : err_open) = false;
        continue;
      }
      sink.append(buf, static_cast<std::size_t>(got));
      if (sink.size() > limits.max_output)
        failure = std::string{i == 0 ? "stdout" : "stderr"} + " exceeds "
                  + std::to_string(limits.max_output) + " bytes";
    }
  }
  // A plugin may close its output and linger: the deadline holds for its exit too.
  int status = 0;
  while (failure.empty()) {
    auto done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR))
      break;
    if (std::chrono::steady_clock::now() >= deadline)
      failure = "did not finish within " + std::to_string(limits.timeout.count()) + " ms";
    else
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  if (!failure.empty()) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return plugin_error(cfg, failure);
  }
  result.status = status;
  return result;
}

} // namespace

std::string exec_info_json(const exec_config& cfg) {
  nlohmann::json spec{{"interactive", false}};
  if (cfg.provide_cluster_info) {
    nlohmann::json cluster{{"server", cfg.server}};
    if (!cfg.ca_data.empty())
      cluster["certificate-authority-data"] = base64_encode(cfg.ca_data);
    if (cfg.insecure_skip_tls_verify)
      cluster["insecure-skip-tls-verify"] = true;
    spec["cluster"] = std::move(cluster);
  }
  nlohmann::json request{{"kind", "ExecCredential"},
                         {"apiVersion", cfg.api_version.empty() ? v1 : cfg.api_version},
                         {"spec", std::move(spec)}};
  return request.dump();
}

expected<exec_credential> parse_exec_credential(std::string_view out, const exec_config& cfg) {
  auto doc = nlohmann::json::parse(out.begin(), out.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return plugin_error(cfg, "stdout is not an ExecCredential JSON object (starts \""
                               + one_line(out.substr(0, 40)) + "\")");
  auto text = [](const nlohmann::json& o, const char* key) -> std::string {
    auto i = o.find(key);
    return i != o.end() && i->is_string() ? i->get<std::string>() : std::string{};
  };
  if (text(doc, "kind") != "ExecCredential")
    return plugin_error(cfg, "stdout kind is \"" + text(doc, "kind") + "\", not ExecCredential");
  auto want = cfg.api_version.empty() ? std::string{v1} : cfg.api_version;
  if (text(doc, "apiVersion") != want)
    return plugin_error(cfg, "is configured for " + want + " but returned apiVersion \""
                               + text(doc, "apiVersion") + "\"");
  auto status = doc.find("status");
  if (status == doc.end() || !status->is_object())
    return plugin_error(cfg, "returned no status");
  exec_credential cred;
  cred.token = text(*status, "token");
  cred.client_cert_data = text(*status, "clientCertificateData");
  cred.client_key_data = text(*status, "clientKeyData");
  if (cred.token.empty() && cred.client_cert_data.empty() && cred.client_key_data.empty())
    return plugin_error(cfg, "returned neither a token nor a client certificate and key");
  if (cred.client_cert_data.empty() != cred.client_key_data.empty())
    return plugin_error(cfg, "returned only one of clientCertificateData and clientKeyData");
  if (auto exp = text(*status, "expirationTimestamp"); !exp.empty()) {
    cred.expires = parse_rfc3339(exp);
    if (!cred.expires)
      return plugin_error(cfg, "expirationTimestamp \"" + one_line(exp) + "\" is not RFC 3339");
  }
  return cred;
}

expected<exec_credential> run_exec_plugin(const exec_config& cfg, const exec_limits& limits) {
  auto ran = spawn_and_read(cfg, limits);
  if (!ran)
    return ran.err();
  int status = ran->status;
  if (WIFSIGNALED(status))
    return plugin_error(cfg, "killed by signal " + std::to_string(WTERMSIG(status)));
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    auto msg = "failed with exit code " + std::to_string(WEXITSTATUS(status));
    if (auto line = first_line(ran->err); !line.empty())
      msg += ": " + line;
    return plugin_error(cfg, msg);
  }
  return parse_exec_credential(ran->out, cfg);
}

exec_credential_source::exec_credential_source(exec_config cfg, exec_limits limits)
  : cfg_(std::move(cfg)), limits_(limits) {}

expected<exec_credential> exec_credential_source::run_locked() {
  ++runs_;
  auto cred = run_exec_plugin(cfg_, limits_);
  if (!cred)
    return cred.err(); // the old credential stays cached: it may still be accepted
  cached_ = *cred;
  return cred;
}

expected<exec_credential> exec_credential_source::get() {
  std::lock_guard lock{mutex_};
  // client-go getCreds: the cached credential until its expirationTimestamp has passed.
  if (cached_ && (!cached_->expires || std::chrono::system_clock::now() < *cached_->expires))
    return *cached_;
  return run_locked();
}

expected<exec_credential> exec_credential_source::refresh_after_unauthorized(
  const std::string& token_used) {
  std::lock_guard lock{mutex_};
  if (cached_ && cached_->token != token_used)
    return *cached_; // rotated since that request went out
  return run_locked();
}

std::size_t exec_credential_source::runs() const {
  std::lock_guard lock{mutex_};
  return runs_;
}

} // namespace schedopt::k8s
