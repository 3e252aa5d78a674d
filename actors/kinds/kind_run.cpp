// The parts of every kind's run that need no actor; see kind_run.hpp.
#include "actors/kinds/kind_run.hpp"

namespace schedopt {

void take_run(kind_run_state& st, kind_run& run, timestamp now) {
  st.request = std::move(run.request);
  st.resume = run.resume;
  if (const auto* block = block_of(st.request.status, st.kind_field); block && st.resume) {
    st.result.successful = block->successful;
    st.result.failed = block->failed;
    st.result.skipped = block->skipped;
  }
  st.run_deadline = now + std::chrono::duration_cast<timestamp::duration>(run_time_left(
                            st.request.status.start_timestamp, now, st.ctx.config.max_run_duration));
}

} // namespace schedopt
