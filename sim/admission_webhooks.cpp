// Follows KubeVirt pkg/virt-api/webhooks: validating-webhook/admitters/
// migration-create-admitter.go (Admit) and mutating-webhook/mutators/migration-mutator.go
// (Mutate: the kubevirt.io/vmi-name label and the migrationJobFinalize finalizer as a
// JSONPatch), served as virt-api serves them (pkg/virt-api/api.go, AdmissionReview v1
// over HTTPS); the configurations follow virt-operator's
// pkg/virt-operator/resource/generate/components/webhooks.go (failurePolicy Fail,
// sideEffects None, CREATE of virtualmachineinstancemigrations).
#include "sim/admission_webhooks.hpp"

#include <thread>

#include <httplib.h>

#include "k8s/listen_thread.hpp"
#include "sim/kubeconfig_writer.hpp"
#include "sim/kubevirt_names.hpp"
#include "sim/request_user.hpp"
#include "sim/tls_server.hpp"

namespace schedopt::sim {

namespace {

using json = nlohmann::json;

/// The simulator's admission errors carry the prefix kube-apiserver adds to a webhook's
/// denial ("admission webhook \"<name>\" denied the request: "); the webhook answers
/// without it, and the API server puts it back.
std::string bare_denial(const std::string& message) {
  static const std::string marker = "denied the request: ";
  auto at = message.find(marker);
  return at == std::string::npos ? message : message.substr(at + marker.size());
}

json review_response(const json& review, json response) {
  response["uid"] = review.value("/request/uid"_json_pointer, std::string());
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", response}};
}

json webhook_rules() {
  return json::array({{{"operations", {"CREATE"}},
                       {"apiGroups", {"kubevirt.io"}},
                       {"apiVersions", {"v1"}},
                       {"resources", {"virtualmachineinstancemigrations"}}}});
}

json webhook(const std::string& name, const std::string& url, const tls_material& tls) {
  return {{"name", name},
          {"clientConfig", {{"url", url}, {"caBundle", base64_encode(tls.ca_cert_pem)}}},
          {"rules", webhook_rules()},
          {"failurePolicy", "Fail"},
          {"sideEffects", "None"},
          {"admissionReviewVersions", {"v1"}},
          {"timeoutSeconds", 10}};
}

} // namespace

struct admission_webhooks::impl {
  object_store::admission_hook admit;
  std::unique_ptr<httplib::SSLServer> server;
  std::thread thread;
  int port = 0;

  std::string url(const std::string& path) const { return "https://127.0.0.1:" + std::to_string(port) + path; }

  void routes() {
    server->Post("/migration-validate-create", [this](const httplib::Request& req, httplib::Response& res) {
      auto review = json::parse(req.body, nullptr, false);
      json object = review.is_object() ? review.value("/request/object"_json_pointer, json::object()) : json::object();
      json response = {{"allowed", true}};
      // The requester as kube-apiserver names it; the simulator's own writes arrive under
      // the attach kubeconfig's user, so a priority only virt-controller may set is
      // refused to it too (docs/simulator.md, attached).
      request_user_scope as_user{
        review.is_object() ? review.value("/request/userInfo/username"_json_pointer, std::string()) : std::string()};
      if (auto denied = admit(object))
        response = {{"allowed", false},
                    {"status", {{"code", denied->http_status ? denied->http_status : 400},
                                {"message", bare_denial(denied->message)}}}};
      res.set_content(review_response(review, response).dump(), "application/json");
    });
    server->Post("/migration-mutate-create", [this](const httplib::Request& req, httplib::Response& res) {
      auto review = json::parse(req.body, nullptr, false);
      json object = review.is_object() ? review.value("/request/object"_json_pointer, json::object()) : json::object();
      json mutated = object;
      json response = {{"allowed", true}};
      // The mutator only mutates; a VMIM it cannot judge is the validator's to refuse.
      if (!admit(mutated)) {
        auto patch = json::diff(object, mutated);
        if (!patch.empty()) {
          response["patchType"] = "JSONPatch";
          response["patch"] = base64_encode(patch.dump());
        }
      }
      res.set_content(review_response(review, response).dump(), "application/json");
    });
  }
};

admission_webhooks::admission_webhooks(object_store::admission_hook admit) : impl_(std::make_unique<impl>()) {
  impl_->admit = std::move(admit);
}

admission_webhooks::~admission_webhooks() { stop(); }

expected<int> admission_webhooks::start(const tls_material& tls) {
  auto server = make_tls_server(tls, "KubeVirt admission webhooks");
  if (!server)
    return server.err();
  impl_->server = std::move(*server);
  impl_->routes();
  int bound = impl_->server->bind_to_any_port("127.0.0.1");
  if (bound <= 0)
    return make_error(ec::transport_error, "KubeVirt admission webhooks cannot listen on 127.0.0.1");
  impl_->port = bound;
  impl_->thread = start_listening(*impl_->server);
  return bound;
}

void admission_webhooks::stop() {
  if (!impl_ || !impl_->thread.joinable())
    return;
  impl_->server->stop();
  impl_->thread.join();
}

json admission_webhooks::validating_configuration(const tls_material& tls) const {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", "ValidatingWebhookConfiguration"},
          {"metadata", {{"name", "virt-api-validator"}}},
          {"webhooks", {webhook(kubevirt::create_webhook, impl_->url("/migration-validate-create"), tls)}}};
}

json admission_webhooks::mutating_configuration(const tls_material& tls) const {
  return {{"apiVersion", "admissionregistration.k8s.io/v1"},
          {"kind", "MutatingWebhookConfiguration"},
          {"metadata", {{"name", "virt-api-mutator"}}},
          {"webhooks", {webhook("migration-mutator.kubevirt.io", impl_->url("/migration-mutate-create"), tls)}}};
}

} // namespace schedopt::sim
