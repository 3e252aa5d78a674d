// The proxy forwards as client-go's transport sees a server: every method and header but
// the hop-by-hop ones and Accept-Encoding (the body passes through unchanged), plain
// answers buffered, watches streamed event by event as they arrive. Faults are decided
// before forwarding, as the simulator's API server decides them (sim/api_server.cpp
// serve()), except reset_after_commit, which forwards, sees the write succeed, and cuts
// the client off unanswered.
#include "sim/fault_proxy.hpp"
#include "sim/listen_backlog.hpp"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <openssl/ssl.h>
#include <poll.h>

#include "sim/answer_fault_responses.hpp"
#include "sim/answer_faults.hpp"
#include "sim/api_server_status.hpp"
#include "sim/partitions.hpp"
#include "sim/tls_server.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;
using proxy_clock = std::chrono::steady_clock;

bool watch_requested(const httplib::Request& req) {
  auto w = req.has_param("watch") ? req.get_param_value("watch") : std::string{};
  return w == "1" || w == "true" || req.path.find("/watch/") != std::string::npos;
}

bool write_method(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

/// Headers that describe one hop, not the request; and Accept-Encoding, so the answer
/// comes back as the client would read it without the proxy decoding it in between.
bool forwarded_header(const std::string& name) {
  std::string lower;
  for (char c : name)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower != "host" && lower != "connection" && lower != "content-length" && lower != "transfer-encoding"
         && lower != "accept-encoding" && lower != "keep-alive" && lower != "remote_addr" && lower != "remote_port"
         && lower != "local_addr" && lower != "local_port";
}

/// The path with its query, as the client sent it.
std::string target_of(const httplib::Request& req) {
  auto query = req.target.find('?');
  return query == std::string::npos ? req.path : req.path + req.target.substr(query);
}

/// Whether the client hung up (a watch it stopped): a quiet stream would otherwise hold
/// its server thread until the next event failed to write.
bool client_hung_up(int fd) {
  if (fd < 0)
    return false;
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/// Chunks of a streamed answer, handed from the upstream reader to the client writer.
struct stream_pipe {
  std::mutex mtx;
  std::condition_variable cv;
  std::deque<std::string> chunks;
  bool ended = false;
  bool headers_known = false;
  int status = 0;
  httplib::Headers headers;
  std::atomic<bool> cancelled{false};
};

} // namespace

struct fault_proxy::impl {
  fault_proxy_options options;
  fault_injector faults;
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
  std::atomic<bool> stopping{false};

  explicit impl(fault_proxy_options o) : options(std::move(o)), faults(options.faults) {}

  std::unique_ptr<httplib::Client> connect() const {
    auto client = std::make_unique<httplib::Client>(options.upstream.server);
    if (!options.upstream.ca_file.empty())
      client->set_ca_cert_path(options.upstream.ca_file.c_str());
    client->enable_server_certificate_verification(true);
    client->set_tcp_nodelay(true);
    client->set_keep_alive(true);
    client->set_connection_timeout(10);
    client->set_read_timeout(120);
    client->set_write_timeout(60);
    client->set_decompress(false);
    return client;
  }

  /// One upstream connection per server thread, kept alive between requests.
  httplib::Client& client() const {
    thread_local std::unique_ptr<httplib::Client> mine;
    thread_local std::string for_server;
    if (!mine || for_server != options.upstream.server) {
      mine = connect();
      for_server = options.upstream.server;
    }
    return *mine;
  }

  httplib::Request upstream_request(const httplib::Request& req) const {
    httplib::Request out;
    out.method = req.method;
    out.path = target_of(req);
    for (const auto& [name, value] : req.headers)
      if (forwarded_header(name))
        out.headers.emplace(name, value);
    out.body = req.body;
    return out;
  }

  static void copy_answer_headers(const httplib::Headers& from, httplib::Response& res) {
    for (const auto& [name, value] : from)
      if (forwarded_header(name) && name != "Content-Type" && name != "Content-Encoding")
        res.set_header(name, value);
  }

  /// As the simulator's API server holds a cut-off client: unanswered until the
  /// partition ends, then a 504 status line and none of the body it promises.
  void hold_unanswered(const std::string& agent, httplib::Response& res) {
    options.partitions->count_held(agent, proxy_clock::now());
    while (!stopping) {
      auto now = proxy_clock::now();
      auto until = options.partitions->cut_until(agent, now);
      if (!until)
        break;
      std::this_thread::sleep_for(std::min<proxy_clock::duration>(*until - now, std::chrono::milliseconds(50)));
    }
    res.status = 504;
    res.set_header("Connection", "close");
    res.set_content_provider(64, "application/json", [](size_t, size_t, httplib::DataSink&) { return false; });
  }

  /// Faults decided before the request reaches the server; true when one answered.
  bool injected(const httplib::Request& req, httplib::Response& res) {
    if (!fault_injector::applies_to(req.path))
      return false;
    if (options.faults.latency.count() > 0)
      std::this_thread::sleep_for(options.faults.latency);
    if (auto fault = faults.roll()) {
      json details = nullptr;
      if (fault->retry_after_seconds > 0) {
        res.set_header("Retry-After", std::to_string(fault->retry_after_seconds));
        details = {{"retryAfterSeconds", fault->retry_after_seconds}};
      }
      send_json(res, fault->status, status_failure(fault->status, fault->reason, fault->message, details));
      return true;
    }
    if (!options.answers)
      return false;
    if (auto held = options.answers->take_hold("api", req.method, req.path, watch_requested(req)))
      std::this_thread::sleep_for(held->hold);
    if (auto broken = options.answers->take("api", req.method, req.path, watch_requested(req))) {
      send_answer_fault(*broken, res);
      return true;
    }
    return false;
  }

  void forward(const httplib::Request& req, httplib::Response& res) {
    auto result = client().send(upstream_request(req));
    if (!result) {
      res.status = 502;
      res.set_content(status_failure(502, "BadGateway", "fault proxy: " + httplib::to_string(result.error())).dump(),
                      "application/json");
      return;
    }
    res.status = result->status;
    copy_answer_headers(result->headers, res);
    if (result->has_header("Content-Encoding"))
      res.set_header("Content-Encoding", result->get_header_value("Content-Encoding"));
    res.set_content(result->body, result->get_header_value("Content-Type"));
    if (write_method(req.method) && result->status / 100 == 2 && options.answers
        && fault_injector::applies_to(req.path) && options.answers->take_after_commit("api", req.method, req.path))
      reset_connection(req); // the server stored it; the client never hears so
  }

  /// A watch: upstream read on a thread of its own, written to the client as it comes;
  /// silent while a partition cuts the client, ended after --watch-drop-after.
  void stream(const httplib::Request& req, httplib::Response& res) {
    auto pipe = std::make_shared<stream_pipe>();
    auto forwarded = upstream_request(req);
    auto agent = req.get_header_value("User-Agent");
    std::shared_ptr<httplib::Client> upstream = connect();
    upstream->set_read_timeout(3600);
    forwarded.response_handler = [pipe](const httplib::Response& r) {
      std::lock_guard<std::mutex> guard(pipe->mtx);
      pipe->status = r.status;
      pipe->headers = r.headers;
      pipe->headers_known = true;
      pipe->cv.notify_all();
      return true;
    };
    forwarded.content_receiver = [pipe](const char* data, size_t n, uint64_t, uint64_t) {
      std::lock_guard<std::mutex> guard(pipe->mtx);
      pipe->chunks.emplace_back(data, n);
      pipe->cv.notify_all();
      return !pipe->cancelled.load();
    };
    auto reader = std::make_shared<std::thread>([pipe, upstream, forwarded]() mutable {
      httplib::Response ignored;
      httplib::Error error = httplib::Error::Success;
      upstream->send(forwarded, ignored, error);
      std::lock_guard<std::mutex> guard(pipe->mtx);
      if (!pipe->headers_known) {
        pipe->status = 502;
        pipe->chunks.push_back(status_failure(502, "BadGateway", "fault proxy: " + httplib::to_string(error)).dump());
        pipe->headers_known = true;
      }
      pipe->ended = true;
      pipe->cv.notify_all();
    });
    std::string content_type;
    {
      std::unique_lock<std::mutex> lock(pipe->mtx);
      pipe->cv.wait(lock, [&] { return pipe->headers_known; });
      res.status = pipe->status;
      copy_answer_headers(pipe->headers, res);
      if (auto it = pipe->headers.find("Content-Type"); it != pipe->headers.end())
        content_type = it->second;
    }
    auto drop_at = options.faults.watch_drop_after.count() > 0 ? proxy_clock::now() + options.faults.watch_drop_after
                                                               : proxy_clock::time_point::max();
    // httplib gzips a chunked answer of type application/json for a client that accepts
    // it, and its compressor holds each event back until more come: a watch would stall.
    // kube-apiserver streams watches uncompressed, so the proxy does too.
    const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
    int client_fd = req.ssl ? SSL_get_fd(req.ssl) : -1;
    res.set_chunked_content_provider(
      content_type.empty() ? "application/json" : content_type,
      [this, pipe, agent, drop_at, client_fd](size_t, httplib::DataSink& sink) {
        for (;;) {
          if (stopping || proxy_clock::now() >= drop_at || client_hung_up(client_fd))
            return false;
          if (options.partitions && options.partitions->cut_until(agent, proxy_clock::now())) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
          }
          std::unique_lock<std::mutex> lock(pipe->mtx);
          pipe->cv.wait_for(lock, std::chrono::milliseconds(100),
                            [&] { return !pipe->chunks.empty() || pipe->ended; });
          if (!pipe->chunks.empty()) {
            auto chunk = std::move(pipe->chunks.front());
            pipe->chunks.pop_front();
            lock.unlock();
            return sink.write(chunk.data(), chunk.size());
          }
          if (pipe->ended) {
            lock.unlock();
            sink.done();
            return true;
          }
        }
      },
      [pipe, upstream, reader](bool) {
        // The client is gone or done: so is the upstream watch.
        pipe->cancelled = true;
        upstream->stop();
        if (reader->joinable())
          reader->join();
      });
  }

  void serve(const httplib::Request& req, httplib::Response& res) {
    auto agent = req.get_header_value("User-Agent");
    if (options.partitions && options.partitions->cut_until(agent, proxy_clock::now()))
      return hold_unanswered(agent, res);
    if (injected(req, res))
      return;
    if (watch_requested(req))
      return stream(req, res);
    forward(req, res);
  }
};

fault_proxy::fault_proxy(fault_proxy_options options) : impl_(std::make_unique<impl>(std::move(options))) {}

fault_proxy::~fault_proxy() { stop(); }

expected<std::string> fault_proxy::start(const tls_material& tls) {
  auto server = make_tls_server(tls, "fault proxy");
  if (!server)
    return server.err();
  impl_->server = std::move(*server);
  auto& svr = *impl_->server;
  // A thread per open watch: a fleet of controllers holds a dozen watches each.
  serve_like_an_api_server(svr, 256,
                           [this](const httplib::Request& req, httplib::Response& res) { impl_->serve(req, res); });
  int port = bind_with_go_backlog(svr, "127.0.0.1", 0);
  if (port <= 0)
    return make_error(ec::transport_error, "the fault proxy cannot listen on 127.0.0.1");
  impl_->thread = std::thread([this] { impl_->server->listen_after_bind(); });
  return "https://127.0.0.1:" + std::to_string(port);
}

void fault_proxy::stop() {
  impl_->stopping = true;
  if (impl_->server)
    impl_->server->stop();
  if (impl_->thread.joinable())
    impl_->thread.join();
}

} // namespace schedopt::sim
