// The simulator's in-memory API storage: every write hands out the next global
// resourceVersion, stores an immutable serialized version and appends a watch event.
#include "sim/object_store.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <unordered_map>
#include <set>
#include <unordered_set>

#include "sim/builtin_strategies.hpp"
#include "sim/field_errors.hpp"
#include "sim/json_fields.hpp"
#include "sim/scenario_random.hpp"

namespace schedopt::sim {

namespace {

using object_key = std::pair<std::string, std::string>; // namespace, name

std::string now_rfc3339() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

/// Whether objects of `type` have a metadata.generation: custom resources do, and the
/// built-in types whose registry strategy's PrepareForCreate sets Generation = 1
/// (kubernetes v1.37.2 pkg/registry/*/*/strategy.go; apiextensions-apiserver for CRDs
/// and custom resources). A ConfigMap, Namespace, Node or Lease never has one.
bool tracks_generation(const resource_type& type) {
  static const std::set<std::string> with_generation = {
    "pods", "podtemplates", "replicationcontrollers", "deployments.apps", "daemonsets.apps", "replicasets.apps",
    "statefulsets.apps", "jobs.batch", "cronjobs.batch", "horizontalpodautoscalers.autoscaling",
    "poddisruptionbudgets.policy", "ingresses.networking.k8s.io", "ingressclasses.networking.k8s.io",
    "networkpolicies.networking.k8s.io", "endpointslices.discovery.k8s.io",
    "priorityclasses.scheduling.k8s.io", "validatingwebhookconfigurations.admissionregistration.k8s.io",
    "mutatingwebhookconfigurations.admissionregistration.k8s.io",
    "customresourcedefinitions.apiextensions.k8s.io"};
  const auto& g = type.group;
  bool builtin = g.empty() || g == "apps" || g == "batch" || g == "policy" || g == "autoscaling"
                 || (g.size() > 7 && g.compare(g.size() - 7, 7, ".k8s.io") == 0);
  return !builtin || with_generation.count(type.key()) > 0;
}

/// Everything but metadata and status: what metadata.generation tracks.
json spec_part(const json& obj) {
  json copy = json::object();
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (it.key() != "metadata" && it.key() != "status")
      copy[it.key()] = it.value();
  return copy;
}

bool has_finalizers(const json& obj) {
  auto meta = obj.find("metadata");
  if (meta == obj.end())
    return false;
  auto fin = meta->find("finalizers");
  if (fin != meta->end() && fin->is_array() && !fin->empty())
    return true;
  // A namespace is also kept while its spec.finalizers name someone (kubernetes
  // pkg/registry/core/namespace/storage/storage.go REST.Delete).
  if (obj.value("kind", "") != "Namespace" || obj.value("apiVersion", "") != "v1")
    return false;
  auto spec = obj.find("spec");
  if (spec == obj.end() || !spec->is_object())
    return false;
  auto spec_fin = spec->find("finalizers");
  return spec_fin != spec->end() && spec_fin->is_array() && !spec_fin->empty();
}

/// A terminating object still inside its grace period (a pod the kubelet is stopping)
/// stays stored whatever its finalizers; one at grace 0 goes once they are gone.
/// Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/registry/generic/registry/
/// store.go, ShouldDeleteDuringUpdate (no finalizers and deletionGracePeriodSeconds 0).
bool grace_elapsed(const json& obj) {
  auto meta = obj.find("metadata");
  if (meta == obj.end())
    return true;
  auto grace = meta->find("deletionGracePeriodSeconds");
  return grace == meta->end() || !grace->is_number() || grace->get<int64_t>() <= 0;
}

std::string rfc3339_after(std::chrono::seconds delay) {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() + delay);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string quoted_name(const std::string& key, const std::string& name) {
  return key + " \"" + name + "\"";
}

/// An upstream resourceVersion as a number. Clients must treat it as opaque; the mirror
/// compares it only to keep the newest of two versions of one object, which for
/// kube-apiserver's etcd3 storage is the larger revision (0 when it is not a number).
uint64_t upstream_version_of(const json& obj) {
  auto text = metadata_text(obj, "resourceVersion");
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return 0;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

} // namespace

std::shared_ptr<const json> stored_object::parsed() const {
  if (tree)
    return tree;
  return std::make_shared<const json>(json::parse(text));
}

struct object_store::impl {
  struct type_entry {
    resource_type type;
    std::map<object_key, stored_ptr> objects;
    bool text_only = false;
  };
  struct event_record {
    std::string key;
    std::string ns;
    raw_event event;
    uint64_t rv = 0;
  };

  explicit impl(std::size_t history) : history_limit(std::max<std::size_t>(history, 1)) {}

  mutable std::mutex mtx;
  mutable std::condition_variable changed;
  std::unordered_map<std::string, type_entry> types;
  // Kept apart from types so a hook may be set before its type is registered.
  std::unordered_map<std::string, admission_hook> admissions;
  std::unordered_map<std::string, write_validator> validators; // apart from types, as admissions are
  std::unordered_map<std::string, std::vector<change_observer>> observers;
  std::unordered_set<std::string> text_only_types; // apart from types, as admissions are
  std::vector<std::string> type_order;
  std::deque<event_record> history;
  std::size_t history_limit;
  uint64_t history_floor = 0; // every event with rv > floor is retained
  uint64_t rv = 0;
  std::mt19937_64 rng{std::random_device{}()};
  std::shared_ptr<upstream_api> upstream; // mirror mode: the real API server

  type_entry* find(const std::string& key) {
    auto it = types.find(key);
    return it == types.end() ? nullptr : &it->second;
  }

  // One stored object with its type and key; the API server's 404s when either is absent.
  struct located {
    type_entry* te;
    object_key k;
    stored_ptr current;
  };
  expected<located> locate(const std::string& key, const std::string& ns, const std::string& name) {
    auto* te = find(key);
    if (te == nullptr)
      return make_error(ec::not_found, "the server could not find the requested resource", 404);
    object_key k{te->type.namespaced ? ns : std::string{}, name};
    auto it = te->objects.find(k);
    if (it == te->objects.end())
      return make_error(ec::not_found, quoted_name(key, name) + " not found", 404);
    return located{te, std::move(k), it->second};
  }

  std::string uuid() {
    std::uniform_int_distribution<int> hex(0, 15);
    const char* digits = "0123456789abcdef";
    std::string s = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx";
    for (auto& c : s) {
      if (c == 'x')
        c = digits[hex(rng)];
      else if (c == 'y')
        c = digits[8 + hex(rng) % 4];
    }
    return s;
  }

  /// Stamps the next resourceVersion into `obj`, stores it, records the event; returns
  /// the object as committed. `slot`, when given, is where `k`'s version is held (create
  /// has found it already: one map search fewer per created object).
  json commit(type_entry& te, const object_key& k, json obj, const char* type,
              stored_ptr previous, stored_ptr* slot = nullptr) {
    ++rv;
    auto stored = std::make_shared<stored_object>();
    if (upstream)
      stored->upstream_version = upstream_version_of(obj);
    else
      obj["metadata"]["resourceVersion"] = std::to_string(rv);
    stored->text = obj.dump();
    stored->resource_version = rv;
    if (!te.text_only)
      stored->tree = std::make_shared<const json>(obj);
    stored_ptr ptr = stored;
    if (std::string(type) == "DELETED")
      te.objects.erase(k);
    else if (slot != nullptr)
      *slot = ptr;
    else
      te.objects[k] = ptr;
    history.push_back(event_record{te.type.key(), k.first,
                                   raw_event{type, ptr, std::move(previous)}, rv});
    while (history.size() > history_limit) {
      history_floor = history.front().rv;
      history.pop_front();
    }
    notify_observers(te.type.key(), type, obj, rv);
    changed.notify_all();
    return obj;
  }

  /// kube-apiserver's preparation and validation of every write of the type
  /// (sim/builtin_strategies.hpp), then the type's write_validator, if any; nullopt when
  /// the write may go ahead.
  std::optional<error> validate(const std::string& key, json& obj, const json* old,
                                bool status_only) {
    if (auto* te = find(key); te != nullptr && !status_only)
      if (auto err = prepare_and_validate(te->type, obj))
        return err;
    auto it = validators.find(key);
    if (it == validators.end())
      return std::nullopt;
    return it->second(obj, old, status_only);
  }

  using peek_function = std::function<std::shared_ptr<const json>(
    const std::string&, const std::string&, const std::string&)>;
  /// change::peek: reads under the lock its caller already holds.
  peek_function peeker() {
    return [this](const std::string& k, const std::string& ns,
                  const std::string& name) -> std::shared_ptr<const json> {
      auto* te = find(k);
      if (te == nullptr)
        return nullptr;
      auto found = te->objects.find({te->type.namespaced ? ns : std::string{}, name});
      return found == te->objects.end() ? nullptr : found->second->parsed();
    };
  }

  void notify_observers(const std::string& key, const std::string& type, const json& obj,
                        uint64_t version) {
    auto it = observers.find(key);
    if (it == observers.end())
      return;
    auto peek = peeker();
    change c{type, obj, version, peek};
    for (auto& observer : it->second)
      observer(c);
  }

  /// The uid precondition of an update (PUT): the uid the body names must be the stored one.
  /// Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/registry/rest/update.go,
  /// defaultUpdatedObjectInfo.Preconditions (the body's uid becomes a storage precondition),
  /// checked by pkg/storage/etcd3/store.go GuaranteedUpdate through
  /// pkg/storage/interfaces.go Preconditions.Check. PATCH has none: handlers/patch.go builds
  /// its object info with DefaultUpdatedObjectInfo(nil, ...).
  std::optional<error> check_uid(const resource_type& type, const object_key& k, const json& cur,
                                 const json& proposed) {
    auto want = metadata_text(proposed, "uid");
    auto have = metadata_text(cur, "uid");
    if (want.empty() || want == have)
      return std::nullopt;
    // The etcd key and StorageError text apiserver's Conflict carries verbatim.
    std::string storage_key = "/registry/" + (type.group.empty() ? "" : type.group + "/") + type.plural
                              + "/" + (k.first.empty() ? "" : k.first + "/") + k.second;
    return make_error(ec::conflict,
                      "Operation cannot be fulfilled on " + quoted_name(type.key(), k.second)
                        + ": StorageError: invalid object, Code: 4, Key: " + storage_key
                        + ", ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in "
                          "precondition: " + want + ", UID in object meta: " + have,
                      409);
  }

  /// A write without a uid precondition (PATCH) that changes the main resource's uid is
  /// refused as invalid: the uid is immutable. A /status write never gets here with a
  /// changed uid, because the status strategy copies the stored metadata over the body.
  /// Follows kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/registry/rest/update.go,
  /// BeforeUpdate (an empty uid takes the stored one; validateCommonFields then runs
  /// apimachinery's ValidateObjectMetaAccessorUpdate, whose ValidateImmutableField says
  /// "field is immutable").
  std::optional<error> check_uid_unchanged(const resource_type& type, const object_key& k,
                                           const json& cur, const json& proposed) {
    auto want = metadata_text(proposed, "uid");
    auto have = metadata_text(cur, "uid");
    if (want.empty() || want == have)
      return std::nullopt;
    return invalid_object_error(type, k.second,
                                {make_field_error(field_error_type::invalid, "metadata.uid",
                                                  json(want).dump(), "field is immutable")});
  }

  /// Turns the proposed new version of an existing object into the stored one:
  /// immutable metadata kept, status rules applied, generation bumped on spec change.
  /// Returns the object as stored (unchanged when the write changes nothing).
  /// `uid_precondition`: the write is a PUT, whose body's uid is a precondition; a PATCH
  /// or an in-process controller's write has none.
  expected<json> update(type_entry& te, const object_key& k, const stored_ptr& old,
                        json proposed, bool status_only, bool uid_precondition,
                        const field_writer* writer) {
    auto cur_tree = old->parsed();
    const json& cur = *cur_tree;
    if (!proposed.is_object())
      return make_error(ec::invalid_request, "object must be a JSON object", 400);
    // Checked before the resourceVersion, as storage checks preconditions first.
    if (uid_precondition) {
      if (auto err = check_uid(te.type, k, cur, proposed))
        return *err;
    } else if (!status_only) {
      if (auto err = check_uid_unchanged(te.type, k, cur, proposed))
        return *err;
    }
    auto proposed_rv = metadata_text(proposed, "resourceVersion");
    if (!proposed_rv.empty() && proposed_rv != std::to_string(old->resource_version))
      return make_error(ec::conflict,
                        "Operation cannot be fulfilled on " + quoted_name(te.type.key(), k.second)
                          + ": the object has been modified; please apply your changes to the"
                            " latest version and try again",
                        409);
    json next;
    if (status_only) {
      next = cur;
      if (proposed.contains("status"))
        next["status"] = proposed["status"];
      else
        next.erase("status");
      if (writer == nullptr && proposed["metadata"].is_object() && proposed["metadata"].contains("managedFields"))
        next["metadata"]["managedFields"] = proposed["metadata"]["managedFields"];
    } else {
      next = std::move(proposed);
      if (!next.contains("metadata") || !next["metadata"].is_object())
        next["metadata"] = json::object();
      if (te.type.status_subresource) {
        if (cur.contains("status"))
          next["status"] = cur["status"];
        else
          next.erase("status");
      }
      auto& meta = next["metadata"];
      const auto& cur_meta = cur["metadata"];
      for (auto field : {"name", "namespace", "uid", "creationTimestamp", "generation",
                         "deletionTimestamp", "deletionGracePeriodSeconds"}) {
        if (cur_meta.contains(field))
          meta[field] = cur_meta[field];
        else
          meta.erase(field);
      }
      if (tracks_generation(te.type) && spec_part(next) != spec_part(cur))
        meta["generation"] = cur_meta.value("generation", 1) + 1;
    }
    next["metadata"]["resourceVersion"] = cur["metadata"].value("resourceVersion", "");
    if (writer != nullptr)
      record_update(next, cur, *writer);
    if (next == cur)
      return cur;
    if (auto err = validate(te.type.key(), next, &cur, status_only))
      return *err;
    if (is_terminating(next) && !has_finalizers(next) && grace_elapsed(next)) {
      return commit(te, k, std::move(next), "DELETED", old);
    }
    return commit(te, k, std::move(next), "MODIFIED", old);
  }

  /// Mirror mode: stores `obj` as the upstream reported it, unless the stored version is
  /// newer (a watch event overtaken by a write's own answer). Caller holds the lock.
  void apply_mirrored(type_entry& te, const std::string& event_type, json obj) {
    object_key k{te.type.namespaced ? metadata_text(obj, "namespace") : std::string{},
                 metadata_text(obj, "name")};
    auto incoming = upstream_version_of(obj);
    auto it = te.objects.find(k);
    bool newer_stored = it != te.objects.end() && incoming != 0 && it->second->upstream_version > incoming;
    if (event_type == "DELETED") {
      if (it != te.objects.end() && !newer_stored)
        commit(te, k, std::move(obj), "DELETED", it->second);
      return;
    }
    if (it != te.objects.end() && (newer_stored || it->second->upstream_version == incoming))
      return;
    stored_ptr previous = it == te.objects.end() ? nullptr : it->second;
    commit(te, k, std::move(obj), previous ? "MODIFIED" : "ADDED", previous);
  }

  void mirror_one(const std::string& key, const std::string& event_type, json obj) {
    std::lock_guard<std::mutex> guard(mtx);
    if (auto* te = find(key))
      apply_mirrored(*te, event_type, std::move(obj));
  }

  /// The registered type, or the API server's 404 for an unknown resource (as locate()).
  expected<resource_type> type_of(const std::string& key) {
    std::lock_guard<std::mutex> guard(mtx);
    auto* te = find(key);
    if (te == nullptr)
      return make_error(ec::not_found, "the server could not find the requested resource", 404);
    return te->type;
  }

  /// The object as stored, for a read-modify-write through the upstream.
  expected<json> current(const std::string& key, const std::string& ns, const std::string& name) {
    std::lock_guard<std::mutex> guard(mtx);
    auto found = locate(key, ns, name);
    if (!found)
      return found.err();
    return *found->current->parsed();
  }
};

object_store::object_store(std::size_t watch_history)
  : impl_(std::make_shared<impl>(watch_history)) {}

void object_store::register_type(const resource_type& type) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto key = type.key();
  auto it = impl_->types.find(key);
  if (it == impl_->types.end()) {
    impl_->types.emplace(key, impl::type_entry{type, {}, impl_->text_only_types.count(key) != 0});
    impl_->type_order.push_back(key);
  } else {
    it->second.type = type;
  }
}

std::optional<resource_type> object_store::find_type(const std::string& key) const {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto it = impl_->types.find(key);
  if (it == impl_->types.end())
    return std::nullopt;
  return it->second.type;
}

std::vector<resource_type> object_store::types() const {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  std::vector<resource_type> out;
  for (auto& key : impl_->type_order)
    out.push_back(impl_->types.at(key).type);
  return out;
}

expected<json> object_store::create(const std::string& key, json object) {
  if (impl_->upstream)
    return create_upstream(key, std::move(object));
  std::unique_lock<std::mutex> guard(impl_->mtx);
  auto* te = impl_->find(key);
  if (te == nullptr)
    return make_error(ec::not_found, "the server could not find the requested resource", 404);
  if (!object.is_object())
    return make_error(ec::invalid_request, "object must be a JSON object", 400);
  if (!object.contains("metadata") || !object["metadata"].is_object())
    object["metadata"] = json::object();
  auto& meta = object["metadata"];
  if (te->type.namespaced && metadata_text(object, "namespace").empty())
    meta["namespace"] = "default";
  if (!te->type.namespaced)
    meta.erase("namespace");
  if (auto hook_it = impl_->admissions.find(key); hook_it != impl_->admissions.end()) {
    // The hook may read the store (a webhook would call the API), so run it unlocked.
    auto hook = hook_it->second;
    guard.unlock();
    if (auto err = hook(object))
      return *err;
    guard.lock();
    te = impl_->find(key);
  }
  auto& m = object["metadata"];
  auto name = metadata_text(object, "name");
  auto ns = metadata_text(object, "namespace");
  if (name.empty()) {
    auto prefix = metadata_text(object, "generateName");
    if (prefix.empty())
      return make_error(ec::invalid_value,
                        te->type.kind + ".v1 \"\" is invalid: metadata.name: Required value: "
                                        "name or generateName is required",
                        422);
    for (int attempt = 0; attempt < 100; ++attempt) {
      name = prefix + scenario_random::name_suffix(impl_->rng, 5); // as apiserver's rand.String
      if (te->objects.count({ns, name}) == 0)
        break;
    }
    m["name"] = name;
  }
  object_key k{ns, name};
  auto place = te->objects.lower_bound(k);
  if (place != te->objects.end() && place->first == k)
    return make_error(ec::already_exists, quoted_name(key, name) + " already exists", 409);
  m["uid"] = impl_->uuid();
  m["creationTimestamp"] = now_rfc3339();
  if (tracks_generation(te->type))
    m["generation"] = 1;
  m.erase("deletionTimestamp");
  if (!object.contains("apiVersion"))
    object["apiVersion"] = te->type.api_version();
  if (!object.contains("kind"))
    object["kind"] = te->type.kind;
  if (auto err = impl_->validate(key, object, nullptr, false))
    return *err;
  auto slot = te->objects.emplace_hint(place, k, nullptr);
  return impl_->commit(*te, k, std::move(object), "ADDED", nullptr, &slot->second);
}

expected<json> object_store::get(const std::string& key, const std::string& ns,
                                 const std::string& name) const {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto found = impl_->locate(key, ns, name);
  if (!found)
    return found.err();
  return *found->current->parsed();
}

object_store::snapshot object_store::list_stored(const std::string& key,
                                                 const std::string& ns) const {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  snapshot out;
  out.resource_version = impl_->rv;
  auto* te = impl_->find(key);
  if (te == nullptr)
    return out;
  if (ns.empty() || !te->type.namespaced) {
    out.items.reserve(te->objects.size());
    for (auto& [k, v] : te->objects)
      out.items.push_back(v);
  } else {
    for (auto it = te->objects.lower_bound({ns, {}}); it != te->objects.end() && it->first.first == ns;
         ++it)
      out.items.push_back(it->second);
  }
  return out;
}

object_store::list_result object_store::list(const std::string& key, const std::string& ns) const {
  auto snap = list_stored(key, ns);
  list_result out;
  out.resource_version = snap.resource_version;
  out.items.reserve(snap.items.size());
  for (auto& item : snap.items)
    out.items.push_back(*item->parsed());
  return out;
}

expected<json> object_store::replace(const std::string& key, json object, bool status_only,
                                     const field_writer* writer) {
  if (impl_->upstream) {
    auto type = impl_->type_of(key);
    if (!type)
      return type.err();
    auto answer = impl_->upstream->update(*type, object, status_only);
    if (answer)
      impl_->mirror_one(key, "MODIFIED", *answer);
    return answer;
  }
  auto ns = metadata_text(object, "namespace");
  auto name = metadata_text(object, "name");
  if (name.empty())
    return make_error(ec::invalid_value, "metadata.name: Required value: name is required", 422);
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto found = impl_->locate(key, ns, name);
  if (!found)
    return found.err();
  return impl_->update(*found->te, found->k, found->current, std::move(object), status_only,
                       /*uid_precondition=*/true, writer);
}

expected<json> object_store::modify(const std::string& key, const std::string& ns,
                                    const std::string& name,
                                    const std::function<bool(json&)>& mutate, bool status_only,
                                    const field_writer* writer) {
  if (impl_->upstream)
    return modify_upstream(key, ns, name, mutate, status_only);
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto found = impl_->locate(key, ns, name);
  if (!found)
    return found.err();
  auto& [te, k, old] = *found;
  json proposed = *old->parsed();
  if (!mutate(proposed))
    return *old->parsed();
  // A mutation must not rename the object; a resourceVersion it sets is a precondition.
  proposed["metadata"]["name"] = name;
  if (te->type.namespaced)
    proposed["metadata"]["namespace"] = k.first;
  return impl_->update(*te, k, old, std::move(proposed), status_only,
                       /*uid_precondition=*/false, writer);
}

expected<json> object_store::remove(const std::string& key, const std::string& ns,
                                    const std::string& name) {
  if (impl_->upstream)
    return remove_upstream(key, ns, name, -1);
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto found = impl_->locate(key, ns, name);
  if (!found)
    return found.err();
  auto& [te, k, old] = *found;
  json obj = *old->parsed();
  if (has_finalizers(obj)) {
    // A graceful deletion ended by a delete with grace 0 (the kubelet's) waits for the
    // finalizers from now on: their removal then deletes the object.
    if (is_terminating(obj) && !grace_elapsed(obj)) {
      obj["metadata"]["deletionGracePeriodSeconds"] = 0;
      return impl_->commit(*te, k, std::move(obj), "MODIFIED", old);
    }
    if (is_terminating(obj))
      return obj;
    obj["metadata"]["deletionTimestamp"] = now_rfc3339();
    // The namespace store sets only the timestamp; generic graceful deletion (a
    // finalizer's wait) also a zero grace period (registry/rest/delete.go BeforeDelete).
    if (key != "namespaces")
      obj["metadata"]["deletionGracePeriodSeconds"] = 0;
    return impl_->commit(*te, k, std::move(obj), "MODIFIED", old);
  }
  return impl_->commit(*te, k, std::move(obj), "DELETED", old);
}

expected<json> object_store::remove_gracefully(const std::string& key, const std::string& ns,
                                               const std::string& name, int64_t grace_seconds) {
  if (impl_->upstream)
    return remove_upstream(key, ns, name, std::max<int64_t>(grace_seconds, 0));
  if (grace_seconds <= 0)
    return remove(key, ns, name);
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto found = impl_->locate(key, ns, name);
  if (!found)
    return found.err();
  auto& [te, k, old] = *found;
  json obj = *old->parsed();
  // registry/rest/delete.go BeforeDelete: a second graceful delete may only shorten the
  // period; one already at or below it changes nothing.
  auto& meta = obj["metadata"];
  if (is_terminating(obj)) {
    auto current = meta.value("deletionGracePeriodSeconds", int64_t{0});
    if (current <= grace_seconds)
      return obj;
  }
  meta["deletionTimestamp"] = rfc3339_after(std::chrono::seconds{grace_seconds});
  meta["deletionGracePeriodSeconds"] = grace_seconds;
  return impl_->commit(*te, k, std::move(obj), "MODIFIED", old);
}

uint64_t object_store::resource_version() const {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  return impl_->rv;
}

expected<std::vector<raw_event>> object_store::raw_events_since(const std::string& key,
                                                                const std::string& ns,
                                                                uint64_t since) const {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  if (since < impl_->history_floor)
    return make_error(ec::gone,
                      "too old resource version: " + std::to_string(since) + " ("
                        + std::to_string(impl_->history_floor + 1) + ")",
                      410);
  std::vector<raw_event> out;
  auto& h = impl_->history;
  auto first = std::upper_bound(h.begin(), h.end(), since,
                                [](uint64_t v, const impl::event_record& e) { return v < e.rv; });
  for (auto it = first; it != h.end(); ++it)
    if (it->key == key && (ns.empty() || it->ns == ns))
      out.push_back(it->event);
  return out;
}

expected<std::vector<watch_event>> object_store::events_since(const std::string& key,
                                                              const std::string& ns,
                                                              uint64_t since) const {
  auto raw = raw_events_since(key, ns, since);
  if (!raw)
    return raw.err();
  std::vector<watch_event> out;
  out.reserve(raw->size());
  for (auto& e : *raw)
    out.push_back(watch_event{e.type, *e.object->parsed(), e.object->resource_version});
  return out;
}

uint64_t object_store::wait_for_change(uint64_t seen, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> guard(impl_->mtx);
  impl_->changed.wait_for(guard, timeout, [&] { return impl_->rv > seen; });
  return impl_->rv;
}

void object_store::set_admission(const std::string& key, admission_hook hook) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  impl_->admissions[key] = std::move(hook);
}

void object_store::set_validator(const std::string& key, write_validator validator) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  impl_->validators[key] = std::move(validator);
}

void object_store::keep_as_text(const std::string& key) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  impl_->text_only_types.insert(key);
  if (auto* te = impl_->find(key))
    te->text_only = true;
}

void object_store::add_observer(const std::string& key, change_observer observer,
                                bool replay_current) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto& observers = impl_->observers[key];
  observers.push_back(std::move(observer));
  auto* te = impl_->find(key);
  if (!replay_current || te == nullptr)
    return;
  // Shown to the new observer alone: the others have seen these objects.
  auto& added = observers.back();
  auto peek = impl_->peeker();
  static const std::string type = "ADDED";
  for (const auto& [k, stored] : te->objects) {
    auto object = stored->parsed();
    added(change{type, *object, stored->resource_version, peek});
  }
}

// Mirror mode. The writes follow client-go's habits against kube-apiserver: a create
// whose status the server dropped (status subresource) writes it with a /status update,
// as KubeVirt's and kwok's controllers do; a read-modify-write is an update with the
// read resourceVersion, retried on 409 Conflict from a fresh GET (client-go
// util/retry RetryOnConflict).

void object_store::mirror_upstream(std::shared_ptr<upstream_api> upstream) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  impl_->upstream = std::move(upstream);
}

void object_store::mirror(const std::string& key, const std::string& type, json object) {
  impl_->mirror_one(key, type, std::move(object));
}

void object_store::mirror_list(const std::string& key, const std::vector<json>& items) {
  std::lock_guard<std::mutex> guard(impl_->mtx);
  auto* te = impl_->find(key);
  if (te == nullptr)
    return;
  std::set<object_key> listed;
  for (const auto& item : items) {
    listed.insert({te->type.namespaced ? metadata_text(item, "namespace") : std::string{},
                   metadata_text(item, "name")});
    impl_->apply_mirrored(*te, "MODIFIED", item);
  }
  std::vector<std::pair<object_key, stored_ptr>> gone;
  for (const auto& [k, stored] : te->objects)
    if (!listed.count(k))
      gone.emplace_back(k, stored);
  for (auto& [k, stored] : gone)
    impl_->commit(*te, k, *stored->parsed(), "DELETED", stored);
}

expected<json> object_store::create_upstream(const std::string& key, json object) {
  auto type = impl_->type_of(key);
  if (!type)
    return type.err();
  if (!object.is_object())
    return make_error(ec::invalid_request, "object must be a JSON object", 400);
  if (!object.contains("metadata") || !object["metadata"].is_object())
    object["metadata"] = json::object();
  if (type->namespaced && metadata_text(object, "namespace").empty())
    object["metadata"]["namespace"] = "default";
  // Admission is the real server's: it calls the webhooks (sim/admission_webhooks).
  if (!object.contains("apiVersion"))
    object["apiVersion"] = type->api_version();
  if (!object.contains("kind"))
    object["kind"] = type->kind;
  auto made = impl_->upstream->create(*type, object);
  if (!made)
    return made;
  impl_->mirror_one(key, "ADDED", *made);
  if (!type->status_subresource || !object.contains("status") || made->value("status", json()) == object["status"])
    return made;
  // The server's controllers may have written the object already (the PVC protection
  // finalizer, the PV binder): the status goes on whatever version is current.
  return modify_upstream(key, metadata_text(*made, "namespace"), metadata_text(*made, "name"),
                         [&](json& current) {
                           current["status"] = object["status"];
                           return true;
                         },
                         true);
}

expected<json> object_store::modify_upstream(const std::string& key, const std::string& ns,
                                             const std::string& name,
                                             const std::function<bool(json&)>& mutate, bool status_only) {
  auto type = impl_->type_of(key);
  if (!type)
    return type.err();
  for (int attempt = 0;; ++attempt) {
    auto current = impl_->current(key, ns, name);
    if (!current)
      return current;
    json proposed = *current;
    if (!mutate(proposed))
      return current;
    proposed["metadata"]["name"] = name;
    if (type->namespaced)
      proposed["metadata"]["namespace"] = ns;
    if (proposed == *current)
      return current;
    auto answer = impl_->upstream->update(*type, proposed, status_only);
    if (answer) {
      impl_->mirror_one(key, "MODIFIED", *answer);
      return answer;
    }
    if (answer.err().code != ec::conflict || attempt >= 5)
      return answer;
    auto fresh = impl_->upstream->get(*type, ns, name);
    if (!fresh) {
      if (fresh.err().code == ec::not_found)
        impl_->mirror_one(key, "DELETED", *current);
      return fresh;
    }
    impl_->mirror_one(key, "MODIFIED", *fresh);
  }
}

expected<json> object_store::remove_upstream(const std::string& key, const std::string& ns,
                                             const std::string& name, int64_t grace_seconds) {
  auto type = impl_->type_of(key);
  if (!type)
    return type.err();
  auto before = impl_->current(key, ns, name);
  auto answer = impl_->upstream->remove(*type, ns, name, grace_seconds);
  if (!answer)
    return answer.err();
  if (*answer) {
    impl_->mirror_one(key, "MODIFIED", **answer);
    return **answer;
  }
  if (before)
    impl_->mirror_one(key, "DELETED", *before);
  return before ? *before : json::object();
}

expected<json> object_store::post_subresource(const std::string& key, const std::string& ns,
                                              const std::string& name, const std::string& subresource,
                                              const json& body) {
  if (!impl_->upstream)
    return make_error(ec::invalid_request, subresource + " is served only attached to an API server", 404);
  auto type = impl_->type_of(key);
  if (!type)
    return type.err();
  return impl_->upstream->post_subresource(*type, ns, name, subresource, body);
}

void object_store::notify_all() const {
  impl_->changed.notify_all();
}

} // namespace schedopt::sim
