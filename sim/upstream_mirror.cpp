// Follows client-go tools/cache/reflector.go (ListAndWatch, watchHandler): a list's
// resourceVersion starts the watch, every event's moves it on, bookmarks included; a
// watch that ends is resumed from there, one answered 410 Expired starts over with a
// list; other failures back off from 1 s to 30 s.
#include "sim/upstream_mirror.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <spdlog/spdlog.h>

#include "sim/json_fields.hpp"
#include "sim/object_store.hpp"
#include "sim/upstream_client.hpp"

namespace schedopt::sim {

struct upstream_mirror::impl {
  object_store& store;
  upstream_client& client;
  std::atomic<bool> stopping{false};
  std::mutex mtx;
  std::condition_variable cv;
  std::size_t synced = 0;
  std::optional<error> first_error;
  std::vector<std::thread> threads;

  impl(object_store& s, upstream_client& c) : store(s), client(c) {}

  void sleep_for(std::chrono::milliseconds d) {
    std::unique_lock<std::mutex> guard(mtx);
    cv.wait_for(guard, d, [&] { return stopping.load(); });
  }

  void reflect(const std::string& key) {
    auto type = store.find_type(key);
    if (!type)
      return;
    bool counted = false;
    auto backoff = std::chrono::milliseconds(1000);
    while (!stopping) {
      auto listed = client.list(*type);
      if (!listed) {
        spdlog::warn("attach: list {}: {}", key, listed.err().message);
        {
          std::lock_guard<std::mutex> guard(mtx);
          if (!counted && !first_error)
            first_error = listed.err();
        }
        cv.notify_all();
        sleep_for(backoff);
        backoff = std::min(backoff * 2, std::chrono::milliseconds(30000));
        continue;
      }
      store.mirror_list(key, listed->items);
      if (!counted) {
        counted = true;
        std::lock_guard<std::mutex> guard(mtx);
        ++synced;
        cv.notify_all();
      }
      auto rv = listed->resource_version;
      while (!stopping) {
        auto ended = client.watch(
          *type, rv,
          [&](const std::string& event, nlohmann::json object) {
            if (auto seen = metadata_text(object, "resourceVersion"); !seen.empty())
              rv = seen;
            if (event == "ADDED" || event == "MODIFIED" || event == "DELETED")
              store.mirror(key, event, std::move(object));
            return true;
          },
          stopping);
        if (!ended) {
          backoff = std::chrono::milliseconds(1000);
          continue; // resumed from the last resourceVersion
        }
        if (ended->code != ec::gone) {
          spdlog::warn("attach: watch {}: {}", key, ended->message);
          sleep_for(backoff);
          backoff = std::min(backoff * 2, std::chrono::milliseconds(30000));
        }
        break; // list again
      }
    }
  }
};

upstream_mirror::upstream_mirror(object_store& store, upstream_client& client)
  : impl_(std::make_unique<impl>(store, client)) {}

upstream_mirror::~upstream_mirror() { stop(); }

void upstream_mirror::start(const std::vector<std::string>& keys) {
  for (const auto& key : keys)
    impl_->threads.emplace_back([this, key] { impl_->reflect(key); });
}

expected<bool> upstream_mirror::wait_synced(std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> guard(impl_->mtx);
  bool done = impl_->cv.wait_for(guard, timeout, [&] {
    return impl_->synced == impl_->threads.size() || impl_->first_error.has_value();
  });
  if (impl_->synced == impl_->threads.size())
    return true;
  if (impl_->first_error)
    return *impl_->first_error;
  (void)done;
  return make_error(ec::timeout, "the API server's objects were not all listed in time");
}

void upstream_mirror::stop() {
  {
    std::lock_guard<std::mutex> guard(impl_->mtx);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  impl_->client.cancel_watches();
  for (auto& t : impl_->threads)
    if (t.joinable())
      t.join();
  impl_->threads.clear();
}

} // namespace schedopt::sim
