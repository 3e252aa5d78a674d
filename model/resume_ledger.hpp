// docs/design.md §4.1 resume accounting: what a request's recorded status already accounts for, so
// a resumed run counts every candidate exactly once (successful, failed, skipped or
// outstanding) and adopted VMs use one slot of maxNonHyperconvergedPerRun.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/objects.hpp"

namespace schedopt {

class resume_ledger {
public:
  resume_ledger() = default;
  /// From the kind's status block as recorded when the run was interrupted.
  explicit resume_ledger(const kind_status_block& recorded);

  /// VMs whose engine result (Successful/Failed) is recorded. Engine results always
  /// get a detail (the writer reserves their slots), so this set is complete.
  const std::set<std::string>& engine_done() const { return engine_done_; }
  /// "<ns>/<name>" the status names, whatever their status: never evaluated again.
  bool accounted(const std::string& key) const;
  /// Nothing is accounted for: a fresh run's ledger.
  bool empty() const { return named_.empty() && engine_done_.empty(); }
  /// Skips counted but not named (details are capped): those VMs are still skipped, so
  /// as many of a re-evaluation's unnamed skips are not new.
  int64_t unnamed_skips() const { return unnamed_skips_; }

  /// Slots of maxNonHyperconvergedPerRun already used: engine results plus adopted
  /// VMIMs (`adopted`: VM keys with a VMIM of this request), each VM once.
  int64_t slots_used(const std::set<std::string>& adopted) const;

  /// The skips of a re-evaluation (of VMs not accounted()) that are new: all of them
  /// when every earlier skip is named, else all but unnamed_skips() of them.
  std::vector<kind_detail> new_skips(const std::vector<kind_detail>& skips) const;

private:
  std::set<std::string> engine_done_;
  std::set<std::string> named_;
  int64_t unnamed_skips_ = 0;
};

} // namespace schedopt
