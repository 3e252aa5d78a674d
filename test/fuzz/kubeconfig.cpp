// kubeconfig (k8s/cluster_config): the bytes as a kubeconfig's content, through the
// parser load_kubeconfig runs after reading the file, for the current context and for a
// named one. A value or a config_error, never a crash. No file is written: a write per
// input made ext4 flush on every close and slowed the target to a crawl. An `exec` user
// is only read here: plugins run in the API client, never while parsing.
#include <cstring>

#include "fuzz_support.hpp"
#include "k8s/cluster_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  auto text = fuzz::as_text(data, size);
  // tokenFile is read: an operator's path, not hostile bytes. Keep the fuzzer off
  // devices and pseudo-files that never end (/dev/zero, /proc/kmsg).
  for (auto banned : {"/dev", "/proc", "/sys"})
    if (text.find(banned) != std::string_view::npos)
      return 0;
  // Relative certificate and token paths resolve against this (absent) file's directory.
  static const std::string path = fuzz::temp_dir() + "/schedopt-fuzz-kubeconfig";
  const std::string content{text};
  for (const char* context : {"", "c"}) {
    auto cfg = k8s::parse_kubeconfig(content, path, context);
    if (!cfg)
      FUZZ_CHECK(cfg.err().code == ec::config_error && !cfg.err().message.empty());
    else
      FUZZ_CHECK(!cfg->server.empty());
  }
  return 0;
}
