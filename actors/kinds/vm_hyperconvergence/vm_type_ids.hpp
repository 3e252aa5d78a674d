// The vmHyperconvergence kind's CAF type-ID block: its messages and atoms, numbered after
// the core block (actors/type_ids.hpp). A later kind numbers its own after this one's
// `end`. Registered by the kind's registry entry (add_vm_hyperconvergence_types).
#pragma once

#include <caf/type_id.hpp>

#include "actors/kinds/vm_hyperconvergence/vm_messages.hpp"
#include "actors/type_ids.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(schedopt_vm_hyperconvergence, caf::id_block::schedopt::end)

  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::admission_request))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::migration_finished))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::migration_result))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::candidate_done))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::kubevirt_migration_limits))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::kubevirt_policy))
  CAF_ADD_TYPE_ID(schedopt_vm_hyperconvergence, (schedopt::admission_grant))
  CAF_ADD_ATOM(schedopt_vm_hyperconvergence, schedopt::atom, unpinned, "unpinned")

CAF_END_TYPE_ID_BLOCK(schedopt_vm_hyperconvergence)
