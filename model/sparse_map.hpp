// A string map kept on the heap only while it has entries. The stores' VMIs and
// VirtualMachines keep only the cool-off record of their annotations, which most never
// carry: 8 bytes each instead of an empty std::map's 48. Reads like the map; an empty
// one reads as a shared empty map, so its iterators compare with each other.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

namespace schedopt {

class sparse_map {
public:
  using map_type = std::map<std::string, std::string>;
  using const_iterator = map_type::const_iterator;
  using value_type = map_type::value_type;

  sparse_map() = default;
  sparse_map(map_type values) { assign(std::move(values)); }
  sparse_map(const sparse_map& other) : map_(other.map_ ? std::make_unique<map_type>(*other.map_) : nullptr) {}
  sparse_map(sparse_map&&) noexcept = default;
  sparse_map& operator=(const sparse_map& other) {
    if (this != &other)
      map_ = other.map_ ? std::make_unique<map_type>(*other.map_) : nullptr;
    return *this;
  }
  sparse_map& operator=(sparse_map&&) noexcept = default;
  sparse_map& operator=(map_type values) {
    assign(std::move(values));
    return *this;
  }

  const map_type& map() const { return map_ ? *map_ : empty_map(); }
  operator const map_type&() const { return map(); }
  /// The map to change; an empty one is released by the next assign() or shrink().
  map_type& edit() {
    if (!map_)
      map_ = std::make_unique<map_type>();
    return *map_;
  }
  /// Releases the heap map once it holds nothing.
  void shrink() {
    if (map_ && map_->empty())
      map_.reset();
  }

  std::string& operator[](const std::string& key) { return edit()[key]; }
  const std::string& at(const std::string& key) const { return map().at(key); }
  const_iterator find(const std::string& key) const { return map().find(key); }
  std::size_t count(const std::string& key) const { return map().count(key); }
  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  bool empty() const { return map().empty(); }
  std::size_t size() const { return map().size(); }
  std::size_t erase(const std::string& key) {
    auto n = map_ ? map_->erase(key) : 0;
    shrink();
    return n;
  }
  void clear() { map_.reset(); }

  friend bool operator==(const sparse_map& a, const sparse_map& b) { return a.map() == b.map(); }
  friend bool operator!=(const sparse_map& a, const sparse_map& b) { return !(a == b); }

private:
  static const map_type& empty_map() {
    static const map_type none;
    return none;
  }
  void assign(map_type values) {
    map_ = values.empty() ? nullptr : std::make_unique<map_type>(std::move(values));
  }

  std::unique_ptr<map_type> map_;
};

} // namespace schedopt
