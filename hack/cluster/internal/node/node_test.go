package node_test

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
)

func paths(t *testing.T) (layout.Layout, node.Paths) {
	t.Helper()
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l, node.PathsOf(l)
}

func TestEverythingOfTheNodeIsUnderItsCache(t *testing.T) {
	l, p := paths(t)
	for _, path := range []string{p.ContainerdRoot(), p.ContainerdState(), p.ContainerdSocket(), p.ContainerdConfig(),
		p.KubeletRoot(), p.KubeletConfig(), p.KubeletKubeconfig(), p.PodLogs(), p.CNIBin(), p.CNIConf(), p.CNIIPAM()} {
		if !strings.HasPrefix(path, l.Cache+"/") {
			t.Errorf("%s is outside %s", path, l.Cache)
		}
	}
	// A unix socket path must fit in sun_path (108 bytes) for any checkout
	// path of reasonable length.
	if n := len(p.ContainerdSocket()) - len(l.Cache); n > 60 {
		t.Errorf("socket path adds %d bytes to the cache path", n)
	}
}

func TestContainerdConfig(t *testing.T) {
	_, p := paths(t)
	cfg := node.ContainerdConfig(p)
	for _, want := range []string{
		`version = 3`,
		`root = "` + p.ContainerdRoot() + `"`,
		`state = "` + p.ContainerdState() + `"`,
		`imports = []`,
		`address = "` + p.ContainerdSocket() + `"`,
		`sandbox = "kyyard.local/pause:1"`,
		`BinaryName = "/usr/sbin/runc"`,
		`SystemdCgroup = false`,
		`bin_dirs = ["` + p.CNIBin() + `"]`,
		`conf_dir = "` + p.CNIConf() + `"`,
		`netns_mounts_under_state_dir = true`,
		`restrict_oom_score_adj = true`,
		`stream_server_address = "127.0.0.1"`,
		`"io.containerd.nri.v1.nri"`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("containerd config lacks %s", want)
		}
	}
}

func TestCNIConfig(t *testing.T) {
	_, p := paths(t)
	data, err := node.CNIConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Plugins []struct {
			Type      string
			Bridge    string
			IsGateway bool
			IPMasq    bool
			IPAM      struct {
				Type    string
				DataDir string
				Ranges  [][]struct{ Subnet, Gateway string }
			}
		}
	}
	if err := json.Unmarshal(data, &conf); err != nil {
		t.Fatal(err)
	}
	if len(conf.Plugins) != 2 || conf.Plugins[0].Type != "bridge" || conf.Plugins[1].Type != "portmap" {
		t.Fatalf("plugins %+v", conf.Plugins)
	}
	b := conf.Plugins[0]
	if b.Bridge != node.Bridge || !b.IsGateway || b.IPMasq || b.IPAM.Type != "host-local" || b.IPAM.DataDir != p.CNIIPAM() ||
		b.IPAM.Ranges[0][0].Subnet != node.PodSubnet || b.IPAM.Ranges[0][0].Gateway != node.IP {
		t.Errorf("bridge %+v", b)
	}
}

func TestKubeletConfiguration(t *testing.T) {
	l, p := paths(t)
	data, err := node.KubeletConfiguration(p, "/ca/ca.crt", l.PKI)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	get := func(path string) any {
		var v any = cfg
		for _, k := range strings.Split(path, ".") {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		return v
	}
	for path, want := range map[string]any{
		"kind":                             "KubeletConfiguration",
		"failCgroupV1":                     false,
		"cgroupDriver":                     "cgroupfs",
		"containerRuntimeEndpoint":         "unix://" + p.ContainerdSocket(),
		"address":                          node.IP,
		"port":                             float64(node.KubeletPort),
		"healthzBindAddress":               "127.0.0.1",
		"healthzPort":                      float64(node.KubeletHealthzPort),
		"authentication.anonymous.enabled": false,
		"authentication.webhook.enabled":   true,
		"authentication.x509.clientCAFile": "/ca/ca.crt",
		"authorization.mode":               "Webhook",
		"tlsCertFile":                      l.PKIPath("kubelet-serving.crt"),
		"podLogsDir":                       p.PodLogs(),
		"containerLogMaxSize":              node.ContainerLogMaxSize,
		"crashLoopBackOff.maxContainerRestartPeriod": "5s",
	} {
		if got := get(path); got != want {
			t.Errorf("%s = %v (%T), want %v", path, got, got, want)
		}
	}
	if _, ok := cfg["readOnlyPort"]; ok {
		t.Error("the read-only port is set")
	}
	taints, _ := cfg["registerWithTaints"].([]any)
	if len(taints) != 1 || taints[0].(map[string]any)["key"] != node.TaintKey || taints[0].(map[string]any)["effect"] != "NoSchedule" {
		t.Errorf("registerWithTaints = %v", cfg["registerWithTaints"])
	}
}

func TestKubeletArgs(t *testing.T) {
	_, p := paths(t)
	args := strings.Join(node.KubeletArgs(p), " ")
	for _, want := range []string{"--root-dir=" + p.KubeletRoot(), "--hostname-override=" + node.Name, "--node-ip=" + node.IP,
		"--node-labels=" + node.TaintKey + "=true", "--kubeconfig=" + p.KubeletKubeconfig(), "--config=" + p.KubeletConfig()} {
		if !strings.Contains(args, want) {
			t.Errorf("kubelet args %q lack %s", args, want)
		}
	}
}

func TestMountsUnder(t *testing.T) {
	mi := strings.Join([]string{
		`22 1 254:0 / / rw,relatime - ext4 /dev/vda rw`,
		`30 22 0:26 / /c/node/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x rw - tmpfs tmpfs rw`,
		`31 22 0:27 / /c/node/containerd/state/io.containerd.runtime.v2.task/k8s.io/abc/rootfs rw - overlay overlay rw`,
		`32 22 0:28 / /c/node-other/x rw - tmpfs tmpfs rw`,
		`33 22 0:29 / /c/node/with\040space rw - tmpfs tmpfs rw`,
		`34 22 0:30 / /c/node rw - tmpfs tmpfs rw`,
	}, "\n")
	got := node.MountsUnder(mi, "/c/node")
	want := []string{
		"/c/node/kubelet/pods/u1/volumes/kubernetes.io~projected/kube-api-access-x",
		"/c/node/containerd/state/io.containerd.runtime.v2.task/k8s.io/abc/rootfs",
		"/c/node/with space",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("MountsUnder = %q, want %q", got, want)
	}
}
