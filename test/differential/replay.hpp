// One row of the differential corpus (corpus.json) replayed against one API server: an
// HTTP request, a watch read to its timeout, a stock kubectl command, the client-go
// informer probe, or one step of the Python or JavaScript client probe. The answer is
// reduced to what is compared (status and normalised body, its keys, or one header).
#pragma once

#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "differential/normalise.hpp"
#include "sim/protobuf/k8s_protobuf.hpp"
#include "sim/wire_http.hpp"

namespace schedopt::differential {

/// An API server under comparison: where it is and how its admin reaches it.
struct server_under_test {
  std::string name;
  std::string base_url;
  std::string ca_file_path;
  std::string admin_token;
  std::string kubeconfig;
  std::string kubectl;   // stock kubectl, the same binary for both servers
  std::string files_dir; // the corpus's ${file:NAME} files
  std::string informer_probe; // informer/'s client-go program, built by the suite
  // The client-library probes (python/, node/) as program and leading arguments, set up
  // by the suite; each row of kind "python" or "node" names one of their steps.
  std::map<std::string, std::vector<std::string>> client_probes;

  // The endpoint shape wire_http's http_request takes.
  std::string url() const { return base_url; }
  const std::string& ca_file() const { return ca_file_path; }
  const std::string& token() const { return admin_token; }
};

/// What one server answered to one row, reduced for comparison.
struct answer {
  long status = 0;
  json compared;        // what the row's `compare` mode keeps
  std::string summary;  // a short human line for the table
  json raw;             // the normalised body, for ${uid:...} and ${rv:...} of later rows
};

namespace detail {

inline std::string header_value(const std::string& headers, std::string name) {
  std::istringstream in(headers);
  for (auto& c : name)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string line, out;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string key = line.substr(0, colon);
    for (auto& c : key)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key != name)
      continue;
    auto value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value = value.front() == ' ' ? value.substr(1) : value.substr(0, value.size() - 1);
    out += (out.empty() ? "" : ", ") + value;
  }
  return out;
}

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string short_text(std::string s, std::size_t n = 90) {
  for (auto& c : s)
    if (c == '\n' || c == '|')
      c = ' ';
  return s.size() > n ? s.substr(0, n) + "…" : s;
}

} // namespace detail

/// Replays rows in order against one server, remembering each answer for later rows.
class replayer {
public:
  explicit replayer(server_under_test server) : server_(std::move(server)) {}

  answer run(const json& row) {
    auto kind = row.value("kind", "http");
    answer a = kind == "kubectl"                       ? kubectl(row)
               : kind == "informer"                    ? informer(row)
               : kind == "watch"                       ? watch(row)
               : kind == "python" || kind == "node"    ? client_step(kind, row)
                                                       : http(row);
    answers_[row.value("label", "")] = a;
    return a;
  }

  /// Starts the client-library probes at the first row of kind "python" or "node":
  /// all of them, since they touch objects of their own (py-*, node-*), and the suite
  /// starts them on both servers before either's row runs, so all the runs overlap.
  void start(const json& row) {
    auto kind = row.value("kind", "http");
    if ((kind != "python" && kind != "node") || client_runs_.count(kind))
      return;
    for (const char* each : {"python", "node"})
      if (!client_runs_.count(each))
        start_client(each);
  }

  const server_under_test& server() const { return server_; }

private:
  /// One probe's run against this server, in a thread of its own.
  void start_client(const std::string& kind) {
    auto found = server_.client_probes.find(kind);
    std::vector<std::string> command = found == server_.client_probes.end() ? std::vector<std::string>{}
                                                                             : found->second;
    auto kubeconfig = server_.kubeconfig;
    client_runs_[kind] = std::async(std::launch::async, [kind, command, kubeconfig] {
      client_run run;
      if (command.empty()) {
        run.output = "no " + kind + " probe set up";
      } else {
        std::vector<std::string> args(command.begin() + 1, command.end());
        args.insert(args.end(), {"--kubeconfig", kubeconfig});
        run.exit = run_program(command.front(), args, run.output);
      }
      std::istringstream lines(run.output);
      for (std::string line; std::getline(lines, line);) {
        auto parsed = json::parse(line, nullptr, false);
        if (!parsed.is_discarded() && parsed.is_object() && parsed.contains("step") && parsed["step"].is_string())
          run.steps[parsed["step"].get<std::string>()] = parsed;
      }
      return run;
    }).share();
  }

  /// ${uid:LABEL}, ${rv:LABEL}, ${token}, ${repeat:C:N}, ${file:NAME} in `text`.
  std::string substitute(std::string text) const {
    static const std::regex placeholder(R"(\$\{(uid|rv|token|repeat|file)(?::([^}]*))?\})");
    std::string out;
    auto begin = std::sregex_iterator(text.begin(), text.end(), placeholder);
    std::size_t last = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      auto& m = *it;
      out += text.substr(last, static_cast<std::size_t>(m.position()) - last);
      std::string what = m[1], arg = m[2];
      if (what == "token") {
        out += server_.admin_token;
      } else if (what == "repeat") {
        auto colon = arg.find(':');
        out += std::string(std::stoul(arg.substr(colon + 1)), arg.at(0));
      } else if (what == "file") {
        out += server_.files_dir + "/" + arg;
      } else {
        auto found = answers_.find(arg);
        if (found != answers_.end()) {
          const auto& meta = found->second.raw.value("metadata", json::object());
          out += what == "uid" ? meta.value("uid", "") : meta.value("resourceVersion", "");
        }
      }
      last = static_cast<std::size_t>(m.position() + m.length());
    }
    return out + text.substr(last);
  }

  std::string body_of(const json& row) const {
    if (row.contains("bodyText"))
      return substitute(row["bodyText"].get<std::string>());
    if (row.contains("body"))
      return substitute(row["body"].dump());
    return {};
  }

  answer http(const json& row) {
    std::vector<std::string> headers;
    if (row.contains("accept"))
      headers.push_back("Accept: " + row["accept"].get<std::string>());
    auto content_type = row.value("contentType", "application/json");
    auto request_body = body_of(row);
    // A protobuf row's body is written in the corpus as JSON: the simulator's encoder
    // writes it, so kube-apiserver's decoder is what checks the encoder.
    if (content_type == sim::protobuf::media_type) {
      auto encoded = sim::protobuf::encode(json::parse(request_body));
      // A body the encoder cannot write would make both servers refuse it alike.
      if (!encoded && !row.value("unencodable", false))
        throw std::runtime_error(row.value("label", "") + ": no protobuf message for its body");
      request_body = encoded.value_or("");
    }
    auto reply = schedopt::test::http_request(server_, row.value("method", "GET"), substitute(row.value("path", "")),
                                              request_body, content_type, "\x01", headers);
    answer a;
    a.status = reply.status;
    // A protobuf answer is compared as the JSON the simulator's decoder reads from it.
    auto parsed = sim::protobuf::has_magic(reply.body) ? sim::protobuf::decode(reply.body).object
                                                       : json::parse(reply.body, nullptr, false);
    if (parsed.is_null() && !reply.body.empty())
      parsed = json(json::value_t::discarded);
    // The raw answer keeps uid and resourceVersion for later rows' placeholders.
    if (!parsed.is_discarded())
      a.raw = parsed;
    json body = parsed.is_discarded() ? json(normalise_text(detail::short_text(reply.body, 200))) : normalise(parsed);
    auto mode = row.value("compare", "body");
    if (mode == "status") {
      a.compared = {{"status", a.status}};
    } else if (mode == "keys") {
      json keys = json::array();
      if (body.is_object())
        for (auto it = body.begin(); it != body.end(); ++it)
          keys.push_back(it.key());
      a.compared = {{"status", a.status}, {"keys", keys}};
    } else if (mode.rfind("headers:", 0) == 0) {
      auto name = mode.substr(8);
      a.compared = {{"status", a.status}, {name, normalise_text(detail::header_value(reply.headers, name))}};
    } else {
      a.compared = {{"status", a.status}, {"body", body}};
    }
    a.summary = std::to_string(a.status);
    if (body.is_object() && body.value("kind", "") == "Status")
      a.summary += " " + body.value("reason", "") + ": " + body.value("message", "");
    else if (mode.rfind("headers:", 0) == 0)
      a.summary += " " + a.compared[mode.substr(8)].get<std::string>();
    a.summary = detail::short_text(a.summary);
    return a;
  }

  /// A watch with timeoutSeconds in its query: the server ends it, so the whole stream
  /// is the answer; each event normalised.
  answer watch(const json& row) {
    auto reply = schedopt::test::http_request(server_, "GET", substitute(row.value("path", "")));
    answer a;
    a.status = reply.status;
    json events = json::array();
    std::istringstream lines(reply.body);
    std::vector<std::string> types;
    for (std::string line; std::getline(lines, line);) {
      auto event = json::parse(line, nullptr, false);
      if (event.is_discarded())
        continue;
      types.push_back(event.value("type", "?"));
      events.push_back(normalise(event));
    }
    a.compared = {{"status", a.status}, {"events", events}};
    std::string joined;
    for (auto& t : types)
      joined += (joined.empty() ? "" : " ") + t;
    a.summary = detail::short_text(std::to_string(a.status) + " " + (joined.empty() ? "(no events)" : joined));
    return a;
  }

  /// Runs `program` with `args` (shell-quoted), stdout and stderr together; the exit code.
  static int run_program(const std::string& program, const std::vector<std::string>& args, std::string& output) {
    std::string cmd = detail::shell_quote(program);
    for (auto& arg : args)
      cmd += " " + detail::shell_quote(arg);
    cmd += " 2>&1";
    int raw = -1;
    if (FILE* pipe = popen(cmd.c_str(), "r")) {
      char buffer[4096];
      while (auto n = fread(buffer, 1, sizeof buffer, pipe))
        output.append(buffer, n);
      raw = pclose(pipe);
    }
    return raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }

  /// client-go's dynamic informer, or a controller-runtime cache ("client"), with its
  /// defaults: synced, or not (and why).
  answer informer(const json& row) {
    std::string output;
    int code = run_program(server_.informer_probe,
                           {"--kubeconfig", server_.kubeconfig, "--resource", row.value("resource", ""), "--timeout",
                            row.value("timeout", "10s"), "--client", row.value("client", "client-go")},
                           output);
    answer a;
    a.status = code;
    // Whether it synced is compared; how fast, and the words of a failure, are shown.
    a.compared = {{"exit", code}, {"verdict", output.rfind("synced ", 0) == 0 ? "synced" : "not synced"}};
    a.summary = detail::short_text("exit " + std::to_string(code) + ": " + output.substr(0, output.find('\n')), 140);
    return a;
  }

  /// One step of a client-library probe (python/probe.py, node/probe.mjs). The probe runs
  /// all its steps once, from the first client row, against this server (one process per
  /// client and server keeps the cost to its start-up); each row compares its own step's
  /// line: the client's normalised result, or the exception it raised.
  answer client_step(const std::string& kind, const json& row) {
    start(row);
    const client_run& run = client_runs_.at(kind).get();
    answer a;
    a.status = run.exit;
    auto step = run.steps.find(row.value("step", ""));
    if (step == run.steps.end()) {
      // The probe died before this step (or never started): its own words are the answer.
      auto tail = run.output.size() > 600 ? run.output.substr(run.output.size() - 600) : run.output;
      a.compared = {{"exit", run.exit}, {"output", normalise_text(tail)}};
      a.summary = detail::short_text("exit " + std::to_string(run.exit) + ", no step " + row.value("step", "") + ": "
                                     + tail.substr(tail.rfind('\n', tail.size() - 2) + 1), 140);
      return a;
    }
    // The probe normalised already; normalise() again keeps what it missed out of the
    // comparison in the same way as the HTTP rows.
    json line = normalise(step->second);
    a.compared = {{"exit", run.exit}, {"step", line}};
    if (line.contains("error")) {
      const auto& e = line["error"];
      a.summary = e.value("exception", "") + " " + (e.contains("status") ? e["status"].dump() : "") + " "
                  + (e.contains("reason") && e["reason"].is_string() ? e["reason"].get<std::string>() : "") + ": "
                  + (e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>() : "");
    } else {
      a.summary = "ok " + line.value("result", json()).dump();
    }
    a.summary = detail::short_text(a.summary);
    return a;
  }

  answer kubectl(const json& row) {
    std::vector<std::string> args = {"--kubeconfig", server_.kubeconfig, "--cache-dir",
                                     server_.files_dir + "/kubectl-cache-" + server_.name};
    for (auto& arg : row.value("args", json::array()))
      args.push_back(substitute(arg.get<std::string>()));
    std::string output;
    int code = run_program(server_.kubectl, args, output);
    // Ages and the server's own address are the server's, not its behaviour.
    static const std::regex age(R"(\b[0-9]+(ms|s|m|h|d)([0-9]+(s|m|h))?\b)");
    output = std::regex_replace(normalise_text(output), age, "<age>");
    output = std::regex_replace(output, std::regex(R"(https://127\.0\.0\.1:[0-9]+)"), "<server>");
    answer a;
    a.status = code;
    a.compared = {{"exit", code}, {"output", output}};
    auto first_line = output.substr(0, output.find('\n'));
    a.summary = detail::short_text("exit " + std::to_string(code) + ": " + first_line);
    return a;
  }

  /// One client probe's run against this server: its exit code, output and step lines.
  struct client_run {
    int exit = -1;
    std::string output;
    std::map<std::string, json> steps;
  };

  server_under_test server_;
  std::map<std::string, answer> answers_;
  std::map<std::string, std::shared_future<client_run>> client_runs_;
};

} // namespace schedopt::differential
