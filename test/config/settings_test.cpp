// The settings table: documented defaults equal the struct's, every setting reaches
// the table in docs/configuration.md and every command's --help, spellings follow one rule.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "config/command_line.hpp"
#include "config/setting_table.hpp"

using namespace schedopt;
using config_detail::setting_defs;

BOOST_AUTO_TEST_SUITE(settings_table)

BOOST_AUTO_TEST_CASE(documented_defaults_match_the_struct) {
  const settings defaults;
  for (const auto& d : setting_defs()) {
    BOOST_TEST_CONTEXT("setting " << d.info.key) {
      if (d.info.key == "leaseNamespace") {
        BOOST_CHECK_EQUAL(d.show(defaults), ""); // computed at load time
        continue;
      }
      settings s;
      BOOST_CHECK_EQUAL(d.apply(s, d.info.default_text), "");
      BOOST_CHECK_EQUAL(d.show(s), d.show(defaults));
    }
  }
}

BOOST_AUTO_TEST_CASE(show_round_trips_through_apply) {
  settings changed;
  changed.cool_off_period = std::chrono::minutes(90);
  changed.api_qps = 12.5;
  changed.csi_topology_drivers = {"a", "b"};
  changed.pin_target_node = false;
  for (const auto& d : setting_defs()) {
    if (d.info.key == "leaseNamespace")
      continue;
    settings s;
    BOOST_CHECK_EQUAL(d.apply(s, d.show(changed)), "");
    BOOST_CHECK_EQUAL(d.show(s), d.show(changed));
  }
}

// Left unset, migrationTimeout is KubeVirt's bound per VM and maxParallelMigrations is
// capped by KubeVirt's parallelMigrationsPerCluster: a value given, even the default's
// own text, is honoured as given.
BOOST_AUTO_TEST_CASE(a_given_timeout_or_buffer_is_told_from_the_default) {
  settings s;
  BOOST_CHECK(!s.migration_timeout_explicit);
  BOOST_CHECK(!s.max_parallel_migrations_explicit);
  for (const auto& d : setting_defs()) {
    if (d.info.key == "migrationTimeout") {
      BOOST_CHECK_NE(d.apply(s, "0s"), ""); // rejected: still not given
      BOOST_CHECK(!s.migration_timeout_explicit);
      BOOST_CHECK_EQUAL(d.apply(s, "30m"), "");
    } else if (d.info.key == "maxParallelMigrations") {
      BOOST_CHECK_EQUAL(d.apply(s, "5"), "");
    }
  }
  BOOST_CHECK(s.migration_timeout_explicit);
  BOOST_CHECK(s.max_parallel_migrations_explicit);
}

BOOST_AUTO_TEST_CASE(spellings_follow_the_key) {
  const std::vector<std::tuple<std::string, std::string, std::string>> expected = {
    {"coolOffPeriod", "--cool-off-period", "SCHEDOPT_COOL_OFF_PERIOD"},
    {"maxParallelMigrations", "--max-parallel-migrations", "SCHEDOPT_MAX_PARALLEL_MIGRATIONS"},
    {"maxNonHyperconvergedPerRun", "--max-non-hyperconverged-per-run",
     "SCHEDOPT_MAX_NON_HYPERCONVERGED_PER_RUN"},
    {"apiQps", "--api-qps", "SCHEDOPT_API_QPS"},
    {"leaderElect", "--leader-elect", "SCHEDOPT_LEADER_ELECT"},
  };
  for (const auto& [key, flag, env] : expected) {
    bool found = false;
    for (const auto& i : all_settings())
      if (i.key == key) {
        found = true;
        BOOST_CHECK_EQUAL(i.flag, flag);
        BOOST_CHECK_EQUAL(i.env, env);
      }
    BOOST_CHECK_MESSAGE(found, key);
  }
}

BOOST_AUTO_TEST_CASE(spec_section_5_defaults_are_documented) {
  const std::map<std::string, std::string> spec = {
    {"coolOffPeriod", "1h"},           {"maxParallelMigrations", "5"},
    {"maxParallelMigrationsLimit", "50"}, {"maxNonHyperconvergedPerRun", "100"},
    {"migrationTimeout", "30m"},       {"statusFlushInterval", "1s"},
    {"statusHeartbeatInterval", "30s"}, {"pinTargetNode", "true"},
    {"driver", "portworx"},            {"leaseName", "schedopt-leader"},
    {"leaseDuration", "15s"},          {"renewDeadline", "10s"},
    {"retryPeriod", "2s"},             {"metricsListen", ":8443"},
    {"metricsSecure", "true"},         {"healthListen", ":8081"},
    {"apiQps", "20"},                  {"apiBurst", "30"}};
  for (const auto& [key, def] : spec) {
    auto it = std::find_if(all_settings().begin(), all_settings().end(),
                           [&](const auto& i) { return i.key == key; });
    BOOST_REQUIRE_MESSAGE(it != all_settings().end(), key);
    BOOST_CHECK_EQUAL(it->default_text, def);
  }
}

BOOST_AUTO_TEST_CASE(markdown_table_lists_every_setting) {
  auto table = settings_markdown_table();
  BOOST_CHECK(table.rfind("| Setting | Flag | Environment | Default | Description |\n", 0) == 0);
  std::size_t rows = 0;
  for (char c : table)
    rows += c == '\n';
  BOOST_CHECK_EQUAL(rows, all_settings().size() + 2);
  for (const auto& i : all_settings()) {
    BOOST_TEST_CONTEXT("setting " << i.key) {
      BOOST_CHECK(table.find("`" + i.flag + "`") != std::string::npos);
      BOOST_CHECK(table.find("`" + i.env + "`") != std::string::npos);
      BOOST_CHECK(table.find(i.description) != std::string::npos);
      if (i.key != "config")
        BOOST_CHECK(table.find("`" + i.key + "`") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(help_lists_every_flag_and_default) {
  for (auto c : {command::run, command::plan, command::demo}) {
    auto help = help_text(c);
    BOOST_TEST_CONTEXT("command " << to_string(c)) {
      BOOST_CHECK(help.rfind(std::string("Usage: schedopt ") + to_string(c) + " [flags]", 0) == 0);
      BOOST_CHECK(help.find("--help") != std::string::npos);
      for (const auto& i : all_settings()) {
        BOOST_CHECK_MESSAGE(help.find("  " + i.flag + " ") != std::string::npos, i.flag);
        BOOST_CHECK_MESSAGE(help.find("env " + i.env + ")") != std::string::npos, i.env);
      }
      BOOST_CHECK(help.find("(default 1h;") != std::string::npos);
    }
  }
  BOOST_CHECK(help_text(command::plan).find("-o, --output FORMAT") != std::string::npos);
  for (const auto* flag : {"--vmis INT", "--nodes INT", "--seed INT", "--progress",
                           "--failure-rate NUMBER", "--migration-delay DURATION"})
    BOOST_CHECK_MESSAGE(help_text(command::demo).find(flag) != std::string::npos, flag);
  BOOST_CHECK(help_text(command::run).find("--output") == std::string::npos);
  auto top = help_text(command::none);
  for (const auto* word : {"run", "plan", "demo"})
    BOOST_CHECK(top.find(std::string("  ") + word + " ") != std::string::npos);
}

// The startup log prints every setting; none may hold a secret. The Portworx token is a
// file's content, so only its path shows.
BOOST_AUTO_TEST_CASE(effective_settings_hold_no_token) {
  settings s;
  s.portworx_token_file = "/var/run/secrets/portworx/token";
  bool seen = false;
  for (const auto& [key, value] : effective_settings(s)) {
    BOOST_CHECK(key != "portworxToken");
    if (key == "portworxTokenFile") {
      seen = true;
      BOOST_CHECK_EQUAL(value, "/var/run/secrets/portworx/token");
    }
    if (key == "coolOffPeriod")
      BOOST_CHECK_EQUAL(value, "1h0m0s");
  }
  BOOST_CHECK(seen);
  BOOST_CHECK_EQUAL(effective_settings(s).size(), all_settings().size());
}

BOOST_AUTO_TEST_SUITE_END()
