// See metrics_server.hpp. cpp-httplib (SSLServer when secure), its own small pool.
#include "actors/metrics_server.hpp"

#include <thread>

#include <httplib.h>
#include <spdlog/spdlog.h>

#include "actors/listen_address.hpp"
#include "actors/metrics_tls.hpp"
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

std::string lower(std::string s) {
  for (auto& c : s)
    c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

/// The TLS server for `identity`; an error when OpenSSL refuses it.
expected<std::unique_ptr<httplib::Server>> tls_server(const tls_identity& identity) {
  auto server = std::make_unique<httplib::SSLServer>(
    [&identity](SSL_CTX& ctx) { return configure_server_tls(ctx, identity); });
  if (!server->is_valid())
    return make_error(ec::config_error, "metrics: OpenSSL refused the TLS certificate or key");
  return std::unique_ptr<httplib::Server>(std::move(server));
}

void serve_metrics(httplib::Response& res) {
  res.set_content(k8s::default_metrics().render(), "text/plain; version=0.0.4");
}

} // namespace

struct metrics_server::impl {
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
};

expected<std::unique_ptr<metrics_server>> metrics_server::start(metrics_server_options options) {
  auto address = parse_listen_address(options.listen, "--metrics-listen");
  if (!address)
    return address.err();
  std::unique_ptr<metrics_server> out{new metrics_server};
  out->impl_ = std::make_unique<impl>();
  out->secure_ = options.secure;
  if (options.secure) {
    if (!options.access)
      return make_error(ec::config_error, "metrics: secure serving needs the API server's reviews");
    auto identity = options.cert_file.empty() ? self_signed_identity()
                                              : read_identity(options.cert_file, options.key_file);
    if (!identity)
      return identity.err();
    auto server = tls_server(*identity);
    if (!server)
      return server.err();
    out->impl_->server = std::move(*server);
  } else {
    out->impl_->server = std::make_unique<httplib::Server>();
  }
  register_standard_metrics();
  auto& srv = *out->impl_->server;
  srv.new_task_queue = [] { return new httplib::ThreadPool(worker_threads); };
  srv.set_read_timeout(5, 0);
  srv.set_write_timeout(10, 0); // a page of some hundred kB to a slow reader
  srv.set_tcp_nodelay(true);
  if (options.secure) {
    // filters.go: authenticate, then authorize the lower-cased method on the path, then
    // serve; each refusal with its status and text.
    auto access = options.access;
    srv.Get("/metrics", [access](const httplib::Request& req, httplib::Response& res) {
      auto decided = access->check(req.get_header_value("Authorization"), lower(req.method),
                                   req.path, std::chrono::steady_clock::now());
      if (decided.status == 200)
        return serve_metrics(res);
      res.status = decided.status;
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_content(decided.body, "text/plain; charset=utf-8");
      if (decided.status >= 500)
        spdlog::warn("metrics: {} {} answered {}: {}", req.method, req.path, decided.status,
                     decided.why);
      else
        spdlog::debug("metrics: {} {} answered {}{}: {}", req.method, req.path, decided.status,
                      decided.user.empty() ? "" : " to " + decided.user, decided.why);
    });
  } else {
    srv.Get("/metrics", [](const httplib::Request&, httplib::Response& res) { serve_metrics(res); });
  }
  auto bound = bind_listen_address(srv, *address, "--metrics-listen", options.listen);
  if (!bound)
    return bound.err();
  out->port_ = *bound;
  out->impl_->thread = start_listening(srv);
  return out;
}

metrics_server::~metrics_server() {
  if (impl_ && impl_->server) {
    impl_->server->stop();
    if (impl_->thread.joinable())
      impl_->thread.join();
  }
}

} // namespace schedopt
