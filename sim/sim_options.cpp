// Flag parsing for schedopt-sim; accepts "--flag value" and "--flag=value".
#include "sim/sim_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

#include "model/duration.hpp"
#include "model/quantity.hpp"

namespace schedopt::sim {

namespace {

error flag_error(const std::string& message) {
  return make_error(ec::config_error, message);
}

expected<long long> parse_int(const std::string& flag, const std::string& text, long long min,
                              long long max) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || v < min || v > max)
    return flag_error("invalid value \"" + text + "\" for " + flag + ": expected an integer in ["
                      + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

expected<double> parse_fraction(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0.0 && v <= 1.0))
    return flag_error("invalid value \"" + text + "\" for " + flag + ": expected a number in [0, 1]");
  return v;
}

expected<std::chrono::milliseconds> parse_dur(const std::string& flag, const std::string& text) {
  auto d = parse_go_duration(text);
  if (!d)
    return flag_error("invalid value \"" + text + "\" for " + flag + ": " + d.err().message);
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

/// What serve and attach both refuse: flags that need another, or a world that cannot be.
std::optional<error> check_world(const serve_options& o) {
  // libopenstorage/operator drivers/storage/portworx/util/util.go, IsTLSEnabledOnCluster:
  // TLS is on only when spec.security.enabled is too, so a TLS gateway always wants a token.
  if (!o.sdk_ca_out.empty() && o.sdk_token.empty())
    return flag_error("--sdk-ca-out (an HTTPS SDK gateway) needs --sdk-token T: Portworx "
                      "serves TLS only with PX-Security on");
  if (o.drain_node.empty() && o.drain_after.count() > 0)
    return flag_error("--drain-after needs --drain-node NAME");
  if (o.scenario.nodes_without_virt_handler >= o.scenario.nodes)
    return flag_error("--nodes-without-virt-handler must be below --nodes (VMIs need a virt-handler node)");
  if (!o.partition.user_agent.empty() && o.partition.length.count() <= 0)
    return flag_error("--partition-user-agent needs --partition-for DUR above 0");
  if (o.partition.user_agent.empty() && (o.partition.length.count() > 0 || o.partition.after.count() > 0))
    return flag_error("--partition-after and --partition-for need --partition-user-agent S");
  if (o.faults.rate_5xx + o.faults.rate_429 > 1.0)
    return flag_error("--fault-5xx-rate plus --fault-429-rate must not exceed 1");
  return std::nullopt;
}

/// attach takes the scenario's flags; those of the simulator's own API server have no
/// meaning against a real one, and a scenario it cannot build there is refused, never
/// ignored.
expected<sim_command> check_attach(sim_command cmd, const std::set<std::string>& given) {
  if (cmd.attach_kubeconfig.empty())
    return flag_error("--kubeconfig PATH is required: the API server to attach to");
  static const char* server_flags[] = {"--listen", "--token", "--watch-history", "--compaction-interval",
                                       "--bookmark-interval", "--authorization", "--service-account",
                                       "--service-account-dir"};
  for (const char* flag : server_flags)
    if (given.count(flag))
      return flag_error(std::string(flag) + " does not apply to attach: it configures the simulator's own API "
                        "server, and attach uses the one --kubeconfig names");
  // The faults are the fault proxy's, which clients reach through --kubeconfig-out.
  static const char* proxy_flags[] = {"--fault-5xx-rate", "--fault-429-rate", "--watch-drop-after", "--latency",
                                      "--partition-user-agent", "--partition-after", "--partition-for"};
  for (const char* flag : proxy_flags)
    if (given.count(flag) && cmd.serve.kubeconfig_out.empty())
      return flag_error(std::string(flag) + " needs --kubeconfig-out PATH: attach's faults are its fault proxy's, "
                        "in front of the API server, and reach the clients that use that kubeconfig");
  // There the real controllers and kubelets (kwok) move pods, at their own pace.
  static const char* pod_timing_flags[] = {"--pod-recreate-delay", "--pod-start-delay"};
  for (const char* flag : pod_timing_flags)
    if (given.count(flag))
      return flag_error(std::string(flag) + " does not apply to attach: the API server's StatefulSet and "
                        "ReplicaSet controllers and its kubelets (kwok) time the pods there");
  // A slow termination is kwok's per-pod delay annotation (test/controlplane/kwok-stages);
  // without the flag kwok ends a deleted pod at once.
  if (!given.count("--pod-termination-delay"))
    cmd.serve.scenario.pod_termination_delay = std::chrono::milliseconds(0);
  if (auto bad = check_world(cmd.serve))
    return *bad;
  return cmd;
}

} // namespace

std::string sim_usage() {
  return "Usage: schedopt-sim <command> [flags]\n"
         "\n"
         "A simulated Kubernetes cluster (HTTPS API server, KubeVirt, Portworx SDK gateway)\n"
         "for load tests and integration tests of schedopt.\n"
         "\n"
         "Commands:\n"
         "  serve    start the simulated cluster (see `schedopt-sim serve --help`)\n"
         "  attach   put the simulated world into a real API server and run what has no\n"
         "           real counterpart there (see `schedopt-sim attach --help`)\n"
         "\n"
         "Flags:\n"
         "  -h, --help   show this help\n"
         "  --version    print the version and git revision\n";
}

std::string attach_usage() {
  return "Usage: schedopt-sim attach --kubeconfig PATH [flags]\n"
         "\n"
         "Puts the simulated world into the API server PATH names (a real kube-apiserver):\n"
         "installs KubeVirt's CRDs for --kubevirt-version (server-side apply) and schedopt's\n"
         "CRD if absent, creates the scenario's nodes, volumes, VMs and the KubeVirt CR through\n"
         "the API, and runs as that server's clients what has no real counterpart there:\n"
         "KubeVirt's migration and evacuation controllers, virt-handler's VMI updates, the\n"
         "storage backend with its Portworx SDK gateway, Stork's scheduler (the pods naming\n"
         "`stork`, bound through pods/binding), pool failovers. --pods creates StatefulSets,\n"
         "ReplicaSets, DaemonSets, Jobs, bare pods and budgets, whose pods the server's\n"
         "controllers make; `ready` waits until they run. Kubelets are kwok's\n"
         "(--kwok DIR starts it: DIR holds bin/kwok and kwok-stages/, as the folder\n"
         "test/controlplane/build.sh prints does); the control plane's controllers are its own.\n"
         "Prints one line `ready` once the world is in the API server; stops on SIGTERM/SIGINT.\n"
         "\n"
         "POST /admin/failover[?node=NAME] and /admin/drain?node=NAME, as serve's, are served\n"
         "on a loopback listener whose URL --admin-endpoint-out FILE writes.\n"
         "\n"
         "--kubeconfig-out PATH starts a fault proxy in front of the API server and writes a\n"
         "kubeconfig naming it for the clients under test; serve's fault and partition flags\n"
         "and its /admin/answer-faults and /admin/partitions (on the admin listener) act there.\n"
         "\n"
         "--pod-termination-delay D annotates the scenario's pods so that kwok's pod-delete\n"
         "stage (as build.sh installs it) holds each deleted pod D before it is gone.\n"
         "\n"
         "--crd-dir DIR installs the CRDs there instead of sim/crds and deploy/crd's\n"
         "SchedulingOptimization CRD (a CRD the server already has is kept as it is).\n"
         "\n"
         "Flags: --kubeconfig PATH (required), --kwok DIR, --admin-endpoint-out FILE, the scenario, KubeVirt, storage and failover\n"
         "flags of `schedopt-sim serve --help`, and --sdk-endpoint-out, --sdk-token,\n"
         "--sdk-ca-out, --sdk-port. The API server's own flags are refused, and so are the\n"
         "pod timing flags: kwok and the controllers time pods there.\n";
}

std::string serve_usage() {
  return "Usage: schedopt-sim serve --kubeconfig-out PATH [flags]\n"
         "\n"
         "Starts the simulated cluster and prints one line `ready <server-url>` on stdout once\n"
         "it serves. Stops cleanly on SIGTERM/SIGINT.\n"
         "\n"
         "Server:\n"
         "  --kubeconfig-out PATH        write a kubeconfig for kubectl/schedopt here (required)\n"
         "  --listen HOST:PORT           API server address (default 127.0.0.1:0, any free port)\n"
         "  --token T                    bearer token clients must send (default: random)\n"
         "  --sdk-endpoint-out PATH      write the Portworx SDK gateway URL here\n"
         "  --sdk-token T                bearer token the SDK gateway requires (default: none)\n"
         "  --sdk-ca-out PATH            serve the SDK gateway over HTTPS with a CA of its own\n"
         "                               and write that CA here (PEM); needs --sdk-token, as\n"
         "                               Portworx serves TLS only with PX-Security on\n"
         "  --sdk-port N                 SDK gateway port (default 0, any free port)\n"
         "  --crd-dir DIR                CRD manifests to serve (default: the source tree's sim/crds)\n"
         "  --watch-history N            watch events retained (default 10000; smaller forces 410s)\n"
         "  --compaction-interval DUR    compact storage this often, as kube-apiserver does: a list's\n"
         "                               continue token expires (410) one to two intervals after its\n"
         "                               first page (default 5m; 0 never; POST /admin/compact now)\n"
         "  --bookmark-interval DUR      watch bookmarks this often (default 1m, as the watch cache)\n"
         "\n"
         "Authorization:\n"
         "  --authorization MODE         always-allow (default: every valid token may do anything)\n"
         "                               or rbac (ServiceAccount tokens get what stored RBAC objects\n"
         "                               grant; the admin token of the kubeconfig is always allowed)\n"
         "  --service-account NS/NAME    create this ServiceAccount (and namespace) and issue it a\n"
         "                               token; repeatable, each followed by --service-account-dir\n"
         "  --service-account-dir DIR    write the preceding account's token, ca.crt and namespace\n"
         "                               here, as the kubelet mounts them\n"
         "\n"
         "Scenario:\n"
         "  --nodes N                    nodes (default 6)\n"
         "  --vmis N                     running VMIs (default 40)\n"
         "  --volumes-per-vmi N          volumes per VMI (default 2)\n"
         "  --replicas N                 replicas per volume (default 2)\n"
         "  --misplaced F                fraction of VMIs started on a non-best node (default 0.3)\n"
         "  --not-migratable F           fraction with LiveMigratable=False (default 0)\n"
         "  --constrained F              fraction of VMIs whose nodeSelector or required node\n"
         "                               affinity excludes some of their replica nodes (default 0)\n"
         "  --tainted-nodes N            nodes with a dedicated=vms:NoSchedule taint only some\n"
         "                               VMIs tolerate (default 0)\n"
         "  --full-nodes N               nodes without room (allocatable memory) for another VMI\n"
         "                               (default 0)\n"
         "  --migration-failure-rate F   fraction of migrations that fail (default 0)\n"
         "  --migration-duration DUR     time from Running to Succeeded (default 2s)\n"
         "  --phase-delay DUR            time in each VMIM phase before Running (default 200ms)\n"
         "  --migration-bandwidth Q      transfer rate, bytes per second (e.g. 1Gi): Running\n"
         "                               lasts the VMI's memory over it, capped by the KubeVirt\n"
         "                               CR's bandwidthPerMigration (default 0: --migration-duration)\n"
         "  --vmi-memory Q               each VMI's guest memory (default 4Gi)\n"
         "  --vmi-update-lag DUR         time from a VMIM's Succeeded to its VMI's new nodeName\n"
         "                               (default 0: the same tick)\n"
         "  --parallel-migrations-per-cluster N        KubeVirt's cluster cap (default 5)\n"
         "  --parallel-outbound-migrations-per-node N  KubeVirt's per-node cap (default 2)\n"
         "  --kubevirt-version 1.3|...|1.9             the KubeVirt release answered as\n"
         "                               (default 1.6; before 1.6 the VMIM schema prunes\n"
         "                               spec.addedNodeSelector)\n"
         "  --driver portworx|csi-topology|longhorn    storage driver (default portworx)\n"
         "  --seed N                     random seed of the scenario and the fault rolls (default 1)\n"
         "  --failover-after DUR         simulate a pool failover after DUR\n"
         "  --nodes-without-virt-handler N  nodes without virt-handler: no kubevirt.io/schedulable\n"
         "                               nor CPU labels; they hold replicas, never VMIs (default 0)\n"
         "  --cpu-models A,B,...         host CPU models given to the virt-handler nodes round-robin\n"
         "                               (default Cascadelake-Server); a host-model VMI migrates\n"
         "                               only to a node of its node's model\n"
         "  --drain-node NAME            `kubectl drain NAME` as KubeVirt answers it: cordon, then\n"
         "                               evictions that become evacuation migrations\n"
         "  --drain-after DUR            when, counted from ready (default 0s); at runtime:\n"
         "                               POST /admin/drain?node=NAME\n"
         "  --vmi-churn N                VMI status updates per second as virt-handler writes them\n"
         "                               (guest OS, memory, addresses, agent probe; default 0)\n"
         "\n"
         "Stateful pods (podHyperconvergence; none unless --pods):\n"
         "  --pods N                     running pods with driver volumes (default 0)\n"
         "  --volumes-per-pod N          driver volumes per pod (default 1)\n"
         "  --pods-in-statefulsets F     of the controlled pods, the fraction in StatefulSets (of\n"
         "                               1-3 replicas); the rest in one-replica ReplicaSets (default 0.5)\n"
         "  --pods-uncontrolled F        fraction of pods that are bare, DaemonSet- or Job-owned,\n"
         "                               in turn (default 0.1)\n"
         "  --pods-default-scheduler F   fraction of workloads scheduled by default-scheduler instead\n"
         "                               of stork (default 0.2)\n"
         "  --pods-misplaced F           fraction of pods started on a node holding fewer of their\n"
         "                               replicas than the best (default 0.3)\n"
         "  --pdb-blocked F              fraction of workloads whose PodDisruptionBudget allows no\n"
         "                               disruption (maxUnavailable 0; default 0; the rest 1)\n"
         "  --pdb-overlap F              fraction of workloads covered by a second budget, so their\n"
         "                               evictions answer 500 (default 0)\n"
         "  --pod-recreate-delay DUR     from a pod's deletion to its controller's replacement\n"
         "                               (default 500ms)\n"
         "  --pod-start-delay DUR        from a pod's binding to Running and Ready (default 1s)\n"
         "  --pod-termination-delay DUR  from a pod's deletionTimestamp to its removal, at most its\n"
         "                               grace period (default 1s)\n"
         "\n"
         "Faults (on /api and /apis requests):\n"
         "  --fault-5xx-rate F           fraction answered 500 InternalError\n"
         "  --fault-429-rate F           fraction answered 429 with Retry-After: 1\n"
         "  --watch-drop-after DUR       close watch streams after DUR\n"
         "  --latency DUR                added to every request\n"
         "\n"
         "Network partition (any path, admin ones included):\n"
         "  --partition-user-agent S     cut off clients whose User-Agent contains S (schedopt's\n"
         "                               carries its replica identity: schedopt/V (HOST_PID))\n"
         "  --partition-after DUR        from DUR after the simulator started (default 0s)\n"
         "  --partition-for DUR          for DUR (required with --partition-user-agent)\n"
         "                               Their requests go unanswered and are never applied;\n"
         "                               the client's timeout is what it sees. Watches open to\n"
         "                               them go silent. When the partition ends each held\n"
         "                               connection is cut. At runtime: POST /admin/partitions\n"
         "                               {\"userAgent\":S,\"after\":DUR,\"for\":DUR}, GET lists,\n"
         "                               DELETE heals them all.\n"
         "\n"
         "Durations are Go durations: 300ms, 2s, 1m30s.\n";
}

expected<sim_command> parse_sim_command_line(const std::vector<std::string>& args) {
  sim_command cmd;
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help")
    return cmd;
  if (args[0] != "serve" && args[0] != "attach")
    return flag_error("unknown command \"" + args[0] + "\" (try: schedopt-sim --help)");
  bool attach = args[0] == "attach";
  cmd.what = attach ? sim_command::kind::attach : sim_command::kind::serve;
  auto& o = cmd.serve;
  auto& s = o.scenario;
  using setter = std::function<std::optional<error>(const std::string& flag, const std::string& v)>;
  auto int_flag = [](int& target, long long min, long long max) -> setter {
    return [&target, min, max](const std::string& f, const std::string& v) -> std::optional<error> {
      auto n = parse_int(f, v, min, max);
      if (!n)
        return n.err();
      target = static_cast<int>(*n);
      return std::nullopt;
    };
  };
  auto fraction_flag = [](double& target) -> setter {
    return [&target](const std::string& f, const std::string& v) -> std::optional<error> {
      auto n = parse_fraction(f, v);
      if (!n)
        return n.err();
      target = *n;
      return std::nullopt;
    };
  };
  auto dur_flag = [](std::chrono::milliseconds& target) -> setter {
    return [&target](const std::string& f, const std::string& v) -> std::optional<error> {
      auto d = parse_dur(f, v);
      if (!d)
        return d.err();
      target = *d;
      return std::nullopt;
    };
  };
  auto str_flag = [](std::string& target) -> setter {
    return [&target](const std::string& f, const std::string& v) -> std::optional<error> {
      if (v.empty())
        return flag_error("flag " + f + " needs a non-empty value");
      target = v;
      return std::nullopt;
    };
  };
  std::map<std::string, setter> flags = {
    {"--kubeconfig", str_flag(cmd.attach_kubeconfig)},
    {"--kwok", str_flag(cmd.kwok_dir)},
    {"--admin-endpoint-out", str_flag(cmd.admin_endpoint_out)},
    {"--kubeconfig-out", str_flag(o.kubeconfig_out)},
    {"--token", str_flag(o.token)},
    {"--sdk-endpoint-out", str_flag(o.sdk_endpoint_out)},
    {"--sdk-token", str_flag(o.sdk_token)},
    {"--sdk-ca-out", str_flag(o.sdk_ca_out)},
    {"--sdk-port", int_flag(o.sdk_port, 0, 65535)},
    {"--crd-dir", str_flag(o.crd_dir)},
    {"--listen",
     [&o](const std::string& f, const std::string& v) -> std::optional<error> {
       auto colon = v.rfind(':');
       if (colon == std::string::npos || colon == 0)
         return flag_error("invalid value \"" + v + "\" for " + f + ": expected HOST:PORT");
       auto port = parse_int(f, v.substr(colon + 1), 0, 65535);
       if (!port)
         return port.err();
       o.listen_host = v.substr(0, colon);
       o.listen_port = static_cast<int>(*port);
       return std::nullopt;
     }},
    {"--watch-history",
     [&o](const std::string& f, const std::string& v) -> std::optional<error> {
       auto n = parse_int(f, v, 1, 100000000);
       if (!n)
         return n.err();
       o.watch_history = static_cast<std::size_t>(*n);
       return std::nullopt;
     }},
    {"--compaction-interval", dur_flag(o.compaction_interval)},
    {"--bookmark-interval", dur_flag(o.bookmark_interval)},
    {"--authorization",
     [&o](const std::string&, const std::string& v) -> std::optional<error> {
       auto mode = parse_authorization_mode(v);
       if (!mode)
         return mode.err();
       o.authorization = *mode;
       return std::nullopt;
     }},
    {"--service-account",
     [&o](const std::string& f, const std::string& v) -> std::optional<error> {
       auto slash = v.find('/');
       if (slash == std::string::npos || slash == 0 || slash + 1 == v.size()
           || v.find('/', slash + 1) != std::string::npos)
         return flag_error("invalid value \"" + v + "\" for " + f + ": expected NAMESPACE/NAME");
       o.service_accounts.push_back({v.substr(0, slash), v.substr(slash + 1), {}});
       return std::nullopt;
     }},
    {"--service-account-dir",
     [&o](const std::string& f, const std::string& v) -> std::optional<error> {
       if (o.service_accounts.empty() || !o.service_accounts.back().dir.empty())
         return flag_error(f + " must follow a --service-account NAMESPACE/NAME of its own");
       if (v.empty())
         return flag_error("flag " + f + " needs a non-empty value");
       o.service_accounts.back().dir = v;
       return std::nullopt;
     }},
    {"--nodes", int_flag(s.nodes, 1, 100000)},
    {"--vmis", int_flag(s.vmis, 0, 10000000)},
    {"--volumes-per-vmi", int_flag(s.volumes_per_vmi, 0, 64)},
    {"--replicas", int_flag(s.replicas, 1, 16)},
    {"--misplaced", fraction_flag(s.misplaced)},
    {"--not-migratable", fraction_flag(s.not_migratable)},
    {"--constrained", fraction_flag(s.constrained)},
    {"--tainted-nodes", int_flag(s.tainted_nodes, 0, 100000)},
    {"--full-nodes", int_flag(s.full_nodes, 0, 100000)},
    {"--migration-failure-rate", fraction_flag(s.migration_failure_rate)},
    {"--migration-duration", dur_flag(s.migration_duration)},
    {"--phase-delay", dur_flag(s.phase_delay)},
    {"--migration-bandwidth",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       auto bytes = parse_quantity(v);
       if (!bytes)
         return flag_error("invalid value \"" + v + "\" for " + f + ": expected a quantity such as 1Gi");
       s.migration_bandwidth = *bytes;
       return std::nullopt;
     }},
    {"--vmi-memory",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       auto bytes = parse_quantity(v);
       if (!bytes || *bytes < (int64_t{1} << 20))
         return flag_error("invalid value \"" + v + "\" for " + f + ": expected a quantity of at least 1Mi, such as 64Gi");
       s.vmi_memory = v;
       return std::nullopt;
     }},
    {"--vmi-update-lag", dur_flag(s.vmi_update_lag)},
    {"--parallel-migrations-per-cluster", int_flag(s.parallel_migrations_per_cluster, 1, 100000)},
    {"--parallel-outbound-migrations-per-node",
     int_flag(s.parallel_outbound_migrations_per_node, 1, 100000)},
    {"--kubevirt-version",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       auto parsed = parse_kubevirt_version(v);
       if (!parsed)
         return flag_error(f + ": " + parsed.err().message);
       s.kubevirt = *parsed;
       return std::nullopt;
     }},
    {"--driver",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       if (v != "portworx" && v != "csi-topology" && v != "longhorn")
         return flag_error("invalid value \"" + v + "\" for " + f
                           + ": expected portworx, csi-topology or longhorn");
       s.driver = v;
       return std::nullopt;
     }},
    {"--seed",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       auto n = parse_int(f, v, 0, INT64_MAX);
       if (!n)
         return n.err();
       s.seed = static_cast<uint64_t>(*n);
       return std::nullopt;
     }},
    {"--failover-after", dur_flag(o.failover_after)},
    {"--drain-node", str_flag(o.drain_node)},
    {"--drain-after", dur_flag(o.drain_after)},
    {"--nodes-without-virt-handler", int_flag(s.nodes_without_virt_handler, 0, 100000)},
    {"--cpu-models",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       s.cpu_models.clear();
       for (std::size_t from = 0; from <= v.size();) {
         auto comma = std::min(v.find(',', from), v.size());
         auto model = v.substr(from, comma - from);
         if (model.empty() || model.find_first_of("/= ") != std::string::npos || model.size() > 63)
           return flag_error("invalid value \"" + v + "\" for " + f + ": expected CPU model names separated by commas");
         s.cpu_models.push_back(model);
         from = comma + 1;
       }
       return std::nullopt;
     }},
    {"--vmi-churn",
     [&s](const std::string& f, const std::string& v) -> std::optional<error> {
       char* end = nullptr;
       double n = std::strtod(v.c_str(), &end);
       if (v.empty() || *end != '\0' || !(n >= 0.0 && n <= 1e6))
         return flag_error("invalid value \"" + v + "\" for " + f + ": expected updates per second in [0, 1000000]");
       s.vmi_churn_per_second = n;
       return std::nullopt;
     }},
    {"--pods", int_flag(s.pods, 0, 1000000)},
    {"--volumes-per-pod", int_flag(s.volumes_per_pod, 1, 16)},
    {"--pods-in-statefulsets", fraction_flag(s.pods_in_statefulsets)},
    {"--pods-uncontrolled", fraction_flag(s.pods_uncontrolled)},
    {"--pods-default-scheduler", fraction_flag(s.pods_default_scheduler)},
    {"--pods-misplaced", fraction_flag(s.pods_misplaced)},
    {"--pdb-blocked", fraction_flag(s.pdb_blocked)},
    {"--pdb-overlap", fraction_flag(s.pdb_overlap)},
    {"--pod-recreate-delay", dur_flag(s.pod_recreate_delay)},
    {"--pod-start-delay", dur_flag(s.pod_start_delay)},
    {"--pod-termination-delay", dur_flag(s.pod_termination_delay)},
    {"--fault-5xx-rate", fraction_flag(o.faults.rate_5xx)},
    {"--fault-429-rate", fraction_flag(o.faults.rate_429)},
    {"--watch-drop-after", dur_flag(o.faults.watch_drop_after)},
    {"--latency", dur_flag(o.faults.latency)},
    {"--partition-user-agent",
     [&o](const std::string& f, const std::string& v) -> std::optional<error> {
       if (v.empty())
         return flag_error("flag " + f + " needs a non-empty value");
       o.partition.user_agent = v;
       return std::nullopt;
     }},
    {"--partition-after", dur_flag(o.partition.after)},
    {"--partition-for", dur_flag(o.partition.length)},
  };
  std::set<std::string> given;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      cmd.what = attach ? sim_command::kind::attach_help : sim_command::kind::serve_help;
      return cmd;
    }
    std::string name = arg;
    std::optional<std::string> value;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    auto it = flags.find(name);
    if (it == flags.end())
      return flag_error("unknown flag \"" + name + "\" (try: schedopt-sim " + args[0] + " --help)");
    given.insert(name);
    if (!value) {
      if (i + 1 >= args.size())
        return flag_error("flag " + name + " needs a value");
      value = args[++i];
    }
    if (auto err = it->second(name, *value))
      return *err;
  }
  // scenario_pods.cpp place(): with csi-topology a pod may run only inside its volumes' PV
  // node affinity, their replica nodes, so no pod can start off them.
  if (given.count("--pods-misplaced") && o.scenario.pods_misplaced > 0 && o.scenario.driver == "csi-topology")
    return flag_error("--pods-misplaced does not apply to --driver csi-topology: a pod runs only where its "
                      "volumes' PV node affinity lets it, on their replicas, so none starts misplaced");
  if (attach)
    return check_attach(cmd, given);
  for (const char* flag : {"--kubeconfig", "--kwok", "--admin-endpoint-out"})
    if (given.count(flag))
      return flag_error(std::string(flag) + " is attach's: serve is its own API server, kubelets and /admin included");
  if (o.kubeconfig_out.empty())
    return flag_error("--kubeconfig-out PATH is required");
  for (auto& sa : o.service_accounts)
    if (sa.dir.empty())
      return flag_error("--service-account " + sa.ns + "/" + sa.name
                        + " needs a --service-account-dir DIR after it");
  if (auto bad = check_world(o))
    return *bad;
  return cmd;
}

} // namespace schedopt::sim
