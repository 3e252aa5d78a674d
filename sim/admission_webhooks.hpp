// virt-api's VMIM admission served as real webhooks, for a simulator attached to a real
// API server: one HTTPS server answering AdmissionReview v1 for the validating webhook
// (migration-create-validator.kubevirt.io) and the mutating one (its label and
// finalizer), and the two webhook configurations that point kube-apiserver at it.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "model/error.hpp"
#include "sim/object_store.hpp"
#include "sim/tls.hpp"

namespace schedopt::sim {

class admission_webhooks {
public:
  /// `admit` is the simulator's VMIM admission (sim/kubevirt_admission): it validates
  /// and mutates, as virt-api's admitter and mutator do together.
  explicit admission_webhooks(object_store::admission_hook admit);
  ~admission_webhooks();

  /// Serves HTTPS on 127.0.0.1 (any free port) with `tls`.
  expected<int> start(const tls_material& tls);
  void stop();

  /// The ValidatingWebhookConfiguration and MutatingWebhookConfiguration for
  /// kube-apiserver, their caBundle `tls`'s CA, as virt-operator installs virt-api's.
  nlohmann::json validating_configuration(const tls_material& tls) const;
  nlohmann::json mutating_configuration(const tls_material& tls) const;

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

} // namespace schedopt::sim
