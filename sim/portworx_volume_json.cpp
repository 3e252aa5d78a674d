// The volume inspect answer as text (see the header for why not a JSON tree).
#include "sim/portworx_volume_json.hpp"

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

namespace schedopt::sim {

namespace {

// Names and ids are plain printable ASCII: those are written as they are; anything else
// (a quote, a backslash, a control or non-ASCII byte) goes through nlohmann's escaping.
void append_string(std::string& out, const std::string& s) {
  bool plain = std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {
    out += nlohmann::json(s).dump();
    return;
  }
  auto at = out.size();
  out.resize(at + s.size() + 2);
  out[at] = '"';
  std::memcpy(&out[at + 1], s.data(), s.size());
  out.back() = '"';
}

void append_labels(std::string& out, const storage_volume& v) {
  out += R"({"namespace":)";
  append_string(out, v.pvc_namespace);
  out += R"(,"pvc":)";
  append_string(out, v.pvc_name);
  out += '}';
}

} // namespace

px_node_directory px_node_directory_of(const storage_backend& storage) {
  px_node_directory out;
  for (auto& n : storage.nodes())
    out.emplace(n.name, px_node_ref{n.px_id, n.pool_uuid});
  return out;
}

void append_volume_inspect_json(std::string& out, const storage_volume& v,
                                const px_node_directory& nodes,
                                const std::optional<std::string>& extra_node_id) {
  out += R"({"labels":)";
  append_labels(out, v);
  out += R"(,"name":)";
  append_string(out, v.name);
  out += R"(,"volume":{"attached_state":"ATTACH_STATE_INTERNAL_SWITCH",)"
         R"("ctime":"2026-01-01T00:00:00Z","format":"FS_TYPE_EXT4","id":)";
  append_string(out, v.id);
  out += R"(,"locator":{"name":)";
  append_string(out, v.name);
  out += R"(,"volume_labels":)";
  append_labels(out, v);
  out += R"(},"replica_sets":[{"nodes":[)";
  std::string pools;
  bool first = true;
  for (auto& name : v.replica_nodes) {
    auto n = nodes.find(name);
    if (!first) {
      out += ',';
      pools += ',';
    }
    first = false;
    append_string(out, n != nodes.end() ? n->second.px_id : name);
    append_string(pools, n != nodes.end() ? n->second.pool_uuid : std::string{});
  }
  if (extra_node_id) {
    if (!first) {
      out += ',';
      pools += ',';
    }
    append_string(out, *extra_node_id);
    pools += R"("")";
  }
  out += R"(],"pool_uuids":[)";
  out += pools;
  out += R"(]}],"spec":{"block_size":"4096","cos":"HIGH","format":"FS_TYPE_EXT4","ha_level":")";
  out += std::to_string(v.replica_nodes.size());
  out += R"(","sharedv4":true,"size":")";
  out += std::to_string(v.size_bytes);
  out += R"(","volume_labels":)";
  append_labels(out, v);
  out += R"(},"state":"VOLUME_STATE_ATTACHED","status":"VOLUME_STATUS_UP",)"
         R"("usage":"1073741824"}})";
}

} // namespace schedopt::sim
