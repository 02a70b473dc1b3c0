package tool

import (
	"context"
	"errors"
	"strings"
	"testing"
)

type weatherArgs struct {
	City    string   `json:"city" jsonschema:"The city, e.g. Paris."`
	Days    int      `json:"days,omitempty" jsonschema:"How many days ahead."`
	Metrics []string `json:"metrics,omitempty" jsonschema:"What to report."`
}

type forecast struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
	Days  int     `json:"days"`
}

func TestNewFromFunc(t *testing.T) {
	w, err := New("get_weather", "Returns the weather.", func(_ context.Context, a weatherArgs) (forecast, error) {
		if a.City == "Atlantis" {
			return forecast{}, errors.New("no such city")
		}
		return forecast{City: a.City, TempC: 21.5, Days: a.Days}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	spec := w.Spec()
	if len(spec.Inputs) != 3 || spec.Inputs[0].Name != "city" || spec.Inputs[0].Type != String || spec.Inputs[0].Nullable ||
		spec.Inputs[0].Description != "The city, e.g. Paris." || spec.Inputs[1].Type != Integer || !spec.Inputs[1].Nullable ||
		spec.Inputs[2].Type != Array || spec.Output != Object {
		t.Fatalf("spec %+v", spec)
	}
	// Bound arguments go through Bind first, as executors do.
	args, err := Bind(spec, []any{"Paris"}, map[string]any{"days": int64(2)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Call(context.Background(), args)
	if err != nil {
		t.Fatal(err)
	}
	m := out.(map[string]any)
	if m["city"] != "Paris" || m["temp_c"] != 21.5 || m["days"] != int64(2) {
		t.Errorf("result %#v", out)
	}
	if _, err := w.Call(context.Background(), map[string]any{"city": "Atlantis"}); err == nil || err.Error() != "no such city" {
		t.Errorf("tool error %v", err)
	}
	_, err = w.Call(context.Background(), map[string]any{"city": "Paris", "days": "two"})
	if err == nil || !strings.Contains(err.Error(), "get_weather(): invalid arguments") {
		t.Errorf("validation error %v", err)
	}
}

func TestNewRejectsNonStruct(t *testing.T) {
	if _, err := New("f", "d", func(context.Context, string) (string, error) { return "", nil }); err == nil {
		t.Error("New accepted string arguments")
	}
}
