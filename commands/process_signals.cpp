// See process_signals.hpp.
#include "commands/process_signals.hpp"

#include <csignal>
#include <ctime>

namespace schedopt {

namespace {

sigset_t termination_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

} // namespace

void block_termination_signals() {
  auto set = termination_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void wait_for_termination_signal() {
  auto set = termination_set();
  int sig = 0;
  sigwait(&set, &sig);
}

bool wait_for_termination_signal(std::chrono::milliseconds timeout) {
  auto set = termination_set();
  timespec ts{static_cast<time_t>(timeout.count() / 1000),
              static_cast<long>((timeout.count() % 1000) * 1000000)};
  return sigtimedwait(&set, nullptr, &ts) > 0;
}

bool termination_requested() {
  return wait_for_termination_signal(std::chrono::milliseconds(0));
}

} // namespace schedopt
