// kube-apiserver's JSON audit log read into the shape of the simulator's GET /admin/audit
// ({"vmims": [...], "writes": [...], "evictions": [...]}), so a test judged by the
// simulator's audit is judged the same way on the real control plane: the writes as the
// log has them (identity = the User-Agent), each VMIM from its create (logged with the
// created object, so generated names and uids are known), the simulated virt-controller's
// status writes (phase, nodes, when it left Pending, when it ended) and its delete, and
// each eviction with the server's answer. The log does not say what a budget allowed
// when it answered: those fields of the simulator's eviction records are absent.
#pragma once

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace schedopt::realcp {

inline nlohmann::json kube_audit_document(const std::string& path) {
  using nlohmann::json;
  json vmims = json::array(), writes = json::array(), evictions = json::array();
  std::map<std::string, std::size_t> by_key; // ns/name -> index in vmims
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto e = json::parse(line, nullptr, false);
    if (!e.is_object() || e.value("stage", "") != "ResponseComplete")
      continue;
    auto verb = e.value("verb", "");
    if (verb != "create" && verb != "update" && verb != "patch" && verb != "delete" && verb != "deletecollection")
      continue;
    auto ref = e.value("objectRef", json::object());
    json w = {{"time", e.value("requestReceivedTimestamp", "")},
              {"verb", verb},
              {"resource", ref.value("resource", "")},
              {"subresource", ref.value("subresource", "")},
              {"namespace", ref.value("namespace", "")},
              {"name", ref.value("name", "")},
              {"identity", e.value("userAgent", "")},
              {"code", e.value("/responseStatus/code"_json_pointer, 0)}};
    int code = w["code"];
    if (w["resource"] == "pods" && w["subresource"] == "eviction" && verb == "create")
      evictions.push_back({{"time", w["time"]},
                           {"namespace", w["namespace"]},
                           {"pod", w["name"]},
                           {"identity", w["identity"]},
                           {"code", code}});
    if (w["resource"] == "virtualmachineinstancemigrations" && code >= 200 && code < 300) {
      std::string key = w["namespace"].get<std::string>() + "/" + w["name"].get<std::string>();
      if (verb == "create" && w["subresource"] == "") {
        auto made = e.value("responseObject", json::object());
        json v = {{"namespace", made.value("/metadata/namespace"_json_pointer, std::string())},
                  {"name", made.value("/metadata/name"_json_pointer, std::string())},
                  {"uid", made.value("/metadata/uid"_json_pointer, std::string())},
                  {"vmi", made.value("/spec/vmiName"_json_pointer, std::string())},
                  {"requestUid", made.value("/metadata/labels"_json_pointer, json::object())
                                   .value("schedopt.libopenstorage.org/request-uid", "")},
                  {"createdBy", w["identity"]},
                  {"createdAt", w["time"]},
                  {"phase", "Pending"},
                  {"sourceNode", ""},
                  {"targetNode", ""},
                  {"deleted", false}};
        by_key[v["namespace"].get<std::string>() + "/" + v["name"].get<std::string>()] = vmims.size();
        vmims.push_back(v);
      } else if (auto it = by_key.find(key); it != by_key.end()) {
        auto& v = vmims[it->second];
        if (verb == "delete") {
          v["deleted"] = true;
        } else if (w["subresource"] == "status") {
          auto status = e.value("/requestObject/status"_json_pointer, json::object());
          std::string phase = status.value("phase", v["phase"].get<std::string>());
          for (auto field : {"sourceNode", "targetNode"})
            if (auto node = status.value("/migrationState"_json_pointer, json::object()).value(field, ""); !node.empty())
              v[field] = node;
          if (phase != "Pending" && !v.contains("handedOffAt"))
            v["handedOffAt"] = w["time"];
          if ((phase == "Succeeded" || phase == "Failed") && !v.contains("finishedAt"))
            v["finishedAt"] = w["time"];
          v["phase"] = phase;
        }
      }
    }
    writes.push_back(std::move(w));
  }
  return {{"vmims", vmims}, {"writes", writes}, {"evictions", evictions}};
}

} // namespace schedopt::realcp
