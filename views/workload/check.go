package workload

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube"
)

// validate recomputes the errors and changed markers of the fields of
// container c (-1: replicas and paused; -2: every field), with kube's
// validation rules, as the person types.
func (f *form) validate(c int) {
	var resErrs map[int]map[fieldKind]string
	if c == -2 {
		resErrs = map[int]map[fieldKind]string{}
	}
	dups := map[int]map[string]bool{}
	f.written = f.changes()
	for i := range f.fields {
		fd := &f.fields[i]
		if c != -2 && fd.c != c {
			continue
		}
		fd.err, fd.changed = "", f.isChanged(fd)
		var err error
		switch fd.kind {
		case fkReplicas:
			_, err = kube.ParseReplicas(f.replicas)
		case fkImage:
			err = kube.ValidateImage(f.ctrs[fd.c].image)
		case fkEnvName:
			name := f.ctrs[fd.c].env[fd.i].Name
			err = kube.ValidateEnvName(name)
			if err == nil {
				if dups[fd.c] == nil {
					dups[fd.c] = f.newDuplicates(fd.c)
				}
				if dups[fd.c][name] {
					fd.err = "duplicate name " + name
				}
			}
		case fkEnvRef:
			err = kube.ValidateRefName(f.ctrs[fd.c].env[fd.i].Ref)
		case fkEnvKey:
			err = kube.ValidateRefKey(f.ctrs[fd.c].env[fd.i].Key)
		case fkEnvFieldPath:
			e := f.ctrs[fd.c].env[fd.i]
			if err = kube.ValidateFieldPath(e.FieldPath); err == nil {
				err = kube.ValidateFieldAPIVersion(e.APIVersion)
			}
		case fkEnvResource:
			err = kube.ValidateResourceName(f.ctrs[fd.c].env[fd.i].Resource)
		case fkEnvContainer:
			err = kube.ValidateEnvContainer(f.base, f.ctrs[fd.c].env[fd.i].ContainerName)
		case fkEnvDivisor:
			e := f.ctrs[fd.c].env[fd.i]
			err = kube.ValidateDivisor(e.Resource, e.Divisor)
		case fkCPURequest, fkCPULimit, fkMemRequest, fkMemLimit:
			if resErrs == nil {
				resErrs = map[int]map[fieldKind]string{}
			}
			if resErrs[fd.c] == nil {
				resErrs[fd.c] = resourceErrors(f.ctrs[fd.c].res)
			}
			fd.err = resErrs[fd.c][fd.kind]
		}
		if err != nil {
			fd.err = err.Error()
		}
	}
}

// resourceErrors maps kube.ValidateResources' answer to the four fields.
func resourceErrors(r kube.Resources) map[fieldKind]string {
	out := map[fieldKind]string{}
	kinds := map[string]fieldKind{"cpu request": fkCPURequest, "cpu limit": fkCPULimit,
		"memory request": fkMemRequest, "memory limit": fkMemLimit}
	for _, fe := range kube.ValidateResources(r) {
		if k, ok := kinds[fe.Field]; ok && out[k] == "" {
			out[k] = fe.Message
		}
	}
	return out
}

// newDuplicates returns the env names container c now carries more often
// than it did when read: a duplicate the form introduced is refused, one
// the object already had is not (casebook C20).
func (f *form) newDuplicates(c int) map[string]bool {
	had, has := map[string]int{}, map[string]int{}
	for _, e := range f.baseContainer(c).Env {
		had[e.Name]++
	}
	for _, r := range f.ctrs[c].env {
		has[r.Name]++
	}
	out := map[string]bool{}
	for n, k := range has {
		if k > 1 && k > had[n] {
			out[n] = true
		}
	}
	return out
}

// baseContainer is container c as read.
func (f *form) baseContainer(c int) kube.Container {
	if c < 0 || c >= len(f.base.Containers) {
		return kube.Container{}
	}
	return f.base.Containers[c]
}

// changes lists what an apply of the form would write, as the preview
// lists it: kube.Changes between the workload read and the form's
// (quantities by value, an env entry or a command or args list one change
// each).
func (f *form) changes() []kube.Change {
	return kube.Changes(f.base, f.workload())
}

// writes reports whether f.written holds a change of the field named name
// in container (kube.Change's vocabulary; "" for replicas and paused).
func (f *form) writes(container, name string) bool {
	return slices.ContainsFunc(f.written, func(c kube.Change) bool { return c.Container == container && c.Field == name })
}

// badReplicas reports whether the replicas text is not a number and not
// what was read: it cannot be written (the field says why), yet it is an
// edit.
func (f *form) badReplicas() bool {
	_, err := kube.ParseReplicas(f.replicas)
	return err != nil && f.replicas != strconv.Itoa(int(f.base.Replicas))
}

// isChanged reports whether a field is part of what an apply would write
// (f.written, from kube.Changes): the form marks it *. A list field (a
// command or args line) is marked when its list is written and the line
// differs from the one read at its place; an env cell when its own part
// of the entry differs from the entry it was read as (a Secret's name
// edited marks that name, not its key).
func (f *form) isChanged(fd *field) bool {
	if fd.c < 0 {
		if fd.kind == fkPaused {
			return f.writes("", "paused")
		}
		return f.writes("", "replicas") || f.badReplicas()
	}
	st, bc := &f.ctrs[fd.c], f.baseContainer(fd.c)
	container, name := f.fieldName(fd)
	switch fd.kind {
	case fkImage, fkCPURequest, fkCPULimit, fkMemRequest, fkMemLimit, fkNoCommand, fkNoArgs:
		return f.writes(container, name)
	case fkCommand:
		return f.writes(container, name) && (fd.i >= len(bc.Command) || st.command[fd.i] != bc.Command[fd.i])
	case fkArgs:
		return f.writes(container, name) && (fd.i >= len(bc.Args) || st.args[fd.i] != bc.Args[fd.i])
	case fkNoEnv:
		return len(bc.Env) > 0
	}
	r := st.env[fd.i]
	if r.orig < 0 || r.orig >= len(bc.Env) {
		return true
	}
	a, b := normal(r.EnvVar), normal(bc.Env[r.orig])
	switch fd.kind {
	case fkEnvName:
		return a.Name != b.Name
	case fkEnvValue:
		return a.Source != b.Source || a.Value != b.Value
	case fkEnvRef:
		return a.Source != b.Source || a.Ref != b.Ref
	case fkEnvKey:
		return a.Key != b.Key
	case fkEnvOptional:
		return a.Optional != b.Optional
	case fkEnvFieldPath:
		return a.Source != b.Source || a.FieldPath != b.FieldPath
	case fkEnvResource:
		return a.Source != b.Source || a.Resource != b.Resource
	case fkEnvContainer:
		return a.ContainerName != b.ContainerName
	case fkEnvDivisor:
		return !kube.SameQuantity(a.Divisor, b.Divisor)
	}
	return false
}

// errorCount is how many fields cannot be sent as they are.
func (f *form) errorCount() int {
	n := 0
	for i := range f.fields {
		if f.fields[i].err != "" {
			n++
		}
	}
	return n
}

// changeCount is how many changes the preview would list (kube.Changes:
// replicas, paused, per container its image, command, args, each
// quantity and each env entry added, changed, renamed or removed), and
// replicas that are not a number yet.
func (f *form) changeCount() int {
	n := len(f.written)
	if f.badReplicas() {
		n++
	}
	return n
}

// fieldName names a field in kube.Change's vocabulary, with its container.
func (f *form) fieldName(fd *field) (container, name string) {
	if fd.c < 0 {
		if fd.kind == fkPaused {
			return "", "paused"
		}
		return "", "replicas"
	}
	container = f.baseContainer(fd.c).Name
	switch fd.kind {
	case fkImage:
		return container, "image"
	case fkCommand, fkNoCommand:
		return container, "command"
	case fkArgs, fkNoArgs:
		return container, "args"
	case fkCPURequest:
		return container, "cpu request"
	case fkCPULimit:
		return container, "cpu limit"
	case fkMemRequest:
		return container, "memory request"
	case fkMemLimit:
		return container, "memory limit"
	case fkNoEnv:
		return container, "env"
	}
	return container, "env " + f.ctrs[fd.c].env[fd.i].Name
}

// fieldLabel names a field for a message: "image", "env LOG_LEVEL value",
// with its container when the workload has more than one.
func (f *form) fieldLabel(fd *field) string {
	container, name := f.fieldName(fd)
	switch fd.kind {
	case fkEnvName:
		name += " name"
	case fkEnvValue:
		name += " value"
	case fkEnvRef:
		name += " reference"
	case fkEnvKey:
		name += " key"
	case fkEnvFieldPath:
		name += " field path"
	case fkEnvResource:
		name += " resource"
	case fkEnvContainer:
		name += " container"
	case fkEnvDivisor:
		name += " divisor"
	}
	if container != "" && len(f.base.Containers) > 1 {
		name = "container " + container + " " + name
	}
	return name
}

// firstError is the first field that cannot be sent, as "image: <reason>";
// "" when there is none.
func (f *form) firstError() string {
	for i := range f.fields {
		if fd := &f.fields[i]; fd.err != "" {
			return f.fieldLabel(fd) + ": " + fd.err
		}
	}
	return ""
}

// clashKey is the key of form.clashes.
func clashKey(container, field string) string { return container + "\x00" + field }

// same reports whether after differs from before in nothing an apply
// would write: kube.Changes lists nothing (casebook C34: then nothing is
// sent).
func same(before, after kube.Workload) bool {
	return len(kube.Changes(before, after)) == 0
}

// lay returns onto with every field the form edits that differs between
// from and to set to to's value, and the fields it set. Undo lays the
// values before an apply onto the object it returned: the template's
// images, command and args, env and resources, and replicas. Paused is
// never laid: an undo that paused the Deployment again would not roll
// out. Containers are matched by name.
func lay(onto, from, to kube.Workload) (kube.Workload, []kube.Change) {
	out := onto
	out.Containers = slices.Clone(onto.Containers)
	var set []kube.Change
	if from.Replicas != to.Replicas && out.HasReplicas {
		set = append(set, kube.Change{Field: "replicas", Before: strconv.Itoa(int(out.Replicas)), After: strconv.Itoa(int(to.Replicas))})
		out.Replicas = to.Replicas
	}
	for i := range out.Containers {
		o := &out.Containers[i]
		f, okf := from.Container(o.Name)
		t, okt := to.Container(o.Name)
		if !okf || !okt || o.ReadOnly {
			continue
		}
		str := func(field string, dst *string, fv, tv string) {
			if fv != tv {
				set = append(set, kube.Change{Container: o.Name, Field: field, Before: *dst, After: tv})
				*dst = tv
			}
		}
		str("image", &o.Image, f.Image, t.Image)
		str("cpu request", &o.Resources.CPURequest, f.Resources.CPURequest, t.Resources.CPURequest)
		str("cpu limit", &o.Resources.CPULimit, f.Resources.CPULimit, t.Resources.CPULimit)
		str("memory request", &o.Resources.MemoryRequest, f.Resources.MemoryRequest, t.Resources.MemoryRequest)
		str("memory limit", &o.Resources.MemoryLimit, f.Resources.MemoryLimit, t.Resources.MemoryLimit)
		if !slices.Equal(f.Command, t.Command) {
			set = append(set, kube.Change{Container: o.Name, Field: "command"})
			o.Command = slices.Clone(t.Command)
		}
		if !slices.Equal(f.Args, t.Args) {
			set = append(set, kube.Change{Container: o.Name, Field: "args"})
			o.Args = slices.Clone(t.Args)
		}
		if !slices.Equal(f.Env, t.Env) {
			set = append(set, kube.Change{Container: o.Name, Field: "env"})
			o.Env = layEnv(o.Env, f.Env, t.Env)
		}
	}
	return out, set
}

// layEnv returns to's env entries numbered (EnvVar.Read) as onto's, whose
// entries stand where from's do (onto is from as the API server returned
// it): an entry of to that from carries takes the number of onto's entry
// at that place; one from does not carry is new (0).
func layEnv(onto, from, to []kube.EnvVar) []kube.EnvVar {
	out := slices.Clone(to)
	for i, t := range out {
		at := -1
		if t.Read != 0 {
			at = slices.IndexFunc(from, func(e kube.EnvVar) bool { return e.Read == t.Read })
		}
		out[i].Read = 0
		if at >= 0 && at < len(onto) {
			out[i].Read = onto[at].Read
		}
	}
	return out
}

// restore sets the field a clash names back to the person's value in
// merged (kube.Rebase keeps the server's): the form keeps every edit, and
// the clash is marked beside it. An env entry the person changed, renamed
// or added takes the place of the server's entry of that name (appended
// when the server removed it); an entry the person removed stays as the
// server has it (there is no typed value to keep), and so does every entry
// of a list with duplicate names (Rebase cannot match those by name). It
// reports whether the person's value was put back.
func restore(merged *kube.Workload, base, edited kube.Workload, c kube.Change) bool {
	switch c.Field {
	case "replicas":
		merged.Replicas = edited.Replicas
		return true
	case "paused":
		merged.Paused = edited.Paused
		return true
	}
	e, ok := edited.Container(c.Container)
	at := slices.IndexFunc(merged.Containers, func(x kube.Container) bool { return x.Name == c.Container })
	if !ok || at < 0 {
		return false
	}
	m := &merged.Containers[at]
	switch c.Field {
	case "image":
		m.Image = e.Image
	case "command":
		m.Command = slices.Clone(e.Command)
	case "args":
		m.Args = slices.Clone(e.Args)
	case "cpu request":
		m.Resources.CPURequest = e.Resources.CPURequest
	case "cpu limit":
		m.Resources.CPULimit = e.Resources.CPULimit
	case "memory request":
		m.Resources.MemoryRequest = e.Resources.MemoryRequest
	case "memory limit":
		m.Resources.MemoryLimit = e.Resources.MemoryLimit
	default:
		b, _ := base.Container(c.Container)
		return restoreEnv(m, b.Env, e.Env, c)
	}
	return true
}

// restoreEnv puts the person's env entry a clash names back into m's env
// (see restore); base and edited are the container's env as read and as
// the person left it.
func restoreEnv(m *kube.Container, base, edited []kube.EnvVar, c kube.Change) bool {
	name, ok := strings.CutPrefix(c.Field, "env ")
	if !ok || c.After == "(removed)" || c.Before == "(env changed on the server)" {
		return false
	}
	i := slices.IndexFunc(edited, func(e kube.EnvVar) bool { return e.Name == name && kube.EnvChangeText(e) == c.After })
	if i < 0 {
		return false
	}
	a := edited[i]
	// The server's entry it stands for: the one of the name it was read
	// with (Rebase matches entries by name), else the one of its own name.
	was := name
	if a.Read != 0 {
		if j := slices.IndexFunc(base, func(b kube.EnvVar) bool { return b.Read == a.Read }); j >= 0 {
			was = base[j].Name
		}
	}
	at := slices.IndexFunc(m.Env, func(e kube.EnvVar) bool { return e.Name == was })
	if at < 0 {
		at = slices.IndexFunc(m.Env, func(e kube.EnvVar) bool { return e.Name == name })
	}
	m.Env = slices.Clone(m.Env)
	if at < 0 {
		a.Read = 0
		m.Env = append(m.Env, a)
		return true
	}
	a.Read = m.Env[at].Read
	m.Env[at] = a
	return true
}
