package kube

import (
	"context"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/internal/objedit"
)

// SecretValue is one key of a Secret, decoded.
type SecretValue struct {
	// Key is the data key.
	Key string
	// Value is the decoded value (data's bytes: the API server decodes the
	// base64 of the wire).
	Value []byte
	// Text says the value reads as text (valid UTF-8 without control
	// characters but tab, newline and carriage return); a screen shows
	// other values as base64.
	Text bool
}

// SecretData is a Secret's values, read fresh for the decoded view: never
// cached, never written to a log or the history.
type SecretData struct {
	// Ref names the Secret (Kind "secrets"), with its UID and
	// resourceVersion.
	Ref ObjectRef
	// Type is the Secret's type ("Opaque", "kubernetes.io/tls").
	Type string
	// Values are its keys in order, decoded.
	Values []SecretValue
}

// SecretValues reads the Secret namespace/name fresh (one get: kyyard's
// caches never hold a Secret's values) and returns its values decoded,
// keys sorted. Errors: the API server's (forbidden: the read-only
// manifest grants no read of Secrets; not_found; unavailable).
func (c *Client) SecretValues(ctx context.Context, namespace, name string) (*SecretData, error) {
	s, err := c.cs.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	out := &SecretData{Ref: ObjectRef{Kind: "secrets", Namespace: s.Namespace, Name: s.Name, UID: string(s.UID), ResourceVersion: s.ResourceVersion},
		Type: string(s.Type)}
	for k, v := range s.Data {
		out.Values = append(out.Values, SecretValue{Key: k, Value: v, Text: objedit.IsText(v)})
	}
	sort.Slice(out.Values, func(i, j int) bool { return out.Values[i].Key < out.Values[j].Key })
	return out, nil
}
