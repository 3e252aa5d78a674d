// One end-to-end scenario: a simulated cluster (schedopt-sim serve) and the controller
// (schedopt run) as separate processes, plus request helpers; prints the controller log
// to stderr when the test case failed, so failures can be diagnosed.
#pragma once

#include <ctime>

#include <exception>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>

#include "e2e/child_process.hpp"
#include "e2e/ground_truth.hpp"
#include "e2e/kube_calls.hpp"
#include "realcp/attached_cluster.hpp"

namespace schedopt::e2e {

/// Bound on every wait for a request to finish.
constexpr std::chrono::seconds final_timeout{90};

inline bool current_test_failed() {
  using namespace boost::unit_test;
  return !results_collector.results(framework::current_test_case().p_id).passed();
}

/// SCHEDOPT_E2E_CLUSTER=realcp runs a suite on the real control plane (test/realcp)
/// with the simulator attached, instead of on `schedopt-sim serve`.
inline bool on_real_control_plane() {
  const char* cluster = std::getenv("SCHEDOPT_E2E_CLUSTER");
  return cluster && std::string(cluster) == "realcp";
}

class scenario {
public:
  /// `sim_args` are schedopt-sim scenario flags; --driver is added from `driver`.
  scenario(std::string driver, std::vector<std::string> sim_args) : driver_(std::move(driver)) {
    if (on_real_control_plane()) {
      cluster_ = std::make_unique<realcp::attached_cluster>(with_driver(for_attach(sim_args), driver_));
      BOOST_REQUIRE_MESSAGE(cluster_->nodes_ready(std::chrono::seconds(60)), "kwok did not make the nodes Ready");
    } else {
      served_ = std::make_unique<sim_process>(with_driver(sim_args, driver_));
      BOOST_REQUIRE_MESSAGE(served_->ok(), "schedopt-sim: " + served_->error());
    }
  }

  ~scenario() {
    if (std::uncaught_exceptions() > 0 || current_test_failed())
      dump_logs();
  }

  const sim_process& sim() const { return cluster_ ? cluster_->sim() : *served_; }
  /// The real control plane under an attached simulator; null on `schedopt-sim serve`.
  realcp::attached_cluster* real_cluster() const { return cluster_.get(); }
  const std::string& driver() const { return driver_; }
  child_process& controller() { return *controllers_.back(); }
  /// The i-th controller started, oldest first.
  child_process& controller(std::size_t i) { return *controllers_.at(i); }

  /// `command` with the flags that point it at this cluster and driver, then `extra`.
  std::vector<std::string> client_args(const std::string& command,
                                       const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {command, "--kubeconfig", sim().kubeconfig(), "--driver", driver_};
    if (driver_ == "portworx") {
      args.push_back("--portworx-endpoint");
      args.push_back(sim().sdk_url());
      // A gateway with PX-Security and TLS: its CA and its token, from a file.
      if (!sim().sdk_ca_file().empty())
        args.insert(args.end(), {"--portworx-ca-file", sim().sdk_ca_file()});
      if (auto token = sim().sdk_token_file(); !token.empty())
        args.insert(args.end(), {"--portworx-token-file", token});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  /// The flags every controller in these tests gets, then `extra`.
  std::vector<std::string> controller_args(const std::vector<std::string>& extra = {}) const {
    // Plain /metrics for the tests' scrapes (test/deploy/metrics_access_test.cpp is
    // the one about the secure endpoint); ports of their own, as controllers run side by side.
    auto args = client_args("run", {"--metrics-listen", "127.0.0.1:0", "--metrics-secure=false",
                                    "--health-listen", "127.0.0.1:0",
                                    "--status-flush-interval", "200ms",
                                    "--log-level", "debug"});
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  child_process& start_controller(const std::vector<std::string>& extra = {}) {
    controllers_.push_back(std::make_unique<child_process>(controller_args(extra)));
    return controller();
  }

  std::vector<vmi_truth> truth() const { return ground_truth(sim(), driver_); }

  json create_request(const std::string& name, const json& spec) {
    json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
                 {"kind", "SchedulingOptimization"},
                 {"metadata", {{"name", name}}},
                 {"spec", spec}};
    return call(sim(), "POST", requests_path, body, 201);
  }

  static json enabled_spec(json extra = json::object()) {
    json vm = {{"enabled", true}};
    vm.update(extra);
    return {{"vmHyperconvergence", vm}};
  }

  json request(const std::string& name) const { return get(sim(), requests_path + "/" + name); }

  /// Waits until the request's stage is Final; fails the test (with the log) otherwise.
  json wait_final(const std::string& name, std::chrono::seconds timeout = final_timeout) {
    json last;
    bool done = eventually(
      [&] {
        last = request(name);
        return last.value("/status/stage"_json_pointer, std::string()) == "Final";
      },
      timeout, std::chrono::milliseconds(200));
    BOOST_REQUIRE_MESSAGE(done, "request " + name + " not Final after "
                                  + std::to_string(timeout.count()) + "s; last: " + last.dump());
    return last;
  }

  /// schedopt VMIMs (label app.kubernetes.io/managed-by=schedopt), all namespaces.
  json schedopt_vmims() const { return items(sim(), vmims_path + "?labelSelector=" + managed_by_selector); }

  void dump_logs() const {
    for (std::size_t i = 0; i < controllers_.size(); ++i)
      std::cerr << "---- schedopt #" << i << " log (tail) ----\n"
                << controllers_[i]->log_tail() << "---- end of log ----" << std::endl;
  }

private:
  /// What only the simulator's own server has: the pod start and recreate delays pace
  /// its kubelets and pod controllers (on the real control plane kwok and its controllers
  /// move pods) and --watch-history its compaction (there etcd's and the watch cache's);
  /// attach refuses them. A termination delay stays: attach makes it kwok's.
  static std::vector<std::string> for_attach(std::vector<std::string> args) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--pod-start-delay" || args[i] == "--pod-recreate-delay" || args[i] == "--watch-history")
        ++i;
      else
        out.push_back(args[i]);
    }
    return out;
  }

  static std::vector<std::string> with_driver(std::vector<std::string> args, const std::string& d) {
    args.push_back("--driver");
    args.push_back(d);
    return args;
  }

  std::string driver_;
  std::unique_ptr<realcp::attached_cluster> cluster_; // SCHEDOPT_E2E_CLUSTER=realcp
  std::unique_ptr<sim_process> served_;               // otherwise
  std::vector<std::unique_ptr<child_process>> controllers_;
};

/// A kind's status block of a request ("vmHyperconvergence", "podHyperconvergence"): every
/// kind's block has the same shape, so one set of readers serves all of them.
inline json kind_status(const json& request, const std::string& kind) {
  return request.value(json::json_pointer("/status/" + kind), json::object());
}

inline long long kind_counter(const json& request, const std::string& kind, const char* name) {
  return kind_status(request, kind).value(name, 0LL);
}

/// A kind's detail entries keyed "<ns>/<name>".
inline std::map<std::string, json> kind_details(const json& request, const std::string& kind) {
  std::map<std::string, json> out;
  for (auto& d : kind_status(request, kind).value("details", json::array()))
    out[d.value("namespace", "") + "/" + d.value("name", "")] = d;
  return out;
}

inline json vm_status(const json& request) { return kind_status(request, "vmHyperconvergence"); }

inline long long counter(const json& request, const char* name) {
  return kind_counter(request, "vmHyperconvergence", name);
}

inline std::map<std::string, json> details_by_vm(const json& request) {
  return kind_details(request, "vmHyperconvergence");
}

inline std::string status_of_request(const json& r) { return r.value("/status/status"_json_pointer, std::string()); }
inline std::string reason_of_request(const json& r) { return r.value("/status/reason"_json_pointer, std::string()); }

inline bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

/// Seconds since the epoch of an RFC 3339 UTC timestamp (fraction ignored); 0 when unreadable.
inline std::time_t epoch_of(const std::string& rfc3339) {
  std::tm tm{};
  if (!strptime(rfc3339.c_str(), "%Y-%m-%dT%H:%M:%S", &tm))
    return 0;
  return timegm(&tm);
}

/// A skip's reason without the bounded explanation schedopt appends after " | "
/// (model/explanation.hpp explained_skips): the evaluation's own reason.
inline std::string reason_core(const std::string& reason) { return reason.substr(0, reason.find(" | ")); }

/// The value of one series (`name` or `name{label="value",...}` exactly as exposed) on
/// the controller's /metrics; -1 when the series is absent or /metrics cannot be read.
inline double metric(const child_process& controller, const std::string& series) {
  auto port = controller.metrics_port();
  if (port <= 0)
    return -1;
  auto reply = plain_get("http://127.0.0.1:" + std::to_string(port) + "/metrics");
  if (reply.status != 200)
    return -1;
  std::istringstream lines(reply.body);
  std::string line;
  while (std::getline(lines, line))
    if (starts_with(line, series + " "))
      return std::stod(line.substr(series.size() + 1));
  return -1;
}

} // namespace schedopt::e2e
