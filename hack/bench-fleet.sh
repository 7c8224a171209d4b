#!/usr/bin/env bash
# The fleet scale run (make bench-fleet): --pods (30,000) pods across 10
# namespaces on one fake kwok node per 100 pods in EACH cluster of the local
# fleet (kyyard-fleet-1..3, seeded side by side), then kyyard in a 200x50 tmux
# pane, in --starts (3) rounds of one start on each cluster alone (--context C
# -c pods -A) and one across the three (--contexts): first rows, all rows, RSS
# after sync; for the fleet's last start CPU over one idle minute and each
# cluster's LIST/WATCH requests in it (its audit log), then --restart's
# (kyyard-fleet-2) API server stopped for --down (20s) with `kyyard-cluster
# fleet restart-apiserver`: the time until kyyard shows it stale, until its
# count is back, and kyyard's reads of its pods after the restart. Each
# figure is printed beside its target. The fleet is started if it is down
# (and stopped again only then); what the run creates is deleted at the end,
# also on failure or ctrl-c (the fleet's demo data stays). Needs tmux.
# Usage: hack/bench-fleet.sh [--pods N] [--nodes N] [--idle D] [--starts N]
#        [--restart CONTEXT] [--down D] [--kyyard PATH] [--no-seed] [--keep]
#        [--server-cpu SHARE]  (each API server held to SHARE of one core)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cluster="$root/hack/cluster/.cache/bin/kyyard-cluster"
fleetdir="$root/hack/cluster/.cache/fleet"
kubeconfig="$fleetdir/kubeconfig"
contexts=kyyard-fleet-1,kyyard-fleet-2,kyyard-fleet-3
pods=30000
nodes=
idle=60s
starts=3
restart=kyyard-fleet-2
down=20s
seed=1
keep=0
kyyard=bin/kyyard
servercpu=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pods) pods=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --idle) idle=$2; shift 2 ;;
    --starts) starts=$2; shift 2 ;;
    --restart) restart=$2; shift 2 ;;
    --down) down=$2; shift 2 ;;
    --kyyard) kyyard=$2; shift 2 ;;
    --server-cpu) servercpu=$2; shift 2 ;; # each API server's share of a core (remote clusters' emulation)
    --no-seed) seed=0; shift ;; # the pods of an earlier --keep run are there
    --keep) keep=1; shift ;;    # leave the seeded pods for another run
    *) echo "unknown flag $1" >&2; exit 2 ;;
  esac
done
command -v tmux >/dev/null || { echo "the fleet run needs tmux: apt-get install tmux" >&2; exit 1; }
(cd hack/cluster && go build -o .cache/bin/kyyard-cluster .)
[ "$kyyard" != bin/kyyard ] || [ -x bin/kyyard ] || go build -o bin/kyyard ./cmd/kyyard
go build -o /dev/null ./hack/scale # compile once, before anything is seeded

session="kyyard-fleet-run-$$"
started=0
finish() {
  trap - INT TERM
  tmux kill-session -t "$session" 2>/dev/null || true
  if [ "$keep" = 0 ]; then
    go run ./hack/scale clean --kubeconfig "$kubeconfig" --contexts "$contexts" || true
  fi
  if [ "$started" = 1 ]; then "$cluster" fleet down || true; fi
}
if ! "$cluster" fleet status >/dev/null 2>&1; then
  started=1
  "$cluster" fleet up
  "$cluster" fleet seed
fi
trap finish EXIT
trap 'exit 130' INT TERM
# About 100 pods per fake node: 300 nodes for 30,000 pods, in each cluster.
[ -n "$nodes" ] || nodes=$(( (pods + 99) / 100 ))
if [ "$seed" = 1 ]; then
  go run ./hack/scale seed --kubeconfig "$kubeconfig" --contexts "$contexts" --pods "$pods" --namespaces 10 --nodes "$nodes"
fi
go run ./hack/scale fleet-measure --kubeconfig "$kubeconfig" --contexts "$contexts" \
  --audit-log "$fleetdir/{context}/logs/audit.log" --kyyard "$kyyard" --idle "$idle" --starts "$starts" \
  --cluster-tool "$cluster" --restart "$restart" --down "$down" --session "$session" --server-cpu "$servercpu"
