// The pod kind's informers: their options, and the informer instantiated for the kind's
// watched types (the core instantiates its own in actors/informer_actor.cpp; the kind's
// decoders are instantiated by model/kinds/pod_hyperconvergence/pod_decode.cpp).
#include "actors/kinds/pod_hyperconvergence/pod_informers.hpp"

#include <string>

#include "actors/informer_actor_impl.hpp"
#include "actors/kinds/pod_hyperconvergence/pod_resource_traits.hpp"
#include "model/kinds/pod_hyperconvergence/eviction_ledger.hpp"
#include "model/kinds/pod_hyperconvergence/pod_cool_off.hpp"
#include "model/kinds/pod_hyperconvergence/pod_evaluation.hpp"
#include "model/kinds/pod_hyperconvergence/pod_spec.hpp"
// keep_decision_fields for the kind's types, found by the informer through
// argument-dependent lookup: without it the stores would keep whole objects.
#include "model/kinds/pod_hyperconvergence/pod_store_fields.hpp"

SCHEDOPT_INSTANTIATE_INFORMER(schedopt::pod_hyperconvergence::pod)
SCHEDOPT_INSTANTIATE_INFORMER(schedopt::pod_hyperconvergence::stateful_set)
SCHEDOPT_INSTANTIATE_INFORMER(schedopt::pod_hyperconvergence::replica_set)
SCHEDOPT_INSTANTIATE_INFORMER(schedopt::pod_hyperconvergence::pod_disruption_budget)

namespace schedopt {

namespace {

template <class T>
informer_actor<T> start_informer(caf::actor_system& sys, const api_client_actor& api,
                                 const informer_options& options, kind_services& out) {
  auto handle = spawn_informer<T>(sys, api, options);
  out.actors.push_back(owned_informer(handle));
  return handle;
}

} // namespace

kind_services start_pod_informers(caf::actor_system& sys, const api_client_actor& api,
                                  const settings&) {
  // Listed only once a run of the kind asks for them: at 100,000 VMIs the pods alone
  // would cost more than every other store together. None of them gates the stack's
  // readiness (wait_until_synced walks the core's informers only): a run that finds
  // them unlisted waits for them itself and fails naming them. The pods exclude
  // KubeVirt's virt-launcher pods (the kind never evicts them, and counts what they
  // take on a node from the VMIs); the owners keep only the cool-off record.
  informer_options pods;
  pods.on_demand = true;
  pods.label_selector = pod_hyperconvergence::pod_informer_label_selector;
  informer_options owners = pods;
  owners.label_selector.clear();
  owners.kept.cool_off_annotations = pod_hyperconvergence::eviction_record_keys(
    pod_hyperconvergence::default_pod_cool_off_annotation);
  informer_options budgets = pods;
  budgets.label_selector.clear();
  kind_services out;
  pod_informers handles;
  handles.pods = start_informer<pod_hyperconvergence::pod>(sys, api, pods, out);
  handles.stateful_sets = start_informer<pod_hyperconvergence::stateful_set>(sys, api, owners, out);
  handles.replica_sets = start_informer<pod_hyperconvergence::replica_set>(sys, api, owners, out);
  handles.pod_disruption_budgets =
    start_informer<pod_hyperconvergence::pod_disruption_budget>(sys, api, budgets, out);
  out.handles = handles;
  return out;
}

expected<pod_informers> pod_informers_of(const controller_context& ctx) {
  const auto* any = find_kind_handles(ctx, pod_hyperconvergence::kind_field);
  if (const auto* handles = any ? std::any_cast<pod_informers>(any) : nullptr)
    return *handles;
  return make_error(ec::not_found,
                    std::string{"podHyperconvergence's informers are not started: the "
                                "controller context holds none under the kind's name"});
}

} // namespace schedopt
