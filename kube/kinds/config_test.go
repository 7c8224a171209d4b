package kinds_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/kube/kinds"
)

func TestConfigMapRow(t *testing.T) {
	tests := []struct {
		name   string
		data   map[string]string
		binary map[string][]byte
		want   string
	}{
		{"empty", nil, nil, "0"},
		{"data and binaryData count together", map[string]string{"a": "1", "b": "2"}, map[string][]byte{"c": {0}}, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: demoMeta("cfg"), Data: tt.data, BinaryData: tt.binary}
			equal(t, texts(kinds.ConfigMapRow(cm)), []string{"cfg", tt.want, "90m"})
		})
	}
}

// TestSecretRowCountsKeysOnly: DATA counts the keys of data, whether or
// not the cache has stripped the values (it keeps the keys, with nil
// values); stringData is write-only and does not count. No cell holds a value.
func TestSecretRowCountsKeysOnly(t *testing.T) {
	tests := []struct {
		name   string
		secret *corev1.Secret
		cells  []string
	}{
		{"with values", &corev1.Secret{ObjectMeta: demoMeta("creds"), Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"user": []byte("admin"), "password": []byte("hunter2")}}, []string{"creds", "Opaque", "2", "90m"}},
		{"values stripped", &corev1.Secret{ObjectMeta: demoMeta("creds"), Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"user": nil, "password": nil}}, []string{"creds", "Opaque", "2", "90m"}},
		// kubectl converts to the internal Secret first, which merges
		// stringData into data (hack/oracle found it).
		{"stringData only", &corev1.Secret{ObjectMeta: demoMeta("tok"), Type: corev1.SecretTypeServiceAccountToken,
			StringData: map[string]string{"token": "x"}}, []string{"tok", "kubernetes.io/service-account-token", "1", "90m"}},
		{"stringData repeating a data key", &corev1.Secret{ObjectMeta: demoMeta("tok"), Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"token": nil}, StringData: map[string]string{"token": "x", "ca": "y"}}, []string{"tok", "Opaque", "2", "90m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := kinds.SecretRow(tt.secret)
			equal(t, texts(row), tt.cells)
			for _, c := range texts(row) {
				if c == "admin" || c == "hunter2" {
					t.Errorf("a cell holds a secret value: %q", texts(row))
				}
			}
		})
	}
}

func TestServiceAccountRow(t *testing.T) {
	sa := &corev1.ServiceAccount{ObjectMeta: demoMeta("viewer")}
	row := kinds.ServiceAccountRow(sa)
	equal(t, texts(row), []string{"viewer", "90m"})
	if row.UID != "uid-viewer" || row.Namespace != "demo" || !row.Created.Equal(created) {
		t.Errorf("identity %+v", row)
	}
}
