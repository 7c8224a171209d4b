package node

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeletv1beta1 "k8s.io/kubelet/config/v1beta1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

// Runc is Debian's runc (package runc), the runtime containerd's runc shim runs.
const Runc = "/usr/sbin/runc"

// SandboxImage is the pause image containerd's CRI plugin uses for every
// pod sandbox (pinned, so the kubelet's image GC keeps it).
const SandboxImage = "kyyard.local/pause:1"

// ContainerLogMaxSize is the size at which the kubelet rotates a container's
// log file (containerLogMaxSize), small so that a fast writer rotates often.
const ContainerLogMaxSize = "1Mi"

// MaxContainerRestartPeriod caps the kubelet's crash-loop back-off
// (crashLoopBackOff.maxContainerRestartPeriod, feature KubeletCrashLoopBackOffMax,
// beta and on by default since 1.35), so a crash-looping container restarts
// every few seconds instead of up to every 5 minutes.
const MaxContainerRestartPeriod = 5 * time.Second

// ContainerdConfig renders containerd's configuration (version 3, containerd
// 2.x): root, state and sockets under p, no metrics or debug listener, NRI
// off; the CRI plugin with the runc shim running Runc with cgroupfs (no
// systemd), the overlayfs snapshotter, SandboxImage pinned, network
// namespaces under the state folder, OOM scores clamped to containerd's
// own (restrict_oom_score_adj), CNI from p, and its streaming server
// (exec, attach, port-forward, proxied by the kubelet) on 127.0.0.1.
func ContainerdConfig(p Paths) string {
	q := strconv.Quote
	root, state := p.ContainerdRoot(), p.ContainerdState()
	return strings.Join([]string{
		`version = 3`,
		`root = ` + q(root),
		`state = ` + q(state),
		`imports = []`,
		`disabled_plugins = ["io.containerd.nri.v1.nri", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]`,
		``,
		`[grpc]`,
		`  address = ` + q(p.ContainerdSocket()),
		``,
		`[ttrpc]`,
		`  address = ` + q(p.ContainerdSocket()+".ttrpc"),
		``,
		`[debug]`,
		`  address = ""`,
		`  level = "info"`,
		``,
		`[metrics]`,
		`  address = ""`,
		``,
		`[plugins]`,
		`  [plugins."io.containerd.internal.v1.opt"]`,
		`    path = ` + q(root+"/opt"),
		``,
		`  [plugins."io.containerd.cri.v1.images"]`,
		`    snapshotter = "overlayfs"`,
		`    [plugins."io.containerd.cri.v1.images".pinned_images]`,
		`      sandbox = ` + q(SandboxImage),
		``,
		`  [plugins."io.containerd.cri.v1.runtime"]`,
		`    enable_selinux = false`,
		`    netns_mounts_under_state_dir = true`,
		// Without CAP_SYS_RESOURCE (these machines' root lacks it) a
		// process may not lower its oom_score_adj, and runc fails the
		// sandbox's -998 ("failed to update /proc/self/oom_score_adj:
		// Permission denied"): clamp every score to containerd's own.
		`    restrict_oom_score_adj = true`,
		`    [plugins."io.containerd.cri.v1.runtime".containerd]`,
		`      default_runtime_name = "runc"`,
		`      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]`,
		`        runtime_type = "io.containerd.runc.v2"`,
		`        [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]`,
		`          BinaryName = ` + q(Runc),
		`          SystemdCgroup = false`,
		`          Root = ` + q(state+"/runc"),
		`    [plugins."io.containerd.cri.v1.runtime".cni]`,
		`      bin_dirs = [` + q(p.CNIBin()) + `]`,
		`      conf_dir = ` + q(p.CNIConf()),
		`      max_conf_num = 1`,
		``,
		`  [plugins."io.containerd.grpc.v1.cri"]`,
		`    disable_tcp_service = true`,
		`    stream_server_address = "127.0.0.1"`,
		`    stream_server_port = "0"`,
		``,
	}, "\n")
}

// CNIConfigFile is the network configuration's file name in p.CNIConf().
const CNIConfigFile = "10-kyyard.conflist"

// CNIConfig renders the pod network: the bridge plugin on Bridge with IP as
// gateway (no masquerading: pods talk to the host and each other only) and
// host-local addresses of PodSubnet kept in p.CNIIPAM(), then portmap for
// hostPort.
func CNIConfig(p Paths) ([]byte, error) {
	conf := map[string]any{
		"cniVersion": "1.0.0",
		"name":       "kyyard",
		"plugins": []any{
			map[string]any{
				"type":        "bridge",
				"bridge":      Bridge,
				"isGateway":   true,
				"ipMasq":      false,
				"hairpinMode": true,
				"ipam": map[string]any{
					"type":    "host-local",
					"ranges":  [][]map[string]string{{{"subnet": PodSubnet, "gateway": IP}}},
					"dataDir": p.CNIIPAM(),
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}
	return json.MarshalIndent(conf, "", "  ")
}

// KubeletConfiguration is the kubelet's configuration: containerd over CRI
// with the cgroupfs driver; cgroup v1 allowed (failCgroupV1: false, KEP-5573:
// kubelets from 1.35 refuse cgroup v1 otherwise); HTTPS on IP:KubeletPort
// with the serving certificate in pkiDir, clients verified by the cluster CA
// (caFile) and authorized by the API server (webhook), nothing anonymous, no
// read-only port; /healthz on 127.0.0.1; the node registered with its
// taint; pod logs under p, rotated at ContainerLogMaxSize; crash-loop
// back-off capped at MaxContainerRestartPeriod; image GC off (the images
// cannot be pulled again) and eviction only when the disk is nearly full.
func KubeletConfiguration(p Paths, caFile, pkiDir string) ([]byte, error) {
	cfg := kubeletv1beta1.KubeletConfiguration{
		TypeMeta:                 metav1.TypeMeta{APIVersion: "kubelet.config.k8s.io/v1beta1", Kind: "KubeletConfiguration"},
		FailCgroupV1:             ptr.To(false),
		CgroupDriver:             "cgroupfs",
		ContainerRuntimeEndpoint: "unix://" + p.ContainerdSocket(),
		ImageServiceEndpoint:     "unix://" + p.ContainerdSocket(),
		Address:                  IP,
		Port:                     KubeletPort,
		ReadOnlyPort:             0,
		HealthzBindAddress:       "127.0.0.1",
		HealthzPort:              ptr.To[int32](KubeletHealthzPort),
		TLSCertFile:              pkiDir + "/kubelet-serving.crt",
		TLSPrivateKeyFile:        pkiDir + "/kubelet-serving.key",
		Authentication: kubeletv1beta1.KubeletAuthentication{
			X509:      kubeletv1beta1.KubeletX509Authentication{ClientCAFile: caFile},
			Webhook:   kubeletv1beta1.KubeletWebhookAuthentication{Enabled: ptr.To(true)},
			Anonymous: kubeletv1beta1.KubeletAnonymousAuthentication{Enabled: ptr.To(false)},
		},
		Authorization:        kubeletv1beta1.KubeletAuthorization{Mode: kubeletv1beta1.KubeletAuthorizationModeWebhook},
		RegisterNode:         ptr.To(true),
		RegisterWithTaints:   []corev1.Taint{{Key: TaintKey, Value: TaintValue, Effect: corev1.TaintEffectNoSchedule}},
		FailSwapOn:           ptr.To(false),
		PodLogsDir:           p.PodLogs(),
		ContainerLogMaxSize:  ContainerLogMaxSize,
		ContainerLogMaxFiles: ptr.To[int32](3),
		CrashLoopBackOff: kubeletv1beta1.CrashLoopBackOffConfig{
			MaxContainerRestartPeriod: &metav1.Duration{Duration: MaxContainerRestartPeriod},
		},
		ImageGCHighThresholdPercent: ptr.To[int32](100),
		ImageGCLowThresholdPercent:  ptr.To[int32](99),
		EvictionHard: map[string]string{
			"memory.available":  "100Mi",
			"nodefs.available":  "2%",
			"nodefs.inodesFree": "2%",
			"imagefs.available": "2%",
		},
		MaxPods:               40,
		SerializeImagePulls:   ptr.To(false),
		RotateCertificates:    false,
		ServerTLSBootstrap:    false,
		ProtectKernelDefaults: false,
	}
	data, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubelet configuration: %w", err)
	}
	return data, nil
}

// KubeletArgs are the kubelet's flags; everything else is in its
// configuration file.
func KubeletArgs(p Paths) []string {
	return []string{
		"--config=" + p.KubeletConfig(),
		"--kubeconfig=" + p.KubeletKubeconfig(),
		"--root-dir=" + p.KubeletRoot(),
		"--cert-dir=" + p.KubeletRoot() + "/pki",
		"--hostname-override=" + Name,
		"--node-ip=" + IP,
		"--node-labels=" + TaintKey + "=" + TaintValue,
		"--v=2",
	}
}

// ContainerdArgs are containerd's flags.
func ContainerdArgs(p Paths) []string {
	return []string{"--config=" + p.ContainerdConfig()}
}
