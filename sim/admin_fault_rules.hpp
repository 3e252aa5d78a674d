// /admin/answer-faults and /admin/partitions, the rule lists a test edits at runtime to
// break one thing at a time; served alike by the simulator's API server and, attached, by
// the admin endpoint beside the fault proxy.
#pragma once

namespace httplib {
struct Request;
struct Response;
}

namespace schedopt::sim {

class answer_faults;
class network_partitions;

/// POST adds a rule (its JSON answered with its id), GET lists the rules with how often
/// each fired, DELETE removes them all. `rules` null: 503.
void serve_answer_fault_rules(answer_faults* rules, const httplib::Request& req, httplib::Response& res);

/// POST adds a partition ({"userAgent":"S","after":"0s","for":"10s"}, answered with its
/// id), GET lists them with how many requests each held, DELETE heals them all.
/// `partitions` null: 503.
void serve_partition_rules(network_partitions* partitions, const httplib::Request& req, httplib::Response& res);

} // namespace schedopt::sim
