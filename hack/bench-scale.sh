#!/usr/bin/env bash
# The scale run (make bench-scale): 10,000 pods across 10 namespaces on 100
# fake kwok nodes of the local cluster, then kyyard -A in a 200x50 tmux pane,
# measuring time to the first rows, RSS after sync, CPU over one idle minute
# and kyyard's LIST/WATCH requests in that minute (from the audit log). The
# cluster is started if it is down (and stopped again only then); what the
# run creates is deleted at the end. Needs tmux (apt-get install tmux).
# Usage: hack/bench-scale.sh [--pods N] [--idle D]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cluster="$root/hack/cluster/.cache/bin/kyyard-cluster"
kubeconfig="$root/hack/cluster/.cache/kubeconfig/admin.kubeconfig"
audit="$root/hack/cluster/.cache/logs/audit.log"
pods=10000
idle=60s
while [ $# -gt 0 ]; do
  case "$1" in
    --pods) pods=$2; shift 2 ;;
    --idle) idle=$2; shift 2 ;;
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
go run ./hack/scale seed --kubeconfig "$kubeconfig" --pods "$pods" --namespaces 10 --nodes 100
go run ./hack/scale measure --kubeconfig "$kubeconfig" --audit-log "$audit" --idle "$idle" --kyyard bin/kyyard
