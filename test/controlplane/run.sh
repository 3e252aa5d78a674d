#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, as controller-runtime's envtest
# starts one, plus the controllers envtest leaves out: etcd, kube-apiserver
# (RBAC, static tokens for the test users, service-account keys, a JSON audit
# log), kube-controller-manager and kube-scheduler; with --kwok, kwok as every
# node's kubelet. Prints `ready <server-url>` once /readyz answers, runs until
# SIGTERM or SIGINT, then stops kube-apiserver before etcd (it hangs on
# shutdown while etcd is gone) and removes what it started. A component that dies is
# started again, as the kubelet restarts static pods (the chaos tests kill them).
#
#   test/controlplane/run.sh --dir DIR [--bin BINDIR] [--kwok] [--node-monitor-grace-period 40s]
#
# DIR receives the kubeconfigs (admin, requester, scraper), ca.crt, the token
# file, audit.log and an `env` file of KEY=VALUE lines that tests read.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir= bin= with_kwok=0 grace=40s
while (($#)); do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --kwok) with_kwok=1; shift ;;
    --node-monitor-grace-period) grace=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n $dir ]] || { echo "run.sh: --dir is required" >&2; exit 2; }
bin=${bin:-$("$here/build.sh" --locate)/bin}
for b in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
  [[ -x $bin/$b ]] || { echo "run.sh: $bin/$b is missing: run test/controlplane/build.sh" >&2; exit 1; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
log=$dir/logs
mkdir -p "$log"

pids=()
stop_started() {
  # Reverse start order: the API server's clients, then the API server, then etcd.
  local i
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null || true
    wait "${pids[i]}" 2>/dev/null || true
  done
  pids=()
  rm -rf "$dir/etcd-data"
}
stop_all() {
  trap - TERM INT EXIT
  stop_started
}
trap stop_all EXIT
trap 'exit 0' TERM INT

# supervise <name> <command...>: runs the component, and runs it again a second after it
# dies, as the kubelet restarts a control plane's static pods; its pid is in
# DIR/pids/<name>, so a test can kill it mid-run (kill -9 kube-apiserver, etcd).
mkdir -p "$dir/pids"
supervise() {
  local name=$1
  shift
  (
    # Every job of this subshell, not just $child: a TERM between the fork and child=$!
    # would otherwise orphan the component it just started.
    trap 'kill -TERM $(jobs -p) 2>/dev/null; wait; exit 0' TERM
    while true; do
      "$@" >> "$log/$name.log" 2>&1 &
      child=$!
      echo "$child" > "$dir/pids/$name"
      wait "$child" || true
      echo "run.sh: $name exited; starting it again" >> "$log/$name.log"
      sleep 1
    done
  ) &
  pids+=($!)
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Certificates: a CA, the API server's serving certificate, and the
# service-account signing key (TokenRequest, projected tokens, TokenReview).
pki=$dir/pki
mkdir -p "$pki"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=schedopt-test-ca \
  -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj /CN=kube-apiserver \
  -keyout "$pki/apiserver.key" -out "$pki/apiserver.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n' > "$pki/san.ext"
openssl x509 -req -in "$pki/apiserver.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" \
  -CAcreateserial -days 2 -extfile "$pki/san.ext" -out "$pki/apiserver.crt" 2>/dev/null
openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
cp "$pki/ca.crt" "$dir/ca.crt"

# Static tokens (kube-apiserver --token-auth-file: token,user,uid,"groups").
token() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
admin_token=$(token) requester_token=$(token) scraper_token=$(token)
kcm_token=$(token) scheduler_token=$(token) kwok_token=$(token)
cat > "$pki/tokens.csv" <<EOF
$admin_token,admin,admin,"system:masters"
$requester_token,requester,requester,"system:authenticated"
$scraper_token,scraper,scraper,"system:authenticated"
$kcm_token,system:kube-controller-manager,kcm
$scheduler_token,system:kube-scheduler,scheduler
$kwok_token,kwok,kwok,"system:masters"
EOF

# Every request at Metadata, writes with their bodies: the judge of fault tests.
cat > "$pki/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  # VMIMs may be created with generateName: the created object names them.
  - level: RequestResponse
    verbs: [create]
    resources: [{group: kubevirt.io, resources: [virtualmachineinstancemigrations]}]
  - level: Request
    verbs: [create, update, patch, delete, deletecollection]
  - level: Metadata
EOF


kubeconfig() {  # kubeconfig <file> <user> <token>
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: "$server", certificate-authority: "$dir/ca.crt"}
users:
- name: $2
  user: {token: "$3"}
contexts:
- name: $2
  context: {cluster: test, user: $2}
current-context: $2
EOF
}

# The ports come from the kernel's ephemeral range (a bind to port 0), so between the
# probe and a component's own bind an outgoing connection may be given one. A component
# that finds its port taken makes run.sh start etcd and kube-apiserver again on new ports.
port_taken() { grep -qs "address already in use" "$log/etcd.log" "$log/kube-apiserver.log"; }
ready=0
for attempt in 1 2 3; do
  etcd_port=$(free_port) etcd_peer=$(free_port) api_port=$(free_port)
  server=https://127.0.0.1:$api_port
  supervise etcd "$bin/etcd" --name test --data-dir "$dir/etcd-data" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "test=http://127.0.0.1:$etcd_peer" --unsafe-no-fsync

  # MutablePVNodeAffinity (alpha, KEP-5381) lets a replicated local-storage CSI driver
  # move a PV's node affinity with its replicas, as the simulated csi-topology driver's
  # pool failover does.
  supervise kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
    --feature-gates MutablePVNodeAffinity=true \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$pki/apiserver.crt" --tls-private-key-file "$pki/apiserver.key" \
    --client-ca-file "$pki/ca.crt" --token-auth-file "$pki/tokens.csv" \
    --authorization-mode RBAC --allow-privileged \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
    --service-cluster-ip-range 10.0.0.0/24 --endpoint-reconciler-type none \
    --audit-policy-file "$pki/audit-policy.yaml" --audit-log-path "$dir/audit.log" \
    --audit-log-format json --audit-log-mode blocking --audit-log-maxsize 0

  for ((i = 0; i < 600; i++)); do
    if curl -sf --cacert "$dir/ca.crt" -H "Authorization: Bearer $admin_token" "$server/readyz" >/dev/null; then
      ready=1
      break
    fi
    port_taken && break
    sleep 0.1
  done
  ((ready)) && break
  port_taken || { tail -20 "$log/kube-apiserver.log" >&2; echo "run.sh: kube-apiserver not ready after 60s" >&2; exit 1; }
  echo "run.sh: a port was taken before its component bound it (attempt $attempt); new ports" >&2
  stop_started
  for c in etcd kube-apiserver; do mv -f "$log/$c.log" "$log/$c.log.$attempt" 2>/dev/null || true; done
done
((ready)) || { echo "run.sh: ports taken on every attempt" >&2; exit 1; }
kubeconfig "$dir/admin.kubeconfig" admin "$admin_token"
kubeconfig "$dir/requester.kubeconfig" requester "$requester_token"
kubeconfig "$dir/scraper.kubeconfig" scraper "$scraper_token"
kubeconfig "$pki/kcm.kubeconfig" kcm "$kcm_token"
kubeconfig "$pki/scheduler.kubeconfig" scheduler "$scheduler_token"
kubeconfig "$pki/kwok.kubeconfig" kwok "$kwok_token"

# The controllers a cluster runs for the objects the tests create. Client rate limits
# off, as kwokctl's --disable-qps-limits sets them: thousands of pods are made in seconds,
# not at the default 20 requests a second.
qps=(--kube-api-qps 5000 --kube-api-burst 10000)
supervise kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$pki/kcm.kubeconfig" --leader-elect=false \
  "${qps[@]}" \
  --secure-port 0 --use-service-account-credentials \
  --root-ca-file "$pki/ca.crt" --service-account-private-key-file "$pki/sa.key" \
  --node-monitor-grace-period "$grace" \
  --controllers node-lifecycle-controller,garbage-collector-controller,namespace-controller,disruption-controller,replicaset-controller,statefulset-controller,serviceaccount-controller,serviceaccount-token-controller,persistentvolume-binder-controller,daemonset-controller,job-controller,pod-garbage-collector-controller,taint-eviction-controller,clusterrole-aggregation-controller,root-ca-certificate-publisher-controller
supervise kube-scheduler "$bin/kube-scheduler" --kubeconfig "$pki/scheduler.kubeconfig" --leader-elect=false \
  "${qps[@]}" \
  --secure-port 0
if ((with_kwok)); then
  supervise kwok "$bin/kwok" --kubeconfig "$pki/kwok.kubeconfig" --manage-all-nodes=true \
    --node-lease-duration-seconds 40 \
    --config "$(ls "$(dirname "$bin")"/kwok-stages/*.yaml | paste -sd,)"
fi

cat > "$dir/env" <<EOF
SERVER=$server
CA_FILE=$dir/ca.crt
ADMIN_TOKEN=$admin_token
REQUESTER_TOKEN=$requester_token
SCRAPER_TOKEN=$scraper_token
ADMIN_KUBECONFIG=$dir/admin.kubeconfig
REQUESTER_KUBECONFIG=$dir/requester.kubeconfig
SCRAPER_KUBECONFIG=$dir/scraper.kubeconfig
AUDIT_LOG=$dir/audit.log
PIDS=$dir/pids
BIN=$bin
EOF
echo "ready $server"

# Until SIGTERM or SIGINT; the components that die meanwhile are started again.
while true; do
  wait || true
done
