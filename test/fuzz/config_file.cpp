// The settings file (config/): the bytes written to a file and read through
// `schedopt run --config <file>`, so every value is validated as well as parsed.
#include "config/command_line.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  static fuzz::scratch_file file{"config"};
  const auto& path = file.write(fuzz::as_text(data, size));
  load_paths paths;
  paths.service_account_namespace_file = path + ".absent";
  auto no_environment = [](const std::string&) -> std::optional<std::string> { return {}; };
  auto parsed = parse_command_line({"schedopt", "run", "--config", path}, no_environment,
                                           paths);
  if (!parsed)
    FUZZ_CHECK(parsed.err().code != ec::none && !parsed.err().message.empty());
  return 0;
}
