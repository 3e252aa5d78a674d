// docs/design.md §3.1: the labels that mark what schedopt created, and which request did.
// Every kind and the status command read them, so they belong to no kind.
#pragma once

#include <string>

#include "model/objects.hpp"

namespace schedopt {

namespace labels {
constexpr const char* managed_by = "app.kubernetes.io/managed-by";
constexpr const char* managed_by_value = "schedopt";
constexpr const char* request_uid = "schedopt.libopenstorage.org/request-uid";
constexpr const char* request_annotation = "schedopt.libopenstorage.org/request";
constexpr const char* source_node_annotation = "schedopt.libopenstorage.org/source-node";
constexpr const char* hostname = "kubernetes.io/hostname";
} // namespace labels

/// True when the VMIM carries app.kubernetes.io/managed-by=schedopt.
bool is_schedopt_migration(const virtual_machine_instance_migration& m);

/// Label selector for the VMIMs one request created (adoption on resume).
std::string request_migrations_selector(const std::string& request_uid);

} // namespace schedopt
