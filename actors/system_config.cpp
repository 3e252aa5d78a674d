// Type and error-category registration for schedopt's actor system.
#include "actors/system_config.hpp"

#include <caf/make_message.hpp>
#include <caf/message.hpp>

#include "actors/optimization_kinds.hpp"
#include "actors/type_ids.hpp"

namespace schedopt {

void register_schedopt_types(caf::actor_system_config& cfg) {
  cfg.add_message_types<caf::id_block::schedopt>();
  for (const auto& kind : optimization_kinds()) // each kind's block comes with its kind
    if (kind.add_message_types)
      kind.add_message_types(cfg);
  // add_error_category<T> does not compile in this CAF; use the renderer overload.
  cfg.add_error_category(error_category,
                         [](uint8_t code, caf::atom_value, const caf::message& ctx) {
                           std::string result = "schedopt::";
                           result += to_string(static_cast<ec>(code));
                           if (ctx.size() >= 1 && ctx.match_element<std::string>(0)) {
                             result += ": ";
                             result += ctx.get_as<std::string>(0);
                           }
                           return result;
                         });
}

caf::error to_caf_error(const schedopt::error& err) {
  return caf::error{static_cast<uint8_t>(err.code), error_category,
                    caf::make_message(err.message, static_cast<int32_t>(err.http_status))};
}

caf::error to_caf_error(ec code, std::string message) {
  return to_caf_error(schedopt::error{code, std::move(message), 0});
}

ec error_code(const caf::error& err) {
  if (!err || err.category() != error_category)
    return ec::none;
  return static_cast<ec>(err.code());
}

std::string error_message(const caf::error& err) {
  if (!err)
    return {};
  if (err.category() == error_category) {
    const auto& ctx = err.context();
    if (ctx.size() >= 1 && ctx.match_element<std::string>(0))
      return ctx.get_as<std::string>(0);
    return to_string(static_cast<ec>(err.code()));
  }
  return caf::to_string(err);
}

int error_http_status(const caf::error& err) {
  if (!err || err.category() != error_category)
    return 0;
  const auto& ctx = err.context();
  if (ctx.size() >= 2 && ctx.match_element<int32_t>(1))
    return ctx.get_as<int32_t>(1);
  return 0;
}

schedopt::error from_caf_error(const caf::error& err) {
  if (!err)
    return {};
  if (err.category() == error_category)
    return schedopt::error{static_cast<ec>(err.code()), error_message(err), error_http_status(err)};
  return schedopt::error{ec::cancelled, caf::to_string(err), 0};
}

} // namespace schedopt
