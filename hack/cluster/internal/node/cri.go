package node

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

// criClient connects to the CRI runtime service on the unix socket sock.
func criClient(sock string) (runtimeapi.RuntimeServiceClient, func(), error) {
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, nil, err
	}
	return runtimeapi.NewRuntimeServiceClient(conn), func() { conn.Close() }, nil
}

// criReady asks containerd's CRI plugin for its status: nil when both the
// runtime and the network (a CNI configuration) are ready. Other
// conditions (containerd's ContainerdHasNoDeprecationWarnings, false on
// cgroup v1) do not count, as for the kubelet.
func criReady(ctx context.Context, sock string) error {
	rt, closeConn, err := criClient(sock)
	if err != nil {
		return err
	}
	defer closeConn()
	st, err := rt.Status(ctx, &runtimeapi.StatusRequest{})
	if err != nil {
		return err
	}
	var notReady []string
	for _, c := range st.GetStatus().GetConditions() {
		if (c.Type == runtimeapi.RuntimeReady || c.Type == runtimeapi.NetworkReady) && !c.Status {
			notReady = append(notReady, fmt.Sprintf("%s (%s: %s)", c.Type, c.Reason, c.Message))
		}
	}
	if len(notReady) > 0 {
		return fmt.Errorf("CRI not ready: %s", strings.Join(notReady, ", "))
	}
	return nil
}

// removeSandboxes stops and removes every pod sandbox of the CRI runtime on
// sock, with their containers: containerd's shims and the containers'
// processes exit, CNI releases the pods' addresses, their mounts go away.
// It returns how many it removed.
func removeSandboxes(ctx context.Context, sock string) (int, error) {
	rt, closeConn, err := criClient(sock)
	if err != nil {
		return 0, err
	}
	defer closeConn()
	list, err := rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return 0, fmt.Errorf("list pod sandboxes: %w", err)
	}
	removed := 0
	var firstErr error
	for _, s := range list.Items {
		if _, err := rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: s.Id}); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("stop sandbox %s (%s/%s): %w", s.Id[:12], s.GetMetadata().GetNamespace(), s.GetMetadata().GetName(), err)
		}
		if _, err := rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: s.Id}); err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("remove sandbox %s (%s/%s): %w", s.Id[:12], s.GetMetadata().GetNamespace(), s.GetMetadata().GetName(), err)
			}
			continue
		}
		removed++
	}
	return removed, firstErr
}
