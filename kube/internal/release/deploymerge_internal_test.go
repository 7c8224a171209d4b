package release

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// pvc is a claim of class (nil: none), modes and size.
func pvc(class *string, size string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class, AccessModes: modes,
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}}}}
}

func TestClaimChange(t *testing.T) {
	fast, slow, empty := "fast", "slow", ""
	rwo, rwx := corev1.ReadWriteOnce, corev1.ReadWriteMany
	for _, tc := range []struct {
		name           string
		existing, plan *corev1.PersistentVolumeClaim
		want           string
	}{
		{"same", pvc(&fast, "1Gi", rwo), pvc(&fast, "1Gi", rwo), ""},
		{"planned default class takes any", pvc(&fast, "1Gi", rwo), pvc(nil, "1Gi", rwo), ""},
		{"planned empty class takes any", pvc(&fast, "1Gi", rwo), pvc(&empty, "1Gi", rwo), ""},
		{"same size in other units", pvc(nil, "1Gi", rwo), pvc(nil, "1024Mi", rwo), ""},
		{"modes as a set", pvc(nil, "1Gi", rwo, rwx), pvc(nil, "1Gi", rwx, rwo), ""},
		{"other class", pvc(&fast, "1Gi", rwo), pvc(&slow, "1Gi", rwo), `storage class "fast", planned "slow"`},
		{"class where none", pvc(nil, "1Gi", rwo), pvc(&slow, "1Gi", rwo), `storage class "", planned "slow"`},
		{"modes", pvc(nil, "1Gi", rwo), pvc(nil, "1Gi", rwx), "access modes ReadWriteOnce, planned ReadWriteMany"},
		{"shrink", pvc(nil, "2Gi", rwo), pvc(nil, "1Gi", rwo), "a claim never shrinks"},
		{"grow", pvc(nil, "1Gi", rwo), pvc(nil, "2Gi", rwo), "kyyard does not expand claims"},
	} {
		got := claimChange(tc.existing, tc.plan)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: claimChange = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestForUpdateKeepsWhatKyyardDoesNotRender(t *testing.T) {
	existing := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", ResourceVersion: "7", UID: "u1",
		Labels: map[string]string{"team": "blue", render.LabelInstance: "old"}, Annotations: map[string]string{"note": "x"}},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.9", Ports: []corev1.ServicePort{{Port: 80}}, Type: corev1.ServiceTypeClusterIP}}
	plan := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{render.LabelInstance: "shop"}},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 8080}}, Selector: map[string]string{"a": "b"}}}
	got := forUpdate(existing, plan).(*corev1.Service)
	if got.ResourceVersion != "7" || got.UID != "u1" || got.Spec.ClusterIP != "10.96.0.9" || got.Spec.Ports[0].Port != 8080 ||
		got.Labels["team"] != "blue" || got.Labels[render.LabelInstance] != "shop" || got.Annotations["note"] != "x" ||
		got.Spec.Type != corev1.ServiceTypeClusterIP || got.Spec.Selector["a"] != "b" {
		t.Errorf("forUpdate = %+v", got)
	}
	if existing.Spec.Ports[0].Port != 80 || existing.Labels[render.LabelInstance] != "old" {
		t.Error("forUpdate changed its input")
	}
	d := forUpdate(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "3"}, Spec: appsv1.DeploymentSpec{Paused: true}},
		&appsv1.Deployment{Spec: appsv1.DeploymentSpec{MinReadySeconds: 5}}).(*appsv1.Deployment)
	if d.ResourceVersion != "3" || d.Spec.Paused || d.Spec.MinReadySeconds != 5 {
		t.Errorf("Deployment forUpdate = %+v", d)
	}
	if forUpdate(&corev1.Service{}, &corev1.ConfigMap{}) != nil {
		t.Error("forUpdate of two kinds is not nil")
	}
}

func TestRecordRoundTripAndConflict(t *testing.T) {
	r := instanceRecord{version: "5", uid: "u", generation: 3, state: recordStateDeployed, request: []byte(`{"version":1}`),
		objects: []recordedObject{{Service: "web", Kind: kindDeployment, Name: "shop-web"}}}
	s := recordSecret("apps", "shop", r)
	if s.Name != "kyyard-app-shop" || s.Type != RecordType || s.Labels[RecordLabel] != "true" || s.ResourceVersion != "5" {
		t.Fatalf("recordSecret = %+v", s.ObjectMeta)
	}
	got := parseRecord(s, "shop")
	if !got.exists || !got.mine || got.generation != 3 || got.state != recordStateDeployed || string(got.request) != `{"version":1}` ||
		len(got.objects) != 1 || got.objects[0].Name != "shop-web" {
		t.Errorf("parseRecord = %+v", got)
	}
	if other := parseRecord(s, "cart"); other.mine {
		t.Error("another instance's record is mine")
	}
	for _, tc := range []struct {
		name  string
		fresh instanceRecord
		gen   int64
		want  bool
	}{
		{"none", instanceRecord{}, 0, false},
		{"same generation moved", instanceRecord{exists: true, mine: true, generation: 3}, 3, false},
		{"later deploy", instanceRecord{exists: true, mine: true, generation: 4, state: recordStateDeploying}, 3, true},
		{"a first deploy found one", instanceRecord{exists: true, mine: true, generation: 1}, 0, true},
		{"another instance's", instanceRecord{exists: true, generation: 0}, 3, true},
	} {
		if got := recordConflict(tc.fresh, "shop", tc.gen) != nil; got != tc.want {
			t.Errorf("%s: conflict %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDeploymentStatus(t *testing.T) {
	three := int32(3)
	underway := []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"}}
	for _, tc := range []struct {
		name        string
		d           appsv1.Deployment
		cannotStart string
		text        string
		health      vocab.Health
	}{
		{"available", appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{UpdatedReplicas: 3, AvailableReplicas: 3}}, "", "3/3 available", vocab.HealthOK},
		{"short", appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{UpdatedReplicas: 3, AvailableReplicas: 2}}, "", "2/3 available", vocab.HealthWarning},
		{"unobserved", appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, UpdatedReplicas: 3, AvailableReplicas: 3}}, "", "progressing", vocab.HealthProgressing},
		{"deadline", appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &three}, Status: appsv1.DeploymentStatus{
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}}}},
			"", "failed: ProgressDeadlineExceeded", vocab.HealthFailed},
		// Casebook C10: pods that cannot start, judged as the inventory does.
		{"C10 none available", appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, UpdatedReplicas: 3, Conditions: underway}},
			"CrashLoopBackOff", "failed: CrashLoopBackOff", vocab.HealthFailed},
		{"C10 some available", appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, UpdatedReplicas: 3, AvailableReplicas: 2, Conditions: underway}},
			"ImagePullBackOff", "2/3 available: ImagePullBackOff", vocab.HealthWarning},
		{"C10 short stays a warning", appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{UpdatedReplicas: 3, AvailableReplicas: 2}}, "CrashLoopBackOff", "2/3 available", vocab.HealthWarning},
		{"C10 available", appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &three},
			Status: appsv1.DeploymentStatus{UpdatedReplicas: 3, AvailableReplicas: 3}}, "CrashLoopBackOff", "3/3 available", vocab.HealthOK},
	} {
		text, h := deploymentStatus(&tc.d, tc.cannotStart)
		if text != tc.text || h != tc.health {
			t.Errorf("%s: %q %v, want %q %v", tc.name, text, h, tc.text, tc.health)
		}
	}
}

// FuzzParseRecord: any record Secret content parses without a panic, and
// a record written from what was parsed parses back the same.
func FuzzParseRecord(f *testing.F) {
	f.Add("3", "deployed", "2026-01-01T00:00:00Z", `[{"service":"web","kind":"Deployment","name":"shop-web"}]`, `{"version":1}`)
	f.Add("x", "", "yesterday", `{`, "")
	f.Fuzz(func(t *testing.T, gen, state, at, objects, request string) {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "kyyard-app-shop", ResourceVersion: "1", Labels: recordLabels("shop"),
			Annotations: map[string]string{recordGenerationAnnotation: gen, recordStateAnnotation: state, recordDeployedAtAnnotation: at}},
			Data: map[string][]byte{recordObjectsKey: []byte(objects), recordRequestKey: []byte(request)}}
		r := parseRecord(s, "shop")
		if !r.mine || !r.exists {
			t.Fatalf("parseRecord = %+v", r)
		}
		back := parseRecord(recordSecret("apps", "shop", r), "shop")
		if back.generation != r.generation || back.state != r.state || string(back.request) != string(r.request) || len(back.objects) != len(r.objects) {
			t.Fatalf("round trip %+v -> %+v", r, back)
		}
	})
}
