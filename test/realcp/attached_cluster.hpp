// A whole cluster for the controller's tests on real Kubernetes: the control plane with
// kwok as kubelets, and `schedopt-sim attach` putting the simulated world (KubeVirt, the
// storage backend and its Portworx SDK gateway) into it. Its sim() is the endpoint the
// e2e helpers and the ground truth read: kube-apiserver's objects, the simulator's SDK.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "e2e/child_process.hpp"
#include "e2e/kube_calls.hpp"
#include "realcp/control_plane.hpp"
#include "realcp/nodes_ready.hpp"

namespace schedopt::realcp {

class attached_cluster {
public:
  /// Without `options.kwok`, the control plane is bare and attach starts kwok itself
  /// (--kwok with the folder test/controlplane/build.sh built).
  explicit attached_cluster(std::vector<std::string> sim_args,
                            control_plane_options options = {true, "40s", std::chrono::seconds(120)})
    : cp_(options) {
    BOOST_REQUIRE_MESSAGE(cp_.ok(), cp_.error());
    if (!options.kwok)
      sim_args.insert(sim_args.end(), {"--kwok", cp_.value("BIN") + "/.."});
    sim_ = std::make_unique<schedopt::test::sim_process>(
      schedopt::test::attach_target{cp_.value("ADMIN_KUBECONFIG"), cp_.url(), cp_.ca_file(), cp_.token(),
                                    cp_.value("AUDIT_LOG")},
      std::move(sim_args), std::chrono::seconds(600));
    BOOST_REQUIRE_MESSAGE(sim_->ok(), "schedopt-sim attach: " + sim_->error());
  }

  control_plane& plane() { return cp_; }
  const schedopt::test::sim_process& sim() const { return *sim_; }

  /// Waits until every node is Ready with no not-ready taint (kwok has taken them).
  bool nodes_ready(std::chrono::seconds timeout) const { return all_nodes_ready(*sim_, timeout); }

  /// `schedopt run` against this cluster with the Portworx SDK gateway, as `kubeconfig`
  /// (the admin's when empty), /metrics in plain HTTP unless `extra` says otherwise.
  std::unique_ptr<schedopt::e2e::child_process> start_controller(std::string kubeconfig = {},
                                                                 std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {"run", "--kubeconfig", kubeconfig.empty() ? sim_->kubeconfig() : kubeconfig,
                                     "--driver", "portworx", "--portworx-endpoint", sim_->sdk_url(),
                                     "--metrics-listen", "127.0.0.1:0", "--metrics-secure=false",
                                     "--health-listen", "127.0.0.1:0", "--status-flush-interval", "200ms"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<schedopt::e2e::child_process>(args);
  }

  /// A request enabling vmHyperconvergence, created as the admin.
  void create_request(const std::string& name) const {
    nlohmann::json request = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
                              {"kind", "SchedulingOptimization"},
                              {"metadata", {{"name", name}}},
                              {"spec", {{"vmHyperconvergence", {{"enabled", true}}}}}};
    schedopt::e2e::call(*sim_, "POST", schedopt::e2e::requests_path, request, 201);
  }

  /// The request once Final; fails the test with `controller`'s log otherwise. Reads that
  /// fail while the API server restarts are retried.
  nlohmann::json wait_final(const std::string& name, const schedopt::e2e::child_process& controller,
                            std::chrono::seconds timeout = std::chrono::seconds(120)) const {
    nlohmann::json r;
    bool final = schedopt::e2e::eventually(
      [&] {
        try {
          r = schedopt::e2e::get(*sim_, schedopt::e2e::requests_path + "/" + name);
        } catch (const std::exception&) {
          return false;
        }
        return r.value("/status/stage"_json_pointer, std::string()) == "Final";
      },
      timeout, std::chrono::milliseconds(250));
    BOOST_REQUIRE_MESSAGE(final, "not Final: " + r.dump() + "\n" + controller.log_tail());
    return r;
  }

  /// kube-apiserver's audit events at ResponseComplete, parsed.
  std::vector<nlohmann::json> audit() const {
    std::vector<nlohmann::json> out;
    for (auto& line : cp_.audit_lines()) {
      auto e = nlohmann::json::parse(line, nullptr, false);
      if (e.is_object() && e.value("stage", "") == "ResponseComplete")
        out.push_back(std::move(e));
    }
    return out;
  }

private:
  control_plane cp_;
  std::unique_ptr<schedopt::test::sim_process> sim_;
};

} // namespace schedopt::realcp
