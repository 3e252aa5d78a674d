// The differential suite's probe of the JavaScript client (npm @kubernetes/client-node,
// pinned in package.json and package-lock.json): the calls a controller written with it
// makes, against the API server a kubeconfig names. Steps, each printed as one JSON line
// {"step", "result"} (or "error": the client's ApiException), keys sorted:
//   create    three ConfigMaps labelled probe=node
//   list      a label selector in pages of 2 (limit + _continue), as a controller relists
//   get       one of them
//   merge, strategic, json
//             each patch type through setHeaderOptions('Content-Type', PatchStrategy.X)
//   apply     server-side apply (PatchStrategy.ServerSideApply, fieldManager)
//   delete    one of them, and the Status the client returns
//   watch     Watch.watch with timeoutSeconds: one ADDED event, then the end the server
//             gives the stream at its timeout (no bookmarks asked for)
//   custom    a SchedulingOptimization (the corpus's CRD) through CustomObjectsApi
//   missing   get a ConfigMap that does not exist: the client's ApiException, its code
//             and the Status's reason
// What two servers must answer differently (uids, resourceVersions, times, continue
// tokens, managedFields' times and field sets) is taken out here, so the outputs compare
// equal when the servers agree. The suite runs it once per server
// (test/differential/replay.hpp); each "node" row of corpus.json compares one step.
import * as k8s from '@kubernetes/client-node';

const DROP = new Set(['resourceVersion', 'uid', 'selfLink', 'creationTimestamp', 'deletionTimestamp', 'time',
  'lastTransitionTime']);

function normalise(value) {
  if (value instanceof Date) return undefined;
  if (Array.isArray(value)) return value.map(normalise);
  if (value !== null && typeof value === 'object') {
    const out = {};
    for (const [key, item] of Object.entries(value)) {
      if (DROP.has(key) || item === undefined || item === null) continue;
      if (key === 'managedFields' && Array.isArray(item))
        out[key] = item.map((m) => `${m.manager ?? ''} ${m.operation ?? ''} ${m.subresource ?? ''}`).sort();
      else if (key === 'continue' && typeof item === 'string') out[key] = item ? '<token>' : '';
      else out[key] = normalise(item);
    }
    return out;
  }
  return value;
}

/** JSON with sorted keys, as Python's json.dumps(sort_keys=True) writes it. */
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  return value;
}

function errorOf(e) {
  if (e instanceof k8s.ApiException) {
    let status = {};
    try {
      status = typeof e.body === 'string' ? JSON.parse(e.body) : (e.body ?? {});
    } catch {
      status = { body: String(e.body) };
    }
    return { exception: e.constructor.name, status: e.code, reason: status.reason, message: status.message,
      code: status.code, details: normalise(status.details) };
  }
  return { exception: e?.constructor?.name ?? typeof e, message: String(e?.message ?? e) };
}

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const namespace = option('--namespace', 'differential');
const kc = new k8s.KubeConfig();
kc.loadFromFile(option('--kubeconfig'));
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const contentType = (type) => k8s.setHeaderOptions('Content-Type', type);

const steps = {
  async create() {
    const made = [];
    for (const name of ['node-a', 'node-b', 'node-c']) {
      const labels = name === 'node-a' ? { probe: 'node', watched: 'node' } : { probe: 'node' };
      const body = { metadata: { name, labels }, data: { name } };
      made.push(normalise(await core.createNamespacedConfigMap({ namespace, body })));
    }
    return made;
  },
  async list() {
    const pages = [];
    let token;
    do {
      const page = await core.listNamespacedConfigMap({ namespace, labelSelector: 'probe=node', limit: 2,
        _continue: token });
      pages.push({ kind: page.kind, apiVersion: page.apiVersion, names: page.items.map((i) => i.metadata.name),
        continue: page.metadata?._continue ? '<token>' : '',
        remainingItemCount: page.metadata?.remainingItemCount ?? null });
      token = page.metadata?._continue;
    } while (token && pages.length <= 5);
    return pages;
  },
  async get() {
    return normalise(await core.readNamespacedConfigMap({ name: 'node-a', namespace }));
  },
  async merge() {
    return normalise(await core.patchNamespacedConfigMap({ name: 'node-a', namespace, body: { data: { merged: 'yes' } } },
      contentType(k8s.PatchStrategy.MergePatch)));
  },
  async strategic() {
    return normalise(await core.patchNamespacedConfigMap(
      { name: 'node-a', namespace, body: { metadata: { labels: { tier: 's' } } } },
      contentType(k8s.PatchStrategy.StrategicMergePatch)));
  },
  async json() {
    return normalise(await core.patchNamespacedConfigMap(
      { name: 'node-a', namespace, body: [{ op: 'add', path: '/data/patched', value: 'json' }] },
      contentType(k8s.PatchStrategy.JsonPatch)));
  },
  async apply() {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'node-applied', labels: { probe: 'node' } },
      data: { owner: 'node' } };
    return normalise(await core.patchNamespacedConfigMap(
      { name: 'node-applied', namespace, body, fieldManager: 'node-probe' },
      contentType(k8s.PatchStrategy.ServerSideApply)));
  },
  async delete() {
    return normalise(await core.deleteNamespacedConfigMap({ name: 'node-c', namespace }));
  },
  async watch() {
    const events = [];
    const ended = await new Promise((resolve) => {
      new k8s.Watch(kc)
        .watch(`/api/v1/namespaces/${namespace}/configmaps`, { labelSelector: 'watched=node', timeoutSeconds: 1 },
          (type, object) => events.push({ type, name: object.metadata?.name, data: object.data }),
          (err) => resolve(err ? `with an error: ${err.message ?? err}` : "at the server's timeout"))
        .catch((err) => resolve(`not started: ${err.message ?? err}`));
    });
    return { events, ended };
  },
  async custom() {
    const group = 'stork.libopenstorage.org';
    const version = 'v1alpha1';
    const plural = 'schedulingoptimizations';
    const got = await custom.getClusterCustomObject({ group, version, plural, name: 'diff-a' });
    const listed = await custom.listClusterCustomObject({ group, version, plural });
    return { get: normalise(got), list: { kind: listed.kind, names: (listed.items ?? []).map((i) => i.metadata.name) } };
  },
  async missing() {
    await core.readNamespacedConfigMap({ name: 'node-missing', namespace });
    return 'found';
  },
};

for (const [step, run] of Object.entries(steps)) {
  let line;
  try {
    line = { step, result: await run() };
  } catch (e) { // the row shows what the client threw
    line = { step, error: errorOf(e) };
  }
  console.log(JSON.stringify(sorted(line)));
}
