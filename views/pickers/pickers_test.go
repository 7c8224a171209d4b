package pickers_test

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/pickers"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 60, 9

func namespaces(names ...string) []runtime.Object {
	out := make([]runtime.Object, len(names))
	for i, n := range names {
		out[i] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
	}
	return out
}

// forbidNamespaces makes the fake API server answer a list of namespaces
// with 403, as RBAC does for a user bound to one namespace.
func forbidNamespaces(action k8stesting.Action) (bool, runtime.Object, error) {
	return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "",
		errorf(`User "jane" cannot list resource "namespaces" in API group "" at the cluster scope`))
}

type textErr string

func (e textErr) Error() string { return string(e) }
func errorf(s string) error     { return textErr(s) }

// open returns a namespace picker for pods, currently in demo, with its
// list read.
func open(t *testing.T, forbidden bool) *pickers.Model {
	t.Helper()
	client, cs := kubetest.FakeClient(t, namespaces("default", "demo", "kube-system", "other")...)
	if forbidden {
		cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
		cs.PrependReactor("list", "namespaces", forbidNamespaces)
	}
	m := pickers.NewNamespaces(viewtest.Context(client, width, height), "pods", "demo")
	m.Update(m.Init()())
	return m
}

func press(m *pickers.Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(viewtest.Key(k))
	}
	return cmd
}

func typeText(m *pickers.Model, text string) {
	for _, r := range text {
		press(m, string(r))
	}
}

// picked runs the command enter returned and returns its message.
func picked(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	if cmd == nil {
		t.Fatal("enter returned no command")
	}
	return cmd()
}

func TestNamespacePickerListsWithCurrentMarked(t *testing.T) {
	m := open(t, false)
	if got, want := m.Choices(), []string{"", "default", "demo", "kube-system", "other"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("choices %q, want %q", got, want)
	}
	view := m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "namespaces-list", view)
	// The cursor starts on the current namespace: enter keeps it.
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "demo", Replace: true}) {
		t.Fatalf("enter picked %#v", msg)
	}
	if m.Title() != "namespace for pods" {
		t.Fatalf("title %q", m.Title())
	}
}

func TestNamespacePickerFilterNarrowsAndMoves(t *testing.T) {
	m := open(t, false)
	typeText(m, "de")
	if got, want := m.Choices(), []string{"default", "demo"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after typing de: choices %q, want %q", got, want)
	}
	view := m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "namespaces-filtered", view)
	press(m, "down", "down", "down") // stops at the last
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "demo", Replace: true}) {
		t.Fatalf("down+enter picked %#v", msg)
	}
	press(m, "up")
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "default", Replace: true}) {
		t.Fatalf("up+enter picked %#v", msg)
	}
	// Letters are filter text, not keys: j and k typed narrow the list.
	press(m, "j")
	if len(m.Choices()) != 0 || m.Filter() != "dej" {
		t.Fatalf("j was not typed: filter %q, choices %q", m.Filter(), m.Choices())
	}
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatalf("enter with nothing matching sent %#v", cmd())
	}
	if !strings.Contains(m.View(), `no namespace matches "dej"`) {
		t.Fatalf("no refusal shown:\n%s", m.View())
	}
}

func TestNamespacePickerAllNamespaces(t *testing.T) {
	m := open(t, false)
	typeText(m, "all")
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "", Replace: true}) {
		t.Fatalf("all namespaces picked %#v", msg)
	}
}

func TestPickerEscCancels(t *testing.T) {
	m := open(t, false)
	if msg := picked(t, press(m, "esc")); msg != (views.BackMsg{}) {
		t.Fatalf("esc sent %#v", msg)
	}
	if !m.Capturing() {
		t.Fatal("a picker must capture keys: letters are its filter's text")
	}
}

func TestNamespacePickerScrollsALongList(t *testing.T) {
	var names []string
	for i := 0; i < 30; i++ {
		names = append(names, "ns-"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	client, _ := kubetest.FakeClient(t, namespaces(names...)...)
	m := pickers.NewNamespaces(viewtest.Context(client, width, height), "pods", "")
	m.Update(m.Init()())
	press(m, "pgdown", "pgdown", "down")
	view := m.View()
	viewtest.Size(t, view, width, height)
	if !strings.Contains(view, "> ") {
		t.Fatalf("the cursor row is not drawn after paging:\n%s", view)
	}
	msg := picked(t, press(m, "enter"))
	// 1 line of input, 1 of hint: 7 rows a page; two pages and one down
	// from "all namespaces" is the 15th choice.
	if want := (views.OpenKindMsg{Kind: "pods", Namespace: m.Choices()[15], Replace: true}); msg != want {
		t.Fatalf("picked %#v, want %#v", msg, want)
	}
	press(m, "pgup", "pgup", "pgup")
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "", Replace: true}) {
		t.Fatalf("after paging up: picked %#v", msg)
	}
}

// TestNamespacePickerForbiddenTakesTypedName is casebook C13 for the
// picker: when namespaces cannot be listed it says why in one sentence and
// takes a typed, valid name.
func TestNamespacePickerForbiddenTakesTypedName(t *testing.T) {
	m := open(t, true)
	view := m.View()
	if !strings.Contains(strings.ReplaceAll(view, "\n", " "), "RBAC forbids it") {
		t.Fatalf("the picker does not say why namespaces are missing:\n%s", view)
	}
	typeText(m, "demo")
	view = m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "namespaces-forbidden-typed", view)
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "demo", Replace: true}) {
		t.Fatalf("enter with demo typed sent %#v", msg)
	}
}

func TestNamespacePickerRefusesInvalidNames(t *testing.T) {
	m := open(t, true)
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatalf("enter with nothing typed sent %#v", cmd())
	}
	typeText(m, "Demo_1")
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatalf("an invalid name was sent: %#v", cmd())
	}
	view := m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "namespaces-invalid", view)
	// Typing again clears the refusal.
	press(m, "x")
	if strings.Contains(m.View(), "not a valid namespace name") {
		t.Fatalf("the refusal outlived the next key:\n%s", m.View())
	}
}

// TestNamespacePickerTakesTypedNameWhileLoading: a person who knows where
// to go need not wait for the list.
func TestNamespacePickerTakesTypedNameWhileLoading(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m := pickers.NewNamespaces(viewtest.Context(client, width, height), "deployments", "demo")
	if !strings.Contains(m.View(), "Reading namespaces") {
		t.Fatalf("no loading notice:\n%s", m.View())
	}
	typeText(m, "other")
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "deployments", Namespace: "other", Replace: true}) {
		t.Fatalf("enter while loading sent %#v", msg)
	}
}

func TestContextPicker(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m := pickers.NewContexts(viewtest.Context(client, width, height), []string{"dev", "prod-eu", "prod-us", "staging"}, "prod-eu")
	if m.Init() != nil {
		t.Fatal("a context picker has nothing to read")
	}
	view := m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "contexts", view)
	if msg := picked(t, press(m, "enter")); msg != (views.SwitchContextMsg{Context: "prod-eu"}) {
		t.Fatalf("enter on the current context sent %#v", msg)
	}
	typeText(m, "PROD")
	if got := m.Choices(); !reflect.DeepEqual(got, []string{"prod-eu", "prod-us"}) {
		t.Fatalf("filter PROD: %q", got)
	}
	press(m, "down")
	if msg := picked(t, press(m, "enter")); msg != (views.SwitchContextMsg{Context: "prod-us"}) {
		t.Fatalf("picked %#v", msg)
	}
	typeText(m, "x")
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatalf("a context that is not listed was sent: %#v", cmd())
	}
	if !strings.Contains(m.View(), `no context matches "PRODx"`) {
		t.Fatalf("no refusal:\n%s", m.View())
	}
}

func TestContextPickerWithoutContexts(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m := pickers.NewContexts(viewtest.Context(client, width, height), nil, "")
	if !strings.Contains(m.View(), "names no context") {
		t.Fatalf("no notice:\n%s", m.View())
	}
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatalf("enter sent %#v", cmd())
	}
}

// TestPickerViewFitsAnySize: the view is exactly the size asked, however
// small.
func TestPickerViewFitsAnySize(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	for _, size := range [][2]int{{1, 1}, {10, 2}, {30, 4}, {200, 40}} {
		vc := viewtest.Context(client, size[0], size[1])
		p := pickers.NewContexts(vc, []string{"a", "b"}, "a")
		typeText(p, "a very long filter that does not fit")
		press(p, "enter")
		viewtest.Size(t, p.View(), size[0], size[1])
	}
}

// TestNamespacePickerTypedAllIsAllNamespaces: without a list, "all" typed
// is all namespaces, as `:pods all` is (found by a fresh-user trial: it
// opened a namespace named "all"), and the hint says that typing is a
// name, not a filter.
func TestNamespacePickerTypedAllIsAllNamespaces(t *testing.T) {
	for _, word := range []string{"all", "-A"} {
		m := open(t, true)
		if h := m.Hint(); !strings.HasPrefix(h, "type a namespace name") || !strings.Contains(h, "all: all namespaces") || strings.Contains(h, "filter") {
			t.Fatalf("hint without a list: %q", h)
		}
		typeText(m, word)
		if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "", Replace: true}) {
			t.Fatalf("%s typed: enter sent %#v, want all namespaces", word, msg)
		}
	}
	// While the list is read, too.
	client, _ := kubetest.FakeClient(t)
	m := pickers.NewNamespaces(viewtest.Context(client, width, height), "pods", "demo")
	typeText(m, "all")
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "", Replace: true}) {
		t.Fatalf("all typed while loading: enter sent %#v", msg)
	}
	// With a list, typing filters it.
	if h := open(t, false).Hint(); !strings.HasPrefix(h, "type to filter") {
		t.Fatalf("hint with a list: %q", h)
	}
}

// TestNarrowPlaceholderDoesNotLookTyped: at 20x7 the placeholder was cut
// to "namespace: t", which reads like a typed filter. Cut, it ends in
// "…"; with too little room it is left out.
func TestNarrowPlaceholderDoesNotLookTyped(t *testing.T) {
	client, _ := kubetest.FakeClient(t, namespaces("default", "demo")...)
	for _, tc := range []struct {
		width int
		want  string
	}{
		{20, "namespace: type to …"},
		{24, "namespace: type to filt…"},
		{25, "namespace: type to filter"},
		{14, "namespace:    "},
	} {
		m := pickers.NewNamespaces(viewtest.Context(client, tc.width, 7), "pods", "demo")
		m.Update(m.Init()())
		view := m.View()
		viewtest.Size(t, view, tc.width, 7)
		if tc.width == 20 {
			viewtest.Golden(t, "namespaces-narrow", view)
		}
		if first := strings.Split(view, "\n")[0]; first != tc.want {
			t.Errorf("at width %d the input line is %q, want %q", tc.width, first, tc.want)
		}
	}
}

// tab marks several contexts (kept across the filter), enter sends them
// all, in the list's order; one marked is a plain switch.
func TestContextPickerMarksSeveral(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m := pickers.NewContexts(viewtest.Context(client, width, height), []string{"dev", "prod-eu", "prod-us", "staging"}, "dev")
	press(m, "down", "tab") // prod-eu, the cursor on prod-us
	typeText(m, "us")
	press(m, "tab")
	view := m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "contexts-marked", view)
	msg, ok := press(m, "enter")().(views.ChooseContextsMsg)
	if !ok || !reflect.DeepEqual(msg.Contexts, []string{"prod-eu", "prod-us"}) {
		t.Fatalf("enter with two marked sent %#v", msg)
	}
	press(m, "tab") // unmark prod-us (the cursor stayed on it)
	if msg := picked(t, press(m, "enter")); msg != (views.SwitchContextMsg{Context: "prod-eu"}) {
		t.Fatalf("enter with one marked sent %#v", msg)
	}
}

// TestNamespacePickerMarksSeveral is issue 27's "marks in the namespace
// picker": tab marks namespaces, and enter with two marked opens the kind
// in both at once ("demo,other"); typed "other, demo" where the list cannot
// be read does the same; the namespaces of a screen of several are each
// marked current.
func TestNamespacePickerMarksSeveral(t *testing.T) {
	m := open(t, false)
	press(m, "tab") // demo (the cursor's, the current), the cursor on kube-system
	typeText(m, "oth")
	press(m, "tab")
	view := m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "namespaces-marked", view)
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "demo,other", Replace: true}) {
		t.Fatalf("enter with demo and other marked sent %#v", msg)
	}

	m = open(t, true)
	typeText(m, "other,demo")
	if msg := picked(t, press(m, "enter")); msg != (views.OpenKindMsg{Kind: "pods", Namespace: "demo,other", Replace: true}) {
		t.Fatalf("enter with other,demo typed sent %#v", msg)
	}
	m = open(t, true)
	typeText(m, "demo,,other")
	if cmd := press(m, "enter"); cmd != nil {
		t.Fatalf("a name missing between the commas was sent: %#v", cmd())
	}
	if !strings.Contains(strings.Join(strings.Fields(m.View()), " "), "missing between the commas") {
		t.Fatalf("no refusal of demo,,other:\n%s", m.View())
	}

	client, _ := kubetest.FakeClient(t, namespaces("default", "demo", "kube-system", "other")...)
	m = pickers.NewNamespaces(viewtest.Context(client, width, height), "pods", "demo,other")
	m.Update(m.Init()())
	view = m.View()
	viewtest.Golden(t, "namespaces-several-current", view)
	if strings.Count(view, "(current)") != 2 {
		t.Fatalf("demo and other are not both marked current:\n%s", view)
	}
}
