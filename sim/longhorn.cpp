// Longhorn's CRs in the simulated cluster; see longhorn.hpp.
#include "sim/longhorn.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "sim/json_fields.hpp"
#include "sim/object_store.hpp"
#include "sim/scenario_objects.hpp"
#include "sim/storage_backend.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

uint32_t fnv1a(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

/// Creates `object`, then writes its status through /status (create drops it).
expected<json> create_with_status(object_store& store, const std::string& key, json object) {
  auto status = object.value("status", json::object());
  object.erase("status");
  auto made = store.create(key, std::move(object));
  if (!made)
    return made;
  return store.modify(
    key, (*made)["metadata"].value("namespace", ""), (*made)["metadata"].value("name", ""),
    [&](json& obj) {
      obj["status"] = status;
      return true;
    },
    true);
}

expected<json> set_replica_state(object_store& store, const std::string& name,
                                 const std::string& state) {
  return store.modify(
    longhorn_replica_key, longhorn_namespace, name,
    [&](json& obj) {
      obj["status"]["currentState"] = state;
      obj["status"]["started"] = state == "running";
      return true;
    },
    true);
}

std::string fail(const char* what, const std::string& name, const error& e) {
  return std::string{"longhorn: "} + what + " " + name + ": " + e.message;
}

} // namespace

void register_longhorn_types(object_store& store) {
  auto add = [&](resource_type t) {
    if (!store.find_type(t.key()))
      store.register_type(t);
  };
  add({"longhorn.io", "v1beta2", "Replica", "replicas", "replica", "ReplicaList", true, true,
       {"lhr"}, {"longhorn"}});
  add({"longhorn.io", "v1beta2", "Volume", "volumes", "volume", "VolumeList", true, true,
       {"lhv"}, {"longhorn"}});
}

std::string longhorn_replica_name(const std::string& volume, const std::string& node,
                                  int generation) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", fnv1a(volume + "/" + node + "/" + std::to_string(generation)));
  return volume + "-r-" + buf;
}

json longhorn_replica_object(const std::string& name, const std::string& volume,
                             const std::string& node, const std::string& state) {
  return {{"apiVersion", "longhorn.io/v1beta2"},
          {"kind", "Replica"},
          {"metadata",
           {{"name", name},
            {"namespace", longhorn_namespace},
            {"labels", {{"longhornnode", node}, {"longhornvolume", volume}}}}},
          {"spec",
           {{"volumeName", volume},
            {"nodeID", node},
            {"diskID", "disk-" + node},
            {"diskPath", "/var/lib/longhorn/"},
            {"dataDirectoryName", name.substr(name.size() - 8)},
            {"engineName", volume + "-e-0"},
            {"dataEngine", "v1"},
            {"desireState", state == "stopped" ? "stopped" : "running"},
            {"active", true},
            {"volumeSize", "21474836480"}}},
          {"status",
           {{"currentState", state},
            {"instanceManagerName", "instance-manager-" + node},
            {"started", state == "running"}}}};
}

json longhorn_volume_object(const storage_volume& volume, const std::string& attached_node) {
  return {{"apiVersion", "longhorn.io/v1beta2"},
          {"kind", "Volume"},
          {"metadata",
           {{"name", volume.name},
            {"namespace", longhorn_namespace},
            {"labels", {{"longhornvolume", volume.name}}}}},
          {"spec",
           {{"numberOfReplicas", volume.replica_nodes.size()},
            {"size", std::to_string(volume.size_bytes)},
            {"frontend", "blockdev"},
            {"dataEngine", "v1"},
            {"accessMode", "rwx"},
            {"migratable", true},
            {"dataLocality", "disabled"}}},
          {"status",
           {{"state", attached_node.empty() ? "detached" : "attached"},
            {"robustness", "healthy"},
            {"currentNodeID", attached_node},
            {"kubernetesStatus",
             {{"pvName", volume.pv_name},
              {"pvStatus", "Bound"},
              {"namespace", volume.pvc_namespace},
              {"pvcName", volume.pvc_name}}}}}};
}

expected<bool> create_longhorn_volume(object_store& store, const storage_volume& volume,
                                      const std::string& attached_node) {
  register_longhorn_types(store);
  if (!store.get("namespaces", "", longhorn_namespace))
    create_with_status(store, "namespaces", namespace_object(longhorn_namespace));
  auto made = create_with_status(store, longhorn_volume_key, longhorn_volume_object(volume, attached_node));
  if (!made)
    return make_error(made.err().code, fail("creating volume", volume.name, made.err()));
  for (const auto& node : volume.replica_nodes) {
    auto name = longhorn_replica_name(volume.name, node, 0);
    auto replica = create_with_status(store, longhorn_replica_key,
                                      longhorn_replica_object(name, volume.name, node, "running"));
    if (!replica)
      return make_error(replica.err().code, fail("creating replica", name, replica.err()));
  }
  return true;
}

expected<bool> rebuild_longhorn_replicas(object_store& store, const std::vector<replica_move>& moves) {
  auto replicas = store.list(longhorn_replica_key, longhorn_namespace).items;
  auto replica_on = [&](const std::string& volume, const std::string& node) -> std::string {
    for (const auto& r : replicas)
      if (text_at(r, "/spec/volumeName"_json_pointer) == volume && text_at(r, "/spec/nodeID"_json_pointer) == node)
        return text_at(r, "/metadata/name"_json_pointer);
    return {};
  };
  for (const auto& m : moves) {
    auto old_name = replica_on(m.volume_id, m.from_node);
    if (old_name.empty())
      continue; // not a Longhorn volume
    int generation = 1;
    auto name = longhorn_replica_name(m.volume_id, m.to_node, generation);
    while (store.get(longhorn_replica_key, longhorn_namespace, name))
      name = longhorn_replica_name(m.volume_id, m.to_node, ++generation);
    auto made = create_with_status(store, longhorn_replica_key,
                                   longhorn_replica_object(name, m.volume_id, m.to_node, "starting"));
    if (!made)
      return make_error(made.err().code, fail("creating replica", name, made.err()));
    if (auto running = set_replica_state(store, name, "running"); !running)
      return make_error(running.err().code, fail("starting replica", name, running.err()));
    auto stopped = store.modify(longhorn_replica_key, longhorn_namespace, old_name, [](json& obj) {
      obj["spec"]["desireState"] = "stopped";
      return true;
    });
    if (!stopped)
      return make_error(stopped.err().code, fail("stopping replica", old_name, stopped.err()));
    if (auto s = set_replica_state(store, old_name, "stopped"); !s)
      return make_error(s.err().code, fail("stopping replica", old_name, s.err()));
    if (auto gone = store.remove(longhorn_replica_key, longhorn_namespace, old_name); !gone)
      return make_error(gone.err().code, fail("deleting replica", old_name, gone.err()));
  }
  return true;
}

std::vector<std::string> longhorn_running_nodes(const object_store& store, const std::string& volume) {
  std::vector<std::string> out;
  for (const auto& r : store.list(longhorn_replica_key, longhorn_namespace).items)
    if (text_at(r, "/spec/volumeName"_json_pointer) == volume && text_at(r, "/status/currentState"_json_pointer) == "running")
      out.push_back(text_at(r, "/spec/nodeID"_json_pointer));
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace schedopt::sim
