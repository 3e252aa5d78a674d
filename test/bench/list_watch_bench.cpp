// Benchmark (prints figures, not a test): the simulator's list and watch speed per object
// as the cluster grows (the aim: lists and watches at the same speed per object at
// 100,000 VMIs as at 10,000). Per rung it starts `schedopt-sim serve` with N VMIs (50 nodes,
// 2 Portworx volumes per VMI, 1 % misplaced, seed 7) and, over loopback HTTPS:
//   list vmis / list pvs  a full paged list (?limit=L, following `continue`) on one
//                         keep-alive connection, each page parsed with simdjson;
//   watch vmis (initial)  a watch without resourceVersion: N synthetic ADDED events;
//   watch vmis (changes)  a watch from the list's resourceVersion while W VMIs get a
//                         label each (one merge patch at a time): W MODIFIED events.
// It prints objects/s and the simulator's CPU per object for each, then the ratio of the
// largest rung's rate to the smallest's. Each pass runs R times; the median by rate is
// shown. Usage:
//   list_watch_bench [--vmis N[,N...]] [--limit L] [--writes W] [--rounds R]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <curl/curl.h>
#include <simdjson.h>

#include "bench/process_figures.hpp"
#include "sim/sim_process.hpp"

using namespace std::chrono_literals;
using schedopt::test::sim_process;
using steady = std::chrono::steady_clock;

namespace {

struct options {
  std::vector<long> ladder{10000, 100000};
  long limit = 500;
  long writes = 2000;
  int rounds = 3;
};

/// One measured pass: objects seen, wall seconds, bytes read, simulator CPU seconds.
struct pass {
  std::string what;
  long objects = 0;
  long pages = 0;
  double bytes = 0;
  double wall_s = 0;
  double sim_cpu_s = 0;
  std::string error;
  double rate() const { return wall_s > 0 ? objects / wall_s : 0; }
  double cpu_us_per_object() const { return objects > 0 ? sim_cpu_s * 1e6 / objects : 0; }
};

size_t append_body(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

/// A libcurl handle aimed at the simulator, kept alive across requests.
class sim_connection {
public:
  explicit sim_connection(const sim_process& sim) : sim_(sim), curl_(curl_easy_init()) {
    curl_easy_setopt(curl_, CURLOPT_CAINFO, sim.ca_file().c_str());
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 600L);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, append_body);
  }
  ~sim_connection() { curl_easy_cleanup(curl_); }
  sim_connection(const sim_connection&) = delete;
  sim_connection& operator=(const sim_connection&) = delete;

  /// GET `path`, or `method` with a `body` of `content_type`: the status, or -1 with
  /// `error` set. The answer's body goes to `out`.
  long request(const std::string& path, std::string& out, const char* method = "GET",
               const std::string& body = {}, const std::string& content_type = {}) {
    out.clear();
    auto url = sim_.url() + path;
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &out);
    curl_slist* headers = curl_slist_append(nullptr, ("Authorization: Bearer " + sim_.token()).c_str());
    if (!content_type.empty())
      headers = curl_slist_append(headers, ("Content-Type: " + content_type).c_str());
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers);
    if (body.empty()) {
      curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, body.c_str());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method);
    auto rc = curl_easy_perform(curl_);
    curl_slist_free_all(headers);
    if (rc != CURLE_OK) {
      error = curl_easy_strerror(rc);
      return -1;
    }
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

  std::string error;

private:
  const sim_process& sim_;
  CURL* curl_;
};

std::string url_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

/// The first `keep` items' namespace/name, for the change pass to write to.
using object_names = std::vector<std::pair<std::string, std::string>>;

/// A full paged list of `path`; its resourceVersion goes to `rv`.
pass paged_list(const sim_process& sim, const std::string& what, const std::string& path,
                long limit, std::string& rv, object_names* names = nullptr, long keep = 0) {
  pass p;
  p.what = what;
  sim_connection conn(sim);
  simdjson::ondemand::parser parser;
  std::string body;
  std::string cont;
  double cpu0 = schedopt::bench::cpu_seconds_of(sim.pid());
  auto t0 = steady::now();
  do {
    auto query = path + "?limit=" + std::to_string(limit);
    if (!cont.empty())
      query += "&continue=" + url_escape(cont);
    auto status = conn.request(query, body);
    if (status != 200) {
      p.error = "GET " + query + ": " + (status < 0 ? conn.error : std::to_string(status));
      return p;
    }
    p.bytes += static_cast<double>(body.size());
    ++p.pages;
    simdjson::padded_string padded(body);
    auto doc = parser.iterate(padded);
    cont.clear();
    auto meta = doc["metadata"];
    std::string_view text;
    if (p.pages == 1 && !meta["resourceVersion"].get_string().get(text))
      rv = std::string(text);
    if (!meta["continue"].get_string().get(text))
      cont = std::string(text);
    for (auto item : doc["items"].get_array()) {
      ++p.objects;
      if (names != nullptr && static_cast<long>(names->size()) < keep) {
        auto m = item["metadata"];
        std::string_view ns, name;
        if (!m["namespace"].get_string().get(ns) && !m["name"].get_string().get(name))
          names->emplace_back(std::string(ns), std::string(name));
      }
    }
  } while (!cont.empty());
  p.wall_s = std::chrono::duration<double>(steady::now() - t0).count();
  p.sim_cpu_s = schedopt::bench::cpu_seconds_of(sim.pid()) - cpu0;
  return p;
}

/// Reads a watch stream on a thread until `target` lines containing `marker` arrived.
class watch_counter {
public:
  watch_counter(const sim_process& sim, const std::string& path, std::string marker, long target)
    : marker_(std::move(marker)), target_(target) {
    thread_ = std::thread([this, url = sim.url() + path, ca = sim.ca_file(), token = sim.token()] {
      CURL* curl = curl_easy_init();
      curl_slist* headers = curl_slist_append(nullptr, ("Authorization: Bearer " + token).c_str());
      curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
      curl_easy_setopt(curl, CURLOPT_CAINFO, ca.c_str());
      curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
      curl_easy_setopt(curl, CURLOPT_TIMEOUT, 600L);
      curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &watch_counter::on_data);
      curl_easy_setopt(curl, CURLOPT_WRITEDATA, this);
      curl_easy_perform(curl); // ends with a write error once the target is reached
      curl_slist_free_all(headers);
      curl_easy_cleanup(curl);
      done_ = true;
    });
  }
  ~watch_counter() {
    if (thread_.joinable())
      thread_.join();
  }
  watch_counter(const watch_counter&) = delete;
  watch_counter& operator=(const watch_counter&) = delete;

  /// Waits for the stream to end; the time the target was reached, if it was.
  bool wait(steady::time_point& reached) {
    thread_.join();
    reached = reached_;
    return seen_ >= target_;
  }
  bool started() const { return bytes_ > 0 || done_; }
  long seen() const { return seen_; }
  double bytes() const { return static_cast<double>(bytes_); }

private:
  static size_t on_data(char* data, size_t size, size_t n, void* user) {
    auto* self = static_cast<watch_counter*>(user);
    self->bytes_ += static_cast<long>(size * n);
    self->pending_.append(data, size * n);
    std::size_t from = 0, nl;
    while ((nl = self->pending_.find('\n', from)) != std::string::npos) {
      std::string_view line(self->pending_.data() + from, nl - from);
      if (!line.empty() && line.find(self->marker_) != std::string_view::npos)
        ++self->seen_;
      from = nl + 1;
    }
    self->pending_.erase(0, from);
    if (self->seen_ >= self->target_) {
      self->reached_ = steady::now();
      return 0; // stop the transfer
    }
    return size * n;
  }

  std::string marker_;
  long target_;
  std::thread thread_;
  std::string pending_;
  std::atomic<long> seen_{0};
  std::atomic<long> bytes_{0};
  std::atomic<bool> done_{false};
  steady::time_point reached_{};
};

pass initial_watch(const sim_process& sim, const std::string& path, long objects) {
  pass p;
  p.what = "watch vmis (initial)";
  double cpu0 = schedopt::bench::cpu_seconds_of(sim.pid());
  auto t0 = steady::now();
  watch_counter counter(sim, path + "?watch=1", "\"ADDED\"", objects);
  steady::time_point reached;
  bool ok = counter.wait(reached);
  p.objects = counter.seen();
  p.bytes = counter.bytes();
  p.wall_s = std::chrono::duration<double>(reached - t0).count();
  p.sim_cpu_s = schedopt::bench::cpu_seconds_of(sim.pid()) - cpu0;
  if (!ok)
    p.error = "watch ended after " + std::to_string(p.objects) + " of " + std::to_string(objects)
              + " ADDED events";
  return p;
}

/// The resourceVersion `path` is at now (one page of one item).
std::string current_resource_version(const sim_process& sim, const std::string& path) {
  sim_connection conn(sim);
  std::string body;
  if (conn.request(path + "?limit=1", body) != 200)
    return {};
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(body);
  auto doc = parser.iterate(padded);
  std::string_view rv;
  if (doc["metadata"]["resourceVersion"].get_string().get(rv))
    return {};
  return std::string(rv);
}

/// Labels each of `names` (label value `round`-index, so each round changes them all).
pass change_watch(const sim_process& sim, const std::string& path, const object_names& names,
                  int round) {
  pass p;
  p.what = "watch vmis (changes)";
  const std::string label = "schedopt-bench-write";
  auto rv = current_resource_version(sim, path);
  if (rv.empty()) {
    p.error = "no resourceVersion from GET " + path;
    return p;
  }
  watch_counter counter(sim, path + "?watch=1&resourceVersion=" + rv, "\"" + label + "\"",
                        static_cast<long>(names.size()));
  // The watch answers its headers before any event: wait until it is open.
  for (int i = 0; i < 500 && !counter.started(); ++i)
    std::this_thread::sleep_for(10ms);
  sim_connection conn(sim);
  std::string body;
  double cpu0 = schedopt::bench::cpu_seconds_of(sim.pid());
  auto t0 = steady::now();
  long written = 0;
  for (auto& [ns, name] : names) {
    auto patch = "{\"metadata\":{\"labels\":{\"" + label + "\":\"" + std::to_string(round) + "-"
                 + std::to_string(written) + "\"}}}";
    auto status = conn.request("/apis/kubevirt.io/v1/namespaces/" + ns + "/virtualmachineinstances/"
                                 + name,
                               body, "PATCH", patch, "application/merge-patch+json");
    if (status != 200) {
      p.error = "PATCH " + ns + "/" + name + ": " + (status < 0 ? conn.error : std::to_string(status));
      break;
    }
    ++written;
  }
  steady::time_point reached;
  bool ok = p.error.empty() && counter.wait(reached);
  p.objects = counter.seen();
  p.bytes = counter.bytes();
  p.wall_s = std::chrono::duration<double>(reached - t0).count();
  p.sim_cpu_s = schedopt::bench::cpu_seconds_of(sim.pid()) - cpu0;
  if (!ok && p.error.empty())
    p.error = "watch ended after " + std::to_string(p.objects) + " of " + std::to_string(written)
              + " events";
  return p;
}

std::vector<long> parse_ladder(const std::string& text) {
  std::vector<long> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (long n = std::atol(item.c_str()); n > 0)
      out.push_back(n);
  return out;
}

} // namespace

int main(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", arg.c_str());
      return 2;
    }
    std::string value = argv[++i];
    if (arg == "--vmis")
      opt.ladder = parse_ladder(value);
    else if (arg == "--limit")
      opt.limit = std::atol(value.c_str());
    else if (arg == "--writes")
      opt.writes = std::atol(value.c_str());
    else if (arg == "--rounds")
      opt.rounds = std::atoi(value.c_str());
    else {
      std::fprintf(stderr, "unknown flag %s\n", arg.c_str());
      return 2;
    }
  }
  if (opt.ladder.empty() || opt.limit <= 0 || opt.writes <= 0 || opt.rounds <= 0) {
    std::fprintf(stderr, "--vmis, --limit, --writes and --rounds take positive numbers\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const std::string vmis = "/apis/kubevirt.io/v1/virtualmachineinstances";
  const std::string pvs = "/api/v1/persistentvolumes";
  std::map<std::string, std::map<long, double>> rates; // measure → N → objects/s
  bool failed = false;
  std::printf("%9s  %-22s %9s %6s %9s %8s %11s %13s\n", "VMIs", "pass", "objects", "pages", "MB",
              "wall s", "objects/s", "sim CPU us/obj");
  for (long n : opt.ladder) {
    sim_process sim({"--nodes", "50", "--vmis", std::to_string(n), "--volumes-per-vmi", "2",
                     "--misplaced", "0.01", "--driver", "portworx", "--seed", "7"},
                    "bench-token", std::chrono::seconds(600));
    if (!sim.ok()) {
      std::fprintf(stderr, "simulator at %ld VMIs: %s\n", n, sim.error().c_str());
      return 1;
    }
    std::string rv, pv_rv;
    object_names names;
    int change_rounds = 0;
    auto median = [&](auto run) {
      std::vector<pass> runs;
      for (int r = 0; r < opt.rounds; ++r) {
        runs.push_back(run());
        if (!runs.back().error.empty())
          return runs.back();
      }
      std::sort(runs.begin(), runs.end(),
                [](const pass& a, const pass& b) { return a.rate() < b.rate(); });
      return runs[runs.size() / 2];
    };
    std::vector<pass> passes;
    passes.push_back(median([&] {
      names.clear();
      return paged_list(sim, "list vmis", vmis, opt.limit, rv, &names, opt.writes);
    }));
    passes.push_back(median([&] { return paged_list(sim, "list pvs", pvs, opt.limit, pv_rv); }));
    passes.push_back(median([&] { return initial_watch(sim, vmis, passes[0].objects); }));
    passes.push_back(median([&] {
      return change_watch(sim, vmis, names, ++change_rounds);
    }));
    for (auto& p : passes) {
      if (!p.error.empty()) {
        std::printf("%9ld  %-22s FAILED: %s\n", n, p.what.c_str(), p.error.c_str());
        failed = true;
        continue;
      }
      std::printf("%9ld  %-22s %9ld %6ld %9.1f %8.2f %11.0f %13.1f\n", n, p.what.c_str(),
                  p.objects, p.pages, p.bytes / 1e6, p.wall_s, p.rate(), p.cpu_us_per_object());
      rates[p.what][n] = p.rate();
    }
    std::fflush(stdout);
  }
  if (opt.ladder.size() > 1) {
    long small = *std::min_element(opt.ladder.begin(), opt.ladder.end());
    long big = *std::max_element(opt.ladder.begin(), opt.ladder.end());
    std::printf("objects/s at %ld VMIs / objects/s at %ld VMIs:\n", big, small);
    for (auto& [what, by_n] : rates)
      if (by_n.count(small) && by_n.count(big) && by_n[small] > 0)
        std::printf("  %-22s %.2f\n", what.c_str(), by_n[big] / by_n[small]);
  }
  curl_global_cleanup();
  return failed ? 1 : 0;
}
