// See metrics_server.hpp. cpp-httplib serves on its own small thread pool.
#include "actors/metrics_server.hpp"

#include <thread>

#include <httplib.h>

#include "k8s/listen_thread.hpp"
#include "k8s/metrics.hpp"
#include "schedopt_version.hpp"

namespace schedopt {

namespace {

/// What every /metrics answer carries besides the controller's own series: the build
/// and the standard process_* metrics (read from /proc at each scrape). Once per process.
void register_standard_metrics() {
  static bool registered = [] {
    auto& m = k8s::default_metrics();
    m.describe_gauge("schedopt_build_info", "1, labelled with the version and git revision.");
    m.gauge_set("schedopt_build_info", {{"version", build_version}, {"revision", build_revision}},
                1);
    k8s::register_process_metrics(m);
    return true;
  }();
  (void) registered;
}

} // namespace

struct metrics_server::impl {
  httplib::Server server;
  std::thread thread;
};

expected<std::unique_ptr<metrics_server>> metrics_server::start(const std::string& listen) {
  auto colon = listen.rfind(':');
  if (colon == std::string::npos)
    return make_error(ec::config_error, "--metrics-listen \"" + listen + "\": expected [host]:port");
  std::string host = listen.substr(0, colon);
  if (host.empty())
    host = "0.0.0.0";
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (...) {
    return make_error(ec::config_error, "--metrics-listen \"" + listen + "\": bad port");
  }
  register_standard_metrics();
  std::unique_ptr<metrics_server> out{new metrics_server};
  out->impl_ = std::make_unique<impl>();
  auto* self = out.get();
  auto& srv = out->impl_->server;
  srv.new_task_queue = [] { return new httplib::ThreadPool(2); };
  srv.Get("/metrics", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(k8s::default_metrics().render(), "text/plain; version=0.0.4");
  });
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
  int bound = port == 0 ? srv.bind_to_any_port(host) : (srv.bind_to_port(host, port) ? port : -1);
  if (bound <= 0)
    return make_error(ec::config_error, "--metrics-listen \"" + listen + "\": cannot listen");
  out->port_ = bound;
  out->impl_->thread = start_listening(out->impl_->server);
  return out;
}

void metrics_server::set_health_check(std::function<std::string()> check) {
  std::lock_guard<std::mutex> guard{health_mutex_};
  health_check_ = std::move(check);
}

std::string metrics_server::unhealthy_reason() {
  std::lock_guard<std::mutex> guard{health_mutex_};
  return health_check_ ? health_check_() : std::string{};
}

metrics_server::~metrics_server() {
  if (impl_) {
    impl_->server.stop();
    if (impl_->thread.joinable())
      impl_->thread.join();
  }
}

} // namespace schedopt
