// sim/crds and deploy/samples stay in step with the CRD reference and the model:
// every reference field is in the schema with a description and its type, the
// coolOffPeriod pattern agrees with parse_go_duration, and KubeVirt CRDs keep
// KubeVirt's subresource layout. model/ has no YAML library, so a small
// indentation walker reads the block-style YAML these manifests use.
#include <boost/test/unit_test.hpp>

#include <memory>
#include <regex>
#include <sstream>

#include "model/fixture_file.hpp"
#include "model/duration.hpp"

using schedopt::test::read_source_file;

namespace {

struct yaml_node {
  std::string key;
  std::string value; // inline scalar after "key:", quotes stripped
  std::vector<std::unique_ptr<yaml_node>> children;

  const yaml_node* child(const std::string& k) const {
    for (const auto& c : children)
      if (c->key == k)
        return c.get();
    return nullptr;
  }
};

// Builds a key tree from block YAML: a "key:" line is the child of the nearest earlier
// line with a smaller indent; "- key: v" list items count as indented by two more.
std::unique_ptr<yaml_node> parse_keys(const std::string& text) {
  auto root = std::make_unique<yaml_node>();
  std::vector<std::pair<int, yaml_node*>> stack{{-1, root.get()}};
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#')
      continue;
    int indent = static_cast<int>(first);
    std::string rest = line.substr(first);
    if (rest.rfind("- ", 0) == 0) {
      rest = rest.substr(2);
      indent += 2;
    }
    auto colon = rest.find(": ");
    std::string key = colon == std::string::npos
                        ? (rest.size() > 1 && rest.back() == ':' ? rest.substr(0, rest.size() - 1) : "")
                        : rest.substr(0, colon);
    if (key.empty() || key.find(' ') != std::string::npos)
      continue; // a folded continuation line or a scalar list item
    std::string value = colon == std::string::npos ? "" : rest.substr(colon + 2);
    if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"'))
      value = value.substr(1, value.size() - 2);
    while (stack.back().first >= indent)
      stack.pop_back();
    auto node = std::make_unique<yaml_node>();
    node->key = key;
    node->value = value;
    yaml_node* raw = node.get();
    stack.back().second->children.push_back(std::move(node));
    stack.push_back({indent, raw});
  }
  return root;
}

// Follows "spec.vmHyperconvergence.details.name" through properties (and array items).
const yaml_node* schema_field(const yaml_node* schema, const std::string& path) {
  const yaml_node* at = schema;
  std::istringstream parts(path);
  std::string part;
  while (at && std::getline(parts, part, '.')) {
    if (const yaml_node* items = at->child("items"))
      at = items;
    const yaml_node* props = at->child("properties");
    at = props ? props->child(part) : nullptr;
  }
  return at;
}

struct crd_file {
  std::string text;
  std::unique_ptr<yaml_node> root;
  const yaml_node* version = nullptr; // spec.versions[0]

  explicit crd_file(const std::string& name) : text(read_source_file("sim/crds/" + name)) {
    root = parse_keys(text);
    const yaml_node* versions = root->child("spec") ? root->child("spec")->child("versions") : nullptr;
    version = versions && !versions->children.empty() ? versions : nullptr;
  }
  // Children of the single version entry sit directly under "versions" in the key tree.
  const yaml_node* in_version(const std::string& key) const {
    return version ? version->child(key) : nullptr;
  }
};

const std::string so_crd = "schedulingoptimizations.stork.libopenstorage.org.yaml";

} // namespace

BOOST_AUTO_TEST_SUITE(crd_manifests)

BOOST_AUTO_TEST_CASE(scheduling_optimization_schema_has_every_reference_field) {
  // Field paths and types of the SchedulingOptimization CRD field reference.
  const std::pair<const char*, const char*> reference[] = {
    {"apiVersion", "string"},
    {"kind", "string"},
    {"spec", "object"},
    {"status", "object"},
    {"spec.vmHyperconvergence", "object"},
    {"spec.vmHyperconvergence.coolOffPeriod", "string"},
    {"spec.vmHyperconvergence.enabled", "boolean"},
    {"spec.vmHyperconvergence.maxParallelMigrations", "integer"},
    {"status.finishTimestamp", "string"},
    {"status.lastUpdateTimestamp", "string"},
    {"status.reason", "string"},
    {"status.stage", "string"},
    {"status.startTimestamp", "string"},
    {"status.status", "string"},
    {"status.vmHyperconvergence", "object"},
    {"status.vmHyperconvergence.details", "array"},
    {"status.vmHyperconvergence.details.name", "string"},
    {"status.vmHyperconvergence.details.namespace", "string"},
    {"status.vmHyperconvergence.details.reason", "string"},
    {"status.vmHyperconvergence.details.status", "string"},
    {"status.vmHyperconvergence.failed", "integer"},
    {"status.vmHyperconvergence.skipped", "integer"},
    {"status.vmHyperconvergence.successful", "integer"},
    {"status.observedGeneration", "integer"}, // docs/design.md §1
  };
  crd_file crd(so_crd);
  const yaml_node* schema_wrapper = crd.in_version("schema");
  BOOST_REQUIRE(schema_wrapper);
  const yaml_node* schema = schema_wrapper->child("openAPIV3Schema");
  BOOST_REQUIRE(schema);
  BOOST_TEST(schema->child("description") != nullptr);
  for (const auto& [path, type] : reference) {
    BOOST_TEST_INFO("field " << path);
    const yaml_node* field = schema_field(schema, path);
    BOOST_REQUIRE(field);
    BOOST_TEST(field->child("description") != nullptr);
    BOOST_REQUIRE(field->child("type"));
    BOOST_TEST(field->child("type")->value == type);
  }
  // Descriptions are the reference's words.
  BOOST_TEST(crd.text.find("Enabled is the request marker") != std::string::npos);
  BOOST_TEST(crd.text.find("LastUpdateTimestamp is bumped on every status write") != std::string::npos);
  BOOST_TEST(crd.text.find("Name of the VirtualMachineInstance") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(scheduling_optimization_names_scope_and_columns) {
  crd_file crd(so_crd);
  const yaml_node* spec = crd.root->child("spec");
  BOOST_REQUIRE(spec);
  BOOST_TEST(crd.root->child("metadata")->child("name")->value == "schedulingoptimizations.stork.libopenstorage.org");
  BOOST_TEST(spec->child("group")->value == "stork.libopenstorage.org");
  BOOST_TEST(spec->child("scope")->value == "Cluster");
  const yaml_node* names = spec->child("names");
  BOOST_TEST(names->child("kind")->value == "SchedulingOptimization");
  BOOST_TEST(names->child("plural")->value == "schedulingoptimizations");
  BOOST_TEST(names->child("singular")->value == "schedulingoptimization");
  BOOST_TEST(crd.text.find("shortNames:\n    - schedopt\n") != std::string::npos);
  BOOST_TEST(crd.in_version("name")->value == "v1alpha1");
  BOOST_REQUIRE(crd.in_version("subresources"));
  BOOST_TEST(crd.in_version("subresources")->child("status") != nullptr);
  for (const char* column : {"- name: Stage\n      type: string\n      jsonPath: .status.stage",
                             "- name: Status\n      type: string\n      jsonPath: .status.status",
                             "- name: Successful\n      type: integer\n      jsonPath: .status.vmHyperconvergence.successful",
                             "- name: Failed\n      type: integer\n      jsonPath: .status.vmHyperconvergence.failed",
                             "- name: Skipped\n      type: integer\n      jsonPath: .status.vmHyperconvergence.skipped",
                             "- name: Age\n      type: date\n      jsonPath: .metadata.creationTimestamp"}) {
    BOOST_TEST_INFO("column " << column);
    BOOST_TEST(crd.text.find(column) != std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(scheduling_optimization_validation) {
  crd_file crd(so_crd);
  const yaml_node* schema = crd.in_version("schema")->child("openAPIV3Schema");
  const yaml_node* parallel = schema_field(schema, "spec.vmHyperconvergence.maxParallelMigrations");
  BOOST_REQUIRE(parallel && parallel->child("minimum"));
  BOOST_TEST(parallel->child("minimum")->value == "1");
  BOOST_REQUIRE(schema_field(schema, "status.stage")->child("enum"));
  BOOST_REQUIRE(schema_field(schema, "status.status")->child("enum"));
  BOOST_REQUIRE(schema_field(schema, "status.vmHyperconvergence.details.status")->child("enum"));
  BOOST_TEST(crd.text.find("- Evaluating\n") != std::string::npos);
  BOOST_TEST(crd.text.find("- PartialSuccess\n") != std::string::npos);
  BOOST_TEST(crd.text.find("- Skipped\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(cool_off_pattern_agrees_with_the_duration_parser) {
  crd_file crd(so_crd);
  const yaml_node* schema = crd.in_version("schema")->child("openAPIV3Schema");
  const yaml_node* cool = schema_field(schema, "spec.vmHyperconvergence.coolOffPeriod");
  BOOST_REQUIRE(cool && cool->child("pattern"));
  std::regex pattern(cool->child("pattern")->value, std::regex::ECMAScript);
  // Accepted by both: what users write.
  for (const char* ok : {"90s", "1h30m", "1.5h", "300ms", "0", "2h45m10.5s", "1us", "1\xC2\xB5s", ".5s"}) {
    BOOST_TEST_INFO("duration " << ok);
    BOOST_TEST(std::regex_match(std::string(ok), pattern));
    BOOST_TEST(schedopt::parse_go_duration(ok).has_value());
  }
  // Rejected by both: the API server stops these before schedopt sees them.
  for (const char* bad : {"abc", "-5m", "5", "1x", "", "1h 30m", ".s", "1H"}) {
    BOOST_TEST_INFO("duration " << bad);
    BOOST_TEST(!std::regex_match(std::string(bad), pattern));
    BOOST_TEST(!schedopt::parse_go_duration(bad).has_value());
  }
}

BOOST_AUTO_TEST_CASE(kubevirt_crds_keep_kubevirt_layout) {
  struct row {
    const char* file;
    const char* kind;
    const char* short_name;
    bool status_subresource;
  };
  const row rows[] = {
    {"virtualmachineinstances.kubevirt.io.yaml", "VirtualMachineInstance", "vmi", false},
    {"virtualmachineinstancemigrations.kubevirt.io.yaml", "VirtualMachineInstanceMigration", "vmim", true},
    {"virtualmachines.kubevirt.io.yaml", "VirtualMachine", "vm", true},
    {"kubevirts.kubevirt.io.yaml", "KubeVirt", "kv", true},
  };
  for (const auto& r : rows) {
    BOOST_TEST_INFO("file " << r.file);
    crd_file crd(r.file);
    const yaml_node* spec = crd.root->child("spec");
    BOOST_REQUIRE(spec);
    BOOST_TEST(spec->child("group")->value == "kubevirt.io");
    BOOST_TEST(spec->child("scope")->value == "Namespaced");
    BOOST_TEST(spec->child("names")->child("kind")->value == r.kind);
    BOOST_TEST(crd.text.find(std::string("    - ") + r.short_name + "\n") != std::string::npos);
    BOOST_TEST(crd.in_version("name")->value == "v1");
    BOOST_TEST((crd.in_version("subresources") != nullptr) == r.status_subresource);
    const yaml_node* schema = crd.in_version("schema")->child("openAPIV3Schema");
    for (const char* part : {"spec", "status"}) {
      const yaml_node* field = schema_field(schema, part);
      BOOST_REQUIRE(field);
      if (std::string{r.kind} == "VirtualMachineInstanceMigration" && std::string{part} == "spec") {
        // Structural, as KubeVirt's generated CRD is: what a release lacks is pruned.
        BOOST_TEST(!field->child("x-kubernetes-preserve-unknown-fields"));
        BOOST_REQUIRE(field->child("properties"));
        BOOST_TEST(field->child("properties")->child("vmiName"));
        BOOST_TEST(field->child("properties")->child("addedNodeSelector"));
        continue;
      }
      BOOST_REQUIRE(field->child("x-kubernetes-preserve-unknown-fields"));
      BOOST_TEST(field->child("x-kubernetes-preserve-unknown-fields")->value == "true");
    }
  }
  crd_file vmim("virtualmachineinstancemigrations.kubevirt.io.yaml");
  BOOST_TEST(vmim.text.find("jsonPath: .spec.vmiName") != std::string::npos);
  crd_file vmi("virtualmachineinstances.kubevirt.io.yaml");
  BOOST_TEST(vmi.text.find("jsonPath: .status.nodeName") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(samples_are_valid_requests) {
  auto typical = parse_keys(read_source_file("deploy/samples/schedulingoptimization-typical.yaml"));
  BOOST_TEST(typical->child("kind")->value == "SchedulingOptimization");
  BOOST_TEST(typical->child("apiVersion")->value == "stork.libopenstorage.org/v1alpha1");
  const yaml_node* vm = typical->child("spec")->child("vmHyperconvergence");
  BOOST_REQUIRE(vm);
  BOOST_TEST(vm->children.size() == 1u); // only the marker
  BOOST_TEST(vm->child("enabled")->value == "true");
  auto tuned = parse_keys(read_source_file("deploy/samples/schedulingoptimization-tuned.yaml"));
  const yaml_node* tvm = tuned->child("spec")->child("vmHyperconvergence");
  BOOST_REQUIRE(tvm);
  BOOST_TEST(tvm->child("coolOffPeriod")->value == "30m");
  BOOST_TEST(tvm->child("maxParallelMigrations")->value == "10");
  BOOST_TEST(schedopt::parse_go_duration(tvm->child("coolOffPeriod")->value).has_value());
  auto pods = parse_keys(read_source_file("deploy/samples/schedulingoptimization-pods.yaml"));
  BOOST_REQUIRE(pods->child("spec")->child("vmHyperconvergence"));
  const yaml_node* pod = pods->child("spec")->child("podHyperconvergence");
  BOOST_REQUIRE(pod);
  BOOST_TEST(pod->child("enabled")->value == "true");
  BOOST_TEST(schedopt::parse_go_duration(pod->child("coolOffPeriod")->value).has_value());
  BOOST_TEST(pod->child("maxParallelEvictions")->value == "3");
}

BOOST_AUTO_TEST_CASE(controller_runs_leader_elected_with_the_config_map) {
  std::string deployment = read_source_file("deploy/manager/deployment.yaml");
  BOOST_TEST(deployment.find(R"(command: ["schedopt", "run", "--leader-elect", "--config", "/etc/schedopt/config.yaml"])")
             != std::string::npos);
  BOOST_TEST(deployment.find("mountPath: /etc/schedopt") != std::string::npos);
  BOOST_TEST(deployment.find("serviceAccountName: schedopt") != std::string::npos);
  std::string rbac = read_source_file("deploy/rbac/rbac.yaml");
  for (const char* needle : {"schedulingoptimizations/status", "virtualmachineinstancemigrations",
                             "coordination.k8s.io", "persistentvolumes", "events"}) {
    BOOST_TEST_INFO("rbac " << needle);
    BOOST_TEST(rbac.find(needle) != std::string::npos);
  }
  std::string config = read_source_file("deploy/manager/configmap.yaml");
  for (const char* needle : {"coolOffPeriod: 1h", "maxParallelMigrationsLimit: 50",
                             "maxNonHyperconvergedPerRun: 100", "statusFlushInterval: 1s",
                             "statusHeartbeatInterval: 30s", "pinTargetNode: true", "driver: portworx"}) {
    BOOST_TEST_INFO("config " << needle);
    BOOST_TEST(config.find(needle) != std::string::npos);
  }
  // Any value in the file is explicit: these two are left to the cluster's KubeVirt CR.
  for (const char* unset : {"\n    maxParallelMigrations:", "\n    migrationTimeout:"}) {
    BOOST_TEST_INFO("config sets" << unset);
    BOOST_TEST(config.find(unset) == std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
