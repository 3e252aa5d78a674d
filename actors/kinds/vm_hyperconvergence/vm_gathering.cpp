// What a vmHyperconvergence run reads before it judges: the informers' snapshots (side by
// side), then at once the VirtualMachines' cool-off records with the opted-out
// namespaces, and the storage driver's replica nodes. The later of the two starts the
// judging (vm_judging).
#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include <caf/typed_event_based_actor.hpp>

#include "actors/kinds/vm_hyperconvergence/vm_run_state.hpp"
#include "actors/kinds/vm_hyperconvergence/vm_services.hpp"
#include "k8s/metrics.hpp"
#include "model/decode.hpp"
#include "model/placement/cool_off.hpp"
#include "model/placement/node_admission.hpp"

namespace schedopt::vm_run {

namespace {

void vms_step_done(run_pointer self) {
  auto& st = self->state;
  st.times.vms_ms = phase_times::since(st.times.started) - st.times.snapshots_ms;
  if (st.progress.vms_read())
    complete_preparation(self);
  if (st.progress.begin_judging())
    begin_judging(self);
}

void driver_step_done(run_pointer self) {
  auto& st = self->state;
  bool judging = st.progress.current() == run_progress::phase::judging;
  st.progress.replicas_read();
  if (judging) // on the lead's answer so far
    return judge_the_rest(self);
  if (st.progress.begin_judging())
    begin_judging(self);
}

/// VMIs whose volumes the lead query asks for, and the fleet size from which it is
/// asked: below it the whole answer comes about as soon.
constexpr std::size_t lead_vmis = 256;
constexpr std::size_t lead_from_vmis = 4 * lead_vmis;

/// A migrating run's first considered VMIs in (namespace, name) order, the order
/// candidates are capped in (docs/design.md §2.7), are judged on a lead answer for their
/// volumes alone: a bulk answer naming every volume of a large fleet takes most of a
/// second, the lead a few dozen milliseconds, so their migrations start while the rest
/// of the answer is still on its way.
bool wants_lead(const run_state& st) {
  return st.ctx.driver.answers_a_lead_sooner && st.progress.creates_vmims() && !st.ctx.explain
         && st.in.vmis.size() >= lead_from_vmis;
}

void ask_lead(run_pointer self, volume_mapper& mapper) {
  auto& st = self->state;
  replica_query q;
  q.lead = true;
  q.by_position = true;
  for (auto& vmi : st.in.vmis) {
    if (!is_considered(*vmi))
      continue;
    for (auto& pv : mapper.map(*vmi).pvs)
      q.volumes.push_back(pv);
    st.lead.covered.emplace_back(vmi->metadata.namespace_, vmi->metadata.name);
    if (st.lead.covered.size() == lead_vmis)
      break;
  }
  std::sort(st.lead.covered.begin(), st.lead.covered.end());
  if (q.volumes.empty())
    return;
  q.nodes = st.in.nodes;
  st.lead.replicas.index_positions(q.volumes); // shared with the query, not copied
  st.lead.asked = phase_times::clock::now();
  ask_driver(
    self, std::move(q),
    [=](replica_answer& answer) {
      auto& st = self->state;
      if (st.progress.replicas_complete()) // the whole answer came first
        return;
      st.lead.replicas.by_position = std::move(answer.by_position);
      for (auto& [pv, why] : answer.errors)
        st.lead.replicas.errors[pv] = why;
      st.times.lead_ms = phase_times::since(st.lead.asked);
      st.progress.lead_read();
      if (st.progress.begin_judging())
        begin_judging(self);
    },
    [=](std::string why) { // the whole answer still decides
      log_kv(spdlog::level::warn, "the storage driver's lead answer failed; judging waits for "
                                  "the whole answer",
             {{"request", self->state.request.metadata.name}, {"error", why}});
    });
}

/// The driver's whole answer failed. Before judging began the run fails; after (on its
/// lead answer) the candidates started finish and no more are started, and the run still
/// fails.
void whole_answer_failed(run_pointer self, std::string why) {
  auto& st = self->state;
  if (st.progress.current() == run_progress::phase::gathering)
    return fail_run(self, run_failure_kind::driver, std::move(why));
  log_kv(spdlog::level::err, st.kind_field + " run failed; its started migrations finish",
         {{"request", st.request.metadata.name}, {"error", why}});
  st.result.run_failure = run_failure{run_failure_kind::driver, std::move(why)};
  stop_creating(self);
}

/// The query for every PV the driver owns.
replica_query whole_query(const run_state& st) {
  auto owns = st.ctx.driver.owns;
  const auto& cfg = st.ctx.config;
  replica_query q;
  q.volumes.reserve(st.in.pvs.size()); // grown by doubling, it held two copies at its peak
  for (auto& v : st.in.pvs)
    if (owns(*v, cfg))
      q.volumes.push_back(v);
  q.nodes = st.in.nodes;
  // By position, so the answer copies no PV names and the judging hashes none: building
  // and hashing an entry per PV held the first candidate back at scale. An explanation
  // looks its volumes up by name.
  q.by_position = !st.ctx.explain;
  return q;
}

void ask_whole(run_pointer self, replica_query q) {
  auto& st = self->state;
  if (q.by_position)
    st.in.replicas.index_positions(q.volumes); // shared with the query, not copied
  auto asked = phase_times::clock::now();
  ask_driver(
    self, std::move(q),
    [=](replica_answer& answer) {
      auto& in = self->state.in;
      // Taken over whole: this handler runs the evaluation, so a copy would be held beside
      // the answer through it.
      in.replicas.nodes = std::move(answer.replicas);
      in.replicas.by_position = std::move(answer.by_position);
      if (in.replicas.by_position.empty()) // a driver that answers by name only
        in.replicas.clear_positions();
      for (auto& [pv, why] : answer.errors)
        in.replicas.errors[pv] = why;
      self->state.times.driver_ms = phase_times::since(asked);
      driver_step_done(self);
    },
    [=](std::string why) { whole_answer_failed(self, std::move(why)); });
}

/// The VMIs are mapped to their volumes as they are judged, by a mapper that searches
/// the snapshots as they come (sorted by store key), not indexed or copied; an
/// explanation maps and keeps every VMI's volumes first. Decoding the driver's bulk
/// answer while it downloads takes a core: mapping every VMI beside the download
/// competed for the same CPU and held back both.
void map_volumes(run_pointer self) {
  auto& st = self->state;
  auto owns = st.ctx.driver.owns;
  const auto& cfg = st.ctx.config;
  if (st.ctx.explain)
    st.in.explained_pvcs = values_of(st.in.pvcs);
  sorted_objects<persistent_volume_claim> pvcs{std::move(st.in.pvcs)};
  sorted_objects<persistent_volume> pvs{std::move(st.in.pvs)};
  st.in.pvcs = {};
  st.in.pvs = {};
  // The state outlives the mapper it holds, so the predicate may refer to its settings.
  pv_owned_predicate owned = [owns, &cfg](const persistent_volume& pv) { return owns(pv, cfg); };
  if (st.ctx.explain) // an explanation shows every VMI's volumes: all mapped and kept
    st.in.volumes = driver_volumes_of(st.in.vmis, pvcs, pvs, owned);
  else
    st.in.mapper = std::make_shared<volume_mapper>(std::move(pvcs), std::move(pvs), std::move(owned));
}

// The driver is asked first, about every PV it owns (its bulk lookup answers for every
// volume anyway); a lead, when asked, goes before it: beside a bulk answer being
// decoded both cores are busy, and its inspects took several times as long.
void ask_driver_and_map(run_pointer self) {
  auto& st = self->state;
  auto whole = whole_query(st); // shares the PV snapshot's objects, which the mapper takes
  if (!wants_lead(st)) {
    ask_whole(self, std::move(whole));
    return map_volumes(self);
  }
  map_volumes(self);
  ask_lead(self, *st.in.mapper);
  ask_whole(self, std::move(whole));
}

/// The VirtualMachines or the opted-out namespaces are read (asked side by side): the
/// later of the two completes the step.
void vms_done(run_pointer self) {
  if (--self->state.vm_reads_pending == 0)
    vms_step_done(self);
}

void read_opted_out_namespaces(run_pointer self) {
  read_opted_out(self, [=](std::set<std::string> names) {
    self->state.in.opted_out_namespaces = std::move(names);
    vms_done(self);
  });
}

/// Keeps a VirtualMachine's cool-off record, if it has one (from the informer or a list).
void keep_vm_record(run_state& st, const virtual_machine& vm) {
  if (vm.opted_out)
    st.in.opted_out_vms.insert(vmi_key(vm.metadata.namespace_, vm.metadata.name));
  auto record = cool_off_record_of(vm.metadata.annotations, st.ctx.config.vm_cool_off_annotation);
  if (!record.empty())
    st.in.vm_annotations[vmi_key(vm.metadata.namespace_, vm.metadata.name)] = std::move(record);
}

// Without a synced VM informer, VirtualMachines are listed once per run, page by page
// (each page decoded as it arrives), keeping only the cool-off annotation: whole pages
// and every annotation would cost far more memory than one string per VM.
void list_vm_annotations(run_pointer self, std::string continue_token = {}) {
  k8s::list_request req;
  req.res = k8s::resources::vms;
  req.continue_token = std::move(continue_token);
  req.all_pages = false;
  bool mid_list = !req.continue_token.empty();
  self->request(self->state.ctx.api, caf::infinite, req)
    .then(
      [=](const k8s::list_response& resp) {
        std::string next;
        for (auto& page : resp.pages) {
          auto list = decode_list<virtual_machine>(page);
          if (!list)
            return fail_run(self, run_failure_kind::api,
                            "cannot read VirtualMachines: " + list.err().message);
          for (auto& bad : list->skipped) {
            // Its cool-off record is unknown; the VMIMs still count for it (docs/design.md §4.1).
            log_kv(spdlog::level::warn, "virtualmachine does not decode; skipped",
                   {{"request", self->state.request.metadata.name}, {"namespace", bad.namespace_},
                    {"vm", bad.name}, {"error", bad.why.message}});
            k8s::default_metrics().counter_add("schedopt_decode_errors_total",
                                               {{"resource", "virtualmachines"}});
          }
          for (auto& vm : list->items)
            keep_vm_record(self->state, vm);
          next = list->continue_token;
        }
        if (!next.empty())
          return list_vm_annotations(self, next);
        vms_done(self);
      },
      [=](caf::error& err) {
        // Half a list would hide cool-off records: that run fails.
        if (mid_list)
          return fail_run(self, run_failure_kind::api,
                          "cannot list VirtualMachines: " + error_message(err));
        // Without VirtualMachines (no such API) the VMI annotations and VMIMs still count.
        log_kv(spdlog::level::warn, "cannot list VirtualMachines",
               {{"request", self->state.request.metadata.name}, {"error", error_message(err)}});
        vms_done(self);
      });
}

// Cool-off records of VirtualMachines come from the VM informer once it has listed
// (its store has this controller's own record writes too, fed from their answers): a
// paged list per run, paced by the rate limit, was most of the way to the first VMIM.
void read_vm_annotations(run_pointer self) {
  auto vms = vm_informer_of(self->state.ctx);
  if (!vms)
    return list_vm_annotations(self);
  self->request(vms, caf::infinite, atom::synced_v)
    .then(
      [=](bool synced) {
        if (!synced)
          return list_vm_annotations(self);
        self->request(vms, caf::infinite, atom::snapshot_v)
          .then(
            [=](const shared_list<virtual_machine>& all) {
              for (auto& vm : all)
                keep_vm_record(self->state, *vm);
              vms_done(self);
            },
            [=](caf::error&) { list_vm_annotations(self); });
      },
      [=](caf::error&) { list_vm_annotations(self); });
}

} // namespace

void gather(run_pointer self) {
  const auto& ctx = self->state.ctx;
  auto in = [=]() -> run_inputs& { return self->state.in; };
  read_snapshots(self)
    .add(ctx.vmis, [=](auto vmis) { in().vmis = std::move(vmis); })
    .add(ctx.vmims, [=](auto vmims) { in().vmims = values_of(vmims); })
    .add(ctx.pvcs, [=](auto pvcs) { in().pvcs = std::move(pvcs); })
    .add(ctx.pvs, [=](auto pvs) { in().pvs = std::move(pvs); })
    .add(ctx.nodes, [=](auto nodes) { in().nodes = values_of(nodes); })
    .then([=] {
      auto& st = self->state;
      mark_evacuating_nodes(st.in.nodes, st.in.vmis); // never a target (docs/design.md §3.3)
      st.times.snapshots_ms = phase_times::since(st.times.started);
      st.vm_reads_pending = 2;
      read_vm_annotations(self);
      read_opted_out_namespaces(self);
      ask_driver_and_map(self);
      prepare_evaluation(self);
    });
}

} // namespace schedopt::vm_run
