#!/usr/bin/env bash
# The scale run (make bench-scale): 10,000 pods across 10 namespaces on 100
# fake kwok nodes of the local cluster, then kyyard -A in a 200x50 tmux pane,
# measuring time to the first rows, RSS after sync, CPU over one idle minute
# and kyyard's LIST/WATCH requests in that minute (from the audit log). The
# cluster is started if it is down (and stopped again only then); what the
# run creates is deleted at the end. Needs tmux (apt-get install tmux).
# Beside kyyard it times a bare protobuf LIST of every pod and `kubectl get
# pods -A` in the same run, and then runs a churn minute (1,000 pod changes a
# second asked: pods created and deleted about 5 s later) measuring kyyard's
# CPU, memory (again --settle after the churn's pods are gone) and row lag.
# With --while-starting it measures a start while the cluster churns instead
# (issue 25): the pods are created and, while kwok is still starting most of
# them, kyyard is started --starts times, each beside a bare LIST timed right
# before it (no churn minute after).
# Usage: hack/bench-scale.sh [--pods N] [--nodes N] [--idle D] [--churn D]
#        [--churn-rate N] [--churn-mode replace|patch] [--settle D] [--starts N]
#        [--while-starting]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cluster="$root/hack/cluster/.cache/bin/kyyard-cluster"
kubeconfig="$root/hack/cluster/.cache/kubeconfig/admin.kubeconfig"
audit="$root/hack/cluster/.cache/logs/audit.log"
pods=10000
nodes=
idle=60s
churn=60s
rate=1000
mode=replace
settle=150s
starts=3
while_starting=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pods) pods=$2; shift 2 ;;
    --idle) idle=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --churn) churn=$2; shift 2 ;;
    --churn-rate) rate=$2; shift 2 ;;
    --churn-mode) mode=$2; shift 2 ;;
    --settle) settle=$2; shift 2 ;;
    --starts) starts=$2; shift 2 ;;
    --while-starting) while_starting=1; shift ;;
    *) echo "unknown flag $1" >&2; exit 2 ;;
  esac
done
command -v tmux >/dev/null || { echo "the scale run needs tmux: apt-get install tmux" >&2; exit 1; }
(cd hack/cluster && go build -o .cache/bin/kyyard-cluster .)
[ -x bin/kyyard ] || go build -o bin/kyyard ./cmd/kyyard

started=0
finish() {
  go run ./hack/scale clean --kubeconfig "$kubeconfig" || true
  if [ "$started" = 1 ]; then "$cluster" down || true; fi
}
if ! "$cluster" status >/dev/null 2>&1; then
  started=1
  "$cluster" up
fi
trap finish EXIT
# About 100 pods per fake node: 1,000 nodes for 100,000 pods.
[ -n "$nodes" ] || nodes=$(( (pods + 99) / 100 ))
if [ "$while_starting" = 1 ]; then
  go run ./hack/scale seed --kubeconfig "$kubeconfig" --pods "$pods" --namespaces 10 --nodes "$nodes" --no-wait
  go run ./hack/scale measure --kubeconfig "$kubeconfig" --audit-log "$audit" --idle "$idle" --kyyard bin/kyyard \
    --starts "$starts" --interleave
  exit 0
fi
go run ./hack/scale seed --kubeconfig "$kubeconfig" --pods "$pods" --namespaces 10 --nodes "$nodes"
go run ./hack/scale measure --kubeconfig "$kubeconfig" --audit-log "$audit" --idle "$idle" --kyyard bin/kyyard \
  --kubectl "$root/hack/cluster/.cache/bin/kubectl" --churn "$churn" --churn-rate "$rate" --churn-mode "$mode" --settle "$settle" --starts "$starts"
