// podHyperconvergence's settings (actors/kinds/pod_hyperconvergence/pod_settings.hpp):
// its rows reach every source through the registry, keep their spellings, defaults and
// error texts, and pod_settings_of reads them typed.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include <yaml-cpp/yaml.h>

#include "actors/kinds/pod_hyperconvergence/pod_settings.hpp"
#include "actors/optimization_kinds.hpp"
#include "config/command_line.hpp"

using namespace schedopt;
using namespace std::chrono_literals;
using pod_hyperconvergence::pod_settings_of;

namespace {

struct fixture {
  std::map<std::string, std::string> vars;
  std::map<std::string, std::string> files; // path -> content, as config_file_text reads
  load_paths paths;

  fixture() {
    paths.service_account_namespace_file = "/nonexistent/schedopt-test/namespace";
    paths.config_file_text = [this](const std::string& path) -> expected<std::string> {
      return files.at(path);
    };
  }

  expected<parse_result> parse(std::vector<std::string> args,
                               const std::vector<kind_settings_table>& kinds
                               = kind_settings_tables()) {
    args.insert(args.begin(), "schedopt");
    environment env = [this](const std::string& name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end())
        return std::nullopt;
      return it->second;
    };
    return parse_command_line(args, env, paths, kinds);
  }

  pod_hyperconvergence::pod_settings ok(std::vector<std::string> args) {
    auto r = parse(args);
    if (!r)
      BOOST_FAIL("unexpected error: " << r.err().message);
    return pod_settings_of(r->config);
  }

  std::string fails(std::vector<std::string> args) {
    auto r = parse(args);
    BOOST_REQUIRE_MESSAGE(!r, "expected an error");
    return r.err().message;
  }
};

std::string source_file(const std::string& path) {
  std::ifstream in{std::string{SCHEDOPT_SOURCE_DIR} + "/" + path};
  BOOST_REQUIRE_MESSAGE(in, path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(pod_kind_settings, fixture)

BOOST_AUTO_TEST_CASE(the_registry_hands_over_the_pod_kinds_table) {
  auto tables = kind_settings_tables();
  BOOST_REQUIRE_EQUAL(tables.size(), 1u); // the VM kind's settings predate kinds: core rows
  BOOST_CHECK_EQUAL(tables[0].kind, "podHyperconvergence");
  BOOST_CHECK(find_optimization_kind("vmHyperconvergence")->settings_table == nullptr);
  BOOST_CHECK(find_optimization_kind("podHyperconvergence")->settings_table != nullptr);
}

// The flags, variables and file keys users already set, unchanged by the move.
BOOST_AUTO_TEST_CASE(rows_keep_their_spellings_and_defaults) {
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> expected = {
    {"storageAwareSchedulers", "--storage-aware-schedulers", "SCHEDOPT_STORAGE_AWARE_SCHEDULERS",
     "stork"},
    {"podReadyTimeout", "--pod-ready-timeout", "SCHEDOPT_POD_READY_TIMEOUT", "10m"},
    {"maxParallelEvictions", "--max-parallel-evictions", "SCHEDOPT_MAX_PARALLEL_EVICTIONS", "5"},
    {"maxParallelEvictionsLimit", "--max-parallel-evictions-limit",
     "SCHEDOPT_MAX_PARALLEL_EVICTIONS_LIMIT", "50"},
  };
  auto infos = all_settings(kind_settings_tables());
  for (const auto& [key, flag, env, def] : expected) {
    BOOST_TEST_CONTEXT("setting " << key) {
      auto it = std::find_if(infos.begin(), infos.end(), [&](const auto& i) { return i.key == key; });
      BOOST_REQUIRE(it != infos.end());
      BOOST_CHECK_EQUAL(it->flag, flag);
      BOOST_CHECK_EQUAL(it->env, env);
      BOOST_CHECK_EQUAL(it->default_text, def);
      BOOST_CHECK(std::none_of(all_settings().begin(), all_settings().end(),
                               [&](const auto& i) { return i.key == key; }));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_kinds_defaults_are_valid_and_keys_unique) {
  std::set<std::string> keys;
  for (const auto& i : all_settings())
    keys.insert(i.key);
  for (const auto& table : kind_settings_tables())
    for (const auto& row : table.rows) {
      BOOST_TEST_CONTEXT(table.kind << " " << row.key) {
        BOOST_CHECK(keys.insert(row.key).second);
        BOOST_CHECK_EQUAL(row.validate(row.default_text), "");
        BOOST_CHECK(!row.description.empty());
      }
    }
  BOOST_CHECK(parse({"run"})); // and parse_command_line agrees
}

BOOST_AUTO_TEST_CASE(defaults_read_typed_with_or_without_parsing) {
  for (const auto& s : {ok({"run"}), pod_settings_of(settings{})}) {
    BOOST_CHECK(s.storage_aware_schedulers == std::vector<std::string>{"stork"});
    BOOST_CHECK(s.pod_ready_timeout == 10min);
    BOOST_CHECK_EQUAL(s.max_parallel_evictions, 5);
    BOOST_CHECK_EQUAL(s.max_parallel_evictions_limit, 50);
  }
}

BOOST_AUTO_TEST_CASE(values_come_from_a_flag_the_environment_and_the_file) {
  auto s = ok({"run", "--storage-aware-schedulers", "stork, my-stork", "--pod-ready-timeout=90s"});
  BOOST_CHECK(s.storage_aware_schedulers == (std::vector<std::string>{"stork", "my-stork"}));
  BOOST_CHECK(s.pod_ready_timeout == 90s);
  vars["SCHEDOPT_MAX_PARALLEL_EVICTIONS"] = "7";
  BOOST_CHECK_EQUAL(ok({"plan", "--kind", "podHyperconvergence"}).max_parallel_evictions, 7);
  files["c.yaml"] = "storageAwareSchedulers: [a, b]\nmaxParallelEvictionsLimit: 8\n"
                    "maxParallelEvictions: 6\n";
  s = ok({"run", "--config", "c.yaml"});
  BOOST_CHECK(s.storage_aware_schedulers == (std::vector<std::string>{"a", "b"}));
  BOOST_CHECK_EQUAL(s.max_parallel_evictions, 7); // environment over file
  BOOST_CHECK_EQUAL(s.max_parallel_evictions_limit, 8);
}

BOOST_AUTO_TEST_CASE(bad_values_are_refused_with_the_texts_they_had) {
  BOOST_CHECK_EQUAL(fails({"run", "--max-parallel-evictions", "0"}),
                    "--max-parallel-evictions \"0\": must be >= 1");
  BOOST_CHECK_EQUAL(fails({"run", "--storage-aware-schedulers", " , "}),
                    "--storage-aware-schedulers \" , \": must name at least one scheduler");
  vars["SCHEDOPT_POD_READY_TIMEOUT"] = "0s";
  BOOST_CHECK_EQUAL(fails({"run"}), "SCHEDOPT_POD_READY_TIMEOUT \"0s\": must be > 0");
  vars.clear();
  files["bad.yaml"] = "maxParallelEvictionsLimit: many\n";
  BOOST_CHECK_EQUAL(fails({"run", "--config", "bad.yaml"}),
                    "bad.yaml: maxParallelEvictionsLimit: not an integer");
  BOOST_CHECK_EQUAL(fails({"run", "--max-parallel-eviction", "2"}),
                    "unknown flag --max-parallel-eviction (see schedopt run --help)");
}

BOOST_AUTO_TEST_CASE(evictions_may_not_exceed_their_limit) {
  BOOST_CHECK_EQUAL(fails({"run", "--max-parallel-evictions", "60"}),
                    "maxParallelEvictions (--max-parallel-evictions) 60 exceeds "
                    "maxParallelEvictionsLimit (default) 50");
  files["c.yaml"] = "maxParallelEvictionsLimit: 3\n";
  BOOST_CHECK_EQUAL(fails({"run", "--config", "c.yaml"}),
                    "maxParallelEvictions (default) 5 exceeds maxParallelEvictionsLimit (c.yaml) 3");
  BOOST_CHECK_EQUAL(ok({"run", "--config", "c.yaml", "--max-parallel-evictions", "3"})
                      .max_parallel_evictions, 3);
}

// deploy/manager/configmap.yaml sets the pod kind's keys: the controller it configures
// must know them, which it does only through the registry's tables.
BOOST_AUTO_TEST_CASE(the_shipped_config_map_parses_with_every_kind) {
  auto manifest = YAML::Load(source_file("deploy/manager/configmap.yaml"));
  files["config.yaml"] = manifest["data"]["config.yaml"].as<std::string>();
  auto s = ok({"run", "--config", "config.yaml"});
  BOOST_CHECK(s.storage_aware_schedulers == std::vector<std::string>{"stork"});
  BOOST_CHECK_EQUAL(s.max_parallel_evictions_limit, 50);
  auto without = parse({"run", "--config", "config.yaml"}, {});
  BOOST_REQUIRE(!without);
  BOOST_CHECK_EQUAL(without.err().message, "config.yaml: storageAwareSchedulers: unknown setting");
}

BOOST_AUTO_TEST_CASE(help_lists_the_pod_kinds_flags) {
  auto r = parse({"run", "--help"});
  BOOST_REQUIRE(r);
  for (const auto* flag : {"  --storage-aware-schedulers LIST ", "  --pod-ready-timeout DURATION ",
                           "  --max-parallel-evictions INT ", "  --max-parallel-evictions-limit INT "})
    BOOST_CHECK_MESSAGE(r->help_text.find(flag) != std::string::npos, flag);
  BOOST_CHECK(r->help_text.find("(default stork; env SCHEDOPT_STORAGE_AWARE_SCHEDULERS)")
              != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
