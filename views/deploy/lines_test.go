package deploy_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views/deploy"
)

func TestParsePorts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []render.Port
		err  string
	}{
		{"", nil, ""},
		{"8080", []render.Port{{Port: 8080}}, ""},
		{"http:8080, 53/udp", []render.Port{{Name: "http", Port: 8080}, {Port: 53, Protocol: "UDP"}}, ""},
		{"dns:53/UDP 9000/tcp", []render.Port{{Name: "dns", Port: 53, Protocol: "UDP"}, {Port: 9000, Protocol: "TCP"}}, ""},
		{"0", nil, "1..65535"},
		{"65536", nil, "1..65535"},
		{"99999999999999", nil, "1..65535"},
		{"http", nil, "not a port"},
		{":80", nil, "name before ':' is empty"},
		{"80/sctp", nil, "not tcp or udp"},
		{"-1", nil, "not a port"},
		{"+80", nil, "not a port"},
	} {
		got, err := deploy.ParsePorts(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
}

func TestParseEnv(t *testing.T) {
	got, err := deploy.ParseEnv("A=1\n\n# note\n B = x=y \r\nEMPTY=")
	want := []render.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: " x=y "}, {Name: "EMPTY", Value: ""}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%#v %v", got, err)
	}
	for _, bad := range []string{"NOVALUE", "=x", "A=1\n  =2"} {
		if _, err := deploy.ParseEnv(bad); err == nil || !strings.Contains(err.Error(), "want NAME=value") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := deploy.ParseEnv("A=1\nB"); err == nil || !strings.HasPrefix(err.Error(), "line 2") {
		t.Errorf("line number: %v", err)
	}
}

func TestParseReplicas(t *testing.T) {
	for in, want := range map[string]int32{"": 1, "0": 0, " 3 ": 3, "10000": 10000} {
		if n, err := deploy.ParseReplicas(in); err != nil || n != want {
			t.Errorf("%q: %d %v", in, n, err)
		}
	}
	for _, bad := range []string{"-1", "10001", "2.5", "x"} {
		if _, err := deploy.ParseReplicas(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParsePorts: what parses formats back to the same ports, every port
// is in range, and nothing panics.
func FuzzParsePorts(f *testing.F) {
	for _, s := range []string{"8080", "http:8080, 53/udp", "a:1/tcp b:2/UDP", ":", "/", "1/", "0x50", "٣"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := deploy.ParsePorts(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.Port < 1 || p.Port > 65535 {
				t.Fatalf("%q: port %d", s, p.Port)
			}
		}
		again, err := deploy.ParsePorts(deploy.FormatPorts(ps))
		if err != nil {
			t.Fatalf("%q: formatted %q does not parse: %v", s, deploy.FormatPorts(ps), err)
		}
		norm := func(ps []render.Port) []render.Port {
			out := make([]render.Port, len(ps))
			for i, p := range ps {
				if p.Protocol == "TCP" {
					p.Protocol = ""
				}
				out[i] = p
			}
			return out
		}
		if !reflect.DeepEqual(norm(again), norm(ps)) {
			t.Fatalf("%q: %#v then %#v", s, ps, again)
		}
	})
}

// FuzzParseEnv: what parses formats back to the same variables; names are
// never empty nor carry '=' or a line break.
func FuzzParseEnv(f *testing.F) {
	for _, s := range []string{"A=1", "A=1\nB=2=3", "# c\n\n X = y ", "=", "A\r\n", "A=\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := deploy.ParseEnv(s)
		if err != nil {
			return
		}
		for _, v := range vs {
			if v.Name == "" || strings.ContainsAny(v.Name, "=\n") || strings.Contains(v.Value, "\n") {
				t.Fatalf("%q: %#v", s, v)
			}
		}
		again, err := deploy.ParseEnv(deploy.FormatEnv(vs))
		if err != nil || len(again) != len(vs) {
			t.Fatalf("%q: %#v then %#v, %v", s, vs, again, err)
		}
		for i := range vs {
			// A value ending in \r loses it (line ends are \n or \r\n).
			if again[i].Name != vs[i].Name || again[i].Value != strings.TrimSuffix(vs[i].Value, "\r") && again[i].Value != vs[i].Value {
				t.Fatalf("%q: %#v then %#v", s, vs, again)
			}
		}
	})
}
