// The sub-commands of `schedopt` (docs/cli.md). Each returns the process exit code.
#pragma once

#include "config/command_line.hpp"

namespace schedopt {

int run_command(const settings& cfg);
int plan_command(const settings& cfg, const plan_options& plan);
int explain_command(const settings& cfg, const explain_options& options);
int status_command(const settings& cfg, const status_options& options);
int demo_command(const settings& cfg, const demo_options& demo, const std::string& self_path);

} // namespace schedopt
