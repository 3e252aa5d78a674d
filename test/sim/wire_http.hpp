// libcurl helpers for the wire-level tests: one-shot requests and a background watch
// reader that collects newline-delimited events from a streaming response.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <curl/curl.h>
#include <nlohmann/json.hpp>

#include "sim_process.hpp"

namespace schedopt::test {

struct http_reply {
  long status = 0;
  std::string body;
  std::string headers;
  nlohmann::json json() const { return nlohmann::json::parse(body, nullptr, false); }
  bool has_header(const std::string& line) const { return headers.find(line) != std::string::npos; }
};

inline size_t collect_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

/// `s` escaped for a URL query value.
inline std::string url_encode(const std::string& s) {
  char* escaped = curl_easy_escape(nullptr, s.data(), static_cast<int>(s.size()));
  std::string out = escaped ? escaped : "";
  curl_free(escaped);
  return out;
}

/// The base URL a request for `path` goes to.
template <class Endpoint>
std::string base_url_for(const Endpoint& e, const std::string&) {
  return e.url();
}
inline std::string base_url_for(const sim_process& sim, const std::string& path) { return sim.url_for(path); }

/// One request against an API server: the simulator, or any endpoint with the same
/// url(), ca_file() and token() (test/realcp's control plane); `token_override` empty
/// sends no Authorization header.
template <class Endpoint>
http_reply http_request(const Endpoint& sim, const std::string& method,
                               const std::string& path, const std::string& body = {},
                               const std::string& content_type = "application/json",
                               const std::string& token_override = "\x01",
                               const std::vector<std::string>& extra_headers = {}) {
  http_reply reply;
  CURL* curl = curl_easy_init();
  std::string url = base_url_for(sim, path) + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CAINFO, sim.ca_file().c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collect_body);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  curl_slist* headers = nullptr;
  std::string token = token_override == "\x01" ? sim.token() : token_override;
  if (!token.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    if (!body.empty())
      headers = curl_slist_append(headers, ("Content-Type: " + content_type).c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  for (auto& h : extra_headers)
    headers = curl_slist_append(headers, h.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (curl_easy_perform(curl) == CURLE_OK)
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return reply;
}

/// Streams GET `path` on a thread; lines() are the complete JSON lines seen so far.
class watch_reader {
public:
  watch_reader(const sim_process& sim, const std::string& path) {
    thread_ = std::thread([this, url = sim.url() + path, ca = sim.ca_file(), token = sim.token()] {
      CURL* curl = curl_easy_init();
      curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
      curl_easy_setopt(curl, CURLOPT_CAINFO, ca.c_str());
      curl_easy_setopt(curl, CURLOPT_TIMEOUT, 120L);
      curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &watch_reader::on_data);
      curl_easy_setopt(curl, CURLOPT_WRITEDATA, this);
      curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, collect_body);
      curl_easy_setopt(curl, CURLOPT_HEADERDATA, &headers_);
      curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
      curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &watch_reader::on_progress);
      curl_easy_setopt(curl, CURLOPT_XFERINFODATA, this);
      curl_slist* headers = curl_slist_append(nullptr, ("Authorization: Bearer " + token).c_str());
      curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
      curl_easy_perform(curl);
      curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status_);
      curl_slist_free_all(headers);
      curl_easy_cleanup(curl);
      std::lock_guard<std::mutex> guard(mtx_);
      finished_ = true;
      cv_.notify_all();
    });
  }

  ~watch_reader() { stop(); }

  void stop() {
    cancel_ = true;
    if (thread_.joinable())
      thread_.join();
  }

  std::vector<nlohmann::json> lines() {
    std::lock_guard<std::mutex> guard(mtx_);
    return lines_;
  }

  /// Waits until `pred(lines)` holds or `timeout` passes; returns whether it held.
  template <class Pred>
  bool wait_for(Pred pred, std::chrono::seconds timeout = std::chrono::seconds(20)) {
    std::unique_lock<std::mutex> guard(mtx_);
    return cv_.wait_for(guard, timeout, [&] { return pred(lines_); });
  }

  /// Waits for the server to end the stream.
  bool wait_finished(std::chrono::seconds timeout = std::chrono::seconds(30)) {
    std::unique_lock<std::mutex> guard(mtx_);
    return cv_.wait_for(guard, timeout, [&] { return finished_; });
  }

  long status() const { return status_; }
  const std::string& headers() const { return headers_; }

private:
  static size_t on_data(char* data, size_t size, size_t n, void* user) {
    auto* self = static_cast<watch_reader*>(user);
    std::lock_guard<std::mutex> guard(self->mtx_);
    self->pending_.append(data, size * n);
    std::size_t pos;
    while ((pos = self->pending_.find('\n')) != std::string::npos) {
      auto line = self->pending_.substr(0, pos);
      self->pending_.erase(0, pos + 1);
      if (!line.empty())
        self->lines_.push_back(nlohmann::json::parse(line, nullptr, false));
    }
    self->cv_.notify_all();
    return size * n;
  }

  static int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<watch_reader*>(user)->cancel_ ? 1 : 0;
  }

  std::thread thread_;
  std::mutex mtx_;
  std::condition_variable cv_;
  std::string pending_;
  std::string headers_;
  std::vector<nlohmann::json> lines_;
  std::atomic<bool> cancel_{false};
  bool finished_ = false;
  long status_ = 0;
};

} // namespace schedopt::test
