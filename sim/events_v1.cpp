#include "sim/events_v1.hpp"

#include "sim/field_errors.hpp"
#include "sim/json_fields.hpp"

namespace schedopt::sim {

using json = nlohmann::json;

namespace {

/// Field names that differ between the two versions: events.k8s.io/v1, core/v1.
const std::pair<const char*, const char*> renamed[] = {
  {"regarding", "involvedObject"},
  {"note", "message"},
  {"deprecatedSource", "source"},
  {"deprecatedFirstTimestamp", "firstTimestamp"},
  {"deprecatedLastTimestamp", "lastTimestamp"},
  {"deprecatedCount", "count"},
  {"reportingController", "reportingComponent"}};

/// Fields with the same name in both.
const char* shared[] = {"metadata", "action", "reason", "type", "eventTime", "series", "related", "reportingInstance"};

bool empty_value(const json& v) {
  return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()) || (v.is_number() && v == 0);
}

} // namespace

json event_to_events_v1(const json& core) {
  json out = {{"apiVersion", "events.k8s.io/v1"}, {"kind", "Event"}};
  for (const char* field : shared)
    if (core.contains(field) && !empty_value(core[field]))
      out[field] = core[field];
  for (const auto& [v1, v1core] : renamed)
    if (core.contains(v1core) && !empty_value(core[v1core]))
      out[v1] = core[v1core];
  // The v1 type's JSON: eventTime and the deprecated timestamps are never omitted (null
  // when unset), nor are the structs regarding and deprecatedSource.
  for (const char* field : {"eventTime", "deprecatedFirstTimestamp", "deprecatedLastTimestamp"})
    if (!out.contains(field))
      out[field] = nullptr;
  for (const char* field : {"regarding", "deprecatedSource"})
    if (!out.contains(field))
      out[field] = json::object();
  return out;
}

json event_from_events_v1(const json& event) {
  json out = {{"apiVersion", "v1"}, {"kind", "Event"}};
  for (const char* field : shared)
    if (event.contains(field))
      out[field] = event[field];
  for (const auto& [v1, v1core] : renamed)
    if (event.contains(v1))
      out[v1core] = event[v1];
  return out;
}

std::optional<error> validate_events_v1_create(const json& event) {
  std::vector<field_error> errs;
  auto required = [&](const char* field) {
    errs.push_back(make_field_error(field_error_type::required, field, "", ""));
  };
  auto text = [&](const char* field) { return event.contains(field) && event[field].is_string() ? event[field].get<std::string>() : std::string{}; };
  bool has_event_time = !text("eventTime").empty();
  // legacyValidateEvent, the branch of an Event with an eventTime.
  if (has_event_time) {
    for (const char* field : {"reportingController", "reportingInstance", "action", "reason"})
      if (text(field).empty())
        required(field);
  }
  // ValidateEventCreate's strict checks.
  if (!has_event_time)
    required("eventTime");
  auto type = text("type");
  if (type != "Normal" && type != "Warning")
    errs.push_back(make_field_error(field_error_type::invalid, "type", json("").dump(), "has invalid value: " + type));
  for (const auto& [v1, core_name] : {std::pair<const char*, const char*>{"deprecatedFirstTimestamp", "firstTimestamp"},
                                      {"deprecatedLastTimestamp", "lastTimestamp"},
                                      {"deprecatedCount", "count"}})
    if (event.contains(v1) && !empty_value(event[v1]))
      errs.push_back(make_field_error(field_error_type::invalid, core_name, json("").dump(), "needs to be unset"));
  if (errs.empty())
    return std::nullopt;
  // The checks run on the internal type, so the 422 names the core kind.
  resource_type t;
  t.kind = "Event";
  return invalid_object_error(t, text_at(event, "/metadata/name"_json_pointer), errs);
}

served_resource events_v1_resource() {
  served_resource r;
  r.type.group = "events.k8s.io";
  r.type.version = "v1";
  r.type.kind = "Event";
  r.type.list_kind = "EventList";
  r.type.plural = "events";
  r.type.singular = "event";
  r.type.namespaced = true;
  r.type.short_names = {"ev"};
  r.type.stored_as = "events";
  r.versions = {"v1"};
  r.to_served = event_to_events_v1;
  r.to_stored = event_from_events_v1;
  r.validate_create = validate_events_v1_create;
  return r;
}

} // namespace schedopt::sim
