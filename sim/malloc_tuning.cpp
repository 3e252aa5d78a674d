// Re-execution with glibc malloc tunables; see malloc_tuning.hpp.
#include "sim/malloc_tuning.hpp"

#include <cstdlib>
#include <string>

#include <unistd.h>

namespace schedopt::sim {

void reexec_with_malloc_tunables(char** argv) {
  static constexpr const char* setting = "glibc.malloc.tcache_count";
  const char* current = std::getenv("GLIBC_TUNABLES");
  std::string tunables = current ? current : "";
  if (tunables.find(setting) != std::string::npos)
    return;
  tunables += (tunables.empty() ? "" : ":") + std::string(setting) + "=4096";
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0)
    return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc): run as is, only slower to start. Nor is the setting
  // passed on to anything this process starts.
  if (current)
    setenv("GLIBC_TUNABLES", current, 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

} // namespace schedopt::sim
