// One simulator shared by the wire tests (starting one per case would dominate their
// run time); each case uses its own object names.
#pragma once

#include <atomic>
#include <string>

#include "sim_process.hpp"

namespace schedopt::test {

inline sim_process& shared_sim() {
  static sim_process sim({"--nodes", "3", "--vmis", "12", "--seed", "7"});
  return sim;
}

/// A name unique within this test process.
inline std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "-" + std::to_string(++counter);
}

inline const std::string schedopt_path = "/apis/stork.libopenstorage.org/v1alpha1/schedulingoptimizations";

inline std::string schedopt_body(const std::string& name) {
  return R"({"apiVersion":"stork.libopenstorage.org/v1alpha1","kind":"SchedulingOptimization",)"
         R"("metadata":{"name":")" + name + R"("},"spec":{"vmHyperconvergence":{"enabled":true,)"
         R"("coolOffPeriod":"1h","maxParallelMigrations":2}}})";
}

inline std::string configmap_body(const std::string& name, const std::string& labels = "{}") {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name
         + R"(","labels":)" + labels + R"(},"data":{"k":"v"}})";
}

} // namespace schedopt::test
