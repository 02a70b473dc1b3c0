package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/star-agent/star-agent/providers/scripted"
)

// collector is an OTLP/HTTP trace receiver: it decodes the protobuf
// ExportTraceServiceRequest bodies the exporter posts to /v1/traces.
type collector struct {
	mu       sync.Mutex
	spans    []string
	services []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "unexpected request", http.StatusNotFound)
		return
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	var req coltrace.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(b, &req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				c.services = append(c.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				c.spans = append(c.spans, s.Name)
			}
		}
	}
	c.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// TestOTLPExport runs an agent with --otel otlp against a local OTLP/HTTP
// receiver and checks the spans of the run arrive, named as the GenAI
// semantic conventions name them.
func TestOTLPExport(t *testing.T) {
	c := &collector{}
	srv := httptest.NewServer(c)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	m := scripted.New(
		"Thought: add.\n<code>\nprint(1 + 1)\n</code>",
		"Thought: done.\n<code>\nfinal_answer('two')\n</code>",
	)
	var stdout, stderr bytes.Buffer
	code := Main([]string{"--otel", "otlp", "task"}, strings.NewReader(""), &stdout, &stderr, Config{Model: m})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, want := range []string{"invoke_agent agent", "execute_code"} {
		if !slices.Contains(c.spans, want) {
			t.Errorf("span %q not exported; got %q", want, c.spans)
		}
	}
	if !slices.ContainsFunc(c.spans, func(s string) bool { return strings.HasPrefix(s, "chat ") }) {
		t.Errorf("no chat span exported; got %q", c.spans)
	}
	if !slices.Contains(c.services, "star-agent") {
		t.Errorf("service.name %q", c.services)
	}
}

// TestOTLPUnreachable: a collector that cannot be reached does not fail
// the run; the spans are lost, the answer is not.
func TestOTLPUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "200")
	m := scripted.New("<code>\nfinal_answer(3)\n</code>")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"--otel", "otlp", "task"}, strings.NewReader(""), &stdout, &stderr, Config{Model: m}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "3") {
		t.Errorf("stdout %q", stdout.String())
	}
}
