// Small facts about model objects that need code rather than a field.
#include "model/objects.hpp"

namespace schedopt {

bool is_final_phase(const std::string& phase) {
  return phase == "Succeeded" || phase == "Failed";
}

} // namespace schedopt
