// Which failed API calls the client sends again. A retry must never repeat a write the
// server may already have made: a request whose answer was lost (connection reset,
// timeout) or whose answer may follow a commit (a 5xx) is sent again only when its replay
// is harmless, i.e. the server recognises it and at worst refuses it.
#pragma once

#include "k8s/requests.hpp"

namespace schedopt::k8s {

/// Whether sending `call` a second time, after the first may have been applied, can only
/// repeat what the first did or be refused: GET (get, list, watch); PUT carrying
/// metadata.resourceVersion (a replay answers 409 Conflict); a JSON patch whose first
/// operation is a `test` (a replay of an applied patch fails its test, 422, unless it is
/// idempotent); DELETE with uid or resourceVersion preconditions (a replay answers 404 or
/// 409); POST of an object with a fixed metadata.name (a replay answers 409
/// AlreadyExists); POST of a review (TokenReview, SubjectAccessReview: answered, never
/// stored). Not: a POST with only generateName (a replay creates a second object),
/// a merge or strategic patch (a replay can undo another client's write made since).
bool replay_is_harmless(const http_call& call);

/// One attempt as it ended.
struct attempt_result {
  int http_status = 0;      // 0: no answer (transport error)
  bool retry_after = false; // the answer carried a Retry-After the client can use
  bool request_sent = true; // false only when nothing of the request left this process
};

struct retry_decision {
  bool retry = false;
  const char* why = ""; // for the log line
};

/// Whether to send the call again (the attempt budget is the caller's).
retry_decision decide_retry(const attempt_result& attempt, bool replay_harmless);

} // namespace schedopt::k8s
