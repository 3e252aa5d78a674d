// How long a simulated controller takes to act on something it noticed: its watch
// latency and work-queue wait, modelled as a fixed delay from the first tick that saw
// the need to the tick that acts. Keys that are not seen again are forgotten.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace schedopt::sim {

class reaction_delay {
public:
  using time_point = std::chrono::system_clock::time_point;

  explicit reaction_delay(std::chrono::milliseconds delay = std::chrono::milliseconds{0}) : delay_(delay) {}

  void set_delay(std::chrono::milliseconds delay) { delay_ = delay; }

  /// Marks `key` as needing action at `now`; true once it has needed it for the delay.
  bool due(const std::string& key, time_point now) {
    seen_.insert(key);
    auto [it, fresh] = since_.emplace(key, now);
    return now - it->second >= delay_;
  }

  /// `key` was acted on (or needs nothing any more).
  void done(const std::string& key) { since_.erase(key); }

  /// Ends a tick: keys not marked by due() in it are forgotten.
  void sweep() {
    for (auto it = since_.begin(); it != since_.end();)
      it = seen_.count(it->first) ? std::next(it) : since_.erase(it);
    seen_.clear();
  }

private:
  std::chrono::milliseconds delay_;
  std::unordered_map<std::string, time_point> since_;
  std::unordered_set<std::string> seen_;
};

} // namespace schedopt::sim
