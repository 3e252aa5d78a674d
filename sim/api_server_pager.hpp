// List paging (?limit=&continue=) that stays consistent under concurrent writes: the
// first page's snapshot is kept and later pages are cut from it, until storage compacts
// past the snapshot's revision; a continue token older than the compacted revision then
// answers 410 Expired, as kube-apiserver's etcd3 store does.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "model/error.hpp"
#include "sim/object_store.hpp"

namespace schedopt::sim {

struct continue_token {
  /// Of the first page; -1 continues at the latest revision (the token a 410 Expired
  /// hands back, as apiserver's etcd3 handleCompactedErrorForPaging makes it).
  int64_t resource_version = 0;
  std::string start_ns;          // last key served
  std::string start_name;
  uint64_t snapshot_id = 0;
};

std::string encode_continue(const continue_token& token);
expected<continue_token> decode_continue(const std::string& text);

/// A list's snapshot, shared between the pages cut from it: a page costs its own items,
/// not a copy of every pointer in the list (copied per page, a paged list cost the square
/// of its length).
using shared_snapshot = std::shared_ptr<const object_store::snapshot>;

class list_pager {
public:
  /// Keeps `snap` for later pages and returns its id.
  uint64_t keep(const std::string& scope, shared_snapshot snap);
  /// The kept snapshot for `id` if still there and of the same scope (type + namespace),
  /// else null.
  shared_snapshot find(uint64_t id, const std::string& scope);

  /// Storage compacted every revision below `revision`: snapshots older than it are
  /// dropped and continue tokens from them expire.
  void compact(uint64_t revision);
  /// The revision storage last compacted to (0: never).
  uint64_t compacted_revision() const;

private:
  struct entry {
    std::string scope;
    shared_snapshot snap;
    std::chrono::steady_clock::time_point kept;
  };
  mutable std::mutex mtx_;
  std::map<uint64_t, entry> kept_;
  uint64_t next_id_ = 1;
  uint64_t compacted_ = 0;
};

} // namespace schedopt::sim
