package render_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/render"
)

func TestValidateAcceptsTheExamples(t *testing.T) {
	for name, req := range map[string]render.Request{"one": oneService(), "two": twoServices()} {
		if errs := render.Validate(req); errs != nil {
			t.Errorf("%s: Validate = %v, want nil", name, errs)
		}
	}
}

// TestValidateReasons changes one field of the two-service app at a time:
// exactly one FieldError, at that field's path, with its reason.
func TestValidateReasons(t *testing.T) {
	web := func(r *render.Request) *render.Service { return &r.Services[0] }
	db := func(r *render.Request) *render.Service { return &r.Services[1] }
	cases := []struct {
		name   string
		change func(r *render.Request)
		path   string
		reason string
	}{
		{"instance empty", func(r *render.Request) { r.Instance = "" }, "instance", "an instance name is required"},
		{"instance upper case", func(r *render.Request) { r.Instance = "Shop" }, "instance", "DNS-1123 label"},
		{"instance with a dot", func(r *render.Request) { r.Instance = "my.shop" }, "instance", "must not contain dots"},
		{"instance too long", func(r *render.Request) { r.Instance = strings.Repeat("a", 64) }, "instance", "no more than 63"},
		{"namespace empty", func(r *render.Request) { r.Namespace = "" }, "namespace", "a namespace is required"},
		{"namespace underscore", func(r *render.Request) { r.Namespace = "my_ns" }, "namespace", "DNS-1123 label"},
		{"no services", func(r *render.Request) { r.Services = nil }, "services", "at least one service"},
		{"service name empty", func(r *render.Request) { web(r).Name = "" }, "services[0].name", "a service name is required"},
		{"service name invalid", func(r *render.Request) { web(r).Name = "-web" }, "services[0].name", "DNS-1123 label"},
		{"service name twice", func(r *render.Request) { db(r).Name = "web" }, "services[1].name", "the service name web is already used"},
		{"workload name too long", func(r *render.Request) { web(r).Name = strings.Repeat("w", 60) }, "services[0].name", "more than 63"},
		{"Service name starts with a digit", func(r *render.Request) { r.Instance = "1shop" }, "instance", "must start with a letter: it starts the Service name 1shop-web"},
		{"image empty", func(r *render.Request) { web(r).Image = "" }, "services[0].image", "an image is required"},
		{"image upper case", func(r *render.Request) { web(r).Image = "Team/App" }, "services[0].image", "lower case"},
		{"image digest without algorithm", func(r *render.Request) { web(r).Image = "app@" + strings.Repeat("ab", 32) }, "services[0].image", "names its algorithm"},
		{"image short digest", func(r *render.Request) { web(r).Image = "app@sha256:abc" }, "services[0].image", "64 hex digits"},
		{"image empty tag", func(r *render.Request) { web(r).Image = "app:" }, "services[0].image", "empty tag"},
		{"image space", func(r *render.Request) { web(r).Image = "app v2" }, "services[0].image", "no spaces"},
		{"port 0", func(r *render.Request) { web(r).Ports[0].Port = 0 }, "services[0].ports[0].port", "must be 1..65535"},
		{"port 65536", func(r *render.Request) { web(r).Ports[1].Port = 65536 }, "services[0].ports[1].port", "must be 1..65535"},
		{"port twice", func(r *render.Request) { web(r).Ports[1].Port = 8080 }, "services[0].ports[1].port", "port 8080/TCP is listed twice"},
		{"port protocol", func(r *render.Request) { web(r).Ports[0].Protocol = "SCTP" }, "services[0].ports[0].protocol", `"TCP" or "UDP"`},
		{"port protocol lower case", func(r *render.Request) { web(r).Ports[0].Protocol = "tcp" }, "services[0].ports[0].protocol", `"TCP" or "UDP"`},
		{"port name too long", func(r *render.Request) { web(r).Ports[0].Name = "a-very-long-port-name" }, "services[0].ports[0].name", "IANA_SVC_NAME"},
		{"port name digits only", func(r *render.Request) { web(r).Ports[0].Name = "8080" }, "services[0].ports[0].name", "at least one letter"},
		{"port name twice", func(r *render.Request) { web(r).Ports[1].Name = "http" }, "services[0].ports[1].name", "the port name http is already used"},
		{"port name taken by an unnamed port", func(r *render.Request) { web(r).Ports[0].Name = "port-2" }, "services[0].ports[0].name", "the unnamed port 9090"},
		{"env name empty", func(r *render.Request) { web(r).Env[0].Name = "" }, "services[0].env[0].name", "a name is required"},
		{"env name with =", func(r *render.Request) { web(r).Env[0].Name = "A=B" }, "services[0].env[0].name", "other than '='"},
		{"env name not ASCII", func(r *render.Request) { web(r).Env[0].Name = "ÄPFEL" }, "services[0].env[0].name", "printable ASCII"},
		{"env name twice", func(r *render.Request) { web(r).Env[1].Name = "LOG_LEVEL" }, "services[0].env[1].name", "the env name LOG_LEVEL is already used"},
		{"env value not UTF-8", func(r *render.Request) { web(r).Env[1].Value = "\xff" }, "services[0].env[1].value", "UTF-8"},
		{"secret name not a key", func(r *render.Request) { web(r).Secrets[0].Name = "DB PASSWORD" }, "services[0].secrets[0].name", "its key in the Secret"},
		{"secret name twice", func(r *render.Request) { web(r).Secrets[1].Name = "DB_PASSWORD" }, "services[0].secrets[1].name", "the secret name DB_PASSWORD is already used"},
		{"secret name a plain variable", func(r *render.Request) { web(r).Secrets[1].Name = "DB_HOST" }, "services[0].secrets[1].name", "DB_HOST is already a plain env variable"},
		{"secret value not UTF-8", func(r *render.Request) { web(r).Secrets[1].Value = "\xc3" }, "services[0].secrets[1].value", "UTF-8"},
		{"secrets too large", func(r *render.Request) { web(r).Secrets[1].Value = strings.Repeat("x", 1<<20) }, "services[0].secrets", "a Secret holds at most"},
		{"config path empty", func(r *render.Request) { web(r).ConfigFile.Path = "" }, "services[0].configFile.path", "a path is required"},
		{"config path relative", func(r *render.Request) { web(r).ConfigFile.Path = "etc/app.yaml" }, "services[0].configFile.path", "absolute"},
		{"config path not clean", func(r *render.Request) { web(r).ConfigFile.Path = "/etc/../app.yaml" }, "services[0].configFile.path", "clean path"},
		{"config path a directory", func(r *render.Request) { web(r).ConfigFile.Path = "/etc/app/" }, "services[0].configFile.path", "clean path"},
		{"config path /", func(r *render.Request) { web(r).ConfigFile.Path = "/" }, "services[0].configFile.path", "not /"},
		{"config file name not a key", func(r *render.Request) { web(r).ConfigFile.Path = "/etc/app/my config.yaml" }, "services[0].configFile.path", "ConfigMap's key"},
		{"config content not UTF-8", func(r *render.Request) { web(r).ConfigFile.Content = "\xfe" }, "services[0].configFile.content", "UTF-8"},
		{"config content too large", func(r *render.Request) { web(r).ConfigFile.Content = strings.Repeat("x", 1<<20) }, "services[0].configFile.content", "a ConfigMap holds at most"},
		{"replicas negative", func(r *render.Request) { web(r).Replicas = -1 }, "services[0].replicas", "0..10000"},
		{"replicas too many", func(r *render.Request) { web(r).Replicas = 10001 }, "services[0].replicas", "0..10000"},
		{"cpu request malformed", func(r *render.Request) { db(r).Resources.CPURequest = "0.5.1" }, "services[1].resources.cpuRequest", "not a quantity"},
		{"memory limit bad suffix", func(r *render.Request) { db(r).Resources.MemoryLimit = "1GB" }, "services[1].resources.memoryLimit", "not a quantity"},
		{"memory request space", func(r *render.Request) { db(r).Resources.MemoryRequest = "12 Mi" }, "services[1].resources.memoryRequest", "no spaces"},
		{"cpu limit negative", func(r *render.Request) { db(r).Resources.CPULimit = "-1" }, "services[1].resources.cpuLimit", "negative"},
		{"cpu limit huge", func(r *render.Request) { db(r).Resources.CPULimit = "1e400" }, "services[1].resources.cpuLimit", "too large"},
		{"cpu limit zero", func(r *render.Request) { db(r).Resources.CPULimit = "0" }, "services[1].resources.cpuLimit", "more than 0"},
		{"cpu request over limit", func(r *render.Request) { db(r).Resources.CPURequest = "2" }, "services[1].resources.cpuRequest", "at most the cpu limit 1"},
		{"memory request over the default limit", func(r *render.Request) { web(r).Resources.MemoryRequest = "1Gi" }, "services[0].resources.memoryRequest", "at most the memory limit 256Mi (the default)"},
		{"volume name empty", func(r *render.Request) { db(r).Volumes[0].Name = "" }, "services[1].volumes[0].name", "a volume name is required"},
		{"volume name invalid", func(r *render.Request) { db(r).Volumes[0].Name = "Data" }, "services[1].volumes[0].name", "DNS-1123 label"},
		{"volume name twice", func(r *render.Request) {
			db(r).Volumes = append(db(r).Volumes, render.Volume{Name: "data", MountPath: "/x", Size: "1Gi"})
		}, "services[1].volumes[1].name", "the volume name data is already used"},
		{"volume named config beside a config file", func(r *render.Request) {
			web(r).Volumes = []render.Volume{{Name: "config", MountPath: "/x", Size: "1Gi"}}
		}, "services[0].volumes[0].name", "the config file's volume"},
		{"claim names clash", func(r *render.Request) {
			r.Services = append(r.Services, render.Service{Name: "db-data", Image: "busybox", Volumes: []render.Volume{{Name: "x", MountPath: "/x", Size: "1Gi"}}})
			db(r).Volumes[0].Name = "data-x"
			r.Services[2].Name = "db-data"
		}, "services[2].volumes[0].name", "the claim name shop-db-data-x is also made by services[1].volumes[0].name"},
		{"mount path empty", func(r *render.Request) { db(r).Volumes[0].MountPath = "" }, "services[1].volumes[0].mountPath", "a mount path is required"},
		{"mount path relative", func(r *render.Request) { db(r).Volumes[0].MountPath = "data" }, "services[1].volumes[0].mountPath", "absolute"},
		{"mount path not clean", func(r *render.Request) { db(r).Volumes[0].MountPath = "/data/" }, "services[1].volumes[0].mountPath", "clean path"},
		{"mount path root", func(r *render.Request) { db(r).Volumes[0].MountPath = "/" }, "services[1].volumes[0].mountPath", "must not be /"},
		{"mount path twice", func(r *render.Request) {
			db(r).Volumes = append(db(r).Volumes, render.Volume{Name: "logs", MountPath: "/var/lib/postgresql/data", Size: "1Gi"})
		}, "services[1].volumes[1].mountPath", "another volume is already mounted at"},
		{"mount path the config directory", func(r *render.Request) {
			web(r).Volumes = []render.Volume{{Name: "data", MountPath: "/etc/shop", Size: "1Gi"}}
		}, "services[0].volumes[0].mountPath", "holds the config file"},
		{"mount path the config file", func(r *render.Request) {
			web(r).Volumes = []render.Volume{{Name: "data", MountPath: web(r).ConfigFile.Path, Size: "1Gi"}}
		}, "services[0].volumes[0].mountPath", "where the config file is mounted"},
		{"mount path a parent of the config directory", func(r *render.Request) {
			web(r).Volumes = []render.Volume{{Name: "data", MountPath: "/etc", Size: "1Gi"}}
		}, "services[0].volumes[0].mountPath", "holds the config file"},
		{"mount path inside the config file", func(r *render.Request) {
			web(r).Volumes = []render.Volume{{Name: "data", MountPath: web(r).ConfigFile.Path + "/x", Size: "1Gi"}}
		}, "services[0].volumes[0].mountPath", "inside the config file"},
		{"size empty", func(r *render.Request) { db(r).Volumes[0].Size = "" }, "services[1].volumes[0].size", "a size is required"},
		{"size malformed", func(r *render.Request) { db(r).Volumes[0].Size = "10 GB" }, "services[1].volumes[0].size", "no spaces"},
		{"size zero", func(r *render.Request) { db(r).Volumes[0].Size = "0Gi" }, "services[1].volumes[0].size", "more than 0"},
		{"size negative", func(r *render.Request) { db(r).Volumes[0].Size = "-1Gi" }, "services[1].volumes[0].size", "negative"},
		{"storage class invalid", func(r *render.Request) { db(r).Volumes[0].StorageClass = "Fast_SSD" }, "services[1].volumes[0].storageClass", "DNS-1123 subdomain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := twoServices()
			c.change(&req)
			errs := render.Validate(req)
			if len(errs) != 1 {
				t.Fatalf("Validate = %v, want one error at %s", errs, c.path)
			}
			if errs[0].Path != c.path || !strings.Contains(errs[0].Reason, c.reason) {
				t.Fatalf("Validate = %q, want %s: ...%s...", errs[0].Error(), c.path, c.reason)
			}
			if _, err := render.Objects(req); err == nil {
				t.Fatal("Objects succeeded for an invalid request")
			}
		})
	}
}

// acceptCases change the two-service app into requests the API server
// accepts and Validate must not refuse (TestE2EEdgeRequestsAccepted shows
// the API server's side).
var acceptCases = []struct {
	name   string
	change func(r *render.Request)
}{
	{"relaxed env name (Kubernetes 1.34+)", func(r *render.Request) { r.Services[0].Env[0].Name = "MY VAR.1" }},
	{"env name starting with a digit", func(r *render.Request) { r.Services[0].Env[0].Name = "1ABC" }},
	{"same port number, other protocol", func(r *render.Request) {
		r.Services[1].Ports = append(r.Services[1].Ports, render.Port{Name: "pg-udp", Port: 5432, Protocol: "UDP"})
	}},
	{"instance starting with a digit, service without ports", func(r *render.Request) {
		r.Instance = "1shop"
		r.Services = r.Services[1:]
		r.Services[0].Ports = nil
	}},
	{"workload name of 63", func(r *render.Request) { r.Services[0].Name = strings.Repeat("w", 63-len("shop-")) }},
	{"zero replicas", func(r *render.Request) { r.Services[0].Replicas = 0 }},
	{"zero requests", func(r *render.Request) {
		r.Services[0].Resources = render.Resources{CPURequest: "0", MemoryRequest: "0"}
	}},
	{"request equals limit", func(r *render.Request) { r.Services[1].Resources.CPURequest = "1000m" }},
	{"quantities in other forms", func(r *render.Request) {
		r.Services[1].Resources = render.Resources{CPURequest: "0.5", CPULimit: "1", MemoryRequest: "524288e3", MemoryLimit: "1Gi"}
	}},
	{"registry with a port", func(r *render.Request) { r.Services[0].Image = "localhost:5000/team/app:v2" }},
	{"bare image name", func(r *render.Request) { r.Services[0].Image = "busybox" }},
	{"volume nested under the config directory", func(r *render.Request) {
		r.Services[0].Volumes = []render.Volume{{Name: "cache", MountPath: "/etc/shop/cache", Size: "1Mi"}}
	}},
	{"volume named config without a config file", func(r *render.Request) { r.Services[1].Volumes[0].Name = "config" }},
	{"empty env value and empty config file", func(r *render.Request) {
		r.Services[0].Env[0].Value = ""
		r.Services[0].ConfigFile.Content = ""
	}},
}

func TestValidateAccepts(t *testing.T) {
	for _, c := range acceptCases {
		t.Run(c.name, func(t *testing.T) {
			req := twoServices()
			c.change(&req)
			if errs := render.Validate(req); errs != nil {
				t.Fatalf("Validate = %v, want nil", errs)
			}
			if _, err := render.Objects(req); err != nil {
				t.Fatalf("Objects: %v", err)
			}
		})
	}
}

// TestC27BadQuantities: "1GB", "0.5.1", "-1", "1e400", "12 Mi" are refused
// with a reason, for every quantity field and a volume's size.
func TestC27BadQuantities(t *testing.T) {
	for _, q := range []string{"1GB", "0.5.1", "-1", "1e400", "12 Mi"} {
		for _, f := range []struct {
			path string
			set  func(s *render.Service)
		}{
			{"services[1].resources.cpuRequest", func(s *render.Service) { s.Resources.CPURequest = q }},
			{"services[1].resources.cpuLimit", func(s *render.Service) { s.Resources.CPULimit = q }},
			{"services[1].resources.memoryRequest", func(s *render.Service) { s.Resources.MemoryRequest = q }},
			{"services[1].resources.memoryLimit", func(s *render.Service) { s.Resources.MemoryLimit = q }},
			{"services[1].volumes[0].size", func(s *render.Service) { s.Volumes[0].Size = q }},
		} {
			req := twoServices()
			f.set(&req.Services[1])
			errs := render.Validate(req)
			if len(errs) != 1 || errs[0].Path != f.path || errs[0].Reason == "" {
				t.Errorf("%s = %q: Validate = %v, want one reason at %s", f.path, q, errs, f.path)
			}
		}
	}
}

// TestMemoryMillibytes (issue 11): memory and claim sizes are whole bytes:
// "64m" (64 millibytes, which the API server would take) is refused with
// a hint that m is milli, and a fraction of a byte is refused; "0.5Gi",
// "500M" and "1e3" are whole bytes and pass. CPU keeps its millicores.
func TestMemoryMillibytes(t *testing.T) {
	for q, want := range map[string]string{
		"64m":   "m is milli (a thousandth of a byte): did you mean 64Mi?",
		"1500m": "m is milli (a thousandth of a byte): did you mean 1500Mi?",
		"0.5":   "must be a whole number of bytes",
		"0.5Gi": "", "500M": "", "1e3": "", "128Mi": "",
	} {
		for _, f := range []struct {
			path string
			set  func(s *render.Service)
		}{
			{"services[1].resources.memoryRequest", func(s *render.Service) { s.Resources.MemoryRequest = q }},
			{"services[1].volumes[0].size", func(s *render.Service) { s.Volumes[0].Size = q }},
		} {
			req := twoServices()
			req.Services[1].Resources.MemoryLimit = "10Gi"
			f.set(&req.Services[1])
			errs := render.Validate(req)
			switch {
			case want == "" && len(errs) != 0:
				t.Errorf("%s = %q: Validate = %v, want none", f.path, q, errs)
			case want != "" && (len(errs) != 1 || errs[0].Path != f.path || !strings.Contains(errs[0].Reason, want)):
				t.Errorf("%s = %q: Validate = %v, want %q at %s", f.path, q, errs, want, f.path)
			}
		}
	}
	req := twoServices()
	req.Services[1].Resources.CPURequest = "250m"
	if errs := render.Validate(req); len(errs) != 0 {
		t.Errorf("cpu millicores refused: %v", errs)
	}
}

// TestC28ImageReferences: a registry's port is not a tag; a digest without
// its algorithm is refused; app@sha256:<64 hex> is accepted.
func TestC28ImageReferences(t *testing.T) {
	digest := strings.Repeat("0123456789abcdef", 4)
	for img, ok := range map[string]bool{
		"localhost:5000/team/app:v2": true,
		"localhost:5000/team/app":    true,
		"app@sha256:" + digest:       true,
		"app@" + digest:              false,
		"app@sha256:" + digest[:10]:  false,
	} {
		req := oneService()
		req.Services[0].Image = img
		errs := render.Validate(req)
		if ok != (errs == nil) {
			t.Errorf("image %q: Validate = %v, want valid=%v", img, errs, ok)
		}
	}
}

// TestValidateMany: several faults give one error each, in the request's
// field order.
func TestValidateMany(t *testing.T) {
	req := twoServices()
	req.Instance = ""
	req.Services[0].Ports[0].Port = 0
	req.Services[0].Secrets[0].Name = "..x"
	req.Services[1].Volumes[0].Size = "big"
	var got []string
	for _, e := range render.Validate(req) {
		got = append(got, e.Error())
	}
	want := []string{
		"instance: an instance name is required",
		"services[0].ports[0].port: must be 1..65535",
		"services[0].secrets[0].name: a secret value's name is its key in the Secret: must not start with '..'",
		"services[1].volumes[0].size: not a quantity (e.g. 500m, 0.5, 256Mi, 1Gi): a number and one of m, k, M, G, T, Ki, Mi, Gi, Ti or e<n>",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Validate =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func BenchmarkValidate(b *testing.B) {
	req := twoServices()
	for b.Loop() {
		render.Validate(req)
	}
}
