// Decoding of the OpenStorage SDK REST answers; see portworx_sdk.hpp.
#include "model/portworx_sdk.hpp"

#include <algorithm>

#include "model/decode_reader.hpp"
#include "model/json_array_stream.hpp"
#include "model/json_split.hpp"

namespace schedopt {

namespace {

using detail::decode_reader;
using detail::json_object;

// proto name first, then the lowerCamelCase JSON name.
void read_either(decode_reader& r, const json_object& obj, std::string_view proto,
                 std::string_view camel, std::string& out) {
  r.read(obj, proto, out);
  if (out.empty())
    r.read(obj, camel, out);
}


// One SdkVolumeInspectResponse {"volume": {...}, "name": ...}.
expected<sdk_volume> read_volume_inspect(decode_reader& r, const json_object& response) {
  auto vol = r.child(response, "volume");
  if (r.ok() && !vol.present)
    return make_error(ec::missing_field, decode_reader::join(response.path, "volume") + ": is required");
  sdk_volume out;
  r.read(vol, "id", out.id);
  r.read(response, "name", out.name);
  if (out.name.empty()) {
    auto locator = r.child(vol, "locator");
    r.read(locator, "name", out.name);
  }
  // Every set's nodes, sorted and once each: read into one vector (read() appends) and
  // sorted after, where a std::set and a vector per set cost heap blocks per node
  // (several per volume, on the thread that downloads the bulk answer).
  auto& ids = out.replica_node_ids;
  auto collect = [&](const json_object& set) { r.read(set, "nodes", ids); };
  r.for_each(vol, "replica_sets", collect);
  if (ids.empty())
    r.for_each(vol, "replicaSets", collect);
  if (!r.ok())
    return r.failure();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return out;
}

expected<sdk_node> read_node(decode_reader& r, const json_object& n) {
  sdk_node out;
  r.read(n, "id", out.id);
  read_either(r, n, "scheduler_node_name", "schedulerNodeName", out.scheduler_node_name);
  r.read(n, "hostname", out.hostname);
  read_either(r, n, "mgmt_ip", "mgmtIp", out.mgmt_ip);
  read_either(r, n, "data_ip", "dataIp", out.data_ip);
  if (!r.ok())
    return r.failure();
  if (out.id.empty())
    return make_error(ec::missing_field, decode_reader::join(n.path, "id") + ": is required");
  return out;
}

// The bulk answer volume by volume: split (model/json_split.hpp) when it can be, so one
// volume's DOM exists at a time instead of one sized by the whole answer;
// nullopt when it cannot or a volume is not valid JSON, and it is then parsed whole.
std::optional<expected<std::vector<sdk_volume>>> decode_volumes(std::string_view json, bool split) {
  std::optional<split_json> pieces;
  if (split && !(pieces = split_top_level_array(json, "volumes")))
    return std::nullopt;
  decode_reader r;
  auto root = r.parse_root(pieces ? std::string_view{pieces->envelope} : json);
  if (pieces && !r.ok())
    return std::nullopt;
  std::vector<sdk_volume> out;
  std::optional<error> failed;
  auto each = [&](const json_object& item) {
    if (failed)
      return;
    if (auto v = read_volume_inspect(r, item))
      out.push_back(std::move(*v));
    else
      failed = v.err();
  };
  if (!pieces)
    r.for_each(root, "volumes", each);
  else if (!r.for_each_split(pieces->elements, "volumes", each))
    return std::nullopt;
  if (failed)
    return *failed;
  if (!r.ok())
    return r.failure();
  return out;
}

} // namespace

expected<sdk_volume> decode_sdk_volume_inspect(std::string_view json) {
  decode_reader r;
  auto root = r.parse_root(json);
  if (!r.ok())
    return r.failure();
  return read_volume_inspect(r, root);
}

expected<std::vector<sdk_volume>> decode_sdk_volume_inspect_with_filters(std::string_view json) {
  if (auto split = decode_volumes(json, true))
    return std::move(*split);
  return std::move(*decode_volumes(json, false));
}


struct sdk_volume_stream::impl {
  json_array_stream stream{"volumes"};
  std::vector<sdk_volume> volumes;
  std::function<void(sdk_volume&&)> sink; // when set, volumes go here instead
  std::size_t count = 0;
  std::optional<error> failed;
  std::size_t index = 0; // of the next element
  std::size_t bytes = 0;
  decode_reader r; // reused: once it has failed, nothing more is read
  std::vector<std::string_view> piece = std::vector<std::string_view>(1);

  void take(sdk_volume&& v) {
    ++count;
    if (sink)
      sink(std::move(v));
    else
      volumes.push_back(std::move(v));
  }

  void element(std::string_view text) {
    if (failed)
      return;
    auto each = [&](const json_object& item) {
      if (auto v = read_volume_inspect(r, item))
        take(std::move(*v));
      else
        failed = v.err();
    };
    piece[0] = text;
    if (!r.for_each_split(piece, "volumes", each, index))
      failed = error{ec::parse_error, "volumes[" + std::to_string(index) + "]: not valid JSON"};
    else if (!failed && !r.ok())
      failed = r.failure();
    ++index;
  }
};

sdk_volume_stream::sdk_volume_stream() : impl_(std::make_unique<impl>()) {}
sdk_volume_stream::sdk_volume_stream(std::function<void(sdk_volume&&)> sink)
    : impl_(std::make_unique<impl>()) {
  impl_->sink = std::move(sink);
}
sdk_volume_stream::~sdk_volume_stream() = default;

void sdk_volume_stream::feed(std::string_view bytes) {
  impl_->bytes += bytes.size();
  impl_->stream.feed(bytes, [this](std::string_view text) { impl_->element(text); });
}

std::size_t sdk_volume_stream::size() const {
  return impl_->bytes;
}

std::size_t sdk_volume_stream::count() const {
  return impl_->count;
}

expected<std::vector<sdk_volume>> sdk_volume_stream::finish() {
  auto& st = *impl_;
  using shape = json_array_stream::shape;
  switch (st.stream.state()) {
  case shape::unknown:
  case shape::whole: {
    auto whole = decode_sdk_volume_inspect_with_filters(st.stream.whole_text());
    if (!whole || !st.sink)
      return whole;
    for (auto& v : *whole)
      st.take(std::move(v));
    return std::vector<sdk_volume>{};
  }
  case shape::broken:
    return make_error(ec::parse_error, "volumes[" + std::to_string(st.index)
                                         + "]: brackets or strings do not balance");
  case shape::streaming:
    break;
  }
  if (st.failed)
    return *st.failed;
  if (!st.stream.array_closed())
    return make_error(ec::parse_error, "the answer ends inside volumes[" + std::to_string(st.index) + "]");
  // The rest of the document still has to be JSON of the expected shape.
  auto rest = decode_volumes(st.stream.envelope(), false);
  if (!*rest)
    return rest->err();
  return std::move(st.volumes);
}

expected<std::vector<sdk_node>> decode_sdk_node_enumerate_with_filters(std::string_view json) {
  decode_reader r;
  auto root = r.parse_root(json);
  std::vector<sdk_node> out;
  std::optional<error> failed;
  r.for_each(root, "nodes", [&](const json_object& item) {
    if (failed)
      return;
    if (auto n = read_node(r, item))
      out.push_back(std::move(*n));
    else
      failed = n.err();
  });
  if (failed)
    return *failed;
  if (!r.ok())
    return r.failure();
  return out;
}

expected<std::vector<std::string>> decode_sdk_node_enumerate(std::string_view json) {
  decode_reader r;
  auto root = r.parse_root(json);
  std::vector<std::string> ids;
  r.read(root, "node_ids", ids);
  if (ids.empty())
    r.read(root, "nodeIds", ids);
  if (!r.ok())
    return r.failure();
  return ids;
}

expected<sdk_node> decode_sdk_node_inspect(std::string_view json) {
  decode_reader r;
  auto root = r.parse_root(json);
  auto n = r.child(root, "node");
  if (r.ok() && !n.present)
    return make_error(ec::missing_field, "node: is required");
  if (!r.ok())
    return r.failure();
  return read_node(r, n);
}

std::string sdk_error_message(std::string_view json) {
  decode_reader r;
  auto root = r.parse_root(json);
  std::string message;
  r.read(root, "message", message);
  if (message.empty())
    r.read(root, "error", message);
  if (!r.ok() || message.empty())
    return std::string{json.substr(0, 200)};
  return message;
}

sdk_answer_kind classify_sdk_answer(int http_status, bool transport_failed) {
  // A transfer cut short (reset mid-body, timeout) is transient even after a 200 line.
  if (transport_failed || http_status == 0)
    return sdk_answer_kind::transient;
  if (http_status == 200)
    return sdk_answer_kind::ok;
  if (http_status == 404)
    return sdk_answer_kind::not_found;
  if (http_status == 429 || (http_status >= 500 && http_status < 600 && http_status != 501))
    return sdk_answer_kind::transient;
  return sdk_answer_kind::permanent;
}

bool sdk_bulk_unsupported(int http_status, bool transport_failed) {
  return !transport_failed && (http_status == 404 || http_status == 501);
}

std::optional<std::chrono::milliseconds> sdk_retry_delay(const sdk_retry_policy& policy,
                                                         int attempts,
                                                         std::chrono::milliseconds retry_after) {
  if (attempts >= policy.max_attempts)
    return std::nullopt;
  if (retry_after.count() >= 0)
    return std::min(retry_after, policy.retry_after_max);
  auto shift = std::clamp(attempts - 1, 0, 20);
  return std::min(policy.max, policy.initial * (int64_t{1} << shift));
}

std::map<std::string, std::string> map_sdk_nodes(const std::vector<sdk_node>& sdk_nodes,
                                                 const std::vector<node>& nodes) {
  std::map<std::string, std::string> by_name, by_hostname, by_ip;
  for (auto& n : nodes) {
    by_name[n.metadata.name] = n.metadata.name;
    by_hostname[n.metadata.name] = n.metadata.name;
    for (auto& a : n.addresses) {
      if (a.type == "Hostname")
        by_hostname[a.address] = n.metadata.name;
      else if (a.type == "InternalIP" || a.type == "ExternalIP")
        by_ip[a.address] = n.metadata.name;
    }
  }
  auto lookup = [](const std::map<std::string, std::string>& m, const std::string& key) {
    auto i = key.empty() ? m.end() : m.find(key);
    return i == m.end() ? std::string{} : i->second;
  };
  std::map<std::string, std::string> out;
  for (auto& s : sdk_nodes) {
    std::string name = lookup(by_name, s.scheduler_node_name);
    if (name.empty())
      name = lookup(by_hostname, s.hostname);
    if (name.empty())
      name = lookup(by_ip, s.mgmt_ip);
    if (name.empty())
      name = lookup(by_ip, s.data_ip);
    if (!name.empty())
      out[s.id] = name;
  }
  return out;
}

} // namespace schedopt
