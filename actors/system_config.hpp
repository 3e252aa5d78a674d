// Prepares a caf::actor_system_config for schedopt (message types, error category) and
// converts schedopt::error <-> caf::error.
#pragma once

#include <string>

#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>

#include "model/error.hpp"

namespace schedopt {

/// The caf::error category of schedopt::ec codes.
constexpr caf::atom_value error_category = caf::atom("schedopt");

/// Registers the schedopt type-ID block and the "schedopt" error category.
void register_schedopt_types(caf::actor_system_config& cfg);

/// code -> category "schedopt", context (message, http_status).
caf::error to_caf_error(const schedopt::error& err);
caf::error to_caf_error(ec code, std::string message);

/// The schedopt::ec of a caf::error (ec::none for other categories or no error).
ec error_code(const caf::error& err);

/// The message carried by a schedopt caf::error (the Kubernetes Status message for API
/// errors), or CAF's rendering for other errors.
std::string error_message(const caf::error& err);

/// The HTTP status carried by a schedopt caf::error, 0 when none.
int error_http_status(const caf::error& err);

/// The reverse of to_caf_error (other categories become ec::cancelled / their text).
schedopt::error from_caf_error(const caf::error& err);

} // namespace schedopt
