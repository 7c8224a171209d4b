package yamledit

import (
	"fmt"
	"strings"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// header is what stands above the text: in the editor's file as comments,
// above the text area as lines. The problem (an error, a conflict) comes
// first.
func (m *Model) header() []string {
	out := append([]string(nil), m.problem...)
	if m.edit == nil {
		return out
	}
	r := m.edit.Ref
	out = append(out,
		fmt.Sprintf("Editing %s (resourceVersion %s) with kyyard; it is sent as a %s of what you change.", r, r.ResourceVersion, m.edit.Patch),
		"Save and quit to preview it (a server dry run and its diff): nothing is written before you confirm.",
		"Lines starting with '#' are ignored; an empty file cancels the edit. managedFields and status are left out.")
	if m.edit.Secret {
		out = append(out, "This Secret's values are shown decoded under stringData (values that are not text stay base64 under data);",
			"this file is readable by you alone (mode 0600) and is removed as soon as the editor ends.")
	}
	return out
}

// areaHeader is what stands above the text area, one line each (cut to
// the width): the problem, then what the keys do.
func (m *Model) areaHeader() []string {
	out := append([]string(nil), m.problem...)
	if m.edit == nil {
		return out
	}
	out = append(out, fmt.Sprintf("Editing %s (resourceVersion %s), sent as a %s of what you change.", m.edit.Ref, m.edit.Ref.ResourceVersion, m.edit.Patch),
		views.FirstKey(m.keys.Preview)+" previews it (a server dry run and its diff): nothing is written before you confirm. managedFields and status are left out.")
	if m.edit.Secret {
		out = append(out, "This Secret's values are shown decoded under stringData; they are never written anywhere but the API server.")
	}
	return out
}

// View draws the phase.
func (m *Model) View() string {
	st, k := m.vc.Styles, m.keys
	w, h := m.vc.Width, m.vc.Height
	switch m.phase {
	case phaseOpening:
		return views.Page(st, w, h, []string{"reading " + m.ref().String() + " …"}, views.Hint("back once read", k.Discard), &m.offset)
	case phasePlanning:
		return views.Page(st, w, h, []string{"dry run of the edit of " + m.ref().String() + " …"}, "waiting for the API server", &m.offset)
	case phaseApplying:
		return views.Page(st, w, h, []string{"applying the edit of " + m.ref().String() + " …"}, "waiting for the API server", &m.offset)
	case phaseHeld:
		body := append(ProblemLines(st, m.problem), "", "your text is kept: "+views.Hint("edits it again", k.Edit)+"; "+views.Hint("twice discards it", k.Discard))
		return views.Page(st, w, h, body, views.Hints(views.Hint("edit again", k.Edit), views.Hint("discard (twice)", k.Discard)), &m.offset)
	case phaseEditing:
		if m.hand != nil {
			return views.Page(st, w, h, []string{"editing " + m.ref().String() + " in your editor …"}, "save and quit the editor to preview", &m.offset)
		}
		return m.area.View(st, w, h, m.areaHeader(), len(m.problem))
	}
	return views.Page(st, w, h, m.previewLines(), m.previewHelp(), &m.offset)
}

// maxDiffLine is the longest diff line shown whole (runes): a huge value
// would wrap into thousands of rows.
const maxDiffLine = 400

// cutLine is l, cut at maxDiffLine runes with what was left out counted.
func cutLine(l string) string {
	r := []rune(l)
	if len(r) <= maxDiffLine {
		return l
	}
	return string(r[:maxDiffLine]) + fmt.Sprintf("… (%s more)", kube.Plural(len(r)-maxDiffLine, "character"))
}

// previewLines are the plan's verdicts, diff and patch, and what is asked.
func (m *Model) previewLines() []string {
	st, p := m.vc.Styles, m.plan
	out := []string{fmt.Sprintf("edit %s · %s · resourceVersion %s", m.edit.Ref, m.edit.Patch, m.edit.Ref.ResourceVersion)}
	for _, v := range p.Verdicts {
		out = append(out, "  "+views.VerdictLine(st, v))
	}
	out = append(out, "")
	switch {
	case p.Verdicts.Refusal() != nil:
		out = append(out, st.Error.Render("refused: nothing sent"))
		return out
	case p.Diff == "":
		out = append(out, "the server's result is the live object: the change makes no difference (a default, or a value already set)")
	default:
		out = append(out, "diff of the live object against the server's dry run:")
		for _, l := range strings.Split(strings.TrimRight(p.Diff, "\n"), "\n") {
			l = views.Sanitize(cutLine(l))
			switch {
			case strings.HasPrefix(l, "+"), strings.HasPrefix(l, "-"):
				out = append(out, l)
			default:
				out = append(out, st.Muted.Render(l))
			}
		}
	}
	if m.showPatch {
		out = append(out, "", "patch sent ("+m.edit.Patch+"):")
		if p.PatchBody == "" {
			out = append(out, st.Muted.Render("(a Secret's patch carries its values: not shown)"))
		} else {
			out = append(out, views.Sanitize(p.PatchBody))
		}
	}
	out = append(out, "")
	if i, text := m.confirm.Pending(); i >= 0 {
		out = append(out, fmt.Sprintf("type %q to confirm: [%s]", text, m.confirm.Input(i)))
		if n := m.confirm.Note(); n != "" {
			out = append(out, st.Error.Render(n))
		}
		return out
	}
	ask := fmt.Sprintf("apply this edit to %s?", m.edit.Ref)
	if ks := views.HintAll("", m.keys.Apply); ks != "" {
		ask += " " + strings.TrimSpace(ks)
	}
	out = append(out, st.Error.Render(ask))
	return out
}

// previewHelp is the preview's help line.
func (m *Model) previewHelp() string {
	k := m.keys
	again, discard := views.Hint("edit again", k.Edit), views.Hint("discard (twice)", k.Discard)
	switch {
	case m.confirm.Typing():
		return "enter take the text · esc stop typing"
	case m.plan.Verdicts.Refusal() != nil:
		return views.Hints(again, discard)
	}
	return views.Hints(views.HintAll("apply", k.Apply), again, views.Hint("patch", k.Patch), views.Hint("scroll", k.Up, k.Down), discard)
}
