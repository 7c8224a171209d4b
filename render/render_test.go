package render_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/render"
)

// oneService is the smallest app: one service with a port, defaults for
// everything else.
func oneService() render.Request {
	return render.Request{Instance: "hello", Namespace: "apps", Services: []render.Service{{
		Name: "web", Image: "nginx:1.27", Replicas: 1,
		Ports: []render.Port{{Port: 8080}},
	}}}
}

// twoServices is a shop: web with two ports, env, a config file and secret
// values; db with a claim and its own resources.
func twoServices() render.Request {
	return render.Request{Instance: "shop", Namespace: "apps", Services: []render.Service{
		{
			Name: "web", Image: "registry.example:5000/team/shop-web:v2", Replicas: 3,
			Ports:      []render.Port{{Name: "http", Port: 8080}, {Port: 9090}},
			Env:        []render.EnvVar{{Name: "LOG_LEVEL", Value: "info"}, {Name: "DB_HOST", Value: "shop-db"}},
			Secrets:    []render.EnvVar{{Name: "DB_PASSWORD", Value: "hunter2-very-secret"}, {Name: "API_KEY", Value: "k"}},
			ConfigFile: &render.ConfigFile{Path: "/etc/shop/config.yaml", Content: "listen: :8080\nfeatures:\n  cart: true\n"},
		},
		{
			Name: "db", Image: "postgres:17@sha256:" + strings.Repeat("ab", 32), Replicas: 1,
			Ports:     []render.Port{{Name: "pg", Port: 5432}},
			Resources: render.Resources{CPURequest: "250m", CPULimit: "1", MemoryRequest: "512Mi", MemoryLimit: "1Gi"},
			Volumes:   []render.Volume{{Name: "data", MountPath: "/var/lib/postgresql/data", Size: "10Gi", StorageClass: "standard"}},
		},
	}}
}

// planText joins a plan's objects as one YAML stream with a header per
// object.
func planText(p render.Plan) string {
	var b strings.Builder
	for _, o := range p.Objects {
		b.WriteString("# " + o.Service + " " + o.Kind + " " + o.Name + "\n---\n" + o.YAML)
	}
	return b.String()
}

func TestRenderOneService(t *testing.T) {
	p, err := render.Render(oneService())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "one-service", planText(p))
}

func TestRenderTwoServices(t *testing.T) {
	p, err := render.Render(twoServices())
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "two-services", planText(p))
	if text := planText(p); strings.Contains(text, "hunter2") || strings.Contains(text, "aHVudGVy") {
		t.Fatal("a secret value is in clear (or base64) in the rendered YAML")
	}
}

func TestRenderInvalid(t *testing.T) {
	req := oneService()
	req.Services[0].Ports[0].Port = 0
	_, err := render.Render(req)
	if !errors.Is(err, render.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	var inv *render.InvalidError
	if !errors.As(err, &inv) || len(inv.Fields) != 1 || inv.Fields[0].Path != "services[0].ports[0].port" {
		t.Fatalf("err = %#v, want one FieldError at services[0].ports[0].port", err)
	}
}

func BenchmarkRender(b *testing.B) {
	req := twoServices()
	for b.Loop() {
		if _, err := render.Render(req); err != nil {
			b.Fatal(err)
		}
	}
}
