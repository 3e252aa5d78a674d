#include "sim/namespace_deletion.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

const char* namespaces_key = "namespaces";

/// namespaced_resources_deleter.go deleteAllContent: true when nothing is left.
bool delete_content(object_store& store, const std::string& ns) {
  bool empty = true;
  for (const auto& type : store.types()) {
    if (!type.namespaced)
      continue;
    for (const auto& item : store.list_stored(type.key(), ns).items) {
      auto object = item->parsed();
      auto name = object->value("/metadata/name"_json_pointer, std::string{});
      auto removed = store.remove(type.key(), ns, name);
      if (removed && store.get(type.key(), ns, name))
        empty = false; // kept by its finalizers
    }
  }
  return empty;
}

} // namespace

expected<json> delete_namespace(object_store& store, const std::string& name) {
  // The store keeps a namespace whose spec.finalizers name someone, with a
  // deletionTimestamp (storage.go REST.Delete); it is Terminating from then on.
  auto removed = store.remove(namespaces_key, "", name);
  if (!removed || !store.get(namespaces_key, "", name))
    return removed;
  auto terminating = store.modify(
    namespaces_key, "", name,
    [](json& ns) {
      ns["status"]["phase"] = "Terminating";
      return true;
    },
    /*status_only=*/true);
  if (!terminating)
    return terminating.err();
  if (delete_content(store, name)) {
    // The namespace controller's finalize: the kubernetes finalizer removed, the store
    // deletes the namespace once no finalizer is left.
    store.modify(namespaces_key, "", name, [](json& ns) {
      json kept = json::array();
      for (const auto& f : ns.value("/spec/finalizers"_json_pointer, json::array()))
        if (f != "kubernetes")
          kept.push_back(f);
      ns["spec"]["finalizers"] = kept;
      return true;
    });
  }
  return *terminating;
}

} // namespace schedopt::sim
