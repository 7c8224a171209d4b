package render_test

import (
	"reflect"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kyyard/kyyard/render"
)

// fuzzRequest builds a request of one or two services from fuzzed fields:
// the first service takes all of them, the second (when two) is named
// name2 with a claim of volume vol.
func fuzzRequest(instance, ns, name, name2, image, portName string, port int32, proto, envName, envValue, secName, secValue,
	cfgPath, cpuReq, cpuLim, memReq, memLim, vol, mount, size, class string, replicas int32, two bool) render.Request {
	s := render.Service{
		Name: name, Image: image, Replicas: replicas,
		Ports:     []render.Port{{Name: portName, Port: port, Protocol: proto}},
		Env:       []render.EnvVar{{Name: envName, Value: envValue}},
		Secrets:   []render.EnvVar{{Name: secName, Value: secValue}},
		Resources: render.Resources{CPURequest: cpuReq, CPULimit: cpuLim, MemoryRequest: memReq, MemoryLimit: memLim},
	}
	if cfgPath != "" {
		s.ConfigFile = &render.ConfigFile{Path: cfgPath, Content: envValue}
	}
	req := render.Request{Instance: instance, Namespace: ns, Services: []render.Service{s}}
	if two {
		req.Services = append(req.Services, render.Service{Name: name2, Image: image, Replicas: 1,
			Volumes: []render.Volume{{Name: vol, MountPath: mount, Size: size, StorageClass: class}}})
	}
	return req
}

var sizeText = regexp.MustCompile(`^<[0-9]+ bytes?>$`)

// FuzzValidate: Validate never panics and gives a path and a reason per
// error; Objects (and Render) succeed exactly when it gives none; every
// object of a valid request has a name the API server accepts (a DNS-1123
// subdomain; a DNS-1035 label for a Service), valid label values, a
// consistent plan, a pod template meeting Pod Security restricted, and a
// Secret shown only as sizes.
func FuzzValidate(f *testing.F) {
	f.Add("shop", "apps", "web", "db", "nginx:1.27", "http", int32(8080), "", "LOG", "info", "PASS", "s3cret",
		"/etc/app/app.yaml", "", "", "", "", "data", "/data", "1Gi", "", int32(1), true)
	f.Add("1shop", "Apps", "web", "web", "Nginx", "8080", int32(0), "tcp", "A=B", "\xff", "A B", "",
		"app.yaml", "1GB", "0", "12 Mi", "-1", "config", "data/", "0", "Fast", int32(-1), true)
	f.Add("a", "b", "c", "c-d", "busybox@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "", int32(65535), "UDP", "1X", "", "K", "",
		"/x/y", "1", "2", "1Gi", "1Gi", "e", "/x", "1", "standard", int32(10000), false)
	f.Fuzz(func(t *testing.T, instance, ns, name, name2, image, portName string, port int32, proto, envName, envValue, secName, secValue,
		cfgPath, cpuReq, cpuLim, memReq, memLim, vol, mount, size, class string, replicas int32, two bool) {
		req := fuzzRequest(instance, ns, name, name2, image, portName, port, proto, envName, envValue, secName, secValue,
			cfgPath, cpuReq, cpuLim, memReq, memLim, vol, mount, size, class, replicas, two)
		errs := render.Validate(req)
		for _, e := range errs {
			if e.Path == "" || e.Reason == "" {
				t.Fatalf("an error without a path or a reason: %#v", e)
			}
		}
		objs, err := render.Objects(req)
		plan, rerr := render.Render(req)
		if (len(errs) == 0) != (err == nil) || (err == nil) != (rerr == nil) {
			t.Fatalf("Validate = %v but Objects: %v, Render: %v", errs, err, rerr)
		}
		if err != nil {
			return
		}
		checkConsistent(t, req, objs)
		for _, r := range objs {
			acc, _ := meta.Accessor(r.Object)
			if msgs := apivalidation.NameIsDNSSubdomain(acc.GetName(), false); len(msgs) > 0 {
				t.Fatalf("object name %q: %v", acc.GetName(), msgs)
			}
			for k, v := range acc.GetLabels() {
				if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
					t.Fatalf("label %s=%q: %v", k, v, msgs)
				}
			}
			switch o := r.Object.(type) {
			case *corev1.Service:
				if msgs := apivalidation.NameIsDNS1035Label(o.Name, false); len(msgs) > 0 {
					t.Fatalf("Service name %q: %v", o.Name, msgs)
				}
				for _, p := range o.Spec.Ports {
					if len(o.Spec.Ports) > 1 && p.Name == "" {
						t.Fatalf("Service %s: an unnamed port among several", o.Name)
					}
				}
			case *corev1.Secret:
				for k := range o.Data {
					if msgs := validation.IsConfigMapKey(k); len(msgs) > 0 {
						t.Fatalf("Secret key %q: %v", k, msgs)
					}
				}
			}
			if d, ok := asDeployment(r.Object); ok {
				if reason := restricted(t, d); reason != "" {
					t.Fatalf("%s: not restricted: %s", d.Name, reason)
				}
			}
		}
		if len(plan.Objects) != len(objs) {
			t.Fatalf("Render gave %d objects, Objects %d", len(plan.Objects), len(objs))
		}
		for _, o := range plan.Objects {
			if o.Kind == "Secret" {
				checkSecretYAML(t, o.YAML)
			}
		}
		b, err := render.RecordOf(req)
		if err != nil {
			t.Fatal(err)
		}
		back, err := render.ParseRecord(b)
		if err != nil || !reflect.DeepEqual(normal(back), normal(req)) {
			t.Fatalf("record round trip: %v\n got %#v\nwant %#v", err, back, req)
		}
	})
}
