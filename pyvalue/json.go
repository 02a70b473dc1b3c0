package pyvalue

import (
	"bytes"
	"encoding/json"
)

// Marshal returns the JSON form in which star-agent shows a value outside
// its engines (exec --json, RunResult, serve), documented in docs/json.md.
// It is the runner protocol's tagged form (see Encode) with one addition
// for readers that hold every number as a double, as JavaScript does:
// integers beyond ±2^53 are tagged too, {"$int": "9007199254740993"}, so
// that no digit is lost. Floats stay floats (32.0, not 32), non-finite
// floats are {"$float": "nan"}, tuples, sets, bytes, dicts with keys
// that are not strings and datetimes have their tags, and Unmarshal reads
// it all back. Nothing is escaped for HTML. It fails only for Go values
// that have no JSON form (a channel) or whose form would pass
// DefaultMaxEncoded.
func Marshal(v any) ([]byte, error) {
	e := encoder{left: DefaultMaxEncoded, exact: true}
	enc, err := e.encode(v, 0)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w := json.NewEncoder(&b)
	w.SetEscapeHTML(false)
	if err := w.Encode(enc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Unmarshal reads what Marshal writes (or any JSON) back into Go values
// as Decode makes them.
func Unmarshal(data []byte) (any, error) {
	var raw any
	if err := DecodeJSON(data, &raw); err != nil {
		return nil, err
	}
	return Decode(raw)
}

// JSON wraps a value so that encoding/json writes it in Marshal's form
// and reads it back with Unmarshal: a struct field of type JSON carries
// a Python value faithfully.
type JSON struct{ V any }

// MarshalJSON writes j.V as Marshal does.
func (j JSON) MarshalJSON() ([]byte, error) { return Marshal(j.V) }

// UnmarshalJSON reads data as Unmarshal does.
func (j *JSON) UnmarshalJSON(data []byte) error {
	v, err := Unmarshal(data)
	if err != nil {
		return err
	}
	j.V = v
	return nil
}
