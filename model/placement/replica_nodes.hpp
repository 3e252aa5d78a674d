// Where a volume's replicas are, as every storage driver answers it (docs/design.md §6),
// whatever kind reads the answer.
#pragma once

#include <string>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "model/shared_string.hpp"

namespace schedopt {

/// The Kubernetes nodes holding a replica of one volume, sorted, each once (the storage
/// driver's answer is kept in this form: a vector, not a set, since one per PV is held
/// through an evaluation).
using replica_nodes = std::vector<shared_string>;

/// PV name -> its replica nodes, as a driver answers and an evaluation reads it. A sorted
/// vector (answers come in PV-name order): 20,000 entries at 10,000 VMIs, each a map
/// node of 48 bytes more as a std::map.
using replicas_by_pv = boost::container::flat_map<std::string, replica_nodes>;

} // namespace schedopt
