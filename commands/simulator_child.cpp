// See simulator_child.hpp.
#include "commands/simulator_child.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace schedopt {

expected<std::unique_ptr<simulator_child>>
simulator_child::start(const std::string& binary, const std::vector<std::string>& extra) {
  std::unique_ptr<simulator_child> child{new simulator_child};
  char tmpl[] = "/tmp/schedopt-demo-XXXXXX";
  if (!mkdtemp(tmpl))
    return make_error(ec::config_error, "cannot create a temporary directory");
  child->dir_ = tmpl;
  child->kubeconfig_ = child->dir_ + "/kubeconfig";
  std::vector<std::string> args{binary, "serve", "--listen", "127.0.0.1:0", "--kubeconfig-out",
                                child->kubeconfig_, "--sdk-endpoint-out",
                                child->dir_ + "/sdk-url"};
  args.insert(args.end(), extra.begin(), extra.end());
  int out[2];
  if (pipe(out) != 0)
    return make_error(ec::config_error, "pipe failed");
  child->pid_ = fork();
  if (child->pid_ < 0)
    return make_error(ec::config_error, "fork failed");
  if (child->pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    // The simulator must not inherit the demo's blocked SIGTERM/SIGINT.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    std::vector<char*> argv;
    for (auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char c;
  pollfd pfd{out[0], POLLIN, 0};
  while (poll(&pfd, 1, 120000) > 0 && read(out[0], &c, 1) == 1) {
    if (c == '\n')
      break;
    line += c;
  }
  close(out[0]);
  if (line.rfind("ready ", 0) != 0)
    return make_error(ec::config_error, binary + " did not become ready (is it built?)");
  child->url_ = line.substr(6);
  return child;
}

std::string simulator_child::sdk_url() const {
  std::ifstream in{dir_ + "/sdk-url"};
  std::string line;
  std::getline(in, line);
  return line;
}

simulator_child::~simulator_child() {
  if (pid_ > 0) {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  if (!dir_.empty()) {
    std::remove((dir_ + "/kubeconfig").c_str());
    std::remove((dir_ + "/sdk-url").c_str());
    rmdir(dir_.c_str());
  }
}

} // namespace schedopt
