# kyyard's tasks. The two set-up commands of the README are `make demo` and
# `make test`; everything they need is built here from the Go module proxy.
SHELL        := /bin/bash
GO           ?= go
CLUSTER_DIR  := hack/cluster
ORACLE_DIR   := hack/oracle
CLUSTER      := $(CURDIR)/$(CLUSTER_DIR)/.cache/bin/kyyard-cluster
ADMIN_KUBECONFIG := $(CURDIR)/$(CLUSTER_DIR)/.cache/kubeconfig/admin.kubeconfig
FLEET_KUBECONFIG := $(CURDIR)/$(CLUSTER_DIR)/.cache/fleet/kubeconfig
VERSION      ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: build demo test unit oracle bench bench-scale bench-fleet bench-shell cluster-tool cluster-build cluster-up cluster-down cluster-status kubectl fleet-up fleet-down fleet-demo fmt vet

## build: build bin/kyyard
build:
	$(GO) build -ldflags "-X github.com/kyyard/kyyard/cmd/kyyard/app.Version=$(VERSION)" -o bin/kyyard ./cmd/kyyard

## cluster-tool: build the local cluster's manager (hack/cluster)
cluster-tool:
	@cd $(CLUSTER_DIR) && $(GO) build -o .cache/bin/kyyard-cluster .

## cluster-build: build etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok, metrics-server and the real node's kubelet, containerd and CNI plugins; apt-get installs runc, iptables and busybox-static when missing, as root (first time ~20-30 min)
cluster-build: cluster-tool
	$(CLUSTER) build

## cluster-up: start the local cluster on 127.0.0.1 and seed the demo namespace (with the Helm release demo/greeter, 2 revisions)
cluster-up: cluster-tool
	$(CLUSTER) up
	$(CLUSTER) seed
	$(GO) run ./hack/helmseed -kubeconfig $(ADMIN_KUBECONFIG)

## cluster-down: stop the local cluster (only the processes it started)
cluster-down: cluster-tool
	$(CLUSTER) down

## cluster-status: say whether the local cluster is up
cluster-status: cluster-tool
	$(CLUSTER) status

## kubectl: run the locally built kubectl, e.g. make kubectl ARGS="get pods -n demo"
kubectl: cluster-tool
	$(CLUSTER) kubectl $(ARGS)

## demo: build everything, start and seed the local cluster, run kyyard on it
demo: build cluster-up
	./bin/kyyard --kubeconfig $(ADMIN_KUBECONFIG) --namespace demo

## fleet-up: start the local fleet (3 control planes on 127.0.0.1, beside the local cluster) and seed each; contexts kyyard-fleet-1..3 and kyyard-fleet-1..3-viewer in $(FLEET_KUBECONFIG)
fleet-up: cluster-tool
	$(CLUSTER) fleet up
	$(CLUSTER) fleet seed

## fleet-down: stop the local fleet (only the processes it started; the local cluster keeps running)
fleet-down: cluster-tool
	$(CLUSTER) fleet down

## fleet-demo: build kyyard, start and seed the local fleet, run kyyard on its clusters overview (:clusters) of the fleet's six contexts
fleet-demo: build fleet-up
	./bin/kyyard --kubeconfig $(FLEET_KUBECONFIG) --context kyyard-fleet-1 --contexts 'kyyard-fleet-*' -n demo

## unit: formatting, vet and the unit tests only (no cluster)
unit:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...
	cd $(CLUSTER_DIR) && $(GO) vet ./... && $(GO) test ./...
	cd $(ORACLE_DIR) && $(GO) vet ./... && $(GO) test ./...

## oracle: the long differential run against Kubernetes' printers: N generated objects of each kind
## (PODS pods, default 10 x N) and FUZZ filled by Kubernetes' API fuzzer (default N / 10), seed SEED;
## every difference, minimised, goes to OUT
N      ?= 100000
PODS   ?= $(shell echo $$(( $(N) * 10 )))
FUZZ   ?= $(shell echo $$(( $(N) / 10 )))
SEED   ?= 1
OUT    ?= $(CURDIR)/$(ORACLE_DIR)/.cache/report.txt
oracle:
	@mkdir -p $(dir $(OUT))
	set -o pipefail; cd $(ORACLE_DIR) && ORACLE_N=$(N) ORACLE_PODS=$(PODS) ORACLE_FUZZ=$(FUZZ) ORACLE_SEED=$(SEED) ORACLE_OUT=$(OUT) \
		$(GO) test -count=1 -timeout 0 -run 'TestOracle$$' -v . | grep -v '^=== RUN'
	@echo "report: $(OUT)"

## test: unit tests plus end-to-end tests on the local cluster (started if needed, and stopped if started here)
test: cluster-tool
	hack/test.sh

## bench: the benchmarks (go test -bench) of the adapter, the kinds and the screens
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./kube/... ./views/...

## bench-scale: the scale run on the local cluster: 10,000 pods on 100 fake nodes (--pods 100000: 1,000), kyyard -A and kubectl get pods -A measured, then a churn minute (needs tmux)
bench-scale: build
	hack/bench-scale.sh

## bench-fleet: the scale run on the local fleet (started, and stopped again, if down): FLEET_PODS (30,000) pods on fake nodes in each of its 3 clusters, kyyard on each alone and across all three (first rows, all rows, RSS, idle CPU, requests), then one API server stopped mid-run (needs tmux)
FLEET_PODS ?= 30000
bench-fleet: build
	hack/bench-fleet.sh --pods $(FLEET_PODS)

## bench-shell: on the local cluster (up, with its real node), the time from `s` on demo/real-shell to busybox's prompt in kyyard, beside `kubectl exec -it ... -- sh` driven the same way, RUNS (10) each, alternately (needs tmux)
RUNS ?= 10
bench-shell: build cluster-tool
	$(GO) run ./hack/scale shell --kubeconfig $(ADMIN_KUBECONFIG) --kyyard bin/kyyard --kubectl $(CURDIR)/$(CLUSTER_DIR)/.cache/bin/kubectl --runs $(RUNS)

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...
