// Broken answers, each as a real server or proxy breaks them: an HTML error page from a
// proxy in front of the API server, a body cut when the connection drops, a watch stream
// that ends mid-event, an event line longer than any client buffers.
#include "sim/answer_fault_responses.hpp"

#include <algorithm>
#include <memory>

#include <sys/socket.h>

#include <httplib.h>
#include <openssl/ssl.h>

namespace schedopt::sim {

namespace {

const std::string html_page =
  "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
  "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";

// The start of a list answer; the connection drops after it though Content-Length
// promised more.
const std::string cut_body = R"({"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":)";

const std::string cut_event =
  R"({"type":"ADDED","object":{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachineInstance","metadata":{"name":"cut-)";

void send_closing_mid_body(httplib::Response& res) {
  res.status = 200;
  res.set_content_provider(cut_body.size() * 4, "application/json",
                           [](size_t offset, size_t, httplib::DataSink& sink) {
                             if (offset > 0)
                               return false; // the rest never comes: httplib closes
                             sink.write(cut_body.data(), cut_body.size());
                             return true;
                           });
}

void send_truncated_watch(httplib::Response& res) {
  res.status = 200;
  res.set_chunked_content_provider("application/json;stream=watch",
                                   [sent = false](size_t, httplib::DataSink& sink) mutable {
                                     if (sent)
                                       return false; // no terminating chunk: a cut stream
                                     sent = true;
                                     sink.write(cut_event.data(), cut_event.size());
                                     return true;
                                   });
}

void send_oversized_watch(httplib::Response& res, std::size_t bytes) {
  res.status = 200;
  auto chunk = std::make_shared<std::string>(1024 * 1024, 'x');
  const std::string head = R"({"type":"MODIFIED","object":{"metadata":{"annotations":{"pad":")";
  res.set_chunked_content_provider(
    "application/json;stream=watch",
    [chunk, head, bytes, written = std::size_t{0}](size_t, httplib::DataSink& sink) mutable {
      if (written == 0) {
        sink.write(head.data(), head.size());
        written = head.size();
        return true;
      }
      if (written >= bytes) {
        sink.done();
        return true;
      }
      auto n = std::min(chunk->size(), bytes - written);
      if (!sink.write(chunk->data(), n))
        return false; // the client hung up, as it should
      written += n;
      return true;
    });
}

} // namespace

void send_answer_fault(const answer_fault& fault, httplib::Response& res) {
  switch (fault.kind) {
    case answer_fault_kind::html:
      res.status = fault.status;
      res.set_content(html_page, "text/html");
      return;
    case answer_fault_kind::not_json:
      res.status = 200;
      res.set_content("this is not JSON\n", "application/json");
      return;
    case answer_fault_kind::close_mid_body:
      return send_closing_mid_body(res);
    case answer_fault_kind::truncated_watch_event:
      return send_truncated_watch(res);
    case answer_fault_kind::oversized_watch_event:
      return send_oversized_watch(res, fault.bytes);
    case answer_fault_kind::unknown_replica_node:
    case answer_fault_kind::reset_after_commit:
      break;
    case answer_fault_kind::hold: // delays the real answer instead (take_hold)
      break;
  }
}

// Models a kube-apiserver whose answer is lost after etcd committed the write. Follows
// kubernetes v1.36.3 staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go,
// createHandler: the object is stored (registry/generic/registry/store.go, Store.Create)
// before transformResponseObject writes the answer; an apiserver that dies, or a
// connection (or load balancer) that breaks, in between leaves the write made and the
// client with a reset and no status line. Updates, patches and deletes alike.
void reset_connection(const httplib::Request& req) {
  if (req.ssl == nullptr)
    return;
  int fd = SSL_get_fd(req.ssl);
  if (fd < 0)
    return;
  linger abort_on_close{1, 0}; // the close httplib makes after its write fails sends RST
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
  shutdown(fd, SHUT_RDWR);
}

} // namespace schedopt::sim
