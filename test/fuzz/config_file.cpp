// The settings file (config/): the bytes as the content of `--config <file>`, read
// through `schedopt run` (parse_command_line), so every value is validated as well as
// parsed. The bytes come in through load_paths::config_file_text: a file write per
// input made ext4 flush on every close and slowed the target to a crawl.
#include "config/command_line.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  using namespace schedopt;
  static const std::string path = fuzz::temp_dir() + "/schedopt-fuzz-config.yaml";
  const std::string content{fuzz::as_text(data, size)};
  load_paths paths;
  paths.service_account_namespace_file = path + ".absent";
  paths.config_file_text = [&](const std::string& asked) -> expected<std::string> {
    FUZZ_CHECK(asked == path);
    return content;
  };
  auto no_environment = [](const std::string&) -> std::optional<std::string> { return {}; };
  auto parsed = parse_command_line({"schedopt", "run", "--config", path}, no_environment,
                                   paths);
  if (!parsed)
    FUZZ_CHECK(parsed.err().code != ec::none && !parsed.err().message.empty());
  return 0;
}
