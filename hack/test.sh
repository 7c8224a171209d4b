#!/usr/bin/env bash
# Runs kyyard's whole test suite: formatting, vet, the unit tests under the
# race detector, then the unit tests again with the
# end-to-end tests against the local cluster of hack/cluster. The cluster is
# started (and built, the first time) when it is not already up, and stopped
# again only if this script started it. Usage: hack/test.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cluster="$root/hack/cluster/.cache/bin/kyyard-cluster"
# Always (re)build the tool: a no-op when nothing changed, and a stale
# binary would lack commands the tests use.
(cd hack/cluster && go build -o .cache/bin/kyyard-cluster .)

echo "== gofmt, vet, unit tests"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt needed:"; echo "$unformatted"; exit 1
fi
go vet ./...
(cd hack/cluster && go vet ./... && go test ./...)
# The differential test against Kubernetes' own printers (a module of its
# own, so k8s.io/kubernetes stays out of kyyard's graph): a bounded run.
echo "== hack/oracle: kyyard's rows against Kubernetes' printers"
(cd hack/oracle && go vet ./... && go test -count=1 ./...)

# The unit tests under the race detector (the end-to-end tests skip
# themselves: KYYARD_E2E is not set yet). Races have shown only under load
# before; this pass makes every run look for them.
echo "== go test -race (unit tests)"
go test -race -count=1 "$@" ./...

started=0
stop() {
  if [ "$started" = 1 ]; then
    echo "== stopping the local cluster this run started"
    "$cluster" down || true
  fi
}
trap stop EXIT

if "$cluster" status >/dev/null 2>&1; then
  echo "== the local cluster is already up: using it (and starting its real node if that is not running)"
  "$cluster" up
else
  echo "== starting the local cluster and its real node (building them first if their binaries are missing or out of date; apt-get installs runc, iptables and busybox-static when missing)"
  started=1
  "$cluster" up
fi
"$cluster" seed
cache="$root/hack/cluster/.cache"
# The demo Helm release (demo/greeter, two revisions), made with Helm's Go
# SDK; a no-op when it is already there.
go run ./hack/helmseed -kubeconfig "$cache/kubeconfig/admin.kubeconfig"

# The local fleet (three control planes beside the cluster, hack/cluster
# `fleet`), for the multi-cluster tests; stopped again if this run started it.
# The trap is set before `fleet up`, so a failed start or seed stops the
# fleet's processes too.
fleet_started=0
stop_fleet() {
  if [ "$fleet_started" = 1 ]; then
    echo "== stopping the local fleet this run started"
    "$cluster" fleet down || true
  fi
}
trap 'stop_fleet; stop' EXIT
if ! "$cluster" fleet status >/dev/null 2>&1; then
  echo "== starting the local fleet (3 control planes)"
  fleet_started=1
fi
"$cluster" fleet up
"$cluster" fleet seed
export KYYARD_E2E_FLEET_KUBECONFIG="$cache/fleet/kubeconfig"

export KYYARD_E2E=1
export KYYARD_E2E_KUBECONFIG="$cache/kubeconfig/admin.kubeconfig"
export KYYARD_E2E_READONLY_KUBECONFIG="$cache/kubeconfig/readonly.kubeconfig"
export KYYARD_E2E_AUDIT_LOG="$cache/logs/audit.log"
export KYYARD_E2E_KUBECTL="$cache/bin/kubectl"
export KYYARD_E2E_CLUSTER="$cluster"

# One end-to-end test drives kyyard in a real terminal: tmux (its screen
# read with capture-pane, mouse events sent as an xterm writes them).
if ! command -v tmux >/dev/null 2>&1; then
  echo "== apt-get install tmux (an end-to-end test drives kyyard in it)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends tmux >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends tmux >/dev/null; }
fi

# The kyyard binary the terminal tests run, built before them: a build
# beside the other packages' end-to-end tests slowed the cluster they use.
go build -o "$cache/bin/kyyard-e2e" ./cmd/kyyard
export KYYARD_E2E_KYYARD="$cache/bin/kyyard-e2e"

echo "== go test ./... (unit and end-to-end)"
go test -count=1 -timeout 25m "$@" ./...

# Tests that stop and start the API server run alone, after everything
# else, one package at a time (-p 1), so that no other test meets the outage.
echo "== disruptive end-to-end tests (the API server is stopped and started again)"
KYYARD_E2E_DISRUPTIVE=1 go test -count=1 -p 1 -run 'E2EDisruptive' "$@" ./...
