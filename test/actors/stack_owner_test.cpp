// The controller stack's owner: stops what it owns in the order given, takes it along
// when it goes down itself, and outlives an owned actor that ends by itself.
#include <boost/test/unit_test.hpp>

#include <caf/behavior.hpp>

#include "actor_fixture.hpp"
#include "actors/stack_owner_actor.hpp"

using namespace schedopt;
using namespace schedopt::test;

namespace {

struct stack_owner_fixture : actor_fixture {
  /// Names of the owned actors, in the order they ended.
  std::shared_ptr<std::vector<std::string>> ended = std::make_shared<std::vector<std::string>>();
  std::vector<owned_actor> owned;
  stack_owner_actor aut;

  stack_owner_fixture() {
    for (std::string name : {"informer", "status writer", "API client"}) {
      // Lives until told to exit, or fails on an int (as a crash would end it).
      auto a = sys.spawn([](caf::event_based_actor* self) -> caf::behavior {
        return {[self](int) { self->quit(caf::sec::runtime_error); }};
      });
      a->attach_functor([ended = ended, name](const caf::error&) { ended->push_back(name); });
      owned.push_back({name, track(a)});
    }
    aut = track(spawn_stack_owner(sys, owned));
    sched.run();
  }

  bool alive(const caf::actor& a) {
    auto& names = *ended;
    for (auto& o : owned)
      if (o.handle == a)
        return std::find(names.begin(), names.end(), o.name) == names.end();
    return false;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(stack_owner, stack_owner_fixture)

BOOST_AUTO_TEST_CASE(stop_ends_every_owned_actor_in_order_then_the_owner) {
  bool owner_ended = false;
  aut->attach_functor([&](const caf::error&) { owner_ended = true; });
  caf::anon_send(aut, atom::stop_v);
  sched.run();
  BOOST_CHECK((*ended == std::vector<std::string>{"informer", "status writer", "API client"}));
  BOOST_CHECK(owner_ended);
}

BOOST_AUTO_TEST_CASE(an_owner_sent_an_exit_takes_the_stack_along) {
  caf::anon_send_exit(aut, caf::exit_reason::user_shutdown);
  sched.run();
  BOOST_CHECK((*ended == std::vector<std::string>{"informer", "status writer", "API client"}));
}

BOOST_AUTO_TEST_CASE(an_owned_actor_that_ends_leaves_the_others_running) {
  caf::anon_send(owned[1].handle, 1);
  sched.run();
  BOOST_CHECK((*ended == std::vector<std::string>{"status writer"}));
  BOOST_CHECK(alive(owned[0].handle));
  BOOST_CHECK(alive(owned[2].handle));
  // The owner still stops the rest, and only the rest.
  caf::anon_send(aut, atom::stop_v);
  sched.run();
  BOOST_CHECK((*ended == std::vector<std::string>{"status writer", "informer", "API client"}));
}

BOOST_AUTO_TEST_SUITE_END()
