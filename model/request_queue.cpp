// One request at a time, oldest first; an interrupted run is resumed before anything
// newer is promoted.
#include "model/request_queue.hpp"

#include <algorithm>

#include "model/timestamp.hpp"

namespace schedopt {

namespace {

// Kubernetes writes creationTimestamp as second-precision UTC, so parsed order and
// string order agree; parse anyway so offsets from hand-made objects sort right.
bool older(const scheduling_optimization* a, const scheduling_optimization* b) {
  auto ta = parse_rfc3339(a->metadata.creation_timestamp);
  auto tb = parse_rfc3339(b->metadata.creation_timestamp);
  if (ta && tb && *ta != *tb)
    return *ta < *tb;
  if (static_cast<bool>(ta) != static_cast<bool>(tb))
    return static_cast<bool>(ta); // a timestamp sorts before none
  return a->metadata.name < b->metadata.name;
}

} // namespace

queue_decision decide_queue(const std::vector<scheduling_optimization>& requests) {
  std::vector<const scheduling_optimization*> borrowed;
  borrowed.reserve(requests.size());
  for (const auto& r : requests)
    borrowed.push_back(&r);
  return decide_queue_borrowed(borrowed);
}

queue_decision decide_queue_borrowed(const std::vector<const scheduling_optimization*>& requests,
                                     std::size_t max_pending) {
  std::vector<const scheduling_optimization*> open;
  for (const auto* r : requests)
    if (r->status.stage != request_stage::final_ && !r->metadata.deletion_timestamp)
      open.push_back(r);
  std::sort(open.begin(), open.end(), older);
  queue_decision out;
  out.open = open.size();
  const scheduling_optimization* chosen = nullptr;
  for (auto* r : open)
    if (is_running(r->status.stage)) {
      chosen = r;
      out.resume = true;
      break;
    }
  if (!chosen && !open.empty())
    chosen = open.front();
  if (chosen)
    out.run = chosen->metadata.uid;
  std::size_t waiting = 0;
  for (auto* r : open) {
    if (r == chosen)
      continue;
    bool fits = waiting < max_pending;
    if (fits)
      ++waiting;
    if (r->status.stage != request_stage::none)
      continue; // already Pending (or interrupted): it keeps its place
    (fits ? out.to_pending : out.to_reject).push_back(r->metadata.uid);
  }
  out.open -= out.to_reject.size();
  return out;
}

} // namespace schedopt
