// The podHyperconvergence kind's CAF type-ID block: its watched types with their
// informers' notifications, in type-ID slot 1 after the core block (actors/type_ids.hpp
// kind_type_id_base). Registered by the kind's registry entry
// (add_pod_hyperconvergence_types), so the core's block names none of the kind's types.
#pragma once

#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/type_id.hpp>

#include "actors/kinds/pod_hyperconvergence/pod_inspect.hpp"
#include "actors/type_ids.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(schedopt_pod_hyperconvergence, ::schedopt::kind_type_id_base(1))

  SCHEDOPT_ADD_INFORMER_TYPES_TO(schedopt_pod_hyperconvergence,
                                 schedopt::pod_hyperconvergence::pod)
  SCHEDOPT_ADD_INFORMER_TYPES_TO(schedopt_pod_hyperconvergence,
                                 schedopt::pod_hyperconvergence::stateful_set)
  SCHEDOPT_ADD_INFORMER_TYPES_TO(schedopt_pod_hyperconvergence,
                                 schedopt::pod_hyperconvergence::replica_set)
  SCHEDOPT_ADD_INFORMER_TYPES_TO(schedopt_pod_hyperconvergence,
                                 schedopt::pod_hyperconvergence::pod_disruption_budget)

CAF_END_TYPE_ID_BLOCK(schedopt_pod_hyperconvergence)

static_assert(caf::id_block::schedopt_pod_hyperconvergence::end
                <= ::schedopt::kind_type_id_base(2), "the kind's type IDs outgrew its slot");

// Snapshots share the store's objects and never leave the process (as the core's, in
// actors/type_ids.hpp).
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(schedopt::shared_list<schedopt::pod_hyperconvergence::pod>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(schedopt::shared_list<schedopt::pod_hyperconvergence::stateful_set>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(schedopt::shared_list<schedopt::pod_hyperconvergence::replica_set>)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(
  schedopt::shared_list<schedopt::pod_hyperconvergence::pod_disruption_budget>)
