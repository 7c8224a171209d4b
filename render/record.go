package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// RecordVersion is the version of the record format RecordOf writes and
// ParseRecord reads.
const RecordVersion = 1

// ErrRecord is wrapped by ParseRecord's errors: the bytes are not a record
// this kyyard can read.
var ErrRecord = errors.New("the instance record cannot be read")

// record is the stored form: {"version":1,"request":{...}}.
type record struct {
	Version int      `json:"version"`
	Request *Request `json:"request"`
}

// RecordOf encodes a request for the instance record as JSON:
// {"version":1,"request":{...}} with Request's JSON field names. It holds
// the secret values in clear: the record must be stored in a Secret. It
// does not validate (a record keeps what was deployed); ParseRecord
// reads it back equal, for requests whose strings are UTF-8 (Validate
// requires it) — except that an empty list reads back as nil.
func RecordOf(req Request) ([]byte, error) {
	return json.Marshal(record{Version: RecordVersion, Request: &req})
}

// ParseRecord decodes what RecordOf wrote. Errors wrap ErrRecord and say
// why: not one JSON object (trailing data included); no version or one other than
// RecordVersion (a record written by another kyyard); no request; a field
// this kyyard does not know (refused rather than dropped, so that an edit
// never loses what a newer kyyard recorded); a field of the wrong type.
// The request is not validated: the form shows what is wrong with it.
func ParseRecord(b []byte) (Request, error) {
	var head struct {
		Version *int            `json:"version"`
		Request json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Request{}, fmt.Errorf("%w: not a JSON object: %v", ErrRecord, err)
	}
	switch {
	case head.Version == nil:
		return Request{}, fmt.Errorf("%w: it has no version", ErrRecord)
	case *head.Version != RecordVersion:
		return Request{}, fmt.Errorf("%w: version %d, this kyyard reads version %d", ErrRecord, *head.Version, RecordVersion)
	case len(head.Request) == 0 || string(head.Request) == "null":
		return Request{}, fmt.Errorf("%w: it has no request", ErrRecord)
	}
	var rec record
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	return *rec.Request, nil
}
