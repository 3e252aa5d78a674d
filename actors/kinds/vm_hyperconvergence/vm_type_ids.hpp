// The vmHyperconvergence kind's CAF type-ID block: its messages and atoms, in type-ID
// slot 0 after the core block (actors/type_ids.hpp kind_type_id_base). Registered by the
// kind's registry entry (add_vm_hyperconvergence_types).
#pragma once

#include <caf/type_id.hpp>

#include "actors/kinds/vm_hyperconvergence/vm_messages.hpp"
#include "actors/type_ids.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(schedopt_vm_hyperconvergence, ::schedopt::kind_type_id_base(0))

  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::admission_request))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::migration_finished))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::migration_result))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::candidate_done))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::admission_grant))
  CAF_ADD_ATOM(schedopt_vm_hyperconvergence, schedopt::atom, unpinned, "unpinned")

CAF_END_TYPE_ID_BLOCK(schedopt_vm_hyperconvergence)

static_assert(caf::id_block::schedopt_vm_hyperconvergence::end
                <= ::schedopt::kind_type_id_base(1), "the kind's type IDs outgrew its slot");
