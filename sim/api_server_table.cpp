// Table rendering for list, get and watch responses.
#include "sim/api_server_table.hpp"

#include <chrono>

#include "sim/discovery.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

json column(const std::string& name, const std::string& type, const std::string& format,
            const std::string& description, int priority = 0) {
  return {{"name", name},
          {"type", type},
          {"format", format},
          {"description", description},
          {"priority", priority}};
}

json age_of(const json& value) {
  if (!value.is_string())
    return "<unknown>";
  std::tm tm{};
  auto text = value.get<std::string>();
  if (strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr)
    return "<invalid>";
  auto then = timegm(&tm);
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  return human_age(static_cast<long long>(now - then));
}

json node_status(const json& node) {
  std::string status = "Unknown";
  for (auto& c : node.value("/status/conditions"_json_pointer, json::array()))
    if (c.value("type", "") == "Ready")
      status = c.value("status", "") == "True" ? "Ready" : "NotReady";
  if (node.value("/spec/unschedulable"_json_pointer, false))
    status += ",SchedulingDisabled";
  return status;
}

} // namespace

bool wants_table(const std::string& accept) {
  return accept.find("as=Table") != std::string::npos;
}

std::string human_age(long long s) {
  if (s < 0)
    s = 0;
  auto str = [](long long v) { return std::to_string(v); };
  if (s < 120)
    return str(s) + "s";
  long long m = s / 60;
  if (m < 10)
    return s % 60 == 0 ? str(m) + "m" : str(m) + "m" + str(s % 60) + "s";
  if (m < 180)
    return str(m) + "m";
  long long h = s / 3600;
  if (h < 8)
    return m % 60 == 0 ? str(h) + "h" : str(h) + "h" + str(m % 60) + "m";
  if (h < 48)
    return str(h) + "h";
  long long d = h / 24;
  if (h < 192)
    return h % 24 == 0 ? str(d) + "d" : str(d) + "d" + str(h % 24) + "h";
  if (d < 730)
    return str(d) + "d";
  return str(d / 365) + "y";
}

json eval_json_path(const json& object, const std::string& path) {
  std::string p = path;
  if (p.size() >= 2 && p.front() == '{' && p.back() == '}')
    p = p.substr(1, p.size() - 2);
  const json* cur = &object;
  std::size_t i = 0;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      continue;
    }
    if (p[i] == '[') {
      auto close = p.find(']', i);
      if (close == std::string::npos)
        return nullptr;
      auto inner = p.substr(i + 1, close - i - 1);
      i = close + 1;
      if (!cur->is_array())
        return nullptr;
      if (inner.rfind("?(@.", 0) == 0) {
        // ?(@.key=="value")
        auto eq = inner.find("==");
        if (eq == std::string::npos)
          return nullptr;
        auto key = inner.substr(4, eq - 4);
        auto value = inner.substr(eq + 2);
        if (!value.empty() && value.back() == ')')
          value.pop_back();
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
          value = value.substr(1, value.size() - 2);
        const json* found = nullptr;
        for (auto& item : *cur)
          if (item.is_object() && item.contains(key) && item[key].is_string()
              && item[key].get<std::string>() == value) {
            found = &item;
            break;
          }
        if (found == nullptr)
          return nullptr;
        cur = found;
      } else {
        std::size_t index = 0;
        try {
          index = std::stoul(inner);
        } catch (...) {
          return nullptr;
        }
        if (index >= cur->size())
          return nullptr;
        cur = &(*cur)[index];
      }
      continue;
    }
    auto end = p.find_first_of(".[", i);
    auto key = p.substr(i, end == std::string::npos ? std::string::npos : end - i);
    i = end == std::string::npos ? p.size() : end;
    if (!cur->is_object())
      return nullptr;
    auto it = cur->find(key);
    if (it == cur->end())
      return nullptr;
    cur = &*it;
  }
  return *cur;
}

namespace {

bool is_config_map(const served_resource& resource) {
  return resource.type.group.empty() && resource.type.kind == "ConfigMap";
}

/// pkg/printers/internalversion/printers.go printConfigMap: data and binaryData keys.
std::size_t config_map_entries(const json& object) {
  std::size_t n = 0;
  for (const char* field : {"data", "binaryData"})
    if (object.contains(field) && object[field].is_object())
      n += object[field].size();
  return n;
}

} // namespace

json table_columns(const served_resource& resource) {
  json cols = json::array();
  cols.push_back(column("Name", "string", "name",
                        "Name must be unique within a namespace. Cannot be updated."));
  if (!resource.printer_columns.empty()) {
    for (auto& pc : resource.printer_columns)
      cols.push_back(column(pc.value("name", ""), pc.value("type", "string"), pc.value("format", ""),
                            pc.value("description", ""), pc.value("priority", 0)));
    return cols;
  }
  if (resource.type.kind == "Node")
    cols.push_back(column("Status", "string", "", "The status of the node"));
  else if (resource.type.kind == "PersistentVolumeClaim" || resource.type.kind == "PersistentVolume"
           || resource.type.kind == "Namespace")
    cols.push_back(column("Status", "string", "", "The phase"));
  else if (is_config_map(resource))
    cols.push_back(column("Data", "string", "", "Data contains the configuration data."));
  cols.push_back(column("Age", "string", "",
                        "CreationTimestamp is a timestamp representing the server time when this "
                        "object was created."));
  return cols;
}

json table_row(const served_resource& resource, const json& object) {
  json cells = json::array();
  cells.push_back(object.value("/metadata/name"_json_pointer, std::string{}));
  if (!resource.printer_columns.empty()) {
    for (auto& pc : resource.printer_columns) {
      auto value = eval_json_path(object, pc.value("jsonPath", ""));
      if (pc.value("type", "") == "date")
        value = value.is_null() ? json("<unknown>") : age_of(value);
      cells.push_back(value);
    }
  } else {
    if (resource.type.kind == "Node")
      cells.push_back(node_status(object));
    else if (resource.type.kind == "PersistentVolumeClaim"
             || resource.type.kind == "PersistentVolume" || resource.type.kind == "Namespace")
      cells.push_back(object.value("/status/phase"_json_pointer, std::string{}));
    else if (is_config_map(resource))
      cells.push_back(config_map_entries(object));
    cells.push_back(age_of(object.value("/metadata/creationTimestamp"_json_pointer, json())));
  }
  json meta = object.contains("metadata") ? object["metadata"] : json::object();
  return {{"cells", cells},
          {"object",
           {{"kind", "PartialObjectMetadata"},
            {"apiVersion", "meta.k8s.io/v1"},
            {"metadata", meta}}}};
}

json empty_table(const served_resource& resource) {
  return {{"kind", "Table"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", json::object()},
          {"columnDefinitions", table_columns(resource)},
          {"rows", json::array()}};
}

} // namespace schedopt::sim
