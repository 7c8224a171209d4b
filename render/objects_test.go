package render_test

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	psapi "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/render"
)

// kindsOf lists "<service> <Kind> <name>" per object.
func kindsOf(t *testing.T, objs []render.Rendered) []string {
	t.Helper()
	var out []string
	for _, r := range objs {
		acc, err := meta.Accessor(r.Object)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Service+" "+r.Object.GetObjectKind().GroupVersionKind().Kind+" "+acc.GetName())
	}
	return out
}

func TestObjectsOrder(t *testing.T) {
	objs, err := render.Objects(twoServices())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"web Service shop-web", "web ConfigMap shop-web-config", "web Secret shop-web-secret", "web Deployment shop-web",
		"db Service shop-db", "db PersistentVolumeClaim shop-db-data", "db Deployment shop-db",
	}
	if got := kindsOf(t, objs); !reflect.DeepEqual(got, want) {
		t.Fatalf("objects = %q, want %q", got, want)
	}
	noPorts := oneService()
	noPorts.Services[0].Ports = nil
	objs, err = render.Objects(noPorts)
	if err != nil {
		t.Fatal(err)
	}
	if got := kindsOf(t, objs); !reflect.DeepEqual(got, []string{"web Deployment hello-web"}) {
		t.Fatalf("a service without ports: objects = %q, want only its Deployment", got)
	}
}

// TestObjectsConsistent checks, for every object of both examples, what
// kube relies on: TypeMeta, namespace and the three labels; and that the
// Deployment's selector picks its pods, the Service selects them and
// targets a container port, each env secretKeyRef names a key of the
// service's Secret, each mount has a volume and each volume a ConfigMap or
// claim of the plan.
func TestObjectsConsistent(t *testing.T) {
	for _, req := range []render.Request{oneService(), twoServices()} {
		objs, err := render.Objects(req)
		if err != nil {
			t.Fatal(err)
		}
		checkConsistent(t, req, objs)
	}
}

func checkConsistent(t *testing.T, req render.Request, objs []render.Rendered) {
	t.Helper()
	byKindName := map[string]runtime.Object{}
	for _, r := range objs {
		gvk := r.Object.GetObjectKind().GroupVersionKind()
		acc, _ := meta.Accessor(r.Object)
		if gvk.Kind == "" || gvk.Version == "" {
			t.Errorf("%s: no apiVersion/kind", acc.GetName())
		}
		if acc.GetNamespace() != req.Namespace {
			t.Errorf("%s %s: namespace %q, want %q", gvk.Kind, acc.GetName(), acc.GetNamespace(), req.Namespace)
		}
		if want := render.Labels(req.Instance, r.Service); !reflect.DeepEqual(acc.GetLabels(), want) {
			t.Errorf("%s %s: labels %v, want %v", gvk.Kind, acc.GetName(), acc.GetLabels(), want)
		}
		byKindName[gvk.Kind+"/"+acc.GetName()] = r.Object
	}
	for _, s := range req.Services {
		name := render.WorkloadName(req.Instance, s.Name)
		d, ok := byKindName["Deployment/"+name].(*appsv1.Deployment)
		if !ok {
			t.Fatalf("no Deployment %s", name)
		}
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		pod := labels.Set(d.Spec.Template.Labels)
		if !sel.Matches(pod) {
			t.Errorf("%s: selector %v does not match the pod labels %v", name, sel, pod)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != s.Replicas {
			t.Errorf("%s: replicas %v, want %d", name, d.Spec.Replicas, s.Replicas)
		}
		c := d.Spec.Template.Spec.Containers[0]
		if c.Name != s.Name || c.Image != s.Image {
			t.Errorf("%s: container %s image %s", name, c.Name, c.Image)
		}
		if svc, ok := byKindName["Service/"+name].(*corev1.Service); ok {
			if !labels.SelectorFromSet(svc.Spec.Selector).Matches(pod) {
				t.Errorf("Service %s selects %v, not the pods %v", name, svc.Spec.Selector, pod)
			}
			for _, p := range svc.Spec.Ports {
				if !targets(c.Ports, p) {
					t.Errorf("Service %s port %s targets %s, no container port", name, p.Name, p.TargetPort.String())
				}
			}
		} else if len(s.Ports) > 0 {
			t.Errorf("no Service %s", name)
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			ref := e.ValueFrom.SecretKeyRef
			sec, ok := byKindName["Secret/"+ref.Name].(*corev1.Secret)
			if !ok {
				t.Errorf("%s: env %s refers to Secret %s, not in the plan", name, e.Name, ref.Name)
			} else if _, ok := sec.Data[ref.Key]; !ok {
				t.Errorf("%s: env %s refers to key %s, not in Secret %s", name, e.Name, ref.Key, ref.Name)
			}
		}
		vols := map[string]corev1.Volume{}
		for _, v := range d.Spec.Template.Spec.Volumes {
			vols[v.Name] = v
			switch {
			case v.ConfigMap != nil:
				cm, ok := byKindName["ConfigMap/"+v.ConfigMap.Name].(*corev1.ConfigMap)
				if !ok {
					t.Errorf("%s: volume %s names ConfigMap %s, not in the plan", name, v.Name, v.ConfigMap.Name)
					continue
				}
				for _, it := range v.ConfigMap.Items {
					if _, ok := cm.Data[it.Key]; !ok {
						t.Errorf("%s: volume %s names key %s, not in the ConfigMap", name, v.Name, it.Key)
					}
				}
			case v.PersistentVolumeClaim != nil:
				if _, ok := byKindName["PersistentVolumeClaim/"+v.PersistentVolumeClaim.ClaimName]; !ok {
					t.Errorf("%s: volume %s names claim %s, not in the plan", name, v.Name, v.PersistentVolumeClaim.ClaimName)
				}
			}
		}
		for _, m := range c.VolumeMounts {
			if _, ok := vols[m.Name]; !ok {
				t.Errorf("%s: mount %s has no volume", name, m.Name)
			}
		}
		if f := s.ConfigFile; f != nil {
			found := false
			for _, m := range c.VolumeMounts {
				switch {
				case m.MountPath == f.Path && m.SubPath == path.Base(f.Path) && m.ReadOnly:
					found = true
				case m.MountPath == f.Path || strings.HasPrefix(f.Path, strings.TrimSuffix(m.MountPath, "/")+"/"):
					// Issue 11: /etc/app.conf mounted /etc over the image's.
					t.Errorf("%s: mount %s at %s covers the config file %s", name, m.Name, m.MountPath, f.Path)
				}
			}
			if !found {
				t.Errorf("%s: the config file %s is not mounted alone (subPath) read-only", name, f.Path)
			}
			sum := sha256.Sum256([]byte(f.Content))
			if got := d.Spec.Template.Annotations[render.ConfigChecksumAnnotation]; got != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: config checksum annotation %q, want the content's sha256", name, got)
			}
		} else if _, ok := d.Spec.Template.Annotations[render.ConfigChecksumAnnotation]; ok {
			t.Errorf("%s: a config checksum without a config file", name)
		}
	}
}

// targets reports whether a Service port's targetPort is one of the
// container's ports (by name or number, and protocol).
func targets(ports []corev1.ContainerPort, sp corev1.ServicePort) bool {
	for _, cp := range ports {
		if cp.Protocol != sp.Protocol {
			continue
		}
		if sp.TargetPort.StrVal != "" && sp.TargetPort.StrVal == cp.Name || sp.TargetPort.StrVal == "" && sp.TargetPort.IntVal == cp.ContainerPort {
			return true
		}
	}
	return false
}

// TestPodSecurityRestricted is the proof of "meets Pod Security restricted
// by default": every Deployment's pod template passes the restricted
// level (latest) of k8s.io/pod-security-admission's own evaluator, the code
// the API server's admission runs. The control (a template without the
// securityContext) must fail it, so the check can fail.
func TestPodSecurityRestricted(t *testing.T) {
	for _, req := range []render.Request{oneService(), twoServices()} {
		objs, err := render.Objects(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range objs {
			d, ok := r.Object.(*appsv1.Deployment)
			if !ok {
				continue
			}
			if reason := restricted(t, d); reason != "" {
				t.Errorf("%s: not restricted: %s", d.Name, reason)
			}
			bare := d.DeepCopy()
			bare.Spec.Template.Spec.SecurityContext = nil
			bare.Spec.Template.Spec.Containers[0].SecurityContext = nil
			if restricted(t, bare) == "" {
				t.Errorf("%s: the control without securityContext passes restricted: the check proves nothing", d.Name)
			}
		}
	}
}

// restricted evaluates a Deployment's pod template at restricted:latest;
// "" when allowed, else the forbidden reasons with details.
func restricted(t *testing.T, d *appsv1.Deployment) string {
	t.Helper()
	ev, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := psapi.LevelVersion{Level: psapi.LevelRestricted, Version: psapi.LatestVersion()}
	res := policy.AggregateCheckResults(ev.EvaluatePod(lv, &d.Spec.Template.ObjectMeta, &d.Spec.Template.Spec))
	if res.Allowed {
		return ""
	}
	return res.ForbiddenDetail()
}

// TestObjectsDeterministic: the same request gives equal objects and equal
// YAML on every call, and calls share no maps.
func TestObjectsDeterministic(t *testing.T) {
	a, _ := render.Objects(twoServices())
	b, _ := render.Objects(twoServices())
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two calls of Objects differ")
	}
	a[0].Object.(*corev1.Service).Labels["x"] = "y"
	if _, ok := b[0].Object.(*corev1.Service).Labels["x"]; ok {
		t.Fatal("two calls share a labels map")
	}
	for i := 0; i < 20; i++ {
		p1, _ := render.Render(twoServices())
		p2, _ := render.Render(twoServices())
		if !reflect.DeepEqual(p1, p2) {
			t.Fatal("two calls of Render differ")
		}
	}
}

// TestSecretValuesInObjects: Objects carries the values (kube writes
// them), Render never shows them.
func TestSecretValuesInObjects(t *testing.T) {
	objs, _ := render.Objects(twoServices())
	for _, r := range objs {
		if s, ok := r.Object.(*corev1.Secret); ok {
			if got := string(s.Data["DB_PASSWORD"]); got != "hunter2-very-secret" {
				t.Fatalf("Secret data DB_PASSWORD = %q", got)
			}
			if s.Type != corev1.SecretTypeOpaque {
				t.Fatalf("Secret type %q", s.Type)
			}
			return
		}
	}
	t.Fatal("no Secret")
}

// asDeployment is o as a Deployment.
func asDeployment(o runtime.Object) (*appsv1.Deployment, bool) {
	d, ok := o.(*appsv1.Deployment)
	return d, ok
}

// checkSecretYAML checks that a Secret's YAML shows each value as its size.
func checkSecretYAML(t *testing.T, text string) {
	t.Helper()
	var m struct {
		Data       map[string]string `json:"data"`
		StringData map[string]string `json:"stringData"`
	}
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.StringData) > 0 || len(m.Data) == 0 {
		t.Fatalf("Secret YAML has stringData or no data:\n%s", text)
	}
	for k, v := range m.Data {
		if !sizeText.MatchString(v) {
			t.Fatalf("Secret value %s shown as %q, not as a size", k, v)
		}
	}
}

// TestConfigFileMountedAloneAndRolls (issue 11): a config file at
// /etc/app.conf is mounted alone (subPath), not over /etc, and a change of
// its content changes the pod template (the checksum annotation), so the
// pods roll although a subPath mount never sees a ConfigMap update.
func TestConfigFileMountedAloneAndRolls(t *testing.T) {
	req := oneService()
	req.Services[0].ConfigFile = &render.ConfigFile{Path: "/etc/app.conf", Content: "a=1\n"}
	if errs := render.Validate(req); len(errs) != 0 {
		t.Fatalf("a file directly in /etc: %v", errs)
	}
	template := func(req render.Request) corev1.PodTemplateSpec {
		objs, err := render.Objects(req)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range objs {
			if d, ok := r.Object.(*appsv1.Deployment); ok {
				return d.Spec.Template
			}
		}
		t.Fatal("no Deployment")
		return corev1.PodTemplateSpec{}
	}
	before := template(req)
	mounts := before.Spec.Containers[0].VolumeMounts
	if len(mounts) != 1 || mounts[0].MountPath != "/etc/app.conf" || mounts[0].SubPath != "app.conf" || !mounts[0].ReadOnly {
		t.Errorf("mounts %+v, want /etc/app.conf alone (subPath app.conf), read-only", mounts)
	}
	checkConsistent(t, req, must(render.Objects(req)))
	req.Services[0].ConfigFile.Content = "a=2\n"
	after := template(req)
	if before.Annotations[render.ConfigChecksumAnnotation] == "" ||
		before.Annotations[render.ConfigChecksumAnnotation] == after.Annotations[render.ConfigChecksumAnnotation] {
		t.Errorf("checksum %q then %q: a content change must change the template", before.Annotations, after.Annotations)
	}
	req.Services[0].ConfigFile.Path = "/app.conf" // a file at the root is mounted alone too
	if errs := render.Validate(req); len(errs) != 0 {
		t.Errorf("a file in /: %v", errs)
	}
}

// must returns objs, failing on err.
func must(objs []render.Rendered, err error) []render.Rendered {
	if err != nil {
		panic(err)
	}
	return objs
}
