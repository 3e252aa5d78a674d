// Informer: list (all pages) -> store -> watch from the list's resourceVersion; resume
// after drops, relist on 410, notify subscribers of every change. The behaviour is
// actors/informer_actor_impl.hpp; this file instantiates it for the core's watched types
// (each kind does so for its own).
#include "actors/informer_actor_impl.hpp"

#include "model/watched_types.hpp"

SCHEDOPT_FOR_EACH_WATCHED_TYPE(SCHEDOPT_INSTANTIATE_INFORMER)
