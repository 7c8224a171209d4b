package kube_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestServiceAccountToken: the token Secret's token and ca.crt, and a
// clear ErrNoToken when the Secret is missing, of another type, another
// ServiceAccount's, or not filled in yet.
func TestServiceAccountToken(t *testing.T) {
	secret := func(typ corev1.SecretType, sa string, data map[string][]byte) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kyyard-token", Namespace: "ns",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: sa}}, Type: typ, Data: data}
	}
	filled := map[string][]byte{"token": []byte("jwt"), "ca.crt": []byte("PEM")}
	cases := []struct {
		name  string
		objs  []runtime.Object
		token string
		want  string
	}{
		{"filled", []runtime.Object{secret(corev1.SecretTypeServiceAccountToken, "kyyard", filled)}, "jwt", ""},
		{"missing", nil, "", "does not exist; apply `kyyard manifest --name kyyard --namespace ns` first"},
		{"opaque", []runtime.Object{secret(corev1.SecretTypeOpaque, "kyyard", filled)}, "", `is of type "Opaque"`},
		{"other account", []runtime.Object{secret(corev1.SecretTypeServiceAccountToken, "other", filled)}, "", `ServiceAccount "other", not "kyyard"`},
		{"not filled", []runtime.Object{secret(corev1.SecretTypeServiceAccountToken, "kyyard", nil)}, "", "has no token yet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := kubetest.FakeClient(t, tc.objs...)
			got, err := c.ServiceAccountToken(context.Background(), "ns", "kyyard")
			if tc.want == "" {
				if err != nil || got.Token != tc.token || string(got.CA) != "PEM" || got.Namespace != "ns" || got.Name != "kyyard" {
					t.Fatalf("got %+v, %v", got, err)
				}
				return
			}
			if !errors.Is(err, kube.ErrNoToken) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrNoToken with %q", err, tc.want)
			}
		})
	}
}

// TestServiceAccountTokenForbidden: a caller who may not read the Secret
// gets the API server's forbidden, not ErrNoToken.
func TestServiceAccountTokenForbidden(t *testing.T) {
	c, cs := kubetest.FakeClient(t)
	cs.PrependReactor("get", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "kyyard-token", errors.New("no"))
	})
	_, err := c.ServiceAccountToken(context.Background(), "ns", "kyyard")
	if errors.Is(err, kube.ErrNoToken) || kube.ReasonOf(err) != kube.ReasonForbidden {
		t.Fatalf("err %v (reason %s), want forbidden", err, kube.ReasonOf(err))
	}
}
