package objedit_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/kube/internal/objedit"
)

func configMap(data map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "web", "namespace": "demo", "resourceVersion": "7", "uid": "u1",
			"managedFields": []any{map[string]any{"manager": "kubectl"}}},
		"data": data,
	}
}

func secret(data map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": "db", "namespace": "demo", "resourceVersion": "9"},
		"data":     data,
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestShownLeavesOutManagedFieldsAndStatus(t *testing.T) {
	obj := configMap(map[string]any{"a": "1"})
	obj["status"] = map[string]any{"phase": "x"}
	text, err := objedit.Text(objedit.Shown(obj))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "managedFields") || strings.Contains(text, "status") || strings.Contains(text, "phase") {
		t.Errorf("shown text keeps managedFields or status:\n%s", text)
	}
	if !strings.Contains(text, "resourceVersion: \"7\"") {
		t.Errorf("shown text lost the resourceVersion (kubectl edit shows it):\n%s", text)
	}
	if _, ok := obj["status"]; !ok {
		t.Error("Shown changed its argument")
	}
}

func TestShownDecodesSecretTextValuesOnly(t *testing.T) {
	obj := secret(map[string]any{"user": b64("admin"), "pem": b64("line1\nline2\n"), "bin": b64("\x00\x01\xff")})
	shown := objedit.Shown(obj)
	text := shown["stringData"].(map[string]any)
	if text["user"] != "admin" || text["pem"] != "line1\nline2\n" {
		t.Errorf("text values not decoded into stringData: %v", text)
	}
	if data := shown["data"].(map[string]any); data["bin"] != b64("\x00\x01\xff") || len(data) != 1 {
		t.Errorf("binary value should stay base64 in data alone: %v", data)
	}
	// Back to stored form: the same data, byte for byte.
	stored := objedit.Stored(shown)
	got := stored["data"].(map[string]any)
	for k, v := range obj["data"].(map[string]any) {
		if got[k] != v {
			t.Errorf("data %s: %v, want %v", k, got[k], v)
		}
	}
	if _, ok := stored["stringData"]; ok {
		t.Error("Stored kept stringData")
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, text, err string
	}{
		{"one object", "# header\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n", ""},
		{"json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, ""},
		{"empty", "# only a comment\n\n", objedit.ErrEmpty.Error()},
		{"malformed", "apiVersion: v1\nkind: [ConfigMap\n", "not valid YAML"},
		{"two documents", "a: 1\n---\nb: 2\n", "holds 2 documents"},
		{"a list", "- a\n- b\n", "not valid YAML"},
		{"a scalar", "hello\n", "not valid YAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := objedit.Parse(c.text)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("Parse: %v, want %q", err, c.err)
			}
		})
	}
	if _, err := objedit.Parse(""); !errors.Is(err, objedit.ErrEmpty) {
		t.Errorf("empty text: %v, want ErrEmpty", err)
	}
}

func TestIdentityRefusesAnotherObject(t *testing.T) {
	orig := configMap(nil)
	for _, f := range []struct{ path, value string }{{"kind", "Secret"}, {"apiVersion", "v2"}, {"name", "other"}, {"namespace", "prod"}} {
		e := objedit.Shown(orig)
		switch f.path {
		case "name", "namespace":
			e["metadata"].(map[string]any)[f.path] = f.value
		default:
			e[f.path] = f.value
		}
		if err := objedit.Identity(orig, e); err == nil || !strings.Contains(err.Error(), "cannot be changed") {
			t.Errorf("%s changed: %v", f.path, err)
		}
	}
	if err := objedit.Identity(orig, objedit.Shown(orig)); err != nil {
		t.Errorf("unchanged: %v", err)
	}
}

func TestPatchOnlyWhatChangedWithPrecondition(t *testing.T) {
	orig := configMap(map[string]any{"a": "1", "b": "2"})
	edited := objedit.Shown(orig)
	edited["data"].(map[string]any)["a"] = "10"
	delete(edited["data"].(map[string]any), "b")
	edited["metadata"].(map[string]any)["resourceVersion"] = "999" // the person's edit of bookkeeping is not sent
	k := objedit.PatchKindOf(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	if k.Type != types.StrategicMergePatchType {
		t.Fatalf("ConfigMap patch kind %s, want strategic merge", k.Name())
	}
	body, changed, err := objedit.Patch(k, orig, edited, "7")
	if err != nil || !changed {
		t.Fatalf("Patch: %v %v", changed, err)
	}
	var got map[string]any
	_ = json.Unmarshal(body, &got)
	want := `{"data":{"a":"10","b":null},"metadata":{"resourceVersion":"7"}}`
	if string(body) != want {
		t.Errorf("patch %s, want %s", body, want)
	}
	if _, changed, _ := objedit.Patch(k, orig, objedit.Shown(orig), "7"); changed {
		t.Error("an unchanged object gave a patch")
	}
}

func TestPatchKindOfCustomResourceIsMerge(t *testing.T) {
	k := objedit.PatchKindOf(schema.GroupVersionKind{Group: "kyyard.test", Version: "v1", Kind: "Widget"})
	if k.Type != types.MergePatchType || k.Name() != "merge patch" {
		t.Errorf("custom resource patch kind %v", k)
	}
}

func TestPatchStrategicMergesContainersByName(t *testing.T) {
	dep := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "a", "image": "a:1"}, map[string]any{"name": "b", "image": "b:1"}}}}}}
	edited := objedit.Shown(dep)
	edited["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any)["image"] = "b:2"
	body, _, err := objedit.Patch(objedit.PatchKindOf(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}), dep, edited, "3")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"name":"b"`) || strings.Contains(string(body), `"a:1"`) {
		t.Errorf("strategic merge patch should name container b only: %s", body)
	}
}

func TestRebaseReappliesAndNamesCollisions(t *testing.T) {
	orig := objedit.Shown(configMap(map[string]any{"a": "1", "b": "2", "c": "3"}))
	mine := objedit.Shown(configMap(map[string]any{"a": "mine", "b": "2", "c": "same", "d": "new"}))
	freshObj := configMap(map[string]any{"a": "theirs", "b": "theirs", "c": "same"})
	freshObj["metadata"].(map[string]any)["resourceVersion"] = "8"
	fresh := objedit.Shown(freshObj)
	got, collisions, err := objedit.Rebase(orig, mine, fresh)
	if err != nil {
		t.Fatal(err)
	}
	data := got["data"].(map[string]any)
	if data["a"] != "theirs" || data["b"] != "theirs" || data["c"] != "same" || data["d"] != "new" {
		t.Errorf("rebased data %v", data)
	}
	if got["metadata"].(map[string]any)["resourceVersion"] != "8" {
		t.Errorf("rebased bookkeeping is not fresh's: %v", got["metadata"])
	}
	if len(collisions) != 1 || collisions[0].Field != ".data.a" || collisions[0].Mine != `"mine"` || collisions[0].Theirs != `"theirs"` {
		t.Errorf("collisions %+v", collisions)
	}
}

func TestRebaseHidesSecretValues(t *testing.T) {
	orig := objedit.Shown(secret(map[string]any{"pw": b64("one")}))
	mine := objedit.Shown(secret(map[string]any{"pw": b64("mine")}))
	fresh := objedit.Shown(secret(map[string]any{"pw": b64("theirs")}))
	_, collisions, err := objedit.Rebase(orig, mine, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if len(collisions) != 1 || collisions[0].Mine != "(hidden)" || collisions[0].Theirs != "(hidden)" {
		t.Errorf("secret collision shows a value: %+v", collisions)
	}
}

func TestRebaseRemovedByTheOtherWriter(t *testing.T) {
	orig := objedit.Shown(configMap(map[string]any{"a": "1"}))
	mine := objedit.Shown(configMap(map[string]any{"a": "2"}))
	fresh := objedit.Shown(configMap(map[string]any{}))
	_, collisions, err := objedit.Rebase(orig, mine, fresh)
	if err != nil {
		t.Fatal(err)
	}
	if len(collisions) != 1 || collisions[0].Theirs != "(removed)" {
		t.Errorf("collisions %+v", collisions)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
	f.Add("a: [1\n")
	f.Add("---\n---\n# c\n")
	f.Fuzz(func(t *testing.T, text string) {
		obj, err := objedit.Parse(text)
		if err == nil && obj == nil {
			t.Fatal("nil object without an error")
		}
	})
}

func TestStringsRefusesValuesYAMLReadAsOtherTypes(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: 0123\n", "stringData.password is not a string (YAML read it as the number 83)"},
		{"apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: yes\n", "the boolean true"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  size: 1.50\n", "data.size is not a string (YAML read it as the number 1.5)"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  list: [a, b]\n", "data.list is not a string (YAML read it as the list"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  ok: \"0123\"\n", ""},
		{"apiVersion: kyyard.test/v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  n: 1\n", ""},
	} {
		obj, err := objedit.Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		err = objedit.Strings(obj)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "quote")) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}
