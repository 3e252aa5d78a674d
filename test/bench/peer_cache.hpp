// The peer schedopt is measured against: what a team would write instead, a Go operator's
// cache over the same objects (test/bench/peer: controller-runtime with KubeVirt's typed
// API, or client-go dynamic informers). Built once per benchmark from its pinned
// go.mod/go.sum (no cgo, -trimpath, as the differential suite builds its probe), run
// against a kubeconfig, read back from the one JSON line it prints.
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::bench {

struct peer_figures {
  std::string client;    // "controller-runtime" or "client-go"
  double synced_s = -1;  // start → every informer synced
  long peak_rss_kib = -1; // VmHWM once synced
  long objects = 0;       // objects cached, every resource
  std::string error;      // "" when it synced
};

/// Builds the peer into `binary_dir`; "" on success, else what went wrong.
inline std::string build_peer(const std::string& binary_dir) {
  auto cmd = std::string("cd '") + SCHEDOPT_SOURCE_DIR + "/test/bench/peer' && CGO_ENABLED=0 "
             "GOFLAGS=-mod=readonly go build -trimpath -ldflags '-s -w' -o '" + binary_dir
             + "/peer-cache' . 2>&1";
  std::string out;
  if (auto* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (auto n = std::fread(buf, 1, sizeof buf, p))
      out.append(buf, n);
    if (pclose(p) == 0)
      return {};
  }
  return "cannot build test/bench/peer (needs Go >= 1.26): " + out;
}

/// Runs the built peer with `client` against `kubeconfig`, for at most `timeout_s`.
inline peer_figures run_peer(const std::string& binary_dir, const std::string& client,
                             const std::string& kubeconfig, int timeout_s) {
  peer_figures f;
  f.client = client;
  auto cmd = "'" + binary_dir + "/peer-cache' --client " + client + " --kubeconfig '" + kubeconfig
             + "' --timeout " + std::to_string(timeout_s) + "s 2>/dev/null";
  std::string line;
  if (auto* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (auto n = std::fread(buf, 1, sizeof buf, p))
      line.append(buf, n);
    pclose(p);
  }
  auto parsed = nlohmann::json::parse(line, nullptr, false);
  if (!parsed.is_object()) {
    f.error = "no answer from the peer: " + line.substr(0, 200);
    return f;
  }
  f.synced_s = parsed.value("syncedSeconds", -1.0);
  f.peak_rss_kib = parsed.value("peakRssKiB", -1L);
  auto objects = parsed.value("objects", nlohmann::json::object());
  for (auto& [resource, n] : objects.items())
    f.objects += n.is_number() ? n.get<long>() : 0;
  f.error = parsed.value("error", std::string());
  return f;
}

} // namespace schedopt::bench
