// A driver's answer by position (docs/design.md §2.3): the replica nodes of a query's i-th
// PV. A fleet's PVs share few distinct sets (three replicas over a few dozen nodes), so
// each set is held once and a PV holds its set's index: 4 bytes a PV, where a vector each
// was 24 bytes and a heap block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/placement/replica_nodes.hpp"

namespace schedopt {

class replica_table {
public:
  /// Appends the next position's nodes, held once with every equal set before it.
  void push_back(const replica_nodes& nodes);
  void reserve(std::size_t positions) { set_of_.reserve(positions); }
  /// Frees the lookup push_back uses; the table still reads the same.
  void seal();

  std::size_t size() const { return set_of_.size(); }
  bool empty() const { return set_of_.empty(); }
  void clear() { *this = replica_table(); }
  const replica_nodes& operator[](std::size_t position) const { return sets_[set_of_[position]]; }

  /// The distinct sets, for what applies to every position alike (normalize()).
  std::vector<replica_nodes>& sets() { return sets_; }
  std::size_t distinct_sets() const { return sets_.size(); }

  /// Defined with the other messages' inspectors (actors/model_inspect.hpp).
  template <class Inspector>
  friend typename Inspector::result_type inspect(Inspector& f, replica_table& x);

private:
  /// shared_string compares by the address of its one copy: so does the lookup.
  struct set_hash {
    std::size_t operator()(const replica_nodes& nodes) const;
  };
  std::vector<replica_nodes> sets_;
  std::vector<uint32_t> set_of_; // per position, an index into sets_
  std::unordered_map<replica_nodes, uint32_t, set_hash> index_;
};

} // namespace schedopt
