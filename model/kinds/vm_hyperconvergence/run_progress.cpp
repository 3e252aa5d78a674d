// The run's state machine; see run_progress.hpp.
#include "model/kinds/vm_hyperconvergence/run_progress.hpp"

namespace schedopt {

bool run_progress::vms_read() {
  if (vms_read_ || phase_ != phase::gathering)
    return false;
  vms_read_ = true;
  return true;
}

void run_progress::replicas_read() {
  replicas_read_ = true;
}

void run_progress::lead_read() {
  lead_read_ = true;
}

bool run_progress::begin_judging() {
  if (phase_ != phase::gathering || !vms_read_ || !(replicas_read_ || lead_read_))
    return false;
  phase_ = phase::judging;
  return true;
}

bool run_progress::request_engine() {
  if (!creates_vmims() || engine_ != engine::idle || phase_ == phase::done)
    return false;
  engine_ = engine::starting;
  return true;
}

bool run_progress::engine_answered(bool written) {
  if (engine_ != engine::starting)
    return false;
  engine_ = written && !stopped_ ? engine::running : engine::refused;
  return engine_ == engine::running;
}

void run_progress::candidate_done() {
  if (running_ > 0)
    --running_;
}

void run_progress::evaluation_finished() {
  if (phase_ == phase::judging)
    phase_ = phase::evaluated;
}

void run_progress::stop() {
  stopped_ = true;
}

bool run_progress::may_reply() const {
  if (phase_ == phase::done || engine_ == engine::starting || running_ > 0)
    return false;
  return phase_ == phase::evaluated || stopped_;
}

bool run_progress::reply() {
  if (phase_ == phase::done)
    return false;
  phase_ = phase::done;
  return true;
}

bool run_progress::deadline_matters(bool queued_empty) const {
  if (phase_ == phase::done || stopped_)
    return false;
  return !(phase_ == phase::evaluated && running_ == 0 && queued_empty);
}

const char* to_string(run_progress::phase p) {
  switch (p) {
    case run_progress::phase::gathering: return "gathering";
    case run_progress::phase::judging: return "judging";
    case run_progress::phase::evaluated: return "evaluated";
    case run_progress::phase::done: return "done";
  }
  return "unknown";
}

} // namespace schedopt
