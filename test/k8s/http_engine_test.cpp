// The HTTP engine bounds what a server can make it hold: a body past max_body_bytes, or
// a gzip body that inflates past it, fails the transfer with a clear error; a coding that
// was never asked for is refused; an honest gzip answer decodes.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include <httplib.h>

#include "k8s/http_engine.hpp"
#include "k8s/listen_thread.hpp"

namespace k8s = schedopt::k8s;

namespace {

/// `text` compressed by the gzip program (always on Debian): no zlib headers needed.
std::string gzipped(const std::string& text) {
  char path[] = "/tmp/schedopt-gzip-XXXXXX";
  int fd = mkstemp(path);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe{popen(("gzip -c -1 " + std::string{path}).c_str(), "r"), pclose};
  BOOST_REQUIRE(pipe);
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe.get())) > 0;)
    out.append(buf, n);
  std::remove(path);
  return out;
}

/// A loopback server answering each path with a fixed body and Content-Encoding.
struct answering_server {
  httplib::Server server;
  std::thread loop;
  int port = 0;

  void answer(const std::string& path, std::string body, std::string coding = "") {
    server.Get(path, [body = std::move(body), coding = std::move(coding)](const httplib::Request&,
                                                                          httplib::Response& res) {
      if (!coding.empty())
        res.set_header("Content-Encoding", coding);
      res.set_content(body, "application/json");
    });
  }
  void start() {
    port = server.bind_to_any_port("127.0.0.1");
    BOOST_REQUIRE(port > 0);
    loop = schedopt::start_listening(server);
  }
  ~answering_server() {
    server.stop();
    if (loop.joinable())
      loop.join();
  }
};

k8s::http_result get(int port, const std::string& path, std::size_t max_body) {
  k8s::http_engine engine{k8s::tls_config{}};
  k8s::http_request req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + path;
  req.timeout = std::chrono::seconds(20);
  req.max_body_bytes = max_body;
  std::promise<k8s::http_result> done;
  engine.submit(std::move(req), nullptr, [&done](k8s::http_result r) { done.set_value(std::move(r)); });
  return done.get_future().get();
}

} // namespace

BOOST_AUTO_TEST_SUITE(http_engine)

BOOST_AUTO_TEST_CASE(body_past_the_cap_fails_with_the_reason) {
  answering_server s;
  s.answer("/small", std::string(1000, 'a'));
  s.answer("/large", std::string(3 << 20, 'a'));
  s.start();
  auto small = get(s.port, "/small", 1 << 20);
  BOOST_TEST(small.error == "");
  BOOST_TEST(small.body.size() == 1000u);
  auto large = get(s.port, "/large", 1 << 20);
  BOOST_TEST(large.error == "response body larger than 1048576 bytes");
  BOOST_TEST(large.body.size() <= std::size_t{1} << 20);
}

BOOST_AUTO_TEST_CASE(gzip_decodes_within_the_cap_and_a_bomb_is_cut) {
  answering_server s;
  std::string json = "{\"kind\":\"List\",\"items\":[]}";
  s.answer("/gzip", gzipped(json), "gzip");
  // A few kilobytes on the wire that inflate to 8 MiB.
  auto bomb = gzipped(std::string(8 << 20, '0'));
  BOOST_TEST_REQUIRE(bomb.size() < 100000u);
  s.answer("/bomb", bomb, "gzip");
  s.start();
  auto honest = get(s.port, "/gzip", 1 << 20);
  BOOST_TEST(honest.error == "");
  BOOST_TEST(honest.body == json);
  auto cut = get(s.port, "/bomb", 1 << 20);
  BOOST_TEST(cut.error == "response body larger than 1048576 bytes");
}

BOOST_AUTO_TEST_CASE(a_coding_never_asked_for_is_refused) {
  answering_server s;
  s.answer("/br", "\x1b\x00\x00", "br");
  s.start();
  auto r = get(s.port, "/br", 1 << 20);
  BOOST_TEST(r.error == "unsupported Content-Encoding \"br\"");
  BOOST_TEST(r.body.empty());
}

BOOST_AUTO_TEST_SUITE_END()
