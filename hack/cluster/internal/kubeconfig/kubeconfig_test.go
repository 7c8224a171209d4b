package kubeconfig_test

import (
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
