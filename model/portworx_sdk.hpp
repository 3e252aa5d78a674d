// The OpenStorage SDK REST gateway's answers that the portworx driver reads (volume
// inspect, node enumerate and inspect), and the mapping of Portworx node ids onto
// Kubernetes node names. The gateway emits proto field names (replica_sets,
// scheduler_node_name); the lowerCamelCase spellings are accepted too.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/error.hpp"
#include "model/objects.hpp"

namespace schedopt {

struct sdk_volume {
  std::string id;
  std::string name; // locator name (the PV name for CSI volumes)
  std::vector<std::string> replica_node_ids; // union over replica sets
};

struct sdk_node {
  std::string id;
  std::string scheduler_node_name;
  std::string hostname;
  std::string mgmt_ip;
  std::string data_ip;
};

/// `GET /v1/volumes/inspect/{id}` → {"volume": {...}}.
expected<sdk_volume> decode_sdk_volume_inspect(std::string_view json);
/// `POST /v1/volumes/inspectwithfilters` → {"volumes": [{"volume": {...}, "name": ...}]},
/// every SdkVolumeInspectResponse as the per-volume inspect answers it; an absent
/// `volumes` (grpc-gateway omits an empty list) is no volumes.
expected<std::vector<sdk_volume>> decode_sdk_volume_inspect_with_filters(std::string_view json);
/// The same answer decoded while it downloads: feed() each piece of the body as it
/// arrives, then finish(). Only the volume being read is held as text, never the body
/// (which grows with every volume of the cluster); the result and its errors are those of
/// decode_sdk_volume_inspect_with_filters on the whole body, which is what a body not
/// shaped `{"volumes":[...` gets anyway.
class sdk_volume_stream {
public:
  sdk_volume_stream();
  /// Hands each volume to `sink` as it decodes instead of collecting them: finish() then
  /// returns no volumes, only whether the whole answer was valid (a caller discards what
  /// the sink got when it was not).
  explicit sdk_volume_stream(std::function<void(sdk_volume&&)> sink);
  ~sdk_volume_stream();
  sdk_volume_stream(const sdk_volume_stream&) = delete;
  sdk_volume_stream& operator=(const sdk_volume_stream&) = delete;

  void feed(std::string_view bytes);
  /// The body has ended; what it decodes to.
  expected<std::vector<sdk_volume>> finish();
  /// Bytes fed so far.
  std::size_t size() const;
  /// Volumes decoded so far (handed to the sink or collected).
  std::size_t count() const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// `GET /v1/nodes/filters` (EnumerateWithFilters) → {"nodes": [{...}]}, whole nodes.
expected<std::vector<sdk_node>> decode_sdk_node_enumerate_with_filters(std::string_view json);
/// `GET /v1/nodes` → {"node_ids": [...]}.
expected<std::vector<std::string>> decode_sdk_node_enumerate(std::string_view json);
/// `GET /v1/nodes/inspect/{id}` → {"node": {...}}.
expected<sdk_node> decode_sdk_node_inspect(std::string_view json);
/// The gateway's error body {"error"|"message": ..., "code": n} → its message.
std::string sdk_error_message(std::string_view json);

/// How the driver treats one gateway answer. One run makes thousands of calls, so a
/// transient hiccup must be retried rather than fail the run; a 4xx will not get better.
enum class sdk_answer_kind {
  ok,        // 200
  not_found, // 404: no such volume (per volume, not a run failure)
  transient, // 429, 5xx except 501, or a transport failure (timeout, reset, refused)
  permanent, // any other status
};

/// `transport_failed`: curl reported an error (with or without a status line).
sdk_answer_kind classify_sdk_answer(int http_status, bool transport_failed);

/// A bulk call (inspectwithfilters, nodes/filters) answered 404 or 501: the gateway
/// predates it (grpc-gateway's unknown pattern, or Unimplemented), so the driver falls
/// back to per-object calls.
bool sdk_bulk_unsupported(int http_status, bool transport_failed);

struct sdk_retry_policy {
  std::chrono::milliseconds initial{100};
  std::chrono::milliseconds max{3000};
  int max_attempts = 5; // calls in all, the first included
  /// A gateway's Retry-After is honoured up to this; a longer one is waited this long, so
  /// a run is held up by seconds, not by whatever the header says.
  std::chrono::milliseconds retry_after_max{std::chrono::seconds{30}};
};

/// Wait before the next call after `attempts` calls (>= 1) failed transiently, or nullopt
/// when the attempts are spent. `retry_after` (negative when absent) replaces the
/// doubling (initial, 2*initial, ... capped at max).
std::optional<std::chrono::milliseconds> sdk_retry_delay(const sdk_retry_policy& policy,
                                                         int attempts,
                                                         std::chrono::milliseconds retry_after);

/// Portworx node id → Kubernetes node name, matching in order the scheduler node name,
/// the hostname (node name or Hostname address) and the management or data IP
/// (InternalIP/ExternalIP addresses). Unmatched ids are absent.
std::map<std::string, std::string> map_sdk_nodes(const std::vector<sdk_node>& sdk_nodes,
                                                 const std::vector<node>& nodes);

} // namespace schedopt
