// Continue tokens (base64url JSON as apiserver's are base64 JSON) and the snapshot cache.
#include "sim/api_server_pager.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "sim/go_json_errors.hpp"

namespace schedopt::sim {

namespace {

const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
// Snapshots live until compaction; this bounds what abandoned lists keep in memory, after
// which a continue reads the current state (a simulator limit, not apiserver behaviour).
constexpr std::size_t max_snapshots = 64;

std::string b64url_encode(const std::string& in) {
  std::string out;
  unsigned val = 0;
  int bits = -6;
  for (unsigned char c : in) {
    val = (val << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out.push_back(alphabet[(val >> bits) & 0x3F]);
      bits -= 6;
    }
  }
  if (bits > -6)
    out.push_back(alphabet[((val << 8) >> (bits + 8)) & 0x3F]);
  return out;
}

std::optional<std::string> b64url_decode(const std::string& in) {
  int table[256];
  std::fill(std::begin(table), std::end(table), -1);
  for (int i = 0; i < 64; ++i)
    table[static_cast<unsigned char>(alphabet[i])] = i;
  std::string out;
  unsigned val = 0;
  int bits = -8;
  for (unsigned char c : in) {
    if (c == '=')
      break;
    if (table[c] < 0)
      return std::nullopt;
    val = (val << 6) + static_cast<unsigned>(table[c]);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

} // namespace

std::string encode_continue(const continue_token& token) {
  nlohmann::json j = {{"v", "meta.k8s.io/v1"},
                      {"rv", token.resource_version},
                      {"ns", token.start_ns},
                      {"start", token.start_name},
                      {"snap", token.snapshot_id}};
  return b64url_encode(j.dump());
}

// Follows kubernetes v1.37.2 staging/src/k8s.io/apiserver/pkg/storage/continue.go
// DecodeContinue (its errors) and interfaces.go (the "invalid continue token" 400).
expected<continue_token> decode_continue(const std::string& text) {
  auto invalid = [](const std::string& why) {
    return make_error(ec::invalid_request, "invalid continue token: continue key is not valid" + why, 400);
  };
  auto bad = invalid(": " + text);
  auto raw = b64url_decode(text);
  if (!raw) {
    // Go's base64.CorruptInputError: the first byte outside the alphabet, else the last.
    auto at = text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_");
    if (at == std::string::npos)
      at = text.empty() ? 0 : text.size() - 1;
    return invalid(": illegal base64 data at input byte " + std::to_string(at));
  }
  if (auto syntax = go_json_syntax_error(*raw))
    return invalid(": " + *syntax);
  auto j = nlohmann::json::parse(*raw, nullptr, false);
  if (!j.is_object())
    return bad;
  if (j.value("v", "") != "meta.k8s.io/v1")
    return invalid(": server does not recognize this encoded version " + j.value("v", std::string{}));
  try {
    return continue_token{j.at("rv").get<int64_t>(), j.at("ns").get<std::string>(),
                          j.at("start").get<std::string>(), j.at("snap").get<uint64_t>()};
  } catch (const std::exception&) {
    return bad;
  }
}

uint64_t list_pager::keep(const std::string& scope, shared_snapshot snap) {
  std::lock_guard<std::mutex> guard(mtx_);
  auto now = std::chrono::steady_clock::now();
  while (kept_.size() >= max_snapshots) // the least recently used goes first
    kept_.erase(std::min_element(kept_.begin(), kept_.end(), [](const auto& a, const auto& b) {
      return a.second.kept < b.second.kept;
    }));
  auto id = next_id_++;
  kept_.emplace(id, entry{scope, std::move(snap), now});
  return id;
}

shared_snapshot list_pager::find(uint64_t id, const std::string& scope) {
  std::lock_guard<std::mutex> guard(mtx_);
  auto it = kept_.find(id);
  if (it == kept_.end() || it->second.scope != scope)
    return nullptr;
  it->second.kept = std::chrono::steady_clock::now();
  return it->second.snap;
}

void list_pager::compact(uint64_t revision) {
  std::lock_guard<std::mutex> guard(mtx_);
  compacted_ = std::max(compacted_, revision);
  for (auto it = kept_.begin(); it != kept_.end();) {
    if (it->second.snap->resource_version < compacted_)
      it = kept_.erase(it);
    else
      ++it;
  }
}

uint64_t list_pager::compacted_revision() const {
  std::lock_guard<std::mutex> guard(mtx_);
  return compacted_;
}

} // namespace schedopt::sim
