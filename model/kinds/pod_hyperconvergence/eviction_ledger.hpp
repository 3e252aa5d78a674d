// docs/design.md §9 resume: which pods this request evicted, kept durably beside the
// cool-off record on the owning StatefulSet or ReplicaSet (pod_cool_off.hpp). An
// evicted pod is gone, and a ReplicaSet's replacement has another name: nothing else in
// the cluster says, after a crash, that this request evicted it. The VM kind's VMIMs
// carry the request's uid; for pods the owner does.
//
// Before each eviction schedopt writes, in one merge patch on the owner, the cool-off
// time, the request's uid and the ledger: every pod of that owner this request is
// evicting or has evicted, as `<name>/<uid>/<RFC3339>/<node>+<node>...` entries
// (the best nodes its replacement counts as Successful on), comma-separated. Pod and
// node names are DNS names and uids hex and dashes, so neither separator occurs in them.
// An entry whose eviction was refused for good is taken out again. A record another
// request wrote starts the ledger afresh: only this request's entries are ever read.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/kinds/pod_hyperconvergence/pod_cool_off.hpp"
#include "model/kinds/pod_hyperconvergence/replacement.hpp"

namespace schedopt::pod_hyperconvergence {

/// The ledger's annotation key beside the cool-off record `key`: `<key>-pods`.
std::string eviction_ledger_annotation(const std::string& key);

/// One pod of the owner this request is evicting or evicted.
struct ledger_entry {
  std::string name;
  std::string uid;
  timestamp evicted_at;
  std::vector<std::string> best_nodes;
};

bool operator==(const ledger_entry& a, const ledger_entry& b);

/// The entries this request wrote on the owner: none when the record names another
/// request (or none). An entry that does not parse is left out.
std::vector<ledger_entry> read_eviction_ledger(const string_map& owner_annotations,
                                               const std::string& key,
                                               const std::string& request_uid);

/// The ledger's text for `entries`.
std::string format_eviction_ledger(const std::vector<ledger_entry>& entries);

/// The merge patch that records this request's evictions on the owner: the cool-off
/// time (the latest entry's), the request's uid and the ledger. With no entry left it
/// puts back the record `before` the request first wrote (cool_off_record_of, the
/// ledger key included): a workload none of whose pods went must not cool off.
nlohmann::json eviction_record_patch(const std::string& key, const std::string& request_uid,
                                     const std::vector<ledger_entry>& entries,
                                     const string_map& before);

/// The record's three annotation keys: the cool-off time, the request's uid, the ledger.
/// What an owner's informer store keeps of its annotations (a store without the ledger
/// would let a restarted run forget what it evicted).
std::vector<std::string> eviction_record_keys(const std::string& key);

/// The record's three annotations as the owner had them (absent keys absent).
string_map eviction_record_of(const string_map& owner_annotations, const std::string& key);

/// An evicted pod as its ledger entry says, for the engine to track again on resume.
evicted_pod evicted_from_ledger(const ledger_entry& e, const workload_ref& owner);

/// The entry for an eviction record.
ledger_entry ledger_entry_of(const evicted_pod& e);

} // namespace schedopt::pod_hyperconvergence
