// What every kind's evaluation counts and records of a scored placement: the same
// counters, the same verdict fields, so the kinds' statuses and logs read alike.
#pragma once

#include <cstdint>
#include <utility>

#include "model/placement/scoring.hpp"

namespace schedopt {

struct placement_counts {
  int64_t considered = 0;
  int64_t no_driver_volumes = 0;
  int64_t hyperconverged = 0;
  int64_t semi = 0;
  int64_t non = 0;
  int64_t errors = 0; // EvaluationError skips
  int64_t eligible = 0;
  int64_t skipped = 0; // includes errors
  int64_t outstanding = 0;
};

/// Copies `placed` into the evaluation entry `ev` (verdict, best nodes, best and
/// current score) and counts its verdict.
template <class Evaluation>
void record_placement(placement_verdict placed, Evaluation& ev, placement_counts& counts) {
  ev.verdict = to_string(placed.verdict);
  ev.best_nodes = std::move(placed.best_nodes);
  ev.best_score = placed.best_score;
  ev.current_score = placed.current_score;
  switch (placed.verdict) {
    case placement::hyperconverged: ++counts.hyperconverged; break;
    case placement::semi: ++counts.semi; break;
    case placement::non: ++counts.non; break;
  }
}

} // namespace schedopt
