// SIGTERM/SIGINT handling for the long-running commands: blocked in every thread and
// awaited by the main thread, so no handler runs inside an actor.
#pragma once

#include <chrono>

namespace schedopt {

/// Call before any thread starts.
void block_termination_signals();
/// Blocks until SIGTERM or SIGINT arrives.
void wait_for_termination_signal();
/// Waits up to `timeout`; true when a termination signal arrived.
bool wait_for_termination_signal(std::chrono::milliseconds timeout);
/// Non-blocking check.
bool termination_requested();

} // namespace schedopt
