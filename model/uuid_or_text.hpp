// 16 bytes holding a UUID's bytes or, for anything else, a shared text: the form uids and
// provisioned PV names are kept in, hundreds of thousands of them at scale. A UUID and a
// flag beside a text handle took 32 bytes with padding; a text handle fits in the bytes a
// UUID would use, told apart by the version nibble: every UUID Kubernetes makes has one
// (google/uuid's NewRandom: version 4), so one without (the nil UUID among them) is kept
// as text.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "model/shared_string.hpp"

namespace schedopt {

class uuid_or_text {
public:
  using uuid = std::array<uint8_t, 16>;

  /// Empty text.
  uuid_or_text() noexcept;
  /// `bytes` as a UUID when it has a version; else `text_form`, its text.
  uuid_or_text(const uuid& bytes, std::string_view text_form);
  /// Text.
  explicit uuid_or_text(std::string_view text);
  uuid_or_text(const uuid_or_text& other);
  uuid_or_text(uuid_or_text&& other) noexcept;
  uuid_or_text& operator=(const uuid_or_text& other);
  uuid_or_text& operator=(uuid_or_text&& other) noexcept;
  ~uuid_or_text();

  /// A UUID's version is the high nibble of its seventh byte.
  static bool has_version(const uuid& bytes) { return (bytes[6] >> 4) != 0; }

  bool is_uuid() const { return (bytes_[6] >> 4) != 0; }
  /// The UUID (is_uuid()).
  uuid uuid_bytes() const;
  /// The text (!is_uuid()).
  const shared_string& text() const { return *text_ptr(); }

  friend bool operator==(const uuid_or_text& a, const uuid_or_text& b);
  /// UUIDs by their bytes (which order as their canonical text does), texts by text;
  /// a UUID and a text are told apart by the caller, which knows what the UUID reads as.
  int compare_same_form(const uuid_or_text& other) const;
  std::size_t hash() const;

private:
  // Text form: bytes 0-7 zero (so no version), a shared_string in bytes 8-15.
  const shared_string* text_ptr() const;
  shared_string* text_ptr();
  void destroy() noexcept;
  void copy_from(const uuid_or_text& other);

  alignas(8) uint8_t bytes_[16];
};

static_assert(sizeof(shared_string) <= 8, "a text handle fits in half of a UUID's bytes");

} // namespace schedopt
