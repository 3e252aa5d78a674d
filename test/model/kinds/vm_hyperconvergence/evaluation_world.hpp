// Test fixture for the evaluation and the explanation built on it: a three-node
// cluster where VMI "ns/<name>" uses volume "pv-<name>" with replicas given per test.
#pragma once

#include <boost/test/unit_test.hpp>

#include "model/kinds/vm_hyperconvergence/evaluation.hpp"

namespace schedopt::test {

using namespace std::chrono_literals;

inline virtual_machine_instance vmi(const std::string& ns, const std::string& name,
                                    const std::string& node, std::vector<std::string> claims,
                                    const std::string& phase = "Running") {
  virtual_machine_instance v;
  v.metadata.namespace_ = ns;
  v.metadata.name = name;
  v.node_name = node;
  v.phase = phase;
  for (auto& c : claims)
    v.volumes.push_back({c + "-vol", short_name(c), volume_source::claim});
  return v;
}

inline persistent_volume_claim pvc(const std::string& ns, const std::string& name,
                                   const std::string& pv) {
  persistent_volume_claim c;
  c.metadata.namespace_ = ns;
  c.metadata.name = name;
  c.volume_name = pv;
  return c;
}

inline persistent_volume pv(const std::string& name,
                             const std::string& driver = "pxd.portworx.com") {
  persistent_volume p;
  p.metadata.name = name;
  p.csi_driver = driver;
  return p;
}

inline node make_node(const std::string& name, bool ready = true, bool unschedulable = false) {
  node n;
  n.metadata.name = name;
  n.metadata.labels["kubevirt.io/schedulable"] = "true"; // virt-handler is up there
  n.ready = ready;
  n.unschedulable = unschedulable;
  return n;
}

inline bool owned_by_px(const persistent_volume& p) {
  return p.csi_driver == "pxd.portworx.com";
}

inline timestamp at(const char* text) {
  return *parse_rfc3339(text);
}

// A cluster of three nodes; VMI "ns/<name>" uses volume "pv-<name>" whose replicas are
// given per test.
struct world {
  std::vector<virtual_machine_instance> vmis;
  std::map<std::string, persistent_volume_claim> pvcs;
  std::map<std::string, persistent_volume> pvs;
  evaluation_input in;

  world() {
    in.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
    in.now = at("2026-11-30T12:00:00Z");
  }

  virtual_machine_instance& add(const std::string& name, const std::string& node,
                                std::set<std::string> replicas, const std::string& ns = "ns") {
    vmis.push_back(vmi(ns, name, node, {"claim-" + name}));
    pvcs[ns + "/claim-" + name] = pvc(ns, "claim-" + name, "pv-" + name);
    pvs["pv-" + name] = pv("pv-" + name);
    in.replicas.nodes["pv-" + name] = replica_nodes(replicas.begin(), replicas.end());
    return vmis.back();
  }

  evaluation_result run() {
    in.vmis = share_all(vmis);
    in.volumes = driver_volumes_of(in.vmis, index_of(pvcs), index_of(pvs), owned_by_px);
    in.mapper = nullptr;
    return evaluate(in);
  }

  /// As the controller evaluates: each VMI mapped to its volumes as it is judged, and
  /// (by_position) the driver's answer taken by position in a query of every owned PV,
  /// a PV without replicas given answered as the Portworx driver answers a missing one:
  /// with no nodes and an error (which the next run() keeps, to the same effect).
  evaluation_result run_mapping_as_judged(bool by_position = false) {
    in.vmis = share_all(vmis);
    in.volumes.clear();
    auto all_pvs = index_of(pvs);
    auto named = in.replicas.nodes;
    if (by_position) {
      shared_list<persistent_volume> asked;
      for (std::size_t i = 0; i < all_pvs.size(); ++i)
        if (owned_by_px(*all_pvs.at(i)))
          asked.push_back(all_pvs.at(i));
      in.replicas.index_positions(asked);
      in.replicas.by_position.clear();
      for (const auto& pv : asked) {
        const auto& name = pv->metadata.name;
        auto found = named.find(name);
        in.replicas.by_position.push_back(found != named.end() ? found->second : replica_nodes{});
        if (found == named.end())
          in.replicas.errors[name] = "storage driver returned no replica nodes for volume \"" + name + "\"";
      }
      in.replicas.nodes.clear();
    }
    in.mapper = std::make_shared<volume_mapper>(index_of(pvcs), std::move(all_pvs), owned_by_px);
    auto result = evaluate(in);
    in.replicas.nodes = std::move(named);
    in.replicas.clear_positions();
    in.replicas.by_position.clear();
    return result;
  }

  const vmi_evaluation& find(const evaluation_result& r, const std::string& name) {
    for (const auto& e : r.vmis)
      if (e.name == name)
        return e;
    BOOST_FAIL("no evaluation for " << name);
    return r.vmis.front();
  }
};


} // namespace schedopt::test
