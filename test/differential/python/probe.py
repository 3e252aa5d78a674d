# The differential suite's probe of the official Python client (PyPI `kubernetes`, pinned
# in requirements.txt): the calls a controller written with it makes, against the API
# server a kubeconfig names. Steps, each printed as one JSON line {"step", "result"} (or
# "error": the client's exception), keys sorted:
#   create    three ConfigMaps labelled probe=python
#   list      a label selector in pages of 2 (limit + continue), as a controller relists
#   get       one of them
#   merge, strategic, json
#             each patch type through the client's _content_type
#   apply     server-side apply (field_manager), which the client sends as YAML's JSON
#   delete    one of them, and the Status the client returns
#   watch     watch.Watch().stream with timeout_seconds: one ADDED event, then the end
#             the server gives the stream at its timeout (no bookmarks asked for)
#   custom    a SchedulingOptimization (the corpus's CRD) through CustomObjectsApi
#   missing   get a ConfigMap that does not exist: the client's ApiException, its status
#             and the Status's reason
# What two servers must answer differently (uids, resourceVersions, times, continue
# tokens, managedFields' times and field sets) is taken out here, so the outputs compare
# equal when the servers agree. The suite runs it once per server
# (test/differential/replay.hpp); each "python" row of corpus.json compares one step.
import argparse
import json
import sys

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

DROP = {"resourceVersion", "uid", "selfLink", "creationTimestamp", "deletionTimestamp", "time",
        "lastTransitionTime"}


def normalise(value):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in DROP or item is None:
                continue
            if key == "managedFields" and isinstance(item, list):
                out[key] = sorted(f"{m.get('manager', '')} {m.get('operation', '')} {m.get('subresource', '')}"
                                  for m in item)
            elif key == "continue" and isinstance(item, str):
                out[key] = "<token>" if item else ""
            else:
                out[key] = normalise(item)
        return out
    if isinstance(value, list):
        return [normalise(v) for v in value]
    return value


def plain(api_client, obj):
    """The client's own serialisation of a returned model (camelCase, as on the wire)."""
    return normalise(api_client.sanitize_for_serialization(obj))


def error_of(e):
    if isinstance(e, ApiException):
        try:
            status = json.loads(e.body or "{}")
        except ValueError:
            status = {"body": e.body}
        return {"exception": type(e).__name__, "status": e.status, "httpReason": e.reason,
                "reason": status.get("reason"), "message": status.get("message"), "code": status.get("code"),
                "details": normalise(status.get("details"))}
    return {"exception": type(e).__name__, "message": str(e)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--namespace", default="differential")
    args = parser.parse_args()
    ns = args.namespace

    config.load_kube_config(config_file=args.kubeconfig)
    api_client = client.ApiClient()
    core = client.CoreV1Api(api_client)
    custom = client.CustomObjectsApi(api_client)
    labels = {"probe": "python"}

    def create():
        made = []
        for name in ("py-a", "py-b", "py-c"):
            body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels=dict(labels)),
                                      data={"name": name})
            if name == "py-a":
                body.metadata.labels["watched"] = "python"
            made.append(plain(api_client, core.create_namespaced_config_map(ns, body)))
        return made

    def list_pages():
        pages, token = [], None
        while True:
            page = core.list_namespaced_config_map(ns, label_selector="probe=python", limit=2, _continue=token)
            pages.append({"kind": page.kind, "apiVersion": page.api_version,
                          "names": [item.metadata.name for item in page.items],
                          "continue": "<token>" if page.metadata._continue else "",
                          "remainingItemCount": page.metadata.remaining_item_count})
            token = page.metadata._continue
            if not token or len(pages) > 5:
                return pages

    def get():
        return plain(api_client, core.read_namespaced_config_map("py-a", ns))

    def patch(content_type, body):
        return lambda: plain(api_client, core.patch_namespaced_config_map("py-a", ns, body,
                                                                          _content_type=content_type))

    def apply():
        body = {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "py-applied", "labels": dict(labels)}, "data": {"owner": "python"}}
        return plain(api_client, core.patch_namespaced_config_map(
            "py-applied", ns, body, field_manager="python-probe", _content_type="application/apply-patch+yaml"))

    def delete():
        return plain(api_client, core.delete_namespaced_config_map("py-c", ns))

    def watch_once():
        events = []
        for event in watch.Watch().stream(core.list_namespaced_config_map, ns, label_selector="watched=python",
                                          timeout_seconds=1):
            events.append({"type": event["type"], "name": event["object"].metadata.name,
                           "data": event["object"].data})
        return {"events": events, "ended": "at the server's timeout"}

    def custom_object():
        got = custom.get_cluster_custom_object("stork.libopenstorage.org", "v1alpha1", "schedulingoptimizations",
                                               "diff-a")
        listed = custom.list_cluster_custom_object("stork.libopenstorage.org", "v1alpha1",
                                                   "schedulingoptimizations")
        return {"get": normalise(got), "list": {"kind": listed.get("kind"),
                                                "names": [i["metadata"]["name"] for i in listed.get("items", [])]}}

    def missing():
        core.read_namespaced_config_map("py-missing", ns)
        return "found"

    steps = [("create", create), ("list", list_pages), ("get", get),
             ("merge", patch("application/merge-patch+json", {"data": {"merged": "yes"}})),
             ("strategic", patch("application/strategic-merge-patch+json", {"metadata": {"labels": {"tier": "s"}}})),
             ("json", patch("application/json-patch+json", [{"op": "add", "path": "/data/patched", "value": "json"}])),
             ("apply", apply), ("delete", delete), ("watch", watch_once), ("custom", custom_object),
             ("missing", missing)]
    for name, step in steps:
        try:
            line = {"step": name, "result": step()}
        except Exception as e:  # the row shows what the client raised
            line = {"step": name, "error": error_of(e)}
        print(json.dumps(line, sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
