package kubeconfig_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/hack/cluster/internal/kubeconfig"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
)

func TestRenderClientCertificate(t *testing.T) {
	dir := t.TempDir()
	if err := pki.Generate(dir, time.Now()); err != nil {
		t.Fatal(err)
	}
	data, err := kubeconfig.Render(kubeconfig.Config{
		Server:     "https://127.0.0.1:16443",
		CAFile:     filepath.Join(dir, "ca.crt"),
		User:       "admin",
		ClientCert: filepath.Join(dir, "admin.crt"),
		ClientKey:  filepath.Join(dir, "admin.key"),
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatalf("rendered kubeconfig does not load: %v\n%s", err, data)
	}
	if cfg.CurrentContext != kubeconfig.ContextName {
		t.Errorf("current-context = %q, want %q", cfg.CurrentContext, kubeconfig.ContextName)
	}
	ctx := cfg.Contexts[kubeconfig.ContextName]
	if ctx == nil || ctx.AuthInfo != "admin" || ctx.Cluster != kubeconfig.ContextName {
		t.Fatalf("context = %+v", ctx)
	}
	cl := cfg.Clusters[kubeconfig.ContextName]
	if cl.Server != "https://127.0.0.1:16443" || cl.CertificateAuthority != filepath.Join(dir, "ca.crt") {
		t.Errorf("cluster = %+v", cl)
	}
	u := cfg.AuthInfos["admin"]
	if u.ClientCertificate != filepath.Join(dir, "admin.crt") || u.ClientKey != filepath.Join(dir, "admin.key") || u.Token != "" {
		t.Errorf("user = %+v", u)
	}
	rc, err := clientcmd.NewDefaultClientConfig(*cfg, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://127.0.0.1:16443" || rc.TLSClientConfig.CertFile != filepath.Join(dir, "admin.crt") {
		t.Errorf("rest config host %q cert %q", rc.Host, rc.TLSClientConfig.CertFile)
	}
}

func TestRenderToken(t *testing.T) {
	data, err := kubeconfig.Render(kubeconfig.Config{
		Server: "https://127.0.0.1:16443", CAFile: "/x/ca.crt", User: "demo-viewer", Token: "abc.def", Namespace: "demo",
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Contexts[kubeconfig.ContextName].Namespace; got != "demo" {
		t.Errorf("namespace = %q, want demo", got)
	}
	if got := cfg.AuthInfos["demo-viewer"].Token; got != "abc.def" {
		t.Errorf("token = %q", got)
	}
}

func TestRenderRejects(t *testing.T) {
	tests := map[string]kubeconfig.Config{
		"relative CA":       {Server: "https://x", CAFile: "pki/ca.crt", User: "u", Token: "t"},
		"no credentials":    {Server: "https://x", CAFile: "/ca.crt", User: "u"},
		"cert and token":    {Server: "https://x", CAFile: "/ca.crt", User: "u", ClientCert: "/a.crt", ClientKey: "/a.key", Token: "t"},
		"cert without key":  {Server: "https://x", CAFile: "/ca.crt", User: "u", ClientCert: "/a.crt"},
		"relative cert key": {Server: "https://x", CAFile: "/ca.crt", User: "u", ClientCert: "a.crt", ClientKey: "a.key"},
	}
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := kubeconfig.Render(c); err == nil {
				t.Error("Render succeeded, want an error")
			}
		})
	}
}

// TestRenderContexts: several clusters and users in one file, each context
// resolving to its own server, CA and credentials.
func TestRenderContexts(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { // client-go reads every file a context names
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	admin := func(n string) kubeconfig.Config {
		return kubeconfig.Config{Server: "https://127.0.0.1:" + n, CAFile: p(n + "-ca.crt"), User: "u" + n + "-admin",
			ClientCert: p(n + "-admin.crt"), ClientKey: p(n + "-admin.key")}
	}
	viewer := kubeconfig.Config{Server: "https://127.0.0.1:1", CAFile: p("1-ca.crt"), User: "u1-viewer", Token: "tok", Namespace: "demo"}
	data, err := kubeconfig.RenderContexts("c1", []kubeconfig.Context{
		{Name: "c1", Cluster: "k1", Config: admin("1")},
		{Name: "c2", Cluster: "k2", Config: admin("2")},
		{Name: "c1-viewer", Cluster: "k1", Config: viewer},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CurrentContext != "c1" || len(cfg.Contexts) != 3 || len(cfg.Clusters) != 2 || len(cfg.AuthInfos) != 3 {
		t.Fatalf("current %q, %d contexts, %d clusters, %d users", cfg.CurrentContext, len(cfg.Contexts), len(cfg.Clusters), len(cfg.AuthInfos))
	}
	for ctx, want := range map[string]struct{ host, cert, token, ns string }{
		"c1":        {"https://127.0.0.1:1", filepath.Join(dir, "1-admin.crt"), "", ""},
		"c2":        {"https://127.0.0.1:2", filepath.Join(dir, "2-admin.crt"), "", ""},
		"c1-viewer": {"https://127.0.0.1:1", "", "tok", "demo"},
	} {
		cc := clientcmd.NewNonInteractiveClientConfig(*cfg, ctx, &clientcmd.ConfigOverrides{}, nil)
		rc, err := cc.ClientConfig()
		if err != nil {
			t.Fatal(err)
		}
		ns, _, _ := cc.Namespace()
		if want.ns == "" {
			want.ns = "default"
		}
		if rc.Host != want.host || rc.TLSClientConfig.CertFile != want.cert || rc.BearerToken != want.token || ns != want.ns {
			t.Errorf("%s: host %q cert %q token %q namespace %q", ctx, rc.Host, rc.TLSClientConfig.CertFile, rc.BearerToken, ns)
		}
	}
}

func TestRenderContextsRejects(t *testing.T) {
	a := kubeconfig.Config{Server: "https://127.0.0.1:1", CAFile: "/ca.crt", User: "a", Token: "t"}
	b := a
	b.Server = "https://127.0.0.1:2"
	c := a
	c.Token = "other"
	tests := map[string][]kubeconfig.Context{
		"duplicate context":        {{Name: "x", Cluster: "k", Config: a}, {Name: "x", Cluster: "k", Config: a}},
		"cluster with two servers": {{Name: "x", Cluster: "k", Config: a}, {Name: "y", Cluster: "k", Config: b}},
		"user with two tokens":     {{Name: "x", Cluster: "k", Config: a}, {Name: "y", Cluster: "k", Config: c}},
		"unknown current":          {{Name: "y", Cluster: "k", Config: a}},
		"no cluster entry":         {{Name: "x", Config: a}},
	}
	for name, ctxs := range tests {
		if _, err := kubeconfig.RenderContexts("x", ctxs); err == nil {
			t.Errorf("%s: RenderContexts succeeded", name)
		}
	}
}
