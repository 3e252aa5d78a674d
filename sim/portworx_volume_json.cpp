// The volume inspect answer as text (see the header for why not a JSON tree).
#include "sim/portworx_volume_json.hpp"

#include <array>
#include <charconv>
#include <string_view>

#include <boost/container/small_vector.hpp>
#include <nlohmann/json.hpp>

namespace schedopt::sim {

namespace {

using namespace std::string_view_literals;

// A constant part, appended with its length known (no strlen per call).
void put(std::string& out, std::string_view text) {
  out.append(text.data(), text.size());
}

// Names and ids are plain printable ASCII: those are written as they are; anything else
// (a quote, a backslash, a control or non-ASCII byte) goes through nlohmann's escaping.
// append() rather than resize() + copy: resize first zero-fills what it adds, and this
// runs for several strings per volume of the answer, where the zero-fill showed up
// as a large share of the writer.
void append_string(std::string& out, std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      out += nlohmann::json(std::string(s)).dump();
      return;
    }
  out += '"';
  out.append(s.data(), s.size());
  out += '"';
}

template <typename Number>
void append_number_string(std::string& out, Number n) {
  std::array<char, 24> digits{};
  auto end = std::to_chars(digits.data(), digits.data() + digits.size(), n).ptr;
  out += '"';
  out.append(digits.data(), static_cast<std::size_t>(end - digits.data()));
  out += '"';
}

void append_labels(std::string& out, const storage_volume& v) {
  put(out, R"({"namespace":)"sv);
  append_string(out, v.pvc_namespace);
  put(out, R"(,"pvc":)"sv);
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
  // Each replica's node is looked up once, for both of the lists that name it.
  boost::container::small_vector<const px_node_ref*, 4> refs;
  for (const auto& name : v.replica_nodes) {
    auto n = nodes.find(name);
    refs.push_back(n != nodes.end() ? &n->second : nullptr);
  }

  put(out, R"({"labels":)"sv);
  append_labels(out, v);
  put(out, R"(,"name":)"sv);
  append_string(out, v.name);
  put(out, R"(,"volume":{"attached_state":"ATTACH_STATE_INTERNAL_SWITCH",)"
           R"("ctime":"2026-01-01T00:00:00Z","format":"FS_TYPE_EXT4","id":)"sv);
  append_string(out, v.id);
  put(out, R"(,"locator":{"name":)"sv);
  append_string(out, v.name);
  put(out, R"(,"volume_labels":)"sv);
  append_labels(out, v);
  put(out, R"(},"replica_sets":[{"nodes":[)"sv);
  for (std::size_t k = 0; k < v.replica_nodes.size(); ++k) {
    if (k > 0)
      out += ',';
    auto* ref = refs[k];
    append_string(out, ref ? std::string_view{ref->px_id} : std::string_view{v.replica_nodes[k]});
  }
  if (extra_node_id) {
    if (!v.replica_nodes.empty())
      out += ',';
    append_string(out, *extra_node_id);
  }
  put(out, R"(],"pool_uuids":[)"sv);
  for (std::size_t k = 0; k < v.replica_nodes.size(); ++k) {
    if (k > 0)
      out += ',';
    auto* ref = refs[k];
    append_string(out, ref ? std::string_view{ref->pool_uuid} : std::string_view{});
  }
  if (extra_node_id)
    put(out, v.replica_nodes.empty() ? R"("")"sv : R"(,"")"sv);
  put(out, R"(]}],"spec":{"block_size":"4096","cos":"HIGH","format":"FS_TYPE_EXT4","ha_level":)"sv);
  append_number_string(out, v.replica_nodes.size());
  put(out, R"(,"sharedv4":true,"size":)"sv);
  append_number_string(out, v.size_bytes);
  put(out, R"(,"volume_labels":)"sv);
  append_labels(out, v);
  put(out, R"(},"state":"VOLUME_STATE_ATTACHED","status":"VOLUME_STATUS_UP",)"
           R"("usage":"1073741824"}})"sv);
}

} // namespace schedopt::sim
