package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// Unknown is the value of a fact that could not be read. A fact is never left out.
const Unknown = "unknown"

// Facts describe the cluster and the connection, for the header. Every field
// is set: what cannot be read is Unknown.
type Facts struct {
	// ServerVersion is the API server's gitVersion from /version ("v1.37.2").
	ServerVersion string
	// Platform is the distribution when it can be recognised ("kwok", "EKS",
	// "GKE", "AKS", "k3s", "kind", "OpenShift"...) followed by the server's
	// os/arch from /version, e.g. "kwok linux/amd64".
	Platform string
	// Nodes is the number of Nodes, in decimal.
	Nodes string
	// Context is the kubeconfig context in use ("in-cluster" inside a pod).
	Context string
	// Cluster is the kubeconfig cluster name, else the API server's URL.
	Cluster string
	// User is who the API server says we are (a SelfSubjectReview, what
	// `kubectl auth whoami` prints). When the server cannot say, it is the
	// kubeconfig user's name marked as such ("admin (kubeconfig)"), else
	// Unknown.
	User string
}

// factsTimeout bounds each request Facts makes.
const factsTimeout = 5 * time.Second

// Facts reads the server version, platform, node count and identity at once.
// It never fails: a fact that cannot be read is Unknown.
func (c *Client) Facts(ctx context.Context) Facts {
	f := Facts{
		ServerVersion: Unknown, Platform: Unknown, Nodes: Unknown,
		Context: orUnknown(c.contextName), Cluster: orUnknown(firstNonEmpty(c.clusterName, c.host)),
		User: Unknown,
	}
	ctx, cancel := context.WithTimeout(ctx, factsTimeout)
	defer cancel()

	var (
		wg       sync.WaitGroup
		gitVer   string
		platform string
		seen     []*corev1.Node
		nodes    = -1
		username string
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		if v, err := c.serverVersion(ctx); err == nil {
			gitVer, platform = v.GitVersion, v.Platform
		}
	}()
	go func() {
		defer wg.Done()
		if n, all, ok := c.cachedNodes(ctx); ok {
			nodes, seen = n, all
			return
		}
		list, err := c.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
		if err != nil {
			return
		}
		nodes = len(list.Items)
		if list.RemainingItemCount != nil {
			nodes += int(*list.RemainingItemCount)
		} else if list.Continue != "" {
			nodes = -1
			if all, err := c.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
				nodes = len(all.Items)
			}
		}
		for i := range list.Items {
			seen = append(seen, &list.Items[i])
		}
	}()
	go func() {
		defer wg.Done()
		review, err := c.cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err == nil && review != nil {
			username = review.Status.UserInfo.Username
		}
	}()
	wg.Wait()

	if gitVer != "" {
		f.ServerVersion = gitVer
		f.Platform = strings.TrimSpace(distributionOf(gitVer, seen) + " " + platform)
		if f.Platform == "" {
			f.Platform = Unknown
		}
	}
	if nodes >= 0 {
		f.Nodes = strconv.Itoa(nodes)
	}
	switch {
	case username != "":
		f.User = username
	case c.userName != "":
		f.User = c.userName + " (kubeconfig)"
	}
	return f
}

// serverVersion reads /version within ctx. Discovery's own ServerVersion
// takes no context, so it is used only where there is no REST client (the
// fake clientset of unit tests).
func (c *Client) serverVersion(ctx context.Context) (*version.Info, error) {
	rc := c.cs.Discovery().RESTClient()
	if rc == nil || reflect.ValueOf(rc).IsNil() {
		return c.cs.Discovery().ServerVersion()
	}
	body, err := rc.Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	var info version.Info
	if err := json.Unmarshal(body, &info); err != nil {
		return nil, fmt.Errorf("decode /version: %w", err)
	}
	return &info, nil
}

// distributionOf recognises the distribution from the server's gitVersion
// and the Nodes read: the first Node, in name order, whose marks are
// recognised decides, so that a cluster of mixed nodes (kwok's beside a real
// kubelet) is named the same way on every refresh whatever order a cache
// lists them in. "" when nothing is recognised.
func distributionOf(gitVersion string, nodes []*corev1.Node) string {
	if d := distribution(gitVersion, nil); d != "" {
		return d
	}
	sorted := append([]*corev1.Node(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, n := range sorted {
		if d := distribution(gitVersion, n); d != "" {
			return d
		}
	}
	return ""
}

// distribution recognises a Kubernetes distribution from the server's
// gitVersion suffix and a node's providerID, labels and annotations; "" when
// nothing is recognised.
func distribution(gitVersion string, node *corev1.Node) string {
	v := strings.ToLower(gitVersion)
	switch {
	case strings.Contains(v, "-eks-"):
		return "EKS"
	case strings.Contains(v, "-gke."):
		return "GKE"
	case strings.Contains(v, "+k3s"):
		return "k3s"
	case strings.Contains(v, "+rke2"):
		return "RKE2"
	}
	if node == nil {
		return ""
	}
	if _, ok := node.Annotations["kwok.x-k8s.io/node"]; ok {
		return "kwok"
	}
	if _, ok := node.Labels["node.openshift.io/os_id"]; ok {
		return "OpenShift"
	}
	provider := node.Spec.ProviderID
	switch {
	case strings.HasPrefix(provider, "aws://"):
		return "EKS"
	case strings.HasPrefix(provider, "gce://"):
		return "GKE"
	case strings.HasPrefix(provider, "azure://"):
		return "AKS"
	case strings.HasPrefix(provider, "kind://"):
		return "kind"
	case strings.HasPrefix(provider, "k3s://"):
		return "k3s"
	}
	if node.Name == "minikube" || node.Labels["minikube.k8s.io/name"] != "" {
		return "minikube"
	}
	return ""
}

func orUnknown(s string) string {
	if s == "" {
		return Unknown
	}
	return s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// cachedNodes counts the Nodes from the nodes informer (started on first
// use, like a screen's), so that the header's periodic facts issue no list
// once the cache has synced; all is every cached Node (shared with the
// cache: read only), for the platform's labels. ok is false when nodes cannot be cached (the user may not watch
// them, or the cache is not healthy): the caller lists instead.
func (c *Client) cachedNodes(ctx context.Context) (n int, all []*corev1.Node, ok bool) {
	plugin, found := c.registry.Lookup("nodes")
	if !found {
		return 0, nil, false
	}
	info := plugin.Info()
	rows, _, reading, ok := c.cached(ctx, plugin, info, "")
	if !ok || reading {
		return 0, nil, false
	}
	c.mu.Lock()
	kc := c.caches[cacheKey{kind: info.ID}]
	c.mu.Unlock()
	if kc != nil && !kc.synced() {
		// The rows are complete before the informer's store is (put): the
		// first node is not known yet.
		return 0, nil, false
	}
	if kc != nil {
		for _, obj := range kc.informer.GetStore().List() {
			if it, isItem := obj.(*cachedItem); isItem {
				if node, isNode := it.keep.(*corev1.Node); isNode {
					all = append(all, node)
				}
			}
		}
	}
	return len(rows), all, true
}

// platformNode keeps of a Node what distribution reads (its name, labels,
// kwok's annotation, spec.providerID): the nodes cache keeps it beside the
// row (cachedItem.keep).
func platformNode(obj any) any {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil
	}
	slim := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: n.Labels}, Spec: corev1.NodeSpec{ProviderID: n.Spec.ProviderID}}
	if v, ok := n.Annotations["kwok.x-k8s.io/node"]; ok {
		slim.Annotations = map[string]string{"kwok.x-k8s.io/node": v}
	}
	return slim
}
