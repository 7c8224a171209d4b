package kubetest

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	metadatafake "k8s.io/client-go/metadata/fake"
)

// FakeMetadata returns client-go's fake metadata-only client holding the
// metadata (a PartialObjectMetadata with the object's apiVersion and kind)
// of each of objs, typed objects of client-go's scheme: what kube's
// actions on any kind read and delete through in unit tests. Objects the
// scheme does not know are left out. Its tracker is its own: a delete
// through it does not reach a fake clientset made from the same objects.
func FakeMetadata(objs ...runtime.Object) *metadatafake.FakeMetadataClient {
	s := metadatafake.NewTestScheme()
	metav1.AddMetaToScheme(s)
	var partial []runtime.Object
	for _, obj := range objs {
		gvks, _, err := scheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 {
			continue
		}
		raw, err := json.Marshal(obj)
		m := &metav1.PartialObjectMetadata{}
		if err != nil || json.Unmarshal(raw, m) != nil {
			continue
		}
		m.APIVersion, m.Kind = gvks[0].GroupVersion().String(), gvks[0].Kind
		partial = append(partial, m)
	}
	return metadatafake.NewSimpleMetadataClient(s, partial...)
}
