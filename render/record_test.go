package render_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/render"
)

func TestRecordRoundTrip(t *testing.T) {
	for _, req := range []render.Request{oneService(), twoServices(), {}} {
		b, err := render.RecordOf(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := render.ParseRecord(b)
		if err != nil {
			t.Fatalf("ParseRecord(%s): %v", b, err)
		}
		if !reflect.DeepEqual(got, req) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", got, req)
		}
		again, _ := render.RecordOf(got)
		if string(again) != string(b) {
			t.Fatalf("RecordOf(ParseRecord(b)) = %s, want %s", again, b)
		}
	}
}

func TestRecordShape(t *testing.T) {
	b, err := render.RecordOf(oneService())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if string(m["version"]) != "1" || len(m) != 2 || !strings.HasPrefix(string(m["request"]), `{"instance":"hello"`) {
		t.Fatalf("record = %s, want {\"version\":1,\"request\":{\"instance\":\"hello\",...}}", b)
	}
}

func TestParseRecordRefuses(t *testing.T) {
	good, _ := render.RecordOf(oneService())
	cases := map[string]struct{ in, reason string }{
		"empty":           {"", "not a JSON object"},
		"not JSON":        {"hello", "not a JSON object"},
		"an array":        {"[1]", "not a JSON object"},
		"no version":      {`{"request":{"instance":"a"}}`, "no version"},
		"version 2":       {`{"version":2,"request":{"instance":"a"}}`, "version 2, this kyyard reads version 1"},
		"version 0":       {`{"version":0,"request":{}}`, "version 0"},
		"version text":    {`{"version":"1","request":{}}`, "not a JSON object"},
		"no request":      {`{"version":1}`, "no request"},
		"null request":    {`{"version":1,"request":null}`, "no request"},
		"unknown field":   {`{"version":1,"request":{"instance":"a","color":"red"}}`, `unknown field "color"`},
		"unknown top":     {`{"version":1,"request":{},"plan":[]}`, `unknown field "plan"`},
		"wrong type":      {`{"version":1,"request":{"services":[{"replicas":"three"}]}}`, "cannot unmarshal"},
		"trailing data":   {string(good) + `{}`, "not a JSON object"},
		"truncated":       {string(good[:len(good)-3]), "not a JSON object"},
		"request a array": {`{"version":1,"request":[]}`, "cannot unmarshal"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := render.ParseRecord([]byte(c.in))
			if !errors.Is(err, render.ErrRecord) || !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("ParseRecord(%q) = %v, want ErrRecord: ...%s...", c.in, err, c.reason)
			}
		})
	}
}

// FuzzParseRecord: never panics; what it accepts re-encodes to a record
// it reads back equal.
func FuzzParseRecord(f *testing.F) {
	for _, req := range []render.Request{oneService(), twoServices()} {
		b, _ := render.RecordOf(req)
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"request":{}}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := render.ParseRecord(b)
		if err != nil {
			if !errors.Is(err, render.ErrRecord) {
				t.Fatalf("error %v does not wrap ErrRecord", err)
			}
			return
		}
		again, err := render.RecordOf(req)
		if err != nil {
			t.Fatal(err)
		}
		back, err := render.ParseRecord(again)
		if err != nil {
			t.Fatalf("ParseRecord(RecordOf(%#v)): %v", req, err)
		}
		if !reflect.DeepEqual(normal(back), normal(req)) {
			t.Fatalf("round trip:\n got %#v\nwant %#v", back, req)
		}
	})
}

// normal makes empty lists nil (JSON's omitempty drops them) so that
// requests compare by content.
func normal(r render.Request) render.Request {
	b, _ := json.Marshal(r)
	var out render.Request
	_ = json.Unmarshal(b, &out)
	return out
}
