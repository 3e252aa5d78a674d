// A thread that calls one function every interval until stopped: how each simulated
// controller (migration loop, evacuation, drain, churn) runs beside the API server, while
// tests call the same function directly to step simulated time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace schedopt::sim {

class tick_thread {
public:
  using tick_function = std::function<void(std::chrono::system_clock::time_point)>;

  tick_thread() = default;
  tick_thread(const tick_thread&) = delete;
  tick_thread& operator=(const tick_thread&) = delete;
  ~tick_thread() { stop(); }

  /// Calls `tick` now and then every `interval`; nothing when already running.
  void start(std::chrono::milliseconds interval, tick_function tick) {
    if (thread_.joinable())
      return;
    {
      std::lock_guard<std::mutex> guard{mutex_};
      stopping_ = false;
    }
    thread_ = std::thread{[this, interval, tick = std::move(tick)] {
      for (;;) {
        tick(std::chrono::system_clock::now());
        std::unique_lock<std::mutex> lock{mutex_};
        if (cv_.wait_for(lock, interval, [this] { return stopping_; }))
          return;
      }
    }};
  }

  /// Returns once the current tick (if any) has finished; nothing when not running.
  void stop() {
    if (!thread_.joinable())
      return;
    {
      std::lock_guard<std::mutex> guard{mutex_};
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

private:
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

} // namespace schedopt::sim
