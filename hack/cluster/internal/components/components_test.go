package components_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

func TestEverythingBindsToLoopback(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range components.All(l, components.DefaultPorts) {
		if !strings.Contains(c.ReadyURL, "://127.0.0.1:") {
			t.Errorf("%s: ready URL %s", c.Name, c.ReadyURL)
		}
		for _, a := range c.Args {
			name, value, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			if strings.HasSuffix(name, "-address") || strings.HasSuffix(name, "-urls") || name == "--node-ip" {
				if !strings.Contains(value, "127.0.0.1") {
					t.Errorf("%s: %s does not bind to 127.0.0.1", c.Name, a)
				}
			}
			isPath := strings.HasSuffix(name, "-file") || strings.HasSuffix(name, "-dir") || strings.HasSuffix(name, "kubeconfig") || name == "--config"
			if isPath && !strings.HasPrefix(value, l.Cache+"/") {
				t.Errorf("%s: %s points outside %s", c.Name, a, l.Cache)
			}
		}
	}
}

func TestAPIServerAudit(t *testing.T) {
	l, _ := layout.New(t.TempDir())
	args := strings.Join(components.APIServer(l, components.DefaultPorts).Args, " ")
	for _, want := range []string{"--audit-log-path=" + l.AuditLog(), "--audit-log-mode=blocking", "--audit-policy-file=", "--authorization-mode=Node,RBAC"} {
		if !strings.Contains(args, want) {
			t.Errorf("kube-apiserver args lack %s", want)
		}
	}
	if !strings.Contains(components.AuditPolicy, "level: Request") || !strings.Contains(components.AuditPolicy, "level: Metadata") {
		t.Error("audit policy lacks Request or Metadata level")
	}
}

// TestKwokManagesOnlyTheFakeNodes: kwok must leave the real node (a real
// kubelet) alone, or it plays its Stages against the kubelet.
func TestKwokManagesOnlyTheFakeNodes(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(components.Kwok(l, components.DefaultPorts).Args, " ")
	if strings.Contains(args, "--manage-all-nodes") || !strings.Contains(args, "--manage-nodes-with-label-selector=type=kwok") {
		t.Errorf("kwok args %q", args)
	}
}

// TestAPIServerEtcdPrefix: the single cluster's API server keeps
// kube-apiserver's default prefix (no flag); a fleet member's differs from
// it by exactly --etcd-prefix, next to --etcd-servers.
func TestAPIServerEtcdPrefix(t *testing.T) {
	l, _ := layout.New(t.TempDir())
	plain := components.APIServer(l, components.DefaultPorts).Args
	for _, a := range plain {
		if strings.HasPrefix(a, "--etcd-prefix") {
			t.Errorf("single cluster's API server has %s", a)
		}
	}
	prefixed := components.APIServerWithEtcdPrefix(l, components.DefaultPorts, "/kyyard-fleet-2").Args
	if len(prefixed) != len(plain)+1 {
		t.Fatalf("%d args with a prefix, %d without", len(prefixed), len(plain))
	}
	i := 0
	for i < len(plain) && plain[i] == prefixed[i] {
		i++
	}
	if prefixed[i] != "--etcd-prefix=/kyyard-fleet-2" || !strings.HasPrefix(prefixed[i-1], "--etcd-servers=") ||
		strings.Join(prefixed[i+1:], " ") != strings.Join(plain[i:], " ") {
		t.Errorf("args with a prefix %q", prefixed)
	}
}
