// libcurl multi loop: one thread, curl_multi_poll + curl_multi_wakeup.
#include "k8s/http_engine.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cctype>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <curl/curl.h>

namespace schedopt::k8s {

namespace {

struct curl_global {
  curl_global() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

void ensure_curl_global() {
  static curl_global instance;
}

struct transfer {
  uint64_t id = 0;
  http_request request;
  http_engine::data_callback on_data;
  http_engine::done_callback on_done;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  http_result result;
  bool cancelled = false;
  /// Why a callback aborted the transfer; reported in place of curl's generic text.
  std::string refused;
};

size_t write_cb(char* ptr, size_t size, size_t nmemb, void* userdata) {
  auto* t = static_cast<transfer*>(userdata);
  auto n = size * nmemb;
  long code = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
  if (t->request.streaming && code >= 200 && code < 300 && t->on_data) {
    t->on_data(std::string_view{ptr, n});
    return n;
  }
  if (t->result.body.size() + n > t->request.max_body_bytes) {
    t->refused = "response body larger than " + std::to_string(t->request.max_body_bytes) + " bytes";
    return 0; // curl ends the transfer with CURLE_WRITE_ERROR
  }
  t->result.body.append(ptr, n);
  return n;
}

// The value of header `name` (lower case, with the colon) in `line`, trimmed; nullopt
// when the line is another header.
std::optional<std::string_view> header_value(std::string_view line, std::string_view name) {
  if (line.size() <= name.size())
    return std::nullopt;
  for (size_t i = 0; i < name.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != name[i])
      return std::nullopt;
  auto value = line.substr(name.size());
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front())))
    value.remove_prefix(1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back())))
    value.remove_suffix(1);
  return value;
}

bool equals_lower(std::string_view value, std::string_view lower) {
  if (value.size() != lower.size())
    return false;
  for (size_t i = 0; i < value.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(value[i])) != lower[i])
      return false;
  return true;
}

// A body that grows by doubling peaks at up to three times its size while it is copied
// to the next buffer (a bulk SDK answer is large); knowing the length, it is sized once.
// Bounded, since the length is the server's word; compressed bodies still grow.
void reserve_body(transfer& t, std::string_view length) {
  const unsigned long long most = t.request.max_body_bytes;
  unsigned long long bytes = 0;
  auto [end, ec] = std::from_chars(length.data(), length.data() + length.size(), bytes);
  if (ec == std::errc{} && end == length.data() + length.size() && !t.request.streaming)
    t.result.body.reserve(static_cast<std::size_t>(std::min(bytes, most)));
}

// Failures that happen before the request is written: the server cannot have acted on
// it. A timeout is not among them, since it may strike after the request went out.
bool fails_before_sending(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
      return true;
    default:
      return false;
  }
}

size_t header_cb(char* buffer, size_t size, size_t nitems, void* userdata) {
  auto* t = static_cast<transfer*>(userdata);
  auto n = size * nitems;
  std::string_view line{buffer, n};
  if (auto value = header_value(line, "retry-after:"))
    t->result.retry_after = std::string{*value};
  else if (auto length = header_value(line, "content-length:"))
    reserve_body(*t, *length);
  else if (auto coding = header_value(line, "content-encoding:");
           coding && !equals_lower(*coding, "gzip") && !equals_lower(*coding, "identity")) {
    // Only gzip is asked for (Accept-Encoding below); any other coding would reach the
    // JSON decoder as raw bytes.
    t->refused = "unsupported Content-Encoding \"" + std::string{coding->substr(0, 32)} + "\"";
    return 0;
  }
  return n;
}

} // namespace

struct http_engine::impl {
  ~impl() {
    if (multi)
      curl_multi_cleanup(multi);
  }
  tls_config tls;
  CURLM* multi = nullptr;
  std::thread thread;
  mutable std::mutex mtx;
  std::vector<std::unique_ptr<transfer>> incoming;
  std::vector<uint64_t> cancels;
  std::map<uint64_t, std::unique_ptr<transfer>> running; // engine thread only
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> next_id{1};
  std::atomic<std::size_t> active_count{0};

  void setup(transfer& t) {
    auto* e = curl_easy_init();
    t.easy = e;
    auto& r = t.request;
    curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
    curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, header_cb);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    // gzip only: the one coding kube-apiserver's compression filter offers (and the
    // decoded size is bounded by max_body_bytes); brotli, zstd and deflate are never asked for.
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "gzip");
    if (r.timeout.count() > 0)
      curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
    if (r.no_resend) {
      curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
      curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L);
    }
    if (r.low_speed_time.count() > 0) {
      curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, static_cast<long>(r.low_speed_time.count()));
    }
    if (r.method == "GET") {
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, r.method.c_str());
      if (r.method != "DELETE" || !r.body.empty()) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.data());
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
      }
    }
    for (auto& h : r.headers)
      t.headers = curl_slist_append(t.headers, h.c_str());
    t.headers = curl_slist_append(t.headers, "Expect:"); // no 100-continue round trip
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, t.headers);
    // TLS: verification stays on unless the kubeconfig explicitly says insecure.
    if (tls.insecure_skip_verify) {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    } else {
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
      curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
    }
    if (!tls.ca_data.empty()) {
      curl_blob blob{const_cast<char*>(tls.ca_data.data()), tls.ca_data.size(), CURL_BLOB_COPY};
      curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &blob);
    } else if (!tls.ca_file.empty()) {
      curl_easy_setopt(e, CURLOPT_CAINFO, tls.ca_file.c_str());
    }
    bool own_cert = !r.client_cert_data.empty() && !r.client_key_data.empty();
    const auto& cert_data = own_cert ? r.client_cert_data : tls.client_cert_data;
    const auto& key_data = own_cert ? r.client_key_data : tls.client_key_data;
    if (!cert_data.empty()) {
      curl_blob blob{const_cast<char*>(cert_data.data()), cert_data.size(), CURL_BLOB_COPY};
      curl_easy_setopt(e, CURLOPT_SSLCERT_BLOB, &blob);
      curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "PEM");
    } else if (!tls.client_cert_file.empty()) {
      curl_easy_setopt(e, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
    }
    if (!key_data.empty()) {
      curl_blob blob{const_cast<char*>(key_data.data()), key_data.size(), CURL_BLOB_COPY};
      curl_easy_setopt(e, CURLOPT_SSLKEY_BLOB, &blob);
      curl_easy_setopt(e, CURLOPT_SSLKEYTYPE, "PEM");
    } else if (!tls.client_key_file.empty()) {
      curl_easy_setopt(e, CURLOPT_SSLKEY, tls.client_key_file.c_str());
    }
  }

  void finish(transfer& t, CURLcode code) {
    long status = 0;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
    double secs = 0;
    curl_easy_getinfo(t.easy, CURLINFO_TOTAL_TIME, &secs);
    t.result.status = static_cast<int>(status);
    t.result.seconds = secs;
    if (t.cancelled)
      t.result.error = "cancelled";
    else if (!t.refused.empty())
      t.result.error = t.refused;
    else if (code != CURLE_OK)
      t.result.error = curl_easy_strerror(code);
    t.result.request_sent = !fails_before_sending(code);
    curl_multi_remove_handle(multi, t.easy);
    curl_easy_cleanup(t.easy);
    curl_slist_free_all(t.headers);
    t.easy = nullptr;
    t.headers = nullptr;
    if (t.on_done)
      t.on_done(std::move(t.result));
  }

  void loop() {
    while (!stopping.load()) {
      std::vector<std::unique_ptr<transfer>> fresh;
      std::vector<uint64_t> cancel_now;
      {
        std::lock_guard<std::mutex> guard{mtx};
        fresh.swap(incoming);
        cancel_now.swap(cancels);
      }
      for (auto& t : fresh) {
        setup(*t);
        curl_multi_add_handle(multi, t->easy);
        auto id = t->id;
        running.emplace(id, std::move(t));
      }
      for (auto id : cancel_now) {
        auto i = running.find(id);
        if (i == running.end())
          continue;
        i->second->cancelled = true;
        finish(*i->second, CURLE_ABORTED_BY_CALLBACK);
        running.erase(i);
        --active_count;
      }
      int still = 0;
      curl_multi_perform(multi, &still);
      int queued = 0;
      while (auto* msg = curl_multi_info_read(multi, &queued)) {
        if (msg->msg != CURLMSG_DONE)
          continue;
        transfer* t = nullptr;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
        auto code = msg->data.result;
        auto id = t->id;
        finish(*t, code);
        running.erase(id);
        --active_count;
      }
      curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
    }
    // Abort everything without callbacks: the owners are going away.
    for (auto& [id, t] : running) {
      curl_multi_remove_handle(multi, t->easy);
      curl_easy_cleanup(t->easy);
      curl_slist_free_all(t->headers);
    }
    running.clear();
  }
};

http_engine::http_engine(tls_config tls) : impl_(std::make_shared<impl>()) {
  ensure_curl_global();
  impl_->tls = std::move(tls);
  impl_->multi = curl_multi_init();
  curl_multi_setopt(impl_->multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  auto self = impl_;
  impl_->thread = std::thread([self] { self->loop(); });
}

http_engine::~http_engine() {
  stop();
}

void http_engine::stop() {
  if (impl_->stopping.exchange(true))
    return;
  curl_multi_wakeup(impl_->multi);
  if (!impl_->thread.joinable())
    return;
  // The last owner may drop us from inside a callback, i.e. on the engine thread itself:
  // then the loop ends on its own after the callback returns.
  if (impl_->thread.get_id() == std::this_thread::get_id())
    impl_->thread.detach();
  else
    impl_->thread.join();
}

uint64_t http_engine::submit(http_request request, data_callback on_data, done_callback on_done) {
  auto t = std::make_unique<transfer>();
  t->id = impl_->next_id++;
  t->request = std::move(request);
  t->on_data = std::move(on_data);
  t->on_done = std::move(on_done);
  auto id = t->id;
  ++impl_->active_count;
  {
    std::lock_guard<std::mutex> guard{impl_->mtx};
    impl_->incoming.push_back(std::move(t));
  }
  curl_multi_wakeup(impl_->multi);
  return id;
}

void http_engine::cancel(uint64_t id) {
  {
    std::lock_guard<std::mutex> guard{impl_->mtx};
    impl_->cancels.push_back(id);
  }
  curl_multi_wakeup(impl_->multi);
}

std::size_t http_engine::active() const {
  return impl_->active_count.load();
}

} // namespace schedopt::k8s
