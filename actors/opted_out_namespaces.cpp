// See opted_out_namespaces.hpp.
#include "actors/opted_out_namespaces.hpp"

#include "actors/system_config.hpp"
#include "model/decode.hpp"

namespace schedopt {

k8s::list_request opted_out_namespaces_request() {
  k8s::list_request req;
  req.res = k8s::resources::namespaces;
  req.label_selector = std::string{opt_out_label} + "=true";
  return req;
}

opted_out_answer read_opted_out_answer(const k8s::list_response& resp) {
  opted_out_answer out;
  for (const auto& page : resp.pages) {
    auto list = decode_list<kube_namespace>(page);
    if (!list)
      return {{}, "cannot read Namespaces: " + list.err().message};
    if (!list->skipped.empty())
      return {{}, "cannot read Namespace " + list->skipped.front().name + ": "
                    + list->skipped.front().why.message};
    for (const auto& ns : list->items)
      if (ns.opted_out) // the selector already says so; a server ignoring it must not widen the skip
        out.names.insert(ns.metadata.name);
  }
  return out;
}

std::string opted_out_list_failure(const caf::error& err) {
  return "cannot list Namespaces labelled " + std::string{opt_out_label} + "=true: "
         + error_message(err);
}

} // namespace schedopt
