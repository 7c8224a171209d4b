package deploy

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"

	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
)

// secretRow is one secret value: a name and a value typed masked.
type secretRow struct{ name, value *textinput.Model }

// volumeRow is one claim: name, mount path, size, storage class.
type volumeRow struct{ name, mount, size, class *textinput.Model }

// service is one service's part of the form.
type service struct {
	name, image, ports, replicas            *textinput.Model
	cpuReq, cpuLim, memReq, memLim, cfgPath *textinput.Model
	env, cfg                                *textarea.Model
	secrets                                 []secretRow
	volumes                                 []volumeRow
}

// form is the deploy form's inputs. Its request is parsed from them on
// every change (request).
type form struct {
	st                  views.Styles
	instance, namespace *textinput.Model
	// fixed says instance and namespace cannot change (an instance's form
	// filled from its record).
	fixed bool
	svcs  []*service
}

// filled reports whether anything was typed in the service: a field
// not empty, replicas other than 1, a secret or volume row.
func (s *service) filled() bool {
	for _, in := range []*textinput.Model{s.name, s.image, s.ports, s.cpuReq, s.cpuLim, s.memReq, s.memLim, s.cfgPath} {
		if strings.TrimSpace(in.Value()) != "" {
			return true
		}
	}
	if r := strings.TrimSpace(s.replicas.Value()); r != "" && r != "1" {
		return true
	}
	return strings.TrimSpace(s.env.Value()) != "" || s.cfg.Value() != "" || len(s.secrets) > 0 || len(s.volumes) > 0
}

// fieldKind is what a field is.
type fieldKind int

const (
	kindInput fieldKind = iota
	kindArea
	kindPlaceholder // "secrets: ctrl+n adds one": a place the cursor can be
)

// field is one focusable place of the form, in tab order.
type field struct {
	kind  fieldKind
	in    *textinput.Model
	area  *textarea.Model
	path  string // the render.FieldError path it answers for
	svc   int    // the service, -1 for instance and namespace
	list  string // "secrets" or "volumes" for a row's inputs and placeholders
	row   int    // the row of a list
	label string // for messages
}

// newInput makes a single-line input of width w holding v.
func (f *form) newInput(v string, w int, placeholder string) *textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.Placeholder = placeholder
	in.PlaceholderStyle = f.st.Muted
	in.TextStyle = f.st.Prompt
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Width = w
	in.SetValue(v)
	return &in
}

// newArea makes a multi-line input holding v.
func (f *form) newArea(v, placeholder string) *textarea.Model {
	a := textarea.New()
	a.ShowLineNumbers = false
	a.Prompt = "│ "
	a.Placeholder = placeholder
	a.CharLimit = 0
	a.Cursor.SetMode(cursor.CursorStatic)
	a.SetWidth(50)
	a.SetHeight(3)
	a.SetValue(v)
	return &a
}

// newService makes a service's inputs filled from s.
func (f *form) newService(s render.Service) *service {
	r := s.Resources
	sv := &service{
		name:     f.newInput(s.Name, 20, ""),
		image:    f.newInput(s.Image, 44, ""),
		ports:    f.newInput(FormatPorts(s.Ports), 30, ""),
		replicas: f.newInput(fmt.Sprint(s.Replicas), 5, "1"),
		cpuReq:   f.newInput(r.CPURequest, 7, render.DefaultCPURequest),
		cpuLim:   f.newInput(r.CPULimit, 7, render.DefaultCPULimit),
		memReq:   f.newInput(r.MemoryRequest, 7, render.DefaultMemoryRequest),
		memLim:   f.newInput(r.MemoryLimit, 7, render.DefaultMemoryLimit),
		env:      f.newArea(FormatEnv(s.Env), "NAME=value, one a line"),
		cfgPath:  f.newInput("", 30, ""),
		cfg:      f.newArea("", "the file's content"),
	}
	if s.ConfigFile != nil {
		sv.cfgPath.SetValue(s.ConfigFile.Path)
		sv.cfg.SetValue(s.ConfigFile.Content)
	}
	for _, e := range s.Secrets {
		sv.secrets = append(sv.secrets, f.newSecret(e))
	}
	for _, v := range s.Volumes {
		sv.volumes = append(sv.volumes, f.newVolume(v))
	}
	return sv
}

func (f *form) newSecret(e render.EnvVar) secretRow {
	r := secretRow{name: f.newInput(e.Name, 16, ""), value: f.newInput(e.Value, 24, "")}
	r.value.EchoMode = textinput.EchoPassword
	r.value.EchoCharacter = '•'
	return r
}

func (f *form) newVolume(v render.Volume) volumeRow {
	return volumeRow{name: f.newInput(v.Name, 10, ""), mount: f.newInput(v.MountPath, 18, ""),
		size: f.newInput(v.Size, 6, ""), class: f.newInput(v.StorageClass, 10, "")}
}

// newForm makes the form filled from req; an empty request gets one empty
// service with 1 replica.
func newForm(st views.Styles, req render.Request, fixed bool) *form {
	f := &form{st: st, fixed: fixed}
	f.instance = f.newInput(req.Instance, 20, "")
	f.namespace = f.newInput(req.Namespace, 20, "")
	if len(req.Services) == 0 {
		req.Services = []render.Service{{Replicas: 1}}
	}
	for _, s := range req.Services {
		f.svcs = append(f.svcs, f.newService(s))
	}
	return f
}

// fields lists the focusable places in tab order.
func (f *form) fields() []field {
	var out []field
	if !f.fixed {
		out = append(out, field{in: f.instance, path: "instance", svc: -1, label: "instance"},
			field{in: f.namespace, path: "namespace", svc: -1, label: "namespace"})
	}
	for i, s := range f.svcs {
		p := fmt.Sprintf("services[%d].", i)
		in := func(m *textinput.Model, path, label string) field {
			return field{in: m, path: p + path, svc: i, label: label}
		}
		out = append(out, in(s.name, "name", "name"), in(s.image, "image", "image"), in(s.ports, "ports", "ports"),
			in(s.replicas, "replicas", "replicas"),
			in(s.cpuReq, "resources.cpuRequest", "cpu request"), in(s.cpuLim, "resources.cpuLimit", "cpu limit"),
			in(s.memReq, "resources.memoryRequest", "memory request"), in(s.memLim, "resources.memoryLimit", "memory limit"),
			field{kind: kindArea, area: s.env, path: p + "env", svc: i, label: "env"},
			in(s.cfgPath, "configFile.path", "config path"),
			field{kind: kindArea, area: s.cfg, path: p + "configFile.content", svc: i, label: "config content"})
		if len(s.secrets) == 0 {
			out = append(out, field{kind: kindPlaceholder, path: p + "secrets", svc: i, list: "secrets", label: "secrets"})
		}
		for j, r := range s.secrets {
			q := fmt.Sprintf("%ssecrets[%d].", p, j)
			out = append(out, field{in: r.name, path: q + "name", svc: i, list: "secrets", row: j, label: "secret name"},
				field{in: r.value, path: q + "value", svc: i, list: "secrets", row: j, label: "secret value"})
		}
		if len(s.volumes) == 0 {
			out = append(out, field{kind: kindPlaceholder, path: p + "volumes", svc: i, list: "volumes", label: "volumes"})
		}
		for j, r := range s.volumes {
			q := fmt.Sprintf("%svolumes[%d].", p, j)
			out = append(out, field{in: r.name, path: q + "name", svc: i, list: "volumes", row: j, label: "volume name"},
				field{in: r.mount, path: q + "mountPath", svc: i, list: "volumes", row: j, label: "mount path"},
				field{in: r.size, path: q + "size", svc: i, list: "volumes", row: j, label: "size"},
				field{in: r.class, path: q + "storageClass", svc: i, list: "volumes", row: j, label: "storage class"})
		}
	}
	return out
}

// request parses the form into a request, with the errors of what does
// not parse (ports, env, replicas) as FieldErrors on their fields.
func (f *form) request() (render.Request, []render.FieldError) {
	req := render.Request{Instance: strings.TrimSpace(f.instance.Value()), Namespace: strings.TrimSpace(f.namespace.Value())}
	var errs []render.FieldError
	for i, s := range f.svcs {
		p := fmt.Sprintf("services[%d].", i)
		sv := render.Service{Name: strings.TrimSpace(s.name.Value()), Image: strings.TrimSpace(s.image.Value()),
			Resources: render.Resources{CPURequest: strings.TrimSpace(s.cpuReq.Value()), CPULimit: strings.TrimSpace(s.cpuLim.Value()),
				MemoryRequest: strings.TrimSpace(s.memReq.Value()), MemoryLimit: strings.TrimSpace(s.memLim.Value())}}
		var err error
		if sv.Ports, err = ParsePorts(s.ports.Value()); err != nil {
			errs = append(errs, render.FieldError{Path: p + "ports", Reason: err.Error()})
		}
		if sv.Replicas, err = ParseReplicas(s.replicas.Value()); err != nil {
			errs = append(errs, render.FieldError{Path: p + "replicas", Reason: err.Error()})
		}
		if sv.Env, err = ParseEnv(s.env.Value()); err != nil {
			errs = append(errs, render.FieldError{Path: p + "env", Reason: err.Error()})
		}
		if path, content := strings.TrimSpace(s.cfgPath.Value()), s.cfg.Value(); path != "" || content != "" {
			sv.ConfigFile = &render.ConfigFile{Path: path, Content: content}
		}
		for _, r := range s.secrets {
			sv.Secrets = append(sv.Secrets, render.EnvVar{Name: strings.TrimSpace(r.name.Value()), Value: r.value.Value()})
		}
		for _, r := range s.volumes {
			sv.Volumes = append(sv.Volumes, render.Volume{Name: strings.TrimSpace(r.name.Value()), MountPath: strings.TrimSpace(r.mount.Value()),
				Size: strings.TrimSpace(r.size.Value()), StorageClass: strings.TrimSpace(r.class.Value())})
		}
		req.Services = append(req.Services, sv)
	}
	return req, errs
}

// owner returns the field a FieldError path belongs to: the field whose
// path is the longest prefix of it ending at a '.' or '[' boundary (so
// "services[0].ports[1].port" lands on the ports field), else the first
// field under it ("services[0].configFile" lands on its path); -1 when
// none ("services").
func owner(fields []field, path string) int {
	best, bestLen := -1, -1
	for i, fd := range fields {
		if fd.path == path || strings.HasPrefix(path, fd.path) && len(path) > len(fd.path) && strings.ContainsRune(".[", rune(path[len(fd.path)])) {
			if len(fd.path) > bestLen {
				best, bestLen = i, len(fd.path)
			}
		}
	}
	if best >= 0 {
		return best
	}
	// A path above the fields ("services[0].configFile"): its first field.
	for i, fd := range fields {
		if strings.HasPrefix(fd.path, path) && len(fd.path) > len(path) && strings.ContainsRune(".[", rune(fd.path[len(path)])) {
			return i
		}
	}
	return -1
}

// addRow adds a row to list ("secrets" or "volumes") of service i and
// returns its path's first field.
func (f *form) addRow(i int, list string) string {
	s := f.svcs[i]
	if list == "secrets" {
		s.secrets = append(s.secrets, f.newSecret(render.EnvVar{}))
		return fmt.Sprintf("services[%d].secrets[%d].name", i, len(s.secrets)-1)
	}
	s.volumes = append(s.volumes, f.newVolume(render.Volume{}))
	return fmt.Sprintf("services[%d].volumes[%d].name", i, len(s.volumes)-1)
}

// removeRow removes row j of list of service i.
func (f *form) removeRow(i int, list string, j int) {
	s := f.svcs[i]
	if list == "secrets" {
		s.secrets = append(s.secrets[:j], s.secrets[j+1:]...)
		return
	}
	s.volumes = append(s.volumes[:j], s.volumes[j+1:]...)
}

// addService adds an empty service (1 replica) after service i and
// returns its name field's path.
func (f *form) addService(i int) string {
	s := f.newService(render.Service{Replicas: 1})
	at := min(i+1, len(f.svcs))
	f.svcs = append(f.svcs[:at], append([]*service{s}, f.svcs[at:]...)...)
	return fmt.Sprintf("services[%d].name", at)
}
