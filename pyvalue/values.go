// Package pyvalue is how values cross between star-agent's engines: the
// Go types for Python values JSON cannot carry (Tuple, Set, Dict with
// other keys, Opaque, ...), their tagged JSON form ({"$tuple": [...]})
// that the runner protocol and runner.py speak, Python's repr() of such
// values for what the model reads, and the normalisation of json.Number.
// It is a leaf: it knows no engine, so the executors, the runner and the
// agent can all depend on it.
package pyvalue

import (
	"encoding/json"
	"time"
)

// Go types for the Python values that JSON has no word for. Decoding a
// runner message produces them; encoding accepts them (and plain JSON-shaped
// values, time.Time, time.Duration, []byte and *big.Int) so that values
// survive a round trip through Python unchanged.
type (
	// Tuple is a Python tuple.
	Tuple []any
	// Set is a Python set (element order as Python iterated it).
	Set []any
	// FrozenSet is a Python frozenset.
	FrozenSet []any
	// Date is a Python datetime.date in ISO form, "2024-05-01".
	Date string
	// Time is a Python datetime.time in ISO form, "13:45:00.250000+02:00".
	Time string
	// Dict is a Python dict whose keys are not all strings, in order.
	Dict []Item
	// Opaque stands for a Python object JSON cannot carry: its type name and
	// repr. Sent back to Python it becomes an object whose repr is Repr.
	Opaque struct {
		Type string
		Repr string
	}
)

// Item is one key and value of a Dict.
type Item struct{ Key, Value any }

// Naive is the location of time.Time values decoded from naive Python
// datetimes (no tzinfo); such values encode back to naive datetimes.
// Any other location encodes as an aware datetime with its UTC offset.
var Naive = time.FixedZone("naive", 0)

// MarshalJSON writes an Opaque as its repr.
func (o Opaque) MarshalJSON() ([]byte, error) { return json.Marshal(o.Repr) }

// MarshalJSON writes a Dict as a list of [key, value] pairs.
func (d Dict) MarshalJSON() ([]byte, error) {
	pairs := make([][2]any, len(d))
	for i, it := range d {
		pairs[i] = [2]any{it.Key, it.Value}
	}
	return json.Marshal(pairs)
}
