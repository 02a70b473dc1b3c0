package prompts

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/star-agent/star-agent/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/discovery")

// manyTools returns n tools as an MCP server of a business suite offers
// them: verbs times nouns, grouped by server.
func manyTools(n int, group string) []tool.Spec {
	verbs := []string{"get", "list", "create", "update", "delete", "search", "archive", "export", "import", "count",
		"summarize", "assign", "approve", "reject", "share"}
	nouns := []string{"invoice", "customer", "order", "ticket", "employee", "project", "calendar_event", "email",
		"document", "payment", "shipment", "product", "review", "report", "dashboard", "alert", "contract",
		"meeting", "note", "timesheet"}
	out := make([]tool.Spec, 0, n)
	for i := range n {
		v, noun := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
		name := v + "_" + noun
		if r := i / (len(verbs) * len(nouns)); r > 0 {
			name = fmt.Sprintf("%s_%d", name, r+1)
		}
		what := strings.ReplaceAll(noun, "_", " ")
		out = append(out, tool.Spec{
			Name:        name,
			Description: fmt.Sprintf("%s the %s with the given id. Returns a one-line summary of the %s.", strings.ToUpper(v[:1])+v[1:], what, what),
			Inputs: []tool.Input{
				{Name: "id", Type: tool.String, Description: "The " + what + "'s id."},
				{Name: "verbose", Type: tool.Boolean, Nullable: true, Description: "Whether to return every field."},
			},
			Output: tool.String,
			Group:  group,
		})
	}
	return out
}

func forecastSpec() tool.Spec {
	return tool.Spec{
		Name:        "get_forecast",
		Description: "Returns the weather forecast for a city, day by day.",
		Inputs: []tool.Input{
			{Name: "city", Type: tool.String, Description: "The city, e.g. Paris."},
			{Name: "days", Type: tool.Integer, Nullable: true, Description: "How many days ahead (default 3)."},
		},
		Output: tool.Object,
		OutputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"city":  map[string]any{"type": "string", "description": "The city the forecast is for."},
				"days":  map[string]any{"type": "array", "items": map[string]any{"type": "object"}, "description": "One entry per day."},
				"units": map[string]any{"type": []any{"null", "string"}},
			},
			"propertyOrder": []string{"city", "days", "units"},
		},
		Group: "weather",
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "discovery", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./prompts/ -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs:\ngot\n%s\nwant\n%s", path, got, want)
	}
}

func TestSearchGolden(t *testing.T) {
	specs := append(manyTools(300, "crm"), forecastSpec())
	for _, c := range []struct{ file, query string }{
		{"search_weather.golden", "weather forecast for a city"},
		{"search_invoices.golden", "list invoices"},
		{"search_exact_name.golden", "approve_payment"},
		{"search_nothing.golden", "quantum teleportation"},
	} {
		t.Run(c.file, func(t *testing.T) {
			golden(t, c.file, SearchText(c.query, Search(specs, c.query, 0), len(specs)))
		})
	}
}

func TestSearchRanking(t *testing.T) {
	specs := append(manyTools(300, "crm"), forecastSpec())
	m := Search(specs, "weather forecast for a city", 3)
	if len(m) != 1 || m[0].Spec.Name != "get_forecast" {
		t.Fatalf("matches %+v, want get_forecast alone", m)
	}
	// "forecast" is a word of its name (3), "weather" and "city" words of
	// its description (1 each); "for" and "a" count for nothing.
	if m[0].Score != 3+1+1 {
		t.Errorf("score %d", m[0].Score)
	}
	m = Search(specs, "approve_payment", 0)
	if m[0].Spec.Name != "approve_payment" || m[0].Score != 3+3+10 {
		t.Errorf("exact name: %+v", m[0])
	}
	if m := Search(specs, "the for a", 0); len(m) != 0 {
		t.Errorf("stop words matched %d tools", len(m))
	}
	if m := Search(specs, "invoices", 100); len(m) != 15 {
		t.Errorf("plural: %d matches, want the 15 invoice tools", len(m))
	}
}

func TestHelpGolden(t *testing.T) {
	golden(t, "help_get_forecast.golden", Stub(forecastSpec())+"\n")
	golden(t, "help_get_invoice.golden", Stub(manyTools(1, "crm")[0])+"\n")
}

func TestListToolsDetail(t *testing.T) {
	for _, c := range []struct {
		n      int
		detail string
	}{{31, ListSummaries}, {90, ListNames}, {300, ListCounts}, {3000, ListCounts}} {
		specs := append(manyTools(c.n/2, "crm"), manyTools(c.n-c.n/2, "")...)
		text, detail := ListTools(specs, 0)
		if detail != c.detail {
			t.Errorf("%d tools: detail %s, want %s", c.n, detail, c.detail)
		}
		if len(text) > DefaultToolListBudget {
			t.Errorf("%d tools: listing of %d bytes, more than the budget %d", c.n, len(text), DefaultToolListBudget)
		}
		if !strings.HasPrefix(text, ownGroup) || !strings.Contains(text, "\ncrm (") {
			t.Errorf("%d tools: groups missing or out of order:\n%s", c.n, text)
		}
	}
	text, _ := ListTools(manyTools(300, "crm"), 0)
	// 15 verbs and 20 nouns: each verb names 20 tools, each noun 15.
	if !strings.HasPrefix(text, "crm (300 tools); words in their names: approve, archive, assign, count, create, delete, export, get, import, list, reject, search, share, summarize, update, alert, calendar, ") {
		t.Errorf("counts:\n%s", text)
	}
	text, _ = ListTools(manyTools(31, "crm"), 0)
	if !strings.Contains(text, "- get_invoice: Get the invoice with the given id.\n") {
		t.Errorf("summaries:\n%s", text)
	}
}

func TestSummary(t *testing.T) {
	for in, want := range map[string]string{
		"Gets a page. Then more.":          "Gets a page.",
		"  First line\nsecond line":        "First line",
		"Version 1.2 of the thing":         "Version 1.2 of the thing",
		strings.Repeat("word ", 40):        strings.TrimSpace(strings.Repeat("word ", 20)[:97]) + "...",
		"":                                 "",
		"Résumé: ünïcode stays whole here": "Résumé: ünïcode stays whole here",
	} {
		if got := Summary(in); got != want {
			t.Errorf("Summary(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStubOutputSchema(t *testing.T) {
	got := Stub(forecastSpec())
	for _, want := range []string{
		"-> dict:",
		"Returns:\n        A dict with these keys:\n            city (str): The city the forecast is for.\n            days (list[dict]): One entry per day.\n            units (str)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stub lacks %q:\n%s", want, got)
		}
	}
	list := tool.Spec{Name: "rows", Output: tool.Array, OutputSchema: map[string]any{
		"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}}
	if got := Stub(list); !strings.Contains(got, "A list of dicts with these keys:\n            n (int)") {
		t.Errorf("list stub:\n%s", got)
	}
	// A schema without properties adds nothing.
	if got := Stub(tool.Spec{Name: "x", Output: tool.Object, OutputSchema: map[string]any{"type": "object"}}); strings.Contains(got, "Returns") {
		t.Errorf("empty schema:\n%s", got)
	}
}
