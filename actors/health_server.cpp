// See health_server.hpp. cpp-httplib, one listen thread and its own worker pool.
#include "actors/health_server.hpp"

#include <thread>

#include <httplib.h>

#include "actors/listen_address.hpp"
#include "k8s/listen_thread.hpp"

namespace schedopt {

struct health_server::impl {
  httplib::Server server;
  std::thread thread;
};

expected<std::unique_ptr<health_server>> health_server::start(const std::string& listen) {
  auto address = parse_listen_address(listen, "--health-listen");
  if (!address)
    return address.err();
  std::unique_ptr<health_server> out{new health_server};
  out->impl_ = std::make_unique<impl>();
  auto* self = out.get();
  auto& srv = out->impl_->server;
  srv.new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
  // A probe is one request on a connection of its own (the kubelet's prober disables
  // keep-alive), so a connection is closed after its answer and none idles on a worker.
  srv.set_keep_alive_max_count(1);
  srv.set_keep_alive_timeout(silence_timeout_seconds);
  srv.set_read_timeout(silence_timeout_seconds, 0);
  srv.set_write_timeout(silence_timeout_seconds, 0);
  srv.set_tcp_nodelay(true);
  srv.Get("/healthz", [self](const httplib::Request&, httplib::Response& res) {
    auto why = self->unhealthy_reason();
    res.status = why.empty() ? 200 : 503;
    res.set_content(why.empty() ? "ok" : "unhealthy: " + why, "text/plain");
  });
  srv.Get("/readyz", [self](const httplib::Request&, httplib::Response& res) {
    auto why = self->ready_ ? self->unhealthy_reason() : std::string{"informers not synced"};
    res.status = why.empty() ? 200 : 503;
    res.set_content(why.empty() ? "ok" : "not ready: " + why, "text/plain");
  });
  auto bound = bind_listen_address(srv, *address, "--health-listen", listen);
  if (!bound)
    return bound.err();
  out->port_ = *bound;
  out->impl_->thread = start_listening(srv);
  return out;
}

void health_server::set_health_check(std::function<std::string()> check) {
  std::lock_guard<std::mutex> guard{health_mutex_};
  health_check_ = std::move(check);
}

std::string health_server::unhealthy_reason() {
  std::lock_guard<std::mutex> guard{health_mutex_};
  return health_check_ ? health_check_() : std::string{};
}

health_server::~health_server() {
  if (impl_) {
    impl_->server.stop();
    if (impl_->thread.joinable())
      impl_->thread.join();
  }
}

} // namespace schedopt
