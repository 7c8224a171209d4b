package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// inspectJSON is `kyyard inspect`'s output: one kube.Inspection, with the
// field names of the Kubernetes objects it reads.
type inspectJSON struct {
	Kind               kube.Kind        `json:"kind"`
	Namespace          string           `json:"namespace"`
	Name               string           `json:"name"`
	Missing            bool             `json:"missing"`
	UID                string           `json:"uid,omitempty"`
	ResourceVersion    string           `json:"resourceVersion,omitempty"`
	Generation         int64            `json:"generation"`
	ObservedGeneration int64            `json:"observedGeneration"`
	Replicas           int32            `json:"replicas"`
	ReadyReplicas      int32            `json:"readyReplicas"`
	UpdatedReplicas    int32            `json:"updatedReplicas"`
	AvailableReplicas  int32            `json:"availableReplicas"`
	Pods               []inspectPodJSON `json:"pods"`
}

// inspectPodJSON is one pod the workload's selector selects.
type inspectPodJSON struct {
	Name string `json:"name"`
	// Ready and Status are kubectl get pods' READY and STATUS columns.
	Ready       string `json:"ready"`
	Status      string `json:"status"`
	New         bool   `json:"new"`
	PodReady    bool   `json:"podReady"`
	Terminating bool   `json:"terminating"`
}

// newInspectCommand returns `kyyard inspect KIND/NAME`: one kube.Inspect
// of a Deployment, StatefulSet or DaemonSet, printed as JSON for scripts.
func newInspectCommand(connect connectFunc) *cobra.Command {
	return &cobra.Command{
		Use:   "inspect KIND/NAME",
		Short: "Print a workload's rollout state and its pods as JSON, without the dashboard",
		Long: `Print one reading of a Deployment, StatefulSet or DaemonSet as JSON and exit:
its generation and observedGeneration, its replicas counts (a DaemonSet's
desired, ready, updated and available numbers) and the pods its selector
selects, with kubectl's READY and STATUS. Two requests: a get of the
workload and a list of its pods.

KIND is any name of a kind that has a rollout (deployments, deploy, sts,
ds). A workload that is gone prints "missing": true and exits 1; a read
that fails (forbidden, unreachable) exits 1 with the reason on stderr.`,
		Example: `  kyyard inspect deploy/web -n demo
  kyyard inspect statefulsets/db -n demo | jq .readyReplicas`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInspect(cmd.Context(), cmd.OutOrStdout(), connect, args[0])
		},
	}
}

func runInspect(ctx context.Context, out io.Writer, connect connectFunc, arg string) error {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok || kind == "" || name == "" {
		return fmt.Errorf("%q: want KIND/NAME (deploy/web)", arg)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	client, done, err := connect()
	if err != nil {
		return err
	}
	defer done()
	defer client.Close()
	ns := client.Namespace()
	if err := views.ValidateNamespaceName(ns); err != nil {
		return fmt.Errorf("--namespace: %w", err)
	}
	in, err := client.Inspect(ctx, kube.WorkloadRef{Kind: kube.Kind(kind), Namespace: ns, Name: name})
	if err != nil {
		return fmt.Errorf("cannot inspect %s (%s): %w", arg, kube.ReasonOf(err), err)
	}
	doc := inspectJSON{Kind: in.Ref.Kind, Namespace: in.Ref.Namespace, Name: in.Ref.Name, Missing: in.Missing, UID: in.UID,
		ResourceVersion: in.ResourceVersion, Generation: in.Generation, ObservedGeneration: in.ObservedGeneration,
		Replicas: in.Desired, ReadyReplicas: in.Ready, UpdatedReplicas: in.Updated, AvailableReplicas: in.Available,
		Pods: []inspectPodJSON{}}
	for _, p := range in.Pods {
		doc.Pods = append(doc.Pods, inspectPodJSON{Name: p.Name, Ready: p.Ready, Status: p.Status, New: p.New,
			PodReady: p.PodReady, Terminating: p.Terminating})
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if in.Missing {
		return fmt.Errorf("%s/%s not found in namespace %s", in.Ref.Kind, name, ns)
	}
	return nil
}
