// A list of objects shared with an informer's store (an update stores a new object; a
// holder keeps the one it had), and the list itself shared: copying one (a
// snapshot handed to a run, a run's input handed to its evaluation) shares the list, and
// the first edit of a list someone else still reads copies it then. A snapshot copied out
// of the store cost a pointer and a reference count bump per object, for every list a run
// reads, held beside the store's own through the run.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace schedopt {

template <class T>
class shared_list {
public:
  using value_type = std::shared_ptr<const T>;
  using vector_type = std::vector<value_type>;
  using const_iterator = typename vector_type::const_iterator;
  /// Reading a list never copies it, so its iterators are const even when it is not.
  using iterator = const_iterator;
  using size_type = std::size_t;
  using reference = const value_type&;
  using const_reference = const value_type&;

  shared_list() = default;
  shared_list(vector_type items)
      : items_(items.empty() ? nullptr : std::make_shared<vector_type>(std::move(items))) {}
  shared_list(std::initializer_list<value_type> items) : shared_list(vector_type(items)) {}

  const vector_type& items() const { return items_ ? *items_ : none(); }
  const_iterator begin() const { return items().begin(); }
  const_iterator end() const { return items().end(); }
  size_type size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const value_type& operator[](size_type i) const { return (*items_)[i]; }
  const value_type& at(size_type i) const { return items().at(i); }
  const value_type& front() const { return items_->front(); }
  const value_type& back() const { return items_->back(); }

  /// The list to change, copied first if another holder reads it. Iterators taken
  /// before do not reach the copy.
  vector_type& edit() {
    if (!items_)
      items_ = std::make_shared<vector_type>();
    else if (items_.use_count() > 1) // a holder on another thread may let go meanwhile: a
      items_ = std::make_shared<vector_type>(*items_); // needless copy, never a shared edit
    return *items_;
  }
  void push_back(value_type v) { edit().push_back(std::move(v)); }
  template <class... Args>
  void emplace_back(Args&&... args) {
    edit().emplace_back(std::forward<Args>(args)...);
  }
  void reserve(size_type n) { edit().reserve(n); }
  /// Lets go of the list; other holders keep it.
  void clear() { items_.reset(); }

  /// Whether two holders share one list (tests, and what a snapshot promises).
  bool shares_with(const shared_list& other) const { return items_ && items_ == other.items_; }

private:
  static const vector_type& none() {
    static const vector_type empty;
    return empty;
  }
  std::shared_ptr<vector_type> items_; // null: empty
};

} // namespace schedopt
