// inspect() for the Longhorn model structs (model/longhorn.hpp), so the longhorn
// driver's informer can carry them in CAF messages.
#pragma once

#include <caf/meta/type_name.hpp>

#include "actors/model_inspect.hpp"
#include "model/longhorn.hpp"

namespace schedopt {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, longhorn_replica& x) {
  return f(caf::meta::type_name("longhorn_replica"), x.metadata, x.volume_name, x.node_id,
           x.current_state);
}

} // namespace schedopt
