// Starting an httplib server's listen loop on its own thread, safely stoppable.
//
// httplib's Server::stop() does nothing until listen_after_bind() is running: a server
// stopped right after its thread was started (a fast SIGTERM, a failing next start-up
// step) never leaves the loop, and joining its thread hangs. Seen twice: the controller's
// metrics server and the simulator's SDK gateway under load. Header-only, so the
// simulator and the tests use it without linking the k8s library.
#pragma once

#include <chrono>
#include <thread>

namespace schedopt {

/// Runs `server.listen_after_bind()` (the server is already bound) on a new thread and
/// returns once the loop runs, or after 5 s.
template <class Server>
std::thread start_listening(Server& server) {
  std::thread loop([&server] { server.listen_after_bind(); });
  for (int i = 0; i < 5000 && !server.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return loop;
}

} // namespace schedopt
