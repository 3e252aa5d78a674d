// The chaos harness's shared parts: API calls that survive the simulator's injected
// faults, the simulator's audit record (GET /admin/audit), a fleet of controller
// processes, and the one end-state checker every scenario runs (docs/design.md §1, §3, §4),
// which judges the controller by the cluster's record, never by its logs.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "realcp/kube_audit.hpp"
#include "e2e/controller_identity.hpp"
#include "e2e/e2e_fixture.hpp"

namespace schedopt::chaos {

using schedopt::e2e::child_process;
using schedopt::e2e::json;
using schedopt::e2e::requests_path;
using schedopt::e2e::sim_process;
using schedopt::e2e::vmi_truth;
using schedopt::test::http_reply;
using namespace std::chrono_literals;

// ---- run size ---------------------------------------------------------------------

/// SCHEDOPT_CHAOS_FULL=1 selects the full counts; otherwise the short CI version.
inline bool full_run() {
  const char* v = std::getenv("SCHEDOPT_CHAOS_FULL");
  return v != nullptr && std::string(v) == "1";
}

template <class T>
T sized(T short_value, T full_value) {
  return full_run() ? full_value : short_value;
}

/// SCHEDOPT_CHAOS_SEED overrides every scenario's default seed (to replay a failure).
inline uint64_t chaos_seed(uint64_t scenario_default) {
  if (const char* v = std::getenv("SCHEDOPT_CHAOS_SEED"))
    return std::strtoull(v, nullptr, 10);
  return scenario_default;
}

/// SCHEDOPT_CHAOS_KUBEVIRT names the KubeVirt release the simulator answers as (default
/// 1.6; before 1.6 migrations go unpinned, so some land off their replicas and stay
/// candidates, cooling off, for the next request).
inline std::string chaos_kubevirt_version() {
  const char* v = std::getenv("SCHEDOPT_CHAOS_KUBEVIRT");
  return v != nullptr && *v != '\0' ? std::string(v) : std::string("1.6");
}

// ---- time -------------------------------------------------------------------------

inline long long now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

/// Milliseconds since the epoch of an RFC 3339 UTC time ("2026-12-01T11:05:57.123Z",
/// any number of fraction digits, or none); -1 when empty or unreadable.
inline long long parse_time_ms(const std::string& text) {
  int y, mo, d, h, mi, s;
  if (text.size() < 19
      || std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6)
    return -1;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  long long ms = static_cast<long long>(timegm(&tm)) * 1000;
  if (text.size() > 19 && text[19] == '.') {
    long long scale = 100;
    for (std::size_t i = 20; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      ms += (text[i] - '0') * scale;
      scale /= 10;
    }
  }
  return ms;
}

/// "11:05:57.123" (UTC), for messages.
inline std::string clock_text(long long ms) {
  if (ms < 0)
    return "(none)";
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  char buf[32];
  std::strftime(buf, sizeof buf, "%H:%M:%S", std::gmtime(&t));
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03lld", buf, ms % 1000);
  return out;
}

// ---- API calls that survive injected 5xx/429 ---------------------------------------

inline bool transient(long status) { return status == 0 || status == 429 || status >= 500; }

/// One call, retried with backoff while the answer is transient (connection failure, 429,
/// 5xx), for at most 60 s; the last reply otherwise. `retried` tells whether an earlier
/// attempt may have been applied (a create that answers 409 after a retry landed).
inline http_reply api(const sim_process& sim, const std::string& method, const std::string& path,
                      const std::string& body = {}, const std::string& content_type = "application/json",
                      bool* retried = nullptr) {
  auto deadline = std::chrono::steady_clock::now() + 60s;
  auto pause = 50ms;
  if (retried)
    *retried = false;
  while (true) {
    auto reply = schedopt::test::http_request(sim, method, path, body, content_type);
    if (!transient(reply.status) || std::chrono::steady_clock::now() > deadline)
      return reply;
    if (retried)
      *retried = true;
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::milliseconds>(pause * 2, 1s);
  }
}

inline json get_json(const sim_process& sim, const std::string& path) {
  auto reply = api(sim, "GET", path);
  if (reply.status != 200)
    throw std::runtime_error("GET " + path + " answered " + std::to_string(reply.status) + ": "
                             + reply.body.substr(0, 300));
  return reply.json();
}

/// The request object, or null when it does not exist.
inline json get_request(const sim_process& sim, const std::string& name) {
  auto reply = api(sim, "GET", requests_path + "/" + name);
  if (reply.status == 404)
    return nullptr;
  if (reply.status != 200)
    throw std::runtime_error("GET request " + name + " answered " + std::to_string(reply.status));
  return reply.json();
}

inline json request_spec(const std::string& cool_off, int max_parallel) {
  return {{"vmHyperconvergence",
           {{"enabled", true}, {"coolOffPeriod", cool_off}, {"maxParallelMigrations", max_parallel}}}};
}

inline json create_request(const sim_process& sim, const std::string& name, const json& spec) {
  json body = {{"apiVersion", "stork.libopenstorage.org/v1alpha1"},
               {"kind", "SchedulingOptimization"},
               {"metadata", {{"name", name}}},
               {"spec", spec}};
  bool retried = false;
  auto reply = api(sim, "POST", requests_path, body.dump(), "application/json", &retried);
  if (reply.status == 201)
    return reply.json();
  if (reply.status == 409 && retried) // an attempt that answered 5xx had landed
    return get_request(sim, name);
  throw std::runtime_error("create request " + name + " answered " + std::to_string(reply.status)
                           + ": " + reply.body.substr(0, 300));
}

inline void delete_request(const sim_process& sim, const std::string& name) {
  auto reply = api(sim, "DELETE", requests_path + "/" + name);
  if (reply.status != 200 && reply.status != 202 && reply.status != 404)
    throw std::runtime_error("delete request " + name + " answered " + std::to_string(reply.status));
}

/// POST /admin/answer-faults: the next `count` requests of `method` to paths starting
/// with `path_prefix` wait `hold_ms` before the simulator serves them. Returns the rule id.
inline int hold_requests(const sim_process& sim, const std::string& method, const std::string& path_prefix,
                         long long hold_ms, int count = 1) {
  json rule = {{"kind", "hold"}, {"method", method}, {"path", path_prefix}, {"holdMs", hold_ms}, {"count", count}};
  auto reply = api(sim, "POST", "/admin/answer-faults", rule.dump());
  if (reply.status != 201)
    throw std::runtime_error("hold rule answered " + std::to_string(reply.status) + ": " + reply.body.substr(0, 300));
  return reply.json().value("id", 0);
}

/// How many requests answer-fault rule `id` has taken so far (-1: no such rule).
inline int answer_fault_fired(const sim_process& sim, int id) {
  for (auto& r : get_json(sim, "/admin/answer-faults").value("rules", json::array()))
    if (r.value("id", 0) == id)
      return r.value("fired", -1);
  return -1;
}

inline std::string stage_of(const json& request) {
  return request.is_null() ? "(absent)" : request.value("/status/stage"_json_pointer, std::string());
}

inline const std::string lease_path =
  "/apis/coordination.k8s.io/v1/namespaces/default/leases/schedopt-leader";

inline std::string lease_holder(const sim_process& sim) {
  auto reply = api(sim, "GET", lease_path);
  if (reply.status != 200)
    return {};
  return reply.json().value("/spec/holderIdentity"_json_pointer, std::string());
}

/// Ground truth (test/e2e/ground_truth.hpp), retried: its calls do not survive faults.
inline std::vector<vmi_truth> truth_of(const sim_process& sim, const std::string& driver) {
  for (int attempt = 0;; ++attempt) {
    try {
      return schedopt::e2e::ground_truth(sim, driver);
    } catch (const std::exception& e) {
      if (attempt >= 20)
        throw;
      std::this_thread::sleep_for(200ms);
    }
  }
}

/// Candidates at evaluation (docs/design.md §2): semi and non VMIs plus per-VM evaluation errors.
inline std::set<std::string> candidate_keys(const std::vector<vmi_truth>& truth) {
  std::set<std::string> out;
  for (auto& t : truth)
    if (t.misplaced || !t.error.empty())
      out.insert(t.key());
  return out;
}

// ---- the simulator's audit --------------------------------------------------------

struct audit_vmim {
  std::string ns, name, uid, vmi, request_uid, created_by, source_node, target_node, phase;
  long long created_ms = -1;
  long long finished_ms = -1;
  long long handed_off_ms = -1; // KubeVirt took it up (left Pending); -1 while it waits
  bool deleted = false;
  std::string vmi_key() const { return ns + "/" + vmi; }
  std::string key() const { return ns + "/" + name; }
  bool by_schedopt() const { return schedopt::e2e::is_controller_identity(created_by); }
  bool succeeded() const { return phase == "Succeeded"; }
  bool failed() const { return !succeeded() && (phase == "Failed" || deleted); }
};

struct audit_write {
  long long time_ms = -1;
  std::string verb, resource, subresource, ns, name, identity;
  int code = 0;
  bool ok() const { return code >= 200 && code < 300; }
  bool by_schedopt() const { return schedopt::e2e::is_controller_identity(identity); }
  bool lease() const { return resource == "leases"; }
  /// The replica identity inside "schedopt/<ver> (<identity>)".
  std::string replica() const {
    auto open = identity.find('(');
    auto close = identity.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open)
      return identity;
    return identity.substr(open + 1, close - open - 1);
  }
};

struct audit_record {
  std::vector<audit_vmim> vmims;
  std::vector<audit_write> writes;
  long long dropped = 0; // entries past the simulator's caps (X-Audit-Dropped-*)

  std::vector<audit_vmim> of_request(const std::string& uid) const {
    std::vector<audit_vmim> out;
    for (auto& m : vmims)
      if (m.request_uid == uid)
        out.push_back(m);
    return out;
  }
  std::size_t schedopt_vmims() const {
    return static_cast<std::size_t>(
      std::count_if(vmims.begin(), vmims.end(), [](auto& m) { return m.by_schedopt(); }));
  }
};

/// GET /admin/audit; fails the test case when the simulator does not serve it. A
/// simulator attached to the real control plane is judged by kube-apiserver's log.
inline audit_record read_audit(const sim_process& sim) {
  schedopt::test::http_reply reply;
  json doc;
  if (sim.attached()) {
    doc = schedopt::realcp::kube_audit_document(sim.audit_log());
  } else {
    reply = api(sim, "GET", "/admin/audit");
    BOOST_REQUIRE_MESSAGE(reply.status == 200, "GET /admin/audit answered " << reply.status << ": "
                                                 << reply.body.substr(0, 200));
    doc = reply.json();
  }
  BOOST_REQUIRE_MESSAGE(doc.is_object(), "GET /admin/audit is not a JSON object");
  audit_record out;
  static const std::regex dropped_re("X-Audit-Dropped-[A-Za-z]+: *([0-9]+)", std::regex::icase);
  for (std::sregex_iterator it(reply.headers.begin(), reply.headers.end(), dropped_re), end; it != end; ++it)
    out.dropped += std::atoll((*it)[1].str().c_str());
  for (auto& m : doc.value("vmims", json::array())) {
    audit_vmim v;
    v.ns = m.value("namespace", "");
    v.name = m.value("name", "");
    v.uid = m.value("uid", "");
    v.vmi = m.value("vmi", "");
    v.request_uid = m.value("requestUid", "");
    v.created_by = m.value("createdBy", "");
    v.source_node = m.value("sourceNode", "");
    v.target_node = m.value("targetNode", "");
    v.phase = m.value("phase", "");
    v.created_ms = parse_time_ms(m.value("createdAt", ""));
    v.finished_ms = parse_time_ms(m.value("finishedAt", ""));
    v.handed_off_ms = parse_time_ms(m.value("handedOffAt", ""));
    v.deleted = m.value("deleted", false);
    out.vmims.push_back(v);
  }
  for (auto& w : doc.value("writes", json::array())) {
    audit_write a;
    a.time_ms = parse_time_ms(w.value("time", ""));
    a.verb = w.value("verb", "");
    a.resource = w.value("resource", "");
    a.subresource = w.value("subresource", "");
    a.ns = w.value("namespace", "");
    a.name = w.value("name", "");
    a.identity = w.value("identity", "");
    a.code = w.value("code", 0);
    out.writes.push_back(a);
  }
  return out;
}

// ---- controller processes ---------------------------------------------------------

/// The replica identity `schedopt run` uses: "<hostname>_<pid>".
inline std::string identity_of(const child_process& c) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string{host} + "_" + std::to_string(c.pid());
}

/// Every controller a scenario started, oldest first; on a failed test case the log tails
/// of the last few are printed.
class controller_fleet {
public:
  explicit controller_fleet(const schedopt::e2e::scenario& s, std::vector<std::string> common)
    : scenario_(s), common_(std::move(common)) {}

  ~controller_fleet() {
    if (std::uncaught_exceptions() > 0 || schedopt::e2e::current_test_failed())
      for (std::size_t i = procs_.size() > 3 ? procs_.size() - 3 : 0; i < procs_.size(); ++i)
        std::cerr << "---- schedopt #" << i << " (" << identities_[i] << ") log (tail) ----\n"
                  << procs_[i]->log_tail(80) << "---- end of log ----" << std::endl;
  }

  child_process& start() {
    auto args = scenario_.controller_args(common_);
    procs_.push_back(std::make_unique<child_process>(args));
    identities_.push_back(identity_of(*procs_.back()));
    return *procs_.back();
  }

  /// The running process with this replica identity, or nullptr.
  child_process* by_identity(const std::string& id) {
    for (std::size_t i = 0; i < procs_.size(); ++i)
      if (identities_[i] == id && procs_[i]->running())
        return procs_[i].get();
    return nullptr;
  }

  std::vector<child_process*> running() {
    std::vector<child_process*> out;
    for (auto& p : procs_)
      if (p->running())
        out.push_back(p.get());
    return out;
  }

  std::size_t started() const { return procs_.size(); }

private:
  const schedopt::e2e::scenario& scenario_;
  std::vector<std::string> common_;
  std::vector<std::unique_ptr<child_process>> procs_;
  std::vector<std::string> identities_;
};

/// Waits for a Lease holder other than `not_this` that is one of `fleet`'s running
/// replicas, reading the Lease every `poll`; "" on timeout.
inline std::string wait_leader(const sim_process& sim, controller_fleet& fleet, const std::string& not_this,
                               std::chrono::seconds timeout,
                               std::chrono::milliseconds poll = std::chrono::milliseconds(100)) {
  std::string holder;
  schedopt::e2e::eventually(
    [&] {
      holder = lease_holder(sim);
      return !holder.empty() && holder != not_this && fleet.by_identity(holder) != nullptr;
    },
    timeout, poll);
  return fleet.by_identity(holder) && holder != not_this ? holder : "";
}

// ---- the end-state checker --------------------------------------------------------

/// Every failed assertion, counted for the summary line and reported to Boost.Test.
class violations {
public:
  void expect(bool ok, const std::string& what) {
    if (ok)
      return;
    list_.push_back(what);
    BOOST_ERROR(what);
  }
  std::size_t count() const { return list_.size(); }

private:
  std::vector<std::string> list_;
};

/// A request the scenario created, in creation order.
struct tracked_request {
  std::string name;
  std::string uid;
  bool deleted_by_test = false; // deleted mid-run: not expected to reach Final
  long long created_ms = -1;    // test clock when created
  long long deleted_ms = -1;    // test clock when the DELETE was answered
};

/// "N deferred by maxNonHyperconvergedPerRun" in the reason (docs/design.md §2.7: outstanding
/// candidates are named in the reason), 0 when absent.
inline long long outstanding_in_reason(const std::string& reason) {
  static const std::regex re("([0-9]+) deferred by maxNonHyperconvergedPerRun");
  std::smatch m;
  return std::regex_search(reason, m, re) ? std::atoll(m[1].str().c_str()) : 0;
}

/// "a Final, b Migrating, c Pending" for the requests not deleted by the test.
inline std::string stages_text(const sim_process& sim, const std::vector<tracked_request>& requests) {
  std::string out;
  for (auto& r : requests)
    if (!r.deleted_by_test)
      out += (out.empty() ? "" : ", ") + r.name + " " + stage_of(get_request(sim, r.name));
  return out;
}

/// Attached: whether kube-apiserver's audit log, read on from `offset` (moved to its end),
/// records a write by a schedopt process other than its Lease's.
inline bool schedopt_wrote_since(const std::string& audit_log, std::streamoff& offset) {
  std::ifstream in(audit_log);
  in.seekg(offset);
  bool wrote = false;
  for (std::string line; std::getline(in, line);) {
    if (in.eof())
      break; // a line still being written: read again next time
    offset += static_cast<std::streamoff>(line.size()) + 1;
    auto e = json::parse(line, nullptr, false);
    if (!e.is_object() || e.value("stage", "") != "ResponseComplete")
      continue;
    auto verb = e.value("verb", "");
    bool write = verb == "create" || verb == "update" || verb == "patch" || verb == "delete";
    if (write && schedopt::e2e::is_controller_identity(e.value("userAgent", ""))
        && e.value("/objectRef/resource"_json_pointer, std::string()) != "leases")
      wrote = true;
  }
  return wrote;
}

/// Waits until every request not deleted by the test is Final; "" when that happened,
/// else the stages seen last. Gives up early when no controller made a non-Lease write
/// for `stall` (a heartbeat is due every 30 s while a run is in progress), so a stuck
/// queue fails in a minute, not at the full-run bound.
inline std::string wait_all_final(const sim_process& sim, const std::vector<tracked_request>& requests,
                                  std::chrono::seconds timeout, std::chrono::seconds stall = 45s) {
  std::string since = "0";
  std::streamoff audit_offset = 0; // attached: how far kube-apiserver's audit log was read
  auto last_write = std::chrono::steady_clock::now();
  bool stalled = false;
  bool done = schedopt::e2e::eventually(
    [&] {
      bool all = true;
      for (auto& r : requests)
        if (!r.deleted_by_test && stage_of(get_request(sim, r.name)) != "Final")
          all = false;
      if (all)
        return true;
      if (sim.attached()) {
        if (schedopt_wrote_since(sim.audit_log(), audit_offset))
          last_write = std::chrono::steady_clock::now();
        stalled = std::chrono::steady_clock::now() - last_write > stall;
        return stalled;
      }
      auto reply = api(sim, "GET", "/admin/audit?since=" + since);
      if (reply.status == 200) {
        for (auto& w : reply.json().value("writes", json::array()))
          if (schedopt::e2e::is_controller_identity(w.value("identity", "")) && w.value("resource", "") != "leases")
            last_write = std::chrono::steady_clock::now();
        static const std::regex next_re("X-Audit-Next-Since: *([0-9]+)", std::regex::icase);
        std::smatch m;
        if (std::regex_search(reply.headers, m, next_re))
          since = m[1].str();
      }
      stalled = std::chrono::steady_clock::now() - last_write > stall;
      return stalled;
    },
    timeout, 500ms);
  if (done && !stalled)
    return "";
  return stages_text(sim, requests)
         + (stalled ? " (no controller write for " + std::to_string(stall.count()) + " s)" : "");
}

struct end_state {
  std::size_t requests = 0;   // created by the scenario
  std::size_t final = 0;      // of those, not deleted and Final
  std::size_t migrations = 0; // schedopt VMIMs in the audit
  std::size_t succeeded = 0;
  std::size_t failed = 0;
};

/// docs/design.md §1, §3, §4 end assertions, judged by the audit and the request objects:
/// - every request (not deleted by the test) is Final with a terminal status;
/// - successful + failed + skipped + outstanding = its candidates at evaluation, which
///   are the initial candidates minus those an earlier request moved to a best node;
/// - successful / failed equal the audit's VMIMs of its uid by final phase, none still
///   in flight, each for a VMI that was one of its candidates;
/// - no VMI got two VMIMs with the same requestUid, nor two schedopt VMIMs within
///   `cool_off` of each other;
/// - requests ran one at a time in creation order (status timestamps and VMIM times);
/// - no two controller identities made non-Lease writes in overlapping time.
inline end_state check_end_state(const sim_process& sim, const audit_record& audit,
                                 const std::vector<vmi_truth>& truth,
                                 const std::vector<tracked_request>& requests,
                                 std::chrono::milliseconds cool_off, violations& v) {
  end_state out;
  out.requests = requests.size();
  v.expect(audit.dropped == 0, "the audit dropped " + std::to_string(audit.dropped)
                                 + " entries past its caps: its counts cannot judge this run");
  std::map<std::string, std::set<std::string>> best;
  for (auto& t : truth)
    best[t.key()] = t.best;
  auto moved_to_best = [&](const audit_vmim& m) {
    return m.succeeded() && best[m.vmi_key()].count(m.target_node) > 0;
  };

  std::set<std::string> candidates = candidate_keys(truth);
  std::set<std::string> uncertain; // VMIs whose candidacy at evaluation raced a deleted run
  struct live_request {
    std::string name;
    long long start_ms, finish_ms, first_vmim_ms, last_vmim_finish_ms;
  };
  std::vector<live_request> live;

  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& r = requests[i];
    auto vmims = audit.of_request(r.uid);
    std::string who = "request " + r.name + " (uid " + r.uid + ")";

    std::map<std::string, int> per_vmi;
    for (auto& m : vmims) {
      v.expect(++per_vmi[m.vmi_key()] == 1,
               who + ": VMI " + m.vmi_key() + " got a second VMIM from the same request (" + m.key() + ")");
      v.expect(candidates.count(m.vmi_key()) || uncertain.count(m.vmi_key()),
               who + ": VMIM " + m.key() + " migrates " + m.vmi_key() + ", which was no candidate");
    }

    if (!r.deleted_by_test) {
      auto obj = get_request(sim, r.name);
      v.expect(!obj.is_null(), who + ": object is gone");
      if (obj.is_null())
        continue;
      v.expect(obj["metadata"].value("uid", "") == r.uid,
               who + ": the object now has uid " + obj["metadata"].value("uid", ""));
      auto status = obj.value("status", json::object());
      auto vm = status.value("vmHyperconvergence", json::object());
      auto stage = status.value("stage", "");
      auto result = status.value("status", "");
      auto reason = status.value("reason", "");
      long long successful = vm.value("successful", 0LL);
      long long failed = vm.value("failed", 0LL);
      long long skipped = vm.value("skipped", 0LL);
      long long outstanding = outstanding_in_reason(reason);
      v.expect(stage == "Final", who + ": stage is \"" + stage + "\", not Final (status \"" + result
                                   + "\", reason \"" + reason + "\")");
      if (stage != "Final")
        continue; // its counters and timestamps mean nothing yet
      v.expect(result == "Successful" || result == "PartialSuccess" || result == "Failed",
               who + ": terminal status is \"" + result + "\"");
      long long sum = successful + failed + skipped + outstanding;
      long long most = static_cast<long long>(candidates.size() + uncertain.size());
      long long least = static_cast<long long>(candidates.size());
      std::ostringstream counts;
      counts << "successful " << successful << " + failed " << failed << " + skipped " << skipped
             << " + outstanding " << outstanding << " = " << sum;
      // Named details of VMs that were no candidate: what a count mismatch is made of.
      std::string strangers;
      for (auto& d : vm.value("details", json::array())) {
        auto key = d.value("namespace", "") + "/" + d.value("name", "");
        if (!candidates.count(key) && !uncertain.count(key))
          strangers += "; " + key + " " + d.value("status", "") + " \"" + d.value("reason", "") + "\"";
      }
      v.expect(sum >= least && sum <= most,
               who + ": " + counts.str() + ", but " + std::to_string(least)
                 + (most != least ? ".." + std::to_string(most) : "")
                 + " candidates at evaluation (status " + result + ", reason \"" + reason + "\")"
                 + (strangers.empty() ? "" : "; details of no candidate" + strangers));
      static const std::regex left_re("^([0-9]+) candidates? outstanding: ");
      std::smatch lm;
      if (std::regex_search(reason, lm, left_re))
        v.expect(std::atoll(lm[1].str().c_str()) == failed + skipped + outstanding,
                 who + ": reason \"" + reason + "\" disagrees with " + counts.str());
      else if (result == "Successful")
        v.expect(failed + skipped + outstanding == 0,
                 who + ": Successful with " + counts.str() + " and reason \"" + reason + "\"");

      long long audit_ok = 0, audit_failed = 0;
      for (auto& m : vmims) {
        if (m.succeeded())
          ++audit_ok;
        else if (m.failed())
          ++audit_failed;
        else
          v.expect(false, who + ": is " + stage + " but its VMIM " + m.key() + " is still "
                            + (m.phase.empty() ? "without phase" : m.phase));
      }
      v.expect(successful == audit_ok, who + ": successful " + std::to_string(successful) + " but the audit has "
                                         + std::to_string(audit_ok) + " Succeeded VMIMs of its uid");
      v.expect(failed == audit_failed, who + ": failed " + std::to_string(failed) + " but the audit has "
                                         + std::to_string(audit_failed) + " Failed or deleted VMIMs of its uid");

      live_request lr{r.name, parse_time_ms(status.value("startTimestamp", "")),
                      parse_time_ms(status.value("finishTimestamp", "")), -1, -1};
      for (auto& m : vmims) {
        if (lr.first_vmim_ms < 0 || m.created_ms < lr.first_vmim_ms)
          lr.first_vmim_ms = m.created_ms;
        lr.last_vmim_finish_ms = std::max(lr.last_vmim_finish_ms, m.finished_ms);
      }
      live.push_back(lr);
      ++out.final;
      // The next request's candidates: these minus what this run moved to a best node.
      for (auto& m : vmims)
        if (moved_to_best(m)) {
          candidates.erase(m.vmi_key());
          uncertain.erase(m.vmi_key());
        }
      uncertain.clear();
    } else {
      // A deleted run's migrations that ended before the successor was created are
      // settled; the ones still running then may count either way at its evaluation.
      long long successor_created = i + 1 < requests.size() ? requests[i + 1].created_ms : -1;
      for (auto& m : vmims)
        if (moved_to_best(m)) {
          candidates.erase(m.vmi_key());
          if (successor_created < 0 || m.finished_ms < 0 || m.finished_ms >= successor_created - 1000)
            uncertain.insert(m.vmi_key());
        }
      // Until the one-second grace after its deletion is over, a run may still create;
      // the migrations in flight are left to finish, not aborted.
      for (auto& m : vmims) {
        v.expect(r.deleted_ms < 0 || m.created_ms <= r.deleted_ms + 1000,
                 who + ": VMIM " + m.key() + " created at " + clock_text(m.created_ms)
                   + ", after the request was deleted at " + clock_text(r.deleted_ms));
        v.expect(!m.deleted || m.phase == "Succeeded" || m.phase == "Failed",
                 who + ": VMIM " + m.key() + " was deleted in phase \"" + m.phase
                   + "\" after the request was deleted (in-flight migrations finish)");
      }
    }
  }

  // Cool-off across all schedopt VMIMs of a VMI.
  std::map<std::string, std::vector<const audit_vmim*>> by_vmi;
  for (auto& m : audit.vmims)
    if (m.by_schedopt()) {
      by_vmi[m.vmi_key()].push_back(&m);
      ++out.migrations;
      out.succeeded += m.succeeded() ? 1 : 0;
      out.failed += m.failed() ? 1 : 0;
    }
  for (auto& [vmi, list] : by_vmi) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->created_ms < b->created_ms; });
    for (std::size_t i = 1; i < list.size(); ++i)
      v.expect(list[i]->created_ms - list[i - 1]->created_ms >= cool_off.count(),
               "VMI " + vmi + ": VMIM " + list[i]->key() + " (request " + list[i]->request_uid + ") at "
                 + clock_text(list[i]->created_ms) + " within the cool-off of " + list[i - 1]->key()
                 + " (request " + list[i - 1]->request_uid + ") at " + clock_text(list[i - 1]->created_ms));
  }

  // One at a time, oldest first. Status timestamps have second precision.
  for (std::size_t i = 1; i < live.size(); ++i) {
    auto& a = live[i - 1];
    auto& b = live[i];
    v.expect(a.finish_ms >= 0 && b.start_ms >= a.finish_ms,
             "request " + b.name + " started at " + clock_text(b.start_ms) + ", before " + a.name
               + " finished at " + clock_text(a.finish_ms));
    if (b.first_vmim_ms >= 0 && a.last_vmim_finish_ms >= 0)
      v.expect(b.first_vmim_ms >= a.last_vmim_finish_ms,
               "request " + b.name + " created a VMIM at " + clock_text(b.first_vmim_ms) + ", before the last VMIM of "
                 + a.name + " finished at " + clock_text(a.last_vmim_finish_ms));
  }

  // One worker at a time: non-Lease writes of different replicas do not interleave.
  struct span {
    std::string who;
    long long first, last;
  };
  std::map<std::string, span> spans;
  for (auto& w : audit.writes) {
    if (!w.by_schedopt() || w.lease())
      continue;
    auto id = w.replica();
    auto it = spans.find(id);
    if (it == spans.end())
      spans[id] = {id, w.time_ms, w.time_ms};
    else {
      it->second.first = std::min(it->second.first, w.time_ms);
      it->second.last = std::max(it->second.last, w.time_ms);
    }
  }
  std::vector<span> ordered;
  for (auto& [id, s] : spans)
    ordered.push_back(s);
  std::sort(ordered.begin(), ordered.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (std::size_t i = 1; i < ordered.size(); ++i)
    v.expect(ordered[i].first > ordered[i - 1].last,
             "replicas " + ordered[i - 1].who + " (writes " + clock_text(ordered[i - 1].first) + ".."
               + clock_text(ordered[i - 1].last) + ") and " + ordered[i].who + " (writes "
               + clock_text(ordered[i].first) + ".." + clock_text(ordered[i].last) + ") wrote in overlapping time");
  return out;
}

/// docs/design.md §4.1 "nothing the status already recorded is lost": a request's successful and
/// failed counters never go down, whichever replica writes them.
class counter_watch {
public:
  void sample(const sim_process& sim, const std::vector<tracked_request>& requests, violations& v) {
    for (auto& r : requests) {
      if (r.deleted_by_test)
        continue;
      auto obj = get_request(sim, r.name);
      if (obj.is_null() || obj["metadata"].value("uid", "") != r.uid)
        continue;
      for (const char* c : {"successful", "failed"}) {
        long long now = obj.value("/status/vmHyperconvergence"_json_pointer, json::object()).value(c, 0LL);
        auto& seen = max_[r.uid + "/" + c];
        v.expect(now >= seen, "request " + r.name + ": " + c + " went down from " + std::to_string(seen)
                                + " to " + std::to_string(now));
        seen = std::max(seen, now);
      }
      ++samples_;
    }
  }
  std::size_t samples() const { return samples_; }

private:
  std::map<std::string, long long> max_;
  std::size_t samples_ = 0;
};

/// One line per scenario, in the shape of a Markdown table row.
inline void print_summary(const std::string& scenario, uint64_t seed, const std::string& injected,
                          const end_state& end, std::size_t violation_count, long long started_ms) {
  std::ostringstream line;
  line << "| " << scenario << " | " << (full_run() ? "full" : "short") << " | seed " << seed << " | "
       << injected << " | " << end.requests << " requests (" << end.final << " Final) | " << end.migrations << " migrations ("
       << end.succeeded << " ok, " << end.failed << " failed) | " << violation_count << " violations | "
       << std::fixed << std::setprecision(1) << (now_ms() - started_ms) / 1000.0 << " s |";
  std::cout << "chaos summary " << line.str() << std::endl;
  BOOST_TEST_MESSAGE(line.str());
}

} // namespace schedopt::chaos
