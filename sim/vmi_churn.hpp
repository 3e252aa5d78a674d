// VMI status churn as virt-handler writes it from the guest agent and libvirt (guest OS
// info, balloon memory, interface addresses, the AgentConnected probe time): writes
// schedopt does not read, at a set rate over random Running VMIs, so a load test sees
// the watch traffic a real cluster sends.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

namespace schedopt::sim {

class object_store;

struct vmi_churn_options {
  double per_second = 0; // 0: none
  std::chrono::milliseconds tick_interval{100}; // writes are batched per tick
  uint64_t seed = 1;
};

class vmi_churn {
public:
  /// Follows which VMIs run from now on; construct it before the scenario is stored so
  /// that no object has to be replayed.
  vmi_churn(object_store& store, vmi_churn_options options);
  ~vmi_churn();

  /// Runs tick() every tick_interval on a thread of its own (nothing when per_second is 0).
  void start();
  void stop();

  /// Writes the updates due since the previous tick (the first tick only starts the
  /// clock); returns how many were written.
  std::size_t tick(std::chrono::system_clock::time_point now);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
