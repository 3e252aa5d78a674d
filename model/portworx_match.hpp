// Which Portworx volume backs each PV asked about, and on which Portworx nodes its
// replicas are. The bulk answer is matched volume by volume as it decodes, so neither the
// answer's volumes (every volume of the cluster) nor their node-id strings are ever held: a
// matched PV keeps small indices into one table of the (few) distinct node ids.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/hashed_names.hpp"
#include "model/objects.hpp"
#include "model/portworx_sdk.hpp"

namespace schedopt {

class px_volume_match {
public:
  /// Views into `pvs`' names and handles are kept: the caller keeps `pvs` alive.
  explicit px_volume_match(const shared_list<persistent_volume>& pvs);

  /// A volume of the bulk answer. A PV whose handle is the volume's id takes it; a handle
  /// that names the volume takes it only if no volume has that id (as one lookup by id,
  /// then by name, over the whole answer would).
  void offer(const sdk_volume& volume);
  /// The answer has been offered whole: frees what offer() searches (an entry per PV)
  /// before visit() builds the driver's answer beside what is kept.
  void end_of_offers();
  /// A per-volume inspect's answer for PV `index` (the fallback for old gateways).
  void record(std::size_t index, const std::vector<std::string>& replica_node_ids);

  /// Every PV in the order given: `found(pv, node ids)` or `missing(pv)`.
  void visit(const std::function<void(const persistent_volume&,
                                      const std::vector<const std::string*>&)>& found,
             const std::function<void(const persistent_volume&)>& missing) const;

  std::size_t distinct_nodes() const { return node_ids_.size(); }

private:
  /// A PV's match: its replicas' node indices are ids_[first, first + count). A match by
  /// name is replaced by a later match by id; its indices stay behind in ids_, which the
  /// answer's size bounds. 8 bytes a PV, where two vectors were 56 and a heap block each.
  enum class matched : uint8_t { none, by_name, by_id };
  struct wanted {
    uint32_t first = 0;
    uint16_t count = 0;
    matched how = matched::none;
  };
  void take(wanted& w, matched how, const std::vector<std::string>& node_ids);

  const shared_list<persistent_volume>& pvs_;
  std::vector<wanted> wanted_; // per PV, in pvs_' order
  std::vector<uint32_t> ids_;
  std::optional<std::string_view> handle_at(std::size_t i) const;
  /// Each PV's handle as text, side by side in one string (the PVs keep a Portworx id as
  /// its number, model/decimal_text.hpp): a lookup that hits reads here, where going
  /// through pvs_ read a pointer and the PV object first (two cache misses more, per
  /// answered volume, on the thread that downloads the answer).
  std::string handle_text_;
  std::vector<uint32_t> handle_ends_; // handle i is handle_text_[ends[i-1], ends[i])
  /// PV indices by handle: searched for each answered volume's id and name, as the answer
  /// streams in (sorting a vector of them held the call back before it went out).
  hashed_names by_handle_;
  std::vector<std::string> node_ids_;
  std::unordered_map<std::string, uint32_t> node_index_;
};

} // namespace schedopt
