// The vmHyperconvergence run's state machine (model/kinds/vm_hyperconvergence/run_progress):
// which step may follow which, whatever order the inputs, the Migrating write, the
// candidates and a stop arrive in (docs/design.md §2–§3, §3.9).
#include <boost/test/unit_test.hpp>

#include "model/kinds/vm_hyperconvergence/run_progress.hpp"

using namespace schedopt;
using phase = run_progress::phase;
using engine = run_progress::engine;

BOOST_AUTO_TEST_SUITE(run_progress_suite)

BOOST_AUTO_TEST_CASE(judging_waits_for_both_inputs_in_either_order) {
  run_progress a{run_mode::migrate};
  a.replicas_read();
  BOOST_CHECK(!a.begin_judging()); // the VirtualMachines are not read yet
  BOOST_CHECK(a.vms_read());       // prepare now
  BOOST_CHECK(!a.vms_read());      // once
  BOOST_CHECK(a.begin_judging());
  BOOST_CHECK(a.current() == phase::judging);
  BOOST_CHECK(!a.begin_judging()); // once
  run_progress b{run_mode::migrate};
  BOOST_CHECK(b.vms_read());
  BOOST_CHECK(!b.begin_judging()); // the driver has not answered
  b.replicas_read();
  BOOST_CHECK(b.begin_judging());
}

BOOST_AUTO_TEST_CASE(the_drivers_lead_answer_starts_judging_before_the_whole_answer) {
  run_progress p{run_mode::migrate};
  BOOST_CHECK(p.vms_read());
  p.lead_read();
  BOOST_CHECK(!p.replicas_complete()); // only the lead's VMIs may be judged
  BOOST_CHECK(p.begin_judging());
  BOOST_CHECK(p.current() == phase::judging);
  p.replicas_read();
  BOOST_CHECK(p.replicas_complete());
  BOOST_CHECK(!p.begin_judging()); // the whole answer does not start it again
  run_progress q{run_mode::migrate};
  q.lead_read();
  BOOST_CHECK(!q.begin_judging()); // the VirtualMachines are not read yet
  q.replicas_read();               // the whole answer came first: the lead adds nothing
  BOOST_CHECK(q.vms_read());
  BOOST_CHECK(q.begin_judging());
  BOOST_CHECK(q.replicas_complete());
}

BOOST_AUTO_TEST_CASE(a_migrating_run_replies_once_its_candidates_are_done) {
  run_progress p{run_mode::migrate};
  p.vms_read();
  p.replicas_read();
  p.begin_judging();
  BOOST_CHECK(p.request_engine());
  BOOST_CHECK(!p.request_engine()); // asked once
  BOOST_CHECK(!p.spawns_at_once()); // candidates queue behind the write
  p.evaluation_finished();
  BOOST_CHECK(p.current() == phase::evaluated);
  BOOST_CHECK(!p.may_reply()); // the Migrating write is still on the wire
  BOOST_CHECK(p.engine_answered(true));
  BOOST_CHECK(p.spawns_at_once());
  p.candidates_spawned(2);
  BOOST_CHECK(!p.may_reply());
  p.candidate_done();
  BOOST_CHECK(!p.may_reply());
  p.candidate_done();
  BOOST_CHECK(p.may_reply());
  BOOST_CHECK(p.reply());
  BOOST_CHECK(p.current() == phase::done);
  BOOST_CHECK(!p.reply()); // only the first answer counts
  BOOST_CHECK(!p.may_reply());
}

BOOST_AUTO_TEST_CASE(runs_that_create_nothing_never_start_the_engine) {
  for (auto mode : {run_mode::dry_run, run_mode::plan, run_mode::explain}) {
    run_progress p{mode};
    BOOST_CHECK(!p.creates_vmims());
    p.vms_read();
    p.replicas_read();
    BOOST_CHECK(p.begin_judging());
    BOOST_CHECK(!p.request_engine());
    BOOST_CHECK(p.engine_state() == engine::idle);
    p.evaluation_finished();
    BOOST_CHECK(p.may_reply()); // nothing to wait for
  }
}

BOOST_AUTO_TEST_CASE(a_stop_while_gathering_replies_at_once) {
  run_progress p{run_mode::migrate};
  p.vms_read();
  p.stop();
  BOOST_CHECK(p.may_reply());
  BOOST_CHECK(p.reply());
  // An input arriving after the answer starts nothing.
  p.replicas_read();
  BOOST_CHECK(!p.begin_judging());
  BOOST_CHECK(!p.request_engine());
}

BOOST_AUTO_TEST_CASE(a_stop_mid_run_waits_for_the_running_candidates_only) {
  run_progress p{run_mode::migrate};
  p.vms_read();
  p.replicas_read();
  p.begin_judging();
  p.request_engine();
  p.engine_answered(true);
  p.candidates_spawned(1);
  p.stop(); // judging ends at the next batch; nothing more is created
  BOOST_CHECK(!p.may_reply());
  BOOST_CHECK(!p.deadline_matters(true));
  p.candidate_done();
  BOOST_CHECK(p.may_reply()); // though not every VMI was judged
}

BOOST_AUTO_TEST_CASE(a_stop_before_the_migrating_write_answers_spawns_nothing) {
  run_progress p{run_mode::migrate};
  p.vms_read();
  p.replicas_read();
  p.begin_judging();
  p.request_engine();
  p.stop();
  BOOST_CHECK(!p.may_reply()); // the write is still pending: its order matters
  BOOST_CHECK(!p.engine_answered(true));
  BOOST_CHECK(p.engine_state() == engine::refused);
  BOOST_CHECK(!p.spawns_at_once());
  BOOST_CHECK(p.may_reply());
}

BOOST_AUTO_TEST_CASE(an_unwritten_migrating_stage_refuses_the_engine) {
  run_progress p{run_mode::migrate};
  p.vms_read();
  p.replicas_read();
  p.begin_judging();
  p.request_engine();
  BOOST_CHECK(!p.engine_answered(false));
  BOOST_CHECK(p.engine_state() == engine::refused);
  BOOST_CHECK(!p.engine_answered(true)); // one answer only
}

BOOST_AUTO_TEST_CASE(the_deadline_matters_while_anything_is_left_to_start) {
  run_progress p{run_mode::migrate};
  BOOST_CHECK(p.deadline_matters(true)); // gathering
  p.vms_read();
  p.replicas_read();
  p.begin_judging();
  BOOST_CHECK(p.deadline_matters(true)); // judging
  p.request_engine();
  p.evaluation_finished();
  BOOST_CHECK(p.deadline_matters(false)); // candidates queue behind the write
  BOOST_CHECK(!p.deadline_matters(true)); // evaluated, nothing queued or running
  p.engine_answered(true);
  p.candidates_spawned(1);
  BOOST_CHECK(p.deadline_matters(true)); // one still running
  p.candidate_done();
  p.reply();
  BOOST_CHECK(!p.deadline_matters(false));
}

BOOST_AUTO_TEST_SUITE_END()
