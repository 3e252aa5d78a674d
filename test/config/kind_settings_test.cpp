// A kind's settings table (config/kind_settings.hpp) is read from flags, environment and
// the config file, checked, listed and refused exactly as the core rows. The kind here is
// made up, so these cases test config alone; test/actors checks the real kinds' tables.
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <unistd.h>

#include "config/command_line.hpp"
#include "config/kind_settings.hpp"
#include "config/setting_table.hpp"

using namespace schedopt;

namespace {

kind_settings_table batch_kind() {
  kind_settings_table t;
  t.kind = "batchPlacement";
  t.rows = {
    {"batchSize", "INT", "4", "pods handled per batch", int_at_least(1)},
    {"batchSizeLimit", "INT", "10", "upper clamp for any batchSize", int_at_least(1)},
    {"batchWait", "DURATION", "30s", "pause between batches", positive_duration()},
  };
  t.validate_combination = [t](const kind_setting_values& values,
                               const std::function<std::string(const std::string&)>& source_of) {
    auto size = std::stoll(kind_value_text(values, t, "batchSize"));
    auto limit = std::stoll(kind_value_text(values, t, "batchSizeLimit"));
    if (size <= limit)
      return std::string();
    return "batchSize (" + source_of("batchSize") + ") " + std::to_string(size) + " exceeds "
           + "batchSizeLimit (" + source_of("batchSizeLimit") + ") " + std::to_string(limit);
  };
  return t;
}

struct fixture {
  std::map<std::string, std::string> vars;
  load_paths paths;
  std::vector<std::string> files;
  std::vector<kind_settings_table> kinds{batch_kind()};

  fixture() {
    paths.service_account_namespace_file = "/nonexistent/schedopt-test/namespace";
  }
  ~fixture() {
    for (const auto& f : files)
      std::remove(f.c_str());
  }

  std::string write(const std::string& name, const std::string& content) {
    auto path = "/tmp/schedopt-kind-settings-test-" + std::to_string(::getpid()) + "-" + name;
    std::ofstream(path) << content;
    files.push_back(path);
    return path;
  }

  expected<parse_result> parse(std::vector<std::string> args) {
    args.insert(args.begin(), "schedopt");
    environment env = [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end())
        return std::nullopt;
      return it->second;
    };
    return parse_command_line(args, env, paths, kinds);
  }

  kind_setting_values ok(std::vector<std::string> args) {
    auto r = parse(args);
    if (!r)
      BOOST_FAIL("unexpected error: " << r.err().message);
    return r->config.kind_values;
  }

  std::string fails(std::vector<std::string> args) {
    auto r = parse(args);
    BOOST_REQUIRE_MESSAGE(!r, "expected an error");
    BOOST_CHECK(r.err().code == ec::config_error);
    return r.err().message;
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(kind_settings, fixture)

BOOST_AUTO_TEST_CASE(every_row_holds_its_default_when_no_source_gives_one) {
  auto values = ok({"run"});
  BOOST_CHECK_EQUAL(values.size(), 3u);
  BOOST_CHECK_EQUAL(values["batchSize"], "4");
  BOOST_CHECK_EQUAL(values["batchSizeLimit"], "10");
  BOOST_CHECK_EQUAL(values["batchWait"], "30s");
  // A settings value not made by parse_command_line still reads the defaults.
  BOOST_CHECK_EQUAL(kind_value_text(settings{}.kind_values, kinds[0], "batchWait"), "30s");
  BOOST_CHECK_EQUAL(kind_value_text({}, kinds[0], "noSuchRow"), "");
}

BOOST_AUTO_TEST_CASE(a_row_is_read_from_a_flag_the_environment_and_the_file) {
  BOOST_CHECK_EQUAL(ok({"run", "--batch-size", "7"})["batchSize"], "7");
  BOOST_CHECK_EQUAL(ok({"plan", "--batch-wait=1m"})["batchWait"], "1m");
  vars["SCHEDOPT_BATCH_SIZE"] = "8";
  BOOST_CHECK_EQUAL(ok({"run"})["batchSize"], "8");
  auto file = write("c.yaml", "batchSize: 9\nbatchWait: 2m\ncoolOffPeriod: 2h\n");
  auto values = ok({"run", "--config", file});
  BOOST_CHECK_EQUAL(values["batchSize"], "8"); // environment over file
  BOOST_CHECK_EQUAL(values["batchWait"], "2m");
  vars.clear();
  BOOST_CHECK_EQUAL(ok({"run", "--config", file})["batchSize"], "9");
  vars["SCHEDOPT_BATCH_SIZE"] = "8";
  BOOST_CHECK_EQUAL(ok({"run", "--config", file, "--batch-size", "3"})["batchSize"], "3");
}

BOOST_AUTO_TEST_CASE(a_bad_value_is_refused_as_for_a_core_row) {
  // The same detail as the core INT row maxPendingRequests (>= 1).
  BOOST_CHECK_EQUAL(fails({"run", "--batch-size", "0"}), "--batch-size \"0\": must be >= 1");
  BOOST_CHECK_EQUAL(fails({"run", "--max-pending-requests", "0"}),
                    "--max-pending-requests \"0\": must be >= 1");
  BOOST_CHECK_EQUAL(fails({"run", "--batch-size"}),
                    "--batch-size: missing value (see schedopt run --help)");
  vars["SCHEDOPT_BATCH_WAIT"] = "0s";
  BOOST_CHECK_EQUAL(fails({"run"}), "SCHEDOPT_BATCH_WAIT \"0s\": must be > 0");
  vars.clear();
  auto file = write("bad.yaml", "batchSize: x\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", file}), file + ": batchSize: not an integer");
  auto listed = write("listed.yaml", "batchSize: [1, 2]\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", listed}),
                    listed + ": batchSize: expected one INT value, got a list");
}

BOOST_AUTO_TEST_CASE(an_unknown_key_is_still_refused) {
  BOOST_CHECK_EQUAL(fails({"run", "--batch-sizes", "2"}),
                    "unknown flag --batch-sizes (see schedopt run --help)");
  auto file = write("unknown.yaml", "batchSizes: 2\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", file}), file + ": batchSizes: unknown setting");
  // A kind's row exists only when its table is passed.
  kinds.clear();
  BOOST_CHECK_EQUAL(fails({"run", "--batch-size", "2"}),
                    "unknown flag --batch-size (see schedopt run --help)");
  auto known = write("known.yaml", "batchSize: 2\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", known}), known + ": batchSize: unknown setting");
}

BOOST_AUTO_TEST_CASE(the_kinds_cross_check_names_each_values_source) {
  BOOST_CHECK_EQUAL(fails({"run", "--batch-size", "20"}),
                    "batchSize (--batch-size) 20 exceeds batchSizeLimit (default) 10");
  vars["SCHEDOPT_BATCH_SIZE_LIMIT"] = "30";
  BOOST_CHECK_EQUAL(ok({"run", "--batch-size", "20"})["batchSize"], "20");
  auto file = write("cross.yaml", "batchSize: 40\n");
  BOOST_CHECK_EQUAL(fails({"run", "--config", file}),
                    "batchSize (" + file + ") 40 exceeds batchSizeLimit (SCHEDOPT_BATCH_SIZE_LIMIT) 30");
}

BOOST_AUTO_TEST_CASE(a_key_defined_twice_is_refused) {
  kinds[0].rows.push_back({"coolOffPeriod", "DURATION", "1h", "again", any_duration()});
  BOOST_CHECK_EQUAL(fails({"run"}), "setting coolOffPeriod is defined twice (a kind's settings "
                                    "table repeats a core or another kind's key)");
  kinds = {batch_kind(), batch_kind()};
  BOOST_CHECK(fails({"run"}).find("setting batchSize is defined twice") == 0);
  kinds = {{"tokenKind", {{"portworxToken", "TEXT", "", "a removed setting's key", {}}}, {}}};
  BOOST_CHECK(fails({"run"}).find("setting portworxToken is defined twice") == 0);
}

BOOST_AUTO_TEST_CASE(rows_are_spelled_and_listed_as_core_rows) {
  auto infos = all_settings(kinds);
  BOOST_REQUIRE_EQUAL(infos.size(), all_settings().size() + 3);
  const auto& wait = infos.back();
  BOOST_CHECK_EQUAL(wait.key, "batchWait");
  BOOST_CHECK_EQUAL(wait.flag, "--batch-wait");
  BOOST_CHECK_EQUAL(wait.env, "SCHEDOPT_BATCH_WAIT");
  for (const auto& i : infos) {
    BOOST_CHECK_EQUAL(i.flag, config_detail::flag_of(i.key));
    BOOST_CHECK_EQUAL(i.env, config_detail::env_of(i.key));
  }
  auto help = help_text(command::run, "schedopt", kinds);
  BOOST_CHECK(help.find("  --batch-size INT ") != std::string::npos);
  BOOST_CHECK(help.find("pause between batches (default 30s; env SCHEDOPT_BATCH_WAIT)")
              != std::string::npos);
  auto asked = parse({"run", "--help"});
  BOOST_REQUIRE(asked);
  BOOST_CHECK_EQUAL(asked->help_text, help);
  BOOST_CHECK(help_text(command::run).find("--batch-size") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(markdown_gives_each_kind_a_section_after_the_core_table) {
  auto core = settings_markdown_table();
  auto all = settings_markdown_table(kinds);
  BOOST_CHECK(all.rfind(core, 0) == 0);
  BOOST_CHECK_EQUAL(all.substr(core.size()),
                    "\n### Settings of the `batchPlacement` kind\n\n"
                    "| Setting | Flag | Environment | Default | Description |\n"
                    "|---|---|---|---|---|\n"
                    "| `batchSize` | `--batch-size` | `SCHEDOPT_BATCH_SIZE` | `4` | pods handled per batch |\n"
                    "| `batchSizeLimit` | `--batch-size-limit` | `SCHEDOPT_BATCH_SIZE_LIMIT` | `10` | upper clamp for any batchSize |\n"
                    "| `batchWait` | `--batch-wait` | `SCHEDOPT_BATCH_WAIT` | `30s` | pause between batches |\n");
  // A kind without settings adds no section.
  BOOST_CHECK_EQUAL(settings_markdown_table({{"quietKind", {}, {}}}), core);
}

BOOST_AUTO_TEST_CASE(effective_settings_show_the_kinds_values) {
  auto parsed = parse({"run", "--batch-wait", "90s"});
  BOOST_REQUIRE(parsed);
  std::map<std::string, std::string> shown;
  for (const auto& [key, value] : effective_settings(parsed->config, kinds))
    shown[key] = value;
  BOOST_CHECK_EQUAL(shown.size(), all_settings().size() + 3);
  BOOST_CHECK_EQUAL(shown["batchWait"], "90s");
  BOOST_CHECK_EQUAL(shown["batchSize"], "4");
  // Defaults too for a settings value built without parse_command_line.
  auto defaults = effective_settings(settings{}, kinds);
  BOOST_CHECK_EQUAL(defaults.back().first, "batchWait");
  BOOST_CHECK_EQUAL(defaults.back().second, "30s");
  BOOST_CHECK_EQUAL(effective_settings(settings{}).size(), all_settings().size());
}

BOOST_AUTO_TEST_CASE(shared_checks_word_errors_as_the_core_rows) {
  BOOST_CHECK_EQUAL(int_at_least(1)("1"), "");
  BOOST_CHECK_EQUAL(int_at_least(1)("0"), "must be >= 1");
  BOOST_CHECK_EQUAL(int_at_least(0)("5x"), "not an integer");
  BOOST_CHECK_EQUAL(any_duration()("0s"), "");
  BOOST_CHECK_EQUAL(positive_duration()("0s"), "must be > 0");
  BOOST_CHECK(positive_duration()("abc").rfind("invalid duration \"abc\"", 0) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
