// See stack_owner_actor.hpp.
#include "actors/stack_owner_actor.hpp"

#include <algorithm>

#include <caf/exit_reason.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/system_config.hpp"

namespace schedopt {

namespace {

struct stack_owner_state {
  static inline const char* name = "stack_owner";
  std::vector<owned_actor> owned; // in stop order; an actor that ended is dropped
};

using owner_pointer = stack_owner_actor::stateful_pointer<stack_owner_state>;

void stop_in_order(owner_pointer self, const caf::error& reason) {
  for (auto& a : self->state.owned)
    self->send_exit(a.handle, reason);
  self->state.owned.clear();
  self->quit(reason);
}

stack_owner_actor::behavior_type stack_owner(owner_pointer self,
                                             std::vector<owned_actor> in_stop_order) {
  self->state.owned = std::move(in_stop_order);
  for (auto& a : self->state.owned)
    self->link_to(a.handle);
  self->set_exit_handler([=](const caf::exit_msg& msg) {
    auto& owned = self->state.owned;
    auto i = std::find_if(owned.begin(), owned.end(),
                          [&](const owned_actor& a) { return a.handle.address() == msg.source; });
    if (i == owned.end()) // told to go (or the system is shutting down): take the stack along
      return stop_in_order(self, msg.reason);
    // One actor of the stack ended by itself: the rest keep working without it (a run
    // that needs it fails and says so), as before the stack had an owner.
    if (msg.reason && msg.reason != caf::exit_reason::normal)
      spdlog::warn("controller stack: {} stopped: {}", i->name, error_message(msg.reason));
    owned.erase(i);
  });
  return {
    [=](atom::stop) { stop_in_order(self, caf::exit_reason::user_shutdown); },
  };
}

} // namespace

stack_owner_actor spawn_stack_owner(caf::actor_system& sys,
                                    std::vector<owned_actor> in_stop_order) {
  return sys.spawn(stack_owner, std::move(in_stop_order));
}

} // namespace schedopt
