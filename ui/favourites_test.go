package ui_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views/viewtest"
)

// pinnedKubeconfig is a kubeconfig whose configuration file pins
// favourite namespaces to context prod.
type pinnedKubeconfig struct {
	*clientsKubeconfig
	pinned []string
}

func (k pinnedKubeconfig) FavouriteNamespaces(context string) []string {
	if context == "prod" {
		return k.pinned
	}
	return nil
}

// TestNamespaceFavouritesKeys is issue 27's "namespace favourites one key
// away": on an inventory screen 0 shows all namespaces and 1–9 the
// namespaces used most recently (the one in use first), named in the
// header; a digit with no favourite says so; in the filter, digits are
// text.
func TestNamespaceFavouritesKeys(t *testing.T) {
	h := start(t)
	if header := h.m.View(); !strings.Contains(header, "ns: 0 all  1 demo") {
		t.Fatalf("the header does not name the favourites:\n%s", header)
	}
	h.command("pods other")
	viewtest.Golden(t, "root-favourites", h.m.View())
	if !strings.Contains(h.m.View(), "ns: 0 all  1 other  2 demo") {
		t.Fatalf("after :pods other:\n%s", h.m.View())
	}
	h.runKey(h.keys("2"))
	if got := h.title(); got != "pods(demo)[1]" || !strings.Contains(h.m.View(), "1 demo  2 other") {
		t.Fatalf("2: title %q\n%s", got, h.m.View())
	}
	h.runKey(h.keys("0"))
	if got := h.title(); got != "pods(all)[2]" || !strings.Contains(h.m.View(), "1 demo  2 other") {
		t.Fatalf("0: title %q\n%s", got, h.m.View())
	}
	h.runKey(h.keys("7"))
	if status := h.promptLine(); !strings.Contains(status, "7: no such key here") || h.title() != "pods(all)[2]" {
		t.Fatalf("7 with two favourites: status %q, title %q", status, h.title())
	}
	h.runKey(h.keys("/"))
	h.typeText("1")
	if got := h.title(); !strings.HasPrefix(got, "pods(all)") {
		t.Fatalf("1 typed in the filter switched the namespace: title %q", got)
	}
}

// TestPinnedFavouritesComeFirst: the namespaces the configuration file
// pins to the context take keys 1, 2, … (several joined by commas open
// together), before the one in use.
func TestPinnedFavouritesComeFirst(t *testing.T) {
	k := pinnedKubeconfig{clientsKubeconfig: newClientsKubeconfig(t, "prod", "dev", "prod"), pinned: []string{"other", "other,demo"}}
	h := startWith(t, k.clients["prod"], "demo", 120, 20, ui.WithKubeconfig(k))
	if view := h.m.View(); !strings.Contains(view, "ns: 0 all  1 other  2 demo,other  3 demo") {
		t.Fatalf("pinned favourites not first:\n%s", view)
	}
	h.runKey(h.keys("2"))
	if got := h.title(); got != "pods(demo,other)[2]" {
		t.Fatalf("2 (pinned demo,other): title %q\n%s", got, h.m.View())
	}
}
