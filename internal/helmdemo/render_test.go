package helmdemo_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/kube"
	helmrelease "helm.sh/helm/v4/pkg/release"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/internal/helmdemo"
)

// rendered is one revision's manifest, decoded by kind and name.
type rendered struct {
	configMaps  map[string]corev1.ConfigMap
	secrets     map[string]corev1.Secret
	services    map[string]corev1.Service
	deployments map[string]appsv1.Deployment
}

// render renders rev offline, as `helm template` does: Helm's install
// action with a client-side dry run, which never reaches a cluster.
func render(t *testing.T, rev helmdemo.Revision, namespace, release string) rendered {
	t.Helper()
	ch, err := helmdemo.LoadChart(rev)
	if err != nil {
		t.Fatalf("LoadChart(%+v): %v", rev, err)
	}
	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	in := action.NewInstall(cfg)
	in.DryRunStrategy = action.DryRunClient
	in.Namespace = namespace
	in.ReleaseName = release
	in.WaitStrategy = kube.HookOnlyStrategy
	rel, err := in.RunWithContext(context.Background(), ch, rev.Values)
	if err != nil {
		t.Fatalf("render %s/%s chart %s: %v", namespace, release, rev.ChartVersion, err)
	}
	acc, err := helmrelease.NewAccessor(rel)
	if err != nil {
		t.Fatal(err)
	}
	out := rendered{
		configMaps:  map[string]corev1.ConfigMap{},
		secrets:     map[string]corev1.Secret{},
		services:    map[string]corev1.Service{},
		deployments: map[string]appsv1.Deployment{},
	}
	for _, doc := range strings.Split(acc.Manifest(), "\n---") {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("manifest document %q: %v", doc, err)
		}
		switch tm.Kind {
		case "ConfigMap":
			var o corev1.ConfigMap
			decode(t, doc, &o)
			out.configMaps[o.Name] = o
		case "Secret":
			var o corev1.Secret
			decode(t, doc, &o)
			out.secrets[o.Name] = o
		case "Service":
			var o corev1.Service
			decode(t, doc, &o)
			out.services[o.Name] = o
		case "Deployment":
			var o appsv1.Deployment
			decode(t, doc, &o)
			out.deployments[o.Name] = o
		default:
			t.Errorf("unexpected %s in the manifest:\n%s", tm.Kind, doc)
		}
	}
	return out
}

func decode(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Fatalf("decode %q: %v", doc, err)
	}
}

func TestChartRendersEachDefaultRevision(t *testing.T) {
	tests := []struct {
		rev                          int
		message, password, chartVers string
		appVersion                   string
		replicas                     int32
	}{
		{rev: 1, message: "hello", password: "s3cret-one", chartVers: "0.1.0", appVersion: "1.0", replicas: 1},
		{rev: 2, message: "hello again", password: "s3cret-two", chartVers: "0.2.0", appVersion: "1.1", replicas: 2},
	}
	revisions := helmdemo.DefaultRevisions()
	if len(revisions) != len(tests) {
		t.Fatalf("DefaultRevisions() has %d revisions, want %d", len(revisions), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.chartVers, func(t *testing.T) {
			r := render(t, revisions[tt.rev-1], "demo", "greeter")
			wantLabels := map[string]string{
				"app.kubernetes.io/name":       "greeter",
				"app.kubernetes.io/instance":   "greeter",
				"app.kubernetes.io/version":    tt.appVersion,
				"app.kubernetes.io/managed-by": "Helm",
				"helm.sh/chart":                "greeter-" + tt.chartVers,
			}
			checkMeta := func(kind string, m metav1.ObjectMeta) {
				t.Helper()
				if m.Namespace != "demo" {
					t.Errorf("%s %s: namespace %q, want demo", kind, m.Name, m.Namespace)
				}
				for k, v := range wantLabels {
					if m.Labels[k] != v {
						t.Errorf("%s %s: label %s=%q, want %q", kind, m.Name, k, m.Labels[k], v)
					}
				}
			}

			cm, ok := r.configMaps["greeter-config"]
			if !ok {
				t.Fatalf("no ConfigMap greeter-config; have %v", keys(r.configMaps))
			}
			checkMeta("ConfigMap", cm.ObjectMeta)
			if cm.Data["message"] != tt.message {
				t.Errorf("ConfigMap data.message = %q, want %q", cm.Data["message"], tt.message)
			}

			sec, ok := r.secrets["greeter-secret"]
			if !ok {
				t.Fatalf("no Secret greeter-secret; have %v", keys(r.secrets))
			}
			checkMeta("Secret", sec.ObjectMeta)
			if sec.Type != corev1.SecretTypeOpaque {
				t.Errorf("Secret type = %q, want Opaque", sec.Type)
			}
			if sec.StringData["password"] != tt.password {
				t.Errorf("Secret stringData.password = %q, want %q", sec.StringData["password"], tt.password)
			}

			svc, ok := r.services["greeter"]
			if !ok {
				t.Fatalf("no Service greeter; have %v", keys(r.services))
			}
			checkMeta("Service", svc.ObjectMeta)
			if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 || svc.Spec.Ports[0].TargetPort.IntValue() != 8080 {
				t.Errorf("Service ports = %+v, want 80 -> 8080", svc.Spec.Ports)
			}
			if svc.Spec.Selector["app.kubernetes.io/instance"] != "greeter" {
				t.Errorf("Service selector = %v, want app.kubernetes.io/instance=greeter", svc.Spec.Selector)
			}

			dep, ok := r.deployments["greeter"]
			if !ok {
				t.Fatalf("no Deployment greeter; have %v", keys(r.deployments))
			}
			checkMeta("Deployment", dep.ObjectMeta)
			if dep.Spec.Replicas == nil || *dep.Spec.Replicas != tt.replicas {
				t.Errorf("Deployment replicas = %v, want %d", dep.Spec.Replicas, tt.replicas)
			}
			pod := dep.Spec.Template
			for k, v := range svc.Spec.Selector {
				if pod.Labels[k] != v {
					t.Errorf("pod label %s=%q, want %q (the Service's selector)", k, pod.Labels[k], v)
				}
				if dep.Spec.Selector.MatchLabels[k] != v {
					t.Errorf("Deployment selector %s=%q, want %q", k, dep.Spec.Selector.MatchLabels[k], v)
				}
			}
			// On the local cluster's fake kwok nodes, as hack/cluster's
			// seed places pods (its podSpec).
			if pod.Spec.NodeSelector["type"] != "kwok" {
				t.Errorf("nodeSelector = %v, want type=kwok", pod.Spec.NodeSelector)
			}
			tolerated := false
			for _, tol := range pod.Spec.Tolerations {
				if tol.Key == "kwok.x-k8s.io/node" && tol.Value == "fake" && tol.Effect == corev1.TaintEffectNoSchedule {
					tolerated = true
				}
			}
			if !tolerated {
				t.Errorf("tolerations = %+v, want the kwok.x-k8s.io/node=fake:NoSchedule taint tolerated", pod.Spec.Tolerations)
			}
			if len(pod.Spec.Containers) != 1 || pod.Spec.Containers[0].Image != "nginx:1.27.3" ||
				len(pod.Spec.Containers[0].Ports) != 1 || pod.Spec.Containers[0].Ports[0].ContainerPort != 8080 {
				t.Errorf("containers = %+v, want one nginx:1.27.3 on port 8080", pod.Spec.Containers)
			}
		})
	}
}

func TestChartTakesTheReleaseName(t *testing.T) {
	r := render(t, helmdemo.DefaultRevisions()[0], "elsewhere", "other")
	if _, ok := r.configMaps["other-config"]; !ok {
		t.Errorf("ConfigMaps %v, want other-config", keys(r.configMaps))
	}
	if _, ok := r.secrets["other-secret"]; !ok {
		t.Errorf("Secrets %v, want other-secret", keys(r.secrets))
	}
	if _, ok := r.services["other"]; !ok {
		t.Errorf("Services %v, want other", keys(r.services))
	}
	dep, ok := r.deployments["other"]
	if !ok {
		t.Fatalf("Deployments %v, want other", keys(r.deployments))
	}
	if dep.Namespace != "elsewhere" || dep.Labels["app.kubernetes.io/instance"] != "other" {
		t.Errorf("Deployment %s/%s labels %v, want namespace elsewhere and instance other", dep.Namespace, dep.Name, dep.Labels)
	}
}

func TestLoadChartRefusesABadVersion(t *testing.T) {
	if _, err := helmdemo.LoadChart(helmdemo.Revision{ChartVersion: "not-semver", AppVersion: "1"}); err == nil {
		t.Error("LoadChart with chart version \"not-semver\": no error, want one")
	}
}

func TestSeedRefusesMissingConnectionDetails(t *testing.T) {
	ctx := context.Background()
	if err := helmdemo.Seed(ctx, "", "demo", "greeter", helmdemo.DefaultRevisions()); err == nil {
		t.Error("Seed with no kubeconfig: no error, want one (it must never fall back to the default kubeconfig)")
	}
	if err := helmdemo.Seed(ctx, "/nonexistent/kubeconfig", "", "greeter", helmdemo.DefaultRevisions()); err == nil {
		t.Error("Seed with no namespace: no error, want one")
	}
	// A kubeconfig path that names no file fails; it never falls back to
	// $KUBECONFIG or ~/.kube/config.
	missing := t.TempDir() + "/missing.kubeconfig"
	t.Setenv("KUBECONFIG", t.TempDir()+"/also-missing")
	err := helmdemo.Seed(ctx, missing, "demo", "greeter", helmdemo.DefaultRevisions())
	if err == nil || !strings.Contains(err.Error(), "missing.kubeconfig") {
		t.Errorf("Seed with kubeconfig %s: error %v, want one naming that file", missing, err)
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
