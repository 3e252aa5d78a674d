// Renders explanations; every fact comes from the explanation, none is derived here
// except the words put around it.
#include "model/kinds/vm_hyperconvergence/explanation_report.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "model/placement/cool_off.hpp"
#include "model/quantity.hpp"
#include "model/text_table.hpp"

namespace schedopt {

namespace {

std::string cool_off_line(const cool_off_explanation& c) {
  if (!c.last_migration)
    return "no schedopt migration recorded (period " + format_go_duration(c.period) + ")";
  return "last migration " + format_rfc3339(*c.last_migration) + ", eligible after "
         + format_rfc3339(*c.eligible_after) + (c.cooling_off ? " (cooling off)" : " (passed)");
}

std::string in_flight_line(const vmi_explanation& ex) {
  if (ex.in_flight.empty())
    return "none";
  std::vector<std::string> parts;
  for (const auto& m : ex.in_flight)
    parts.push_back(ex.namespace_ + "/" + m.name + " ("
                    + (m.phase.empty() ? "no phase yet" : m.phase)
                    + (m.schedopt ? ", schedopt" : "") + ")");
  return join(parts, ", ");
}

std::string next_request_line(const vmi_explanation& ex) {
  if (!ex.next)
    return "none pending";
  auto stage = ex.next->stage == request_stage::none ? "new" : to_string(ex.next->stage);
  return ex.next->name + " (" + stage + ")";
}

// The WHY column of --all: the skip reason, else what happens to it.
std::string why_column(const vmi_explanation& ex) {
  if (!ex.reason.empty())
    return ex.reason;
  if (ex.cap.deferred)
    return "deferred by maxNonHyperconvergedPerRun";
  if (ex.disposition == "eligible")
    return "migrates with " + next_request_line(ex);
  return "";
}

} // namespace

nlohmann::json explanation_json(const vmi_explanation& ex) {
  nlohmann::json o;
  o["kind"] = "VMIExplanation";
  o["namespace"] = ex.namespace_;
  o["name"] = ex.name;
  o["phase"] = ex.phase;
  o["node"] = ex.node;
  o["considered"] = ex.considered;
  o["verdict"] = ex.verdict;
  o["disposition"] = ex.disposition;
  o["reason"] = ex.reason;
  o["evaluationError"] = ex.evaluation_error;
  auto volumes = nlohmann::json::array();
  for (const auto& v : ex.volumes) {
    auto j = claim_json(v);
    j["volume"] = v.volume;
    volumes.push_back(std::move(j));
  }
  o["volumes"] = std::move(volumes);
  add_placement_json(o, ex);
  o["targetScore"] = ex.target_score;
  o["coolOff"] = {{"period", format_go_duration(ex.cool_off.period)},
                  {"lastMigration", optional_time_json(ex.cool_off.last_migration)},
                  {"eligibleAfter", optional_time_json(ex.cool_off.eligible_after)},
                  {"coolingOff", ex.cool_off.cooling_off}};
  auto flights = nlohmann::json::array();
  for (const auto& m : ex.in_flight)
    flights.push_back({{"name", m.name}, {"phase", m.phase}, {"schedopt", m.schedopt}});
  o["migrationsInFlight"] = std::move(flights);
  o["nextRequest"] = ex.next ? nlohmann::json{{"name", ex.next->name},
                                               {"stage", to_string(ex.next->stage)}}
                             : nlohmann::json(nullptr);
  return o;
}

std::string render_explanation_json(const vmi_explanation& ex) {
  return explanation_json(ex).dump(2) + "\n";
}

std::string render_explanations_json(const std::vector<vmi_explanation>& all) {
  nlohmann::json list{{"kind", "List"}, {"items", nlohmann::json::array()}};
  for (const auto& ex : all)
    list["items"].push_back(explanation_json(ex));
  return list.dump(2) + "\n";
}

std::string render_explanation_text(const vmi_explanation& ex) {
  std::vector<std::vector<std::string>> fields{
    {"VMI:", ex.namespace_ + "/" + ex.name},
    {"Phase:", ex.phase},
    {"Node:", ex.node + (ex.best_score > 0 ? " (score " + score_text(ex) + ")" : "")},
    {"Verdict:", ex.verdict},
    {"Disposition:", ex.disposition},
    {"Reason:", ex.reason},
    {"Best nodes:", best_nodes_text(ex)},
    {"Target nodes:", join(ex.target_nodes)},
    {"Cool-off:", cool_off_line(ex.cool_off)},
    {"In flight:", in_flight_line(ex)},
    {"Next request:", next_request_line(ex)},
    {"Per-run cap:", cap_line(ex.cap)},
  };
  if (!ex.evaluation_error.empty())
    fields.insert(fields.begin() + 6, {"Error:", ex.evaluation_error});
  std::string out = render_text_table(std::move(fields));
  if (!ex.volumes.empty()) {
    std::vector<std::vector<std::string>> rows{
      {"VOLUME", "CLAIM", "PV", "DRIVER", "REPLICA NODES"}};
    for (const auto& v : ex.volumes) {
      rows.push_back({v.volume});
      auto cells = claim_cells(v);
      rows.back().insert(rows.back().end(), cells.begin(), cells.end());
    }
    out += "Volumes:\n" + render_text_table(std::move(rows), "  ");
  }
  return out + nodes_section(ex.nodes);
}

std::string render_explanations_table(const std::vector<vmi_explanation>& all) {
  std::vector<std::vector<std::string>> rows{
    {"NAMESPACE", "NAME", "NODE", "VERDICT", "SCORE", "DISPOSITION", "TARGETS", "WHY"}};
  for (const auto& ex : all)
    rows.push_back({ex.namespace_, ex.name, ex.node, ex.verdict, score_text(ex), ex.disposition,
                    join(ex.target_nodes), why_column(ex)});
  return render_text_table(std::move(rows));
}

expected<std::string> render_explain(const explain_query& query, const explainer& why) {
  bool json = query.output == "json";
  if (query.key.empty()) {
    auto all = why.explain_misplaced();
    return json ? render_explanations_json(all) : render_explanations_table(all);
  }
  auto ex = why.explain(query.key);
  if (!ex)
    return make_error(ec::not_found, "virtualmachineinstance \"" + query.key + "\" not found");
  return json ? render_explanation_json(*ex) : render_explanation_text(*ex);
}

} // namespace schedopt
