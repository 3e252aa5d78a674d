// An optional value kept on the heap. A stored VMI is one of 10,000; its migrationState is
// 240 bytes that only VMIs which have migrated carry, so the store pays 8 bytes for the
// others instead of 240. Reads like std::optional; copies copy the value.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace schedopt {

template <class T>
class boxed_optional {
public:
  boxed_optional() = default;
  boxed_optional(std::nullopt_t) {}
  boxed_optional(T value) : value_(std::make_unique<T>(std::move(value))) {}
  boxed_optional(const boxed_optional& other) : value_(clone(other)) {}
  boxed_optional(boxed_optional&&) noexcept = default;

  boxed_optional& operator=(const boxed_optional& other) {
    if (this != &other)
      value_ = clone(other);
    return *this;
  }
  boxed_optional& operator=(boxed_optional&&) noexcept = default;
  boxed_optional& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  boxed_optional& operator=(const std::optional<T>& value) {
    value_ = value ? std::make_unique<T>(*value) : nullptr;
    return *this;
  }
  boxed_optional& operator=(T value) {
    emplace(std::move(value));
    return *this;
  }

  template <class... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }

private:
  static std::unique_ptr<T> clone(const boxed_optional& other) {
    return other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
  }

  std::unique_ptr<T> value_;
};

} // namespace schedopt
