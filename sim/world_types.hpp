// The resource types the simulated world writes, registered on a store that lacks them
// (the API server normally registers them from deploy/ first).
#pragma once

namespace schedopt::sim {

class object_store;

void register_world_types(object_store& store);

} // namespace schedopt::sim
