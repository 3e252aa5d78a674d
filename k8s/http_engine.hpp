// One libcurl multi handle driven by one thread: every API request and every watch of the
// process shares it (connection reuse, HTTP/2 where offered). Callbacks run on that thread
// and must be quick (actors just anon_send).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/error.hpp"

namespace schedopt::k8s {

struct tls_config {
  std::string ca_file;
  std::string ca_data; // PEM text
  bool insecure_skip_verify = false;
  std::string client_cert_file;
  std::string client_cert_data;
  std::string client_key_file;
  std::string client_key_data;
};

/// A list page (at most `limit` objects) or a bulk SDK answer fits in it with room to
/// spare; a body beyond it is a server fault, refused rather than allowed to exhaust memory.
inline constexpr std::size_t default_max_body_bytes = 256u << 20;

struct http_request {
  std::string method = "GET";
  std::string url;
  std::vector<std::string> headers; // "Name: value"
  std::string body;
  /// Whole-transfer timeout; zero = none (watches).
  std::chrono::milliseconds timeout{0};
  /// Abort when fewer than 1 byte/s arrive for this long; zero = off.
  std::chrono::seconds low_speed_time{0};
  /// Deliver a 2xx body through on_data as it arrives instead of in the result.
  bool streaming = false;
  /// The most bytes a body kept in the result may hold, counted after decompression:
  /// past it the transfer fails with an error instead of growing without bound (a
  /// hostile or broken server, a gzip bomb). A streamed 2xx body is bounded by its
  /// consumer (the watch parser's line limit) instead.
  std::size_t max_body_bytes = default_max_body_bytes;
  /// Send on a connection of its own, closed after it. libcurl resends a request on its
  /// own when a reused connection dies before any answer byte (Curl_retry_request), a
  /// POST included; a request whose replay could repeat a write must never be resent.
  bool no_resend = false;
  /// Client certificate and key (PEM) for this request in place of the engine's: an exec
  /// credential plugin hands out certificates that rotate while the engine lives.
  std::string client_cert_data;
  std::string client_key_data;
};

struct http_result {
  int status = 0;            // 0 when no status line arrived
  std::string body;          // the whole body unless streamed with a 2xx status
  std::string retry_after;   // Retry-After header value
  std::string error;         // transport error text (curl), empty on success
  /// False only when the transfer failed before any of the request could have reached
  /// the server (name lookup, connect, TLS handshake): such a request is safe to resend.
  bool request_sent = true;
  double seconds = 0;        // total transfer time
};

class http_engine {
public:
  using data_callback = std::function<void(std::string_view)>;
  using done_callback = std::function<void(http_result)>;

  explicit http_engine(tls_config tls);
  ~http_engine(); // stops the thread, aborting open transfers (no callbacks after)
  http_engine(const http_engine&) = delete;
  http_engine& operator=(const http_engine&) = delete;

  /// Queues a transfer; `on_done` runs exactly once unless cancelled or stopped.
  uint64_t submit(http_request request, data_callback on_data, done_callback on_done);

  /// Aborts a transfer; its on_done runs with error "cancelled".
  void cancel(uint64_t id);

  void stop();

  /// Transfers currently running or queued.
  std::size_t active() const;

private:
  struct impl;
  std::shared_ptr<impl> impl_; // shared with the thread, which may outlive a stop() from a callback
};

} // namespace schedopt::k8s
