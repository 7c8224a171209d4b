package cluster

import (
	"context"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
)

// MetricsAPIService is the APIService metrics-server backs.
const MetricsAPIService = "v1beta1.metrics.k8s.io"

// metricsServiceName is the Service the APIService points at, in kube-system;
// its certificate is valid for metricsServiceName.kube-system.svc.
const metricsServiceName = "metrics-server"

// metricsObjects are what metrics-server needs from the API server, as its
// own manifests give them: RBAC for its identity (read pods and nodes, the
// kubelet's metrics, the authentication configuration, delegated auth), a
// role that aggregates reading metrics into view/edit/admin, and the
// Service the APIService points at. The Service is an ExternalName of
// 127.0.0.1 on metrics-server's port: the aggregation layer resolves an
// ExternalName Service to that host (a ClusterIP is not routable here, and
// Endpoints may not hold loopback addresses).
func metricsObjects(port int) (roles []*rbacv1.ClusterRole, bindings []*rbacv1.ClusterRoleBinding, rb *rbacv1.RoleBinding, svc *corev1.Service) {
	user := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: pki.MetricsServerUser}}
	roles = []*rbacv1.ClusterRole{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:metrics-server"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}},
				{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}},
			},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:aggregated-metrics-reader", Labels: map[string]string{
				"rbac.authorization.k8s.io/aggregate-to-view":  "true",
				"rbac.authorization.k8s.io/aggregate-to-edit":  "true",
				"rbac.authorization.k8s.io/aggregate-to-admin": "true",
			}},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"metrics.k8s.io"}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}}},
		},
	}
	bindings = []*rbacv1.ClusterRoleBinding{
		{
			ObjectMeta: metav1.ObjectMeta{Name: "system:metrics-server"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:metrics-server"},
			Subjects:   user,
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: "metrics-server:system:auth-delegator"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:auth-delegator"},
			Subjects:   user,
		},
	}
	rb = &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-server-auth-reader", Namespace: metav1.NamespaceSystem},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "extension-apiserver-authentication-reader"},
		Subjects:   user,
	}
	svc = &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: metricsServiceName, Namespace: metav1.NamespaceSystem},
		Spec: corev1.ServiceSpec{
			Type:         corev1.ServiceTypeExternalName,
			ExternalName: "127.0.0.1",
			Ports:        []corev1.ServicePort{{Name: "https", Port: int32(port), TargetPort: intstr.FromInt32(int32(port))}},
		},
	}
	return roles, bindings, rb, svc
}

// metricsAPIService registers metrics-server's group with the aggregation
// layer: requests for metrics.k8s.io go to the Service's host and port,
// whose serving certificate must chain to caBundle.
func metricsAPIService(port int, caBundle []byte) *apiregistrationv1.APIService {
	p := int32(port)
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: MetricsAPIService},
		Spec: apiregistrationv1.APIServiceSpec{
			Service:              &apiregistrationv1.ServiceReference{Namespace: metav1.NamespaceSystem, Name: metricsServiceName, Port: &p},
			Group:                "metrics.k8s.io",
			Version:              "v1beta1",
			CABundle:             caBundle,
			GroupPriorityMinimum: 100,
			VersionPriority:      100,
		},
	}
}

// metricsServer is the cluster's metrics-server command line (on
// c.Ports.MetricsServer, with c.L's PKI and kubeconfig).
func (c *Cluster) metricsServer() components.Component { return components.MetricsServer(c.L, c.Ports) }

// startMetrics creates metrics-server's objects, starts it, registers its
// APIService and waits until the aggregation layer reports it Available;
// the single cluster's Up and every fleet member's use it, each on its own
// API server and metrics-server port. The first samples come one metric
// resolution later (seed and fleet seed wait for them).
func (s *starter) startMetrics(ctx context.Context) error {
	c := s.c
	start := time.Now()
	port := c.Ports.MetricsServer
	roles, bindings, rb, svc := metricsObjects(port)
	for _, r := range roles {
		if _, err := s.client.RbacV1().ClusterRoles().Create(ctx, r, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("metrics: create ClusterRole %s: %w", r.Name, err)
		}
	}
	for _, b := range bindings {
		if _, err := s.client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("metrics: create ClusterRoleBinding %s: %w", b.Name, err)
		}
	}
	if _, err := s.client.RbacV1().RoleBindings(rb.Namespace).Create(ctx, rb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("metrics: create RoleBinding %s: %w", rb.Name, err)
	}
	if _, err := s.client.CoreV1().Services(svc.Namespace).Create(ctx, svc, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("metrics: create Service %s: %w", svc.Name, err)
	}
	if err := s.startAndWait(ctx, componentTimeout, c.metricsServer()); err != nil {
		return err
	}
	ca, err := os.ReadFile(c.L.PKIPath("ca.crt"))
	if err != nil {
		return err
	}
	cfg, err := AdminRESTConfig(c.L)
	if err != nil {
		return err
	}
	agg, err := aggregator.NewForConfig(cfg)
	if err != nil {
		return err
	}
	apis := agg.ApiregistrationV1().APIServices()
	if _, err := apis.Create(ctx, metricsAPIService(port, ca), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("metrics: create APIService %s: %w", MetricsAPIService, err)
	}
	deadline := time.Now().Add(componentTimeout)
	for {
		a, err := apis.Get(ctx, MetricsAPIService, metav1.GetOptions{})
		why := "not read yet"
		if err != nil {
			why = err.Error()
		} else {
			for _, cond := range a.Status.Conditions {
				if cond.Type != apiregistrationv1.Available {
					continue
				}
				if cond.Status == apiregistrationv1.ConditionTrue {
					fmt.Fprintf(c.Out, "up: APIService %s available in %s\n", MetricsAPIService, time.Since(start).Round(10*time.Millisecond))
					return nil
				}
				why = cond.Reason + ": " + cond.Message
			}
		}
		if time.Now().After(deadline) {
			return s.failure("metrics-server", fmt.Errorf("APIService %s not available after %s: %s", MetricsAPIService, componentTimeout, why))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}
