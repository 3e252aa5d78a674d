// `schedopt status`: the SchedulingOptimization requests as `kubectl get` lists them,
// plus the progress of each one not yet Final. One list of the requests, and for each
// running one a list of the VMIMs it created; no informer stack is started.
#include <algorithm>
#include <cstdio>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/api_client_actor.hpp"
#include "actors/logging.hpp"
#include "actors/system_config.hpp"
#include "commands/commands.hpp"
#include "commands/scheduler_config.hpp"
#include "k8s/cluster_config.hpp"
#include "model/decode.hpp"
#include "model/ownership_labels.hpp"
#include "model/status_report.hpp"

namespace schedopt {

namespace {

/// Every page of one list, decoded; the error is one line naming the resource.
template <class T>
expected<std::vector<T>> list_all(caf::scoped_actor& self, const api_client_actor& api,
                                  k8s::list_request req) {
  std::vector<T> items;
  std::optional<error> failure;
  auto plural = req.res.plural;
  self->request(api, std::chrono::seconds(60), std::move(req))
    .receive(
      [&](const k8s::list_response& r) {
        for (const auto& page : r.pages) {
          auto list = decode_list<T>(page);
          if (!list) {
            failure = list.err();
            return;
          }
          for (const auto& bad : list->skipped)
            spdlog::warn("{} {}: cannot decode: {}", plural, bad.name, bad.why.message);
          std::move(list->items.begin(), list->items.end(), std::back_inserter(items));
        }
      },
      [&](caf::error& err) { failure = from_caf_error(err); });
  if (failure)
    return make_error(failure->code, "cannot list " + plural + ": " + failure->message);
  return items;
}

bool is_running(const scheduling_optimization& so) {
  return so.status.stage != request_stage::final_;
}

} // namespace

int status_command(const settings& cfg, const status_options& options) {
  configure_logging(cfg.log_format, cfg.log_level == "info" ? "warn" : cfg.log_level);
  auto cluster = k8s::load_cluster_config(cfg.kubeconfig, cfg.context);
  if (!cluster) {
    std::fprintf(stderr, "schedopt status: %s\n", cluster.err().message.c_str());
    return 2;
  }
  caf::actor_system_config system_config;
  register_schedopt_types(system_config);
  use_work_sharing_scheduler(system_config, cfg.workers);
  caf::actor_system sys{system_config};
  api_client_options api_options;
  api_options.qps = cfg.api_qps;
  api_options.burst = static_cast<int>(cfg.api_burst);
  auto api = spawn_api_client(sys, *cluster, api_options);
  if (!api) {
    std::fprintf(stderr, "schedopt status: %s\n", error_message(api.error()).c_str());
    return 2;
  }
  int rc = 0;
  {
    caf::scoped_actor self{sys};
    k8s::list_request all_requests;
    all_requests.res = k8s::resources::scheduling_optimizations;
    auto requests = list_all<scheduling_optimization>(self, *api, all_requests);
    if (!requests) {
      std::fprintf(stderr, "schedopt status: %s\n", requests.err().message.c_str());
      rc = 1;
    } else {
      std::sort(requests->begin(), requests->end(),
                [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
      std::vector<status_entry> entries;
      for (auto& so : *requests) {
        status_entry e{std::move(so), std::nullopt};
        if (is_running(e.request)) {
          k8s::list_request mine;
          mine.res = k8s::resources::vmims;
          mine.label_selector = request_migrations_selector(e.request.metadata.uid);
          auto vmims = list_all<virtual_machine_instance_migration>(self, *api, mine);
          if (vmims) {
            e.progress = progress_of(e.request, *vmims);
          } else {
            // The counters still say most of it; the VMs moving now are unknown.
            spdlog::warn("{}", vmims.err().message);
            e.progress = progress_of(e.request, {});
            e.progress->migrations_listed = false;
          }
        }
        entries.push_back(std::move(e));
      }
      auto text = options.output == "json"
                    ? render_status_json(entries)
                    : render_status_table(entries, std::chrono::system_clock::now());
      std::fputs(text.c_str(), stdout);
    }
  }
  caf::anon_send_exit(*api, caf::exit_reason::user_shutdown);
  return rc;
}

} // namespace schedopt
