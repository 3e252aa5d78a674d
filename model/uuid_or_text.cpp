#include "model/uuid_or_text.hpp"

#include <cstring>
#include <functional>
#include <new>
#include <utility>

namespace schedopt {

uuid_or_text::uuid_or_text() noexcept : uuid_or_text(std::string_view()) {}

uuid_or_text::uuid_or_text(std::string_view text) {
  std::memset(bytes_, 0, sizeof bytes_);
  new (bytes_ + 8) shared_string(text);
}

uuid_or_text::uuid_or_text(const uuid& bytes, std::string_view text_form) {
  if (!has_version(bytes)) {
    std::memset(bytes_, 0, sizeof bytes_);
    new (bytes_ + 8) shared_string(text_form);
    return;
  }
  std::memcpy(bytes_, bytes.data(), sizeof bytes_);
}

const shared_string* uuid_or_text::text_ptr() const {
  return std::launder(reinterpret_cast<const shared_string*>(bytes_ + 8));
}

shared_string* uuid_or_text::text_ptr() {
  return std::launder(reinterpret_cast<shared_string*>(bytes_ + 8));
}

void uuid_or_text::destroy() noexcept {
  if (!is_uuid())
    text_ptr()->~shared_string();
}

void uuid_or_text::copy_from(const uuid_or_text& other) {
  if (other.is_uuid()) {
    std::memcpy(bytes_, other.bytes_, sizeof bytes_);
    return;
  }
  std::memset(bytes_, 0, sizeof bytes_);
  new (bytes_ + 8) shared_string(other.text());
}

uuid_or_text::uuid_or_text(const uuid_or_text& other) { copy_from(other); }

// shared_string's move copies its handle and does not throw.
uuid_or_text::uuid_or_text(uuid_or_text&& other) noexcept { copy_from(other); }

uuid_or_text& uuid_or_text::operator=(const uuid_or_text& other) {
  if (this != &other) {
    uuid_or_text copy(other);
    destroy();
    copy_from(copy);
  }
  return *this;
}

uuid_or_text& uuid_or_text::operator=(uuid_or_text&& other) noexcept {
  if (this != &other) {
    destroy();
    copy_from(other);
  }
  return *this;
}

uuid_or_text::~uuid_or_text() { destroy(); }

uuid_or_text::uuid uuid_or_text::uuid_bytes() const {
  uuid out;
  std::memcpy(out.data(), bytes_, out.size());
  return out;
}

bool operator==(const uuid_or_text& a, const uuid_or_text& b) {
  if (a.is_uuid() != b.is_uuid())
    return false;
  return a.is_uuid() ? std::memcmp(a.bytes_, b.bytes_, sizeof a.bytes_) == 0 : a.text() == b.text();
}

int uuid_or_text::compare_same_form(const uuid_or_text& other) const {
  return is_uuid() ? std::memcmp(bytes_, other.bytes_, sizeof bytes_)
                   : text().view().compare(other.text().view());
}

std::size_t uuid_or_text::hash() const {
  if (!is_uuid())
    return std::hash<std::string_view>{}(text().view());
  return std::hash<std::string_view>{}(
    std::string_view(reinterpret_cast<const char*>(bytes_), sizeof bytes_));
}

} // namespace schedopt
