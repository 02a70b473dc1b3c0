// Package mcptest is a real MCP server for tests, built with the official
// Go SDK: a handful of tools that exercise every kind of result (text,
// structured output, isError, images, large and slow results, a server
// that exits) and, on request, hundreds of generated tools for discovery
// tests. It serves over stdio (Main, ServeStdio) and streamable HTTP
// (ServeHTTP).
//
// It is test support, not part of star-agent's binary: the star-agent
// command never links it.
package mcptest

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a test server.
type Options struct {
	// Name is the server's name in its initialize result ("mcptest" if
	// empty).
	Name string
	// Tools is how many generated tools (get_invoice, list_customers, ...)
	// are offered besides the fixed ones.
	Tools int
	// Exit offers the tools exit(code), which ends the process, and
	// getenv(name): only for servers that run in a process of their own.
	Exit bool
	// Done ends the calls of hang (which otherwise wait forever, ignoring
	// cancellation, as a stuck server does). Close it when the test ends.
	Done <-chan struct{}
	// Stderr, if set, receives a line when a call of sleep starts, for
	// tests that need calls in flight.
	Stderr io.Writer
	// Only, if set, offers just the fixed tools named (generated ones
	// still follow Tools).
	Only []string
}

// NewServer returns the test server with the fixed tools and nTools
// generated ones.
func NewServer(nTools int) *sdk.Server {
	return New(Options{Tools: nTools})
}

type echoArgs struct {
	Text string `json:"text" jsonschema:"The text to send back."`
}

type addArgs struct {
	A int64 `json:"a" jsonschema:"The first addend."`
	B int64 `json:"b" jsonschema:"The second addend."`
}

type sum struct {
	Sum   int64   `json:"sum" jsonschema:"a + b."`
	Terms []int64 `json:"terms" jsonschema:"The addends, in order."`
}

type weatherArgs struct {
	City  string `json:"city" jsonschema:"The city, e.g. Paris."`
	Units string `json:"units,omitempty" jsonschema:"celsius or fahrenheit (default celsius)."`
}

type weather struct {
	City       string   `json:"city"`
	Temp       float64  `json:"temp"`
	Units      string   `json:"units"`
	Conditions []string `json:"conditions"`
}

type failArgs struct {
	Message string `json:"message" jsonschema:"The error message."`
}

type bigArgs struct {
	Bytes int `json:"bytes" jsonschema:"How many bytes of text to return."`
}

type sleepArgs struct {
	Seconds float64 `json:"seconds" jsonschema:"How long to sleep."`
}

type rowsArgs struct {
	N int `json:"n" jsonschema:"How many rows."`
}

type table struct {
	Rows []row `json:"rows"`
}

type row struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type getenvArgs struct {
	Name string `json:"name" jsonschema:"The variable's name."`
}

type exitArgs struct {
	Code int `json:"code" jsonschema:"The exit status."`
}

type empty struct{}

type idArgs struct {
	ID    string `json:"id" jsonschema:"The identifier."`
	Limit int    `json:"limit,omitempty" jsonschema:"At most this many items."`
}

// A 1x1 transparent PNG.
var pixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")

// New returns a test server configured by opts.
func New(opts Options) *sdk.Server {
	name := opts.Name
	if name == "" {
		name = "mcptest"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: name, Version: "1.0.0"}, nil)
	want := func(tool string) bool {
		if len(opts.Only) == 0 {
			return true
		}
		for _, o := range opts.Only {
			if o == tool {
				return true
			}
		}
		return false
	}
	if want("echo") {
		sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Returns the text it is given."},
			func(_ context.Context, _ *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: a.Text}}}, nil, nil
			})
	}
	if want("add") {
		sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Adds two integers."},
			func(_ context.Context, _ *sdk.CallToolRequest, a addArgs) (*sdk.CallToolResult, sum, error) {
				return nil, sum{Sum: a.A + a.B, Terms: []int64{a.A, a.B}}, nil
			})
	}
	if want("get-weather") {
		// A name that is not a Python identifier.
		sdk.AddTool(s, &sdk.Tool{Name: "get-weather", Description: "Returns the current weather in a city."},
			func(_ context.Context, _ *sdk.CallToolRequest, a weatherArgs) (*sdk.CallToolResult, weather, error) {
				w := weather{City: a.City, Temp: 21.5, Units: "celsius", Conditions: []string{"sunny", "light wind"}}
				if a.Units == "fahrenheit" {
					w.Temp, w.Units = 70.7, "fahrenheit"
				}
				return nil, w, nil
			})
	}
	if want("fail") {
		sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails with the message it is given."},
			func(_ context.Context, _ *sdk.CallToolRequest, a failArgs) (*sdk.CallToolResult, any, error) {
				return nil, nil, errors.New(a.Message)
			})
	}
	if want("pixel") {
		sdk.AddTool(s, &sdk.Tool{Name: "pixel", Description: "Returns a 1x1 PNG image."},
			func(_ context.Context, _ *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: pixelPNG}}}, nil, nil
			})
	}
	if want("captioned") {
		sdk.AddTool(s, &sdk.Tool{Name: "captioned", Description: "Returns a caption and a 1x1 PNG image."},
			func(_ context.Context, _ *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{
					&sdk.TextContent{Text: "a transparent pixel"},
					&sdk.ImageContent{MIMEType: "image/png", Data: pixelPNG},
				}}, nil, nil
			})
	}
	if want("lines") {
		sdk.AddTool(s, &sdk.Tool{Name: "lines", Description: "Returns three text parts."},
			func(_ context.Context, _ *sdk.CallToolRequest, _ empty) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{
					&sdk.TextContent{Text: "one"}, &sdk.TextContent{Text: "two"}, &sdk.TextContent{Text: "three"},
				}}, nil, nil
			})
	}
	if want("big") {
		sdk.AddTool(s, &sdk.Tool{Name: "big", Description: "Returns a text of the given size."},
			func(_ context.Context, _ *sdk.CallToolRequest, a bigArgs) (*sdk.CallToolResult, any, error) {
				if a.Bytes < 0 || a.Bytes > 256<<20 {
					return nil, nil, fmt.Errorf("bytes must be between 0 and %d", 256<<20)
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Repeat("x", a.Bytes)}}}, nil, nil
			})
	}
	if want("rows") {
		sdk.AddTool(s, &sdk.Tool{Name: "rows", Description: "Returns a table of n rows as structured output."},
			func(_ context.Context, _ *sdk.CallToolRequest, a rowsArgs) (*sdk.CallToolResult, table, error) {
				if a.N < 0 || a.N > 1_000_000 {
					return nil, table{}, fmt.Errorf("n must be between 0 and 1000000")
				}
				t := table{Rows: make([]row, a.N)}
				for i := range t.Rows {
					t.Rows[i] = row{ID: i, Name: fmt.Sprintf("row %d", i)}
				}
				// Structured only: the text copy would double the size.
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%d rows", a.N)}}}, t, nil
			})
	}
	if want("sleep") {
		sdk.AddTool(s, &sdk.Tool{Name: "sleep", Description: "Sleeps, then returns \"slept\"; stops early when cancelled."},
			func(ctx context.Context, _ *sdk.CallToolRequest, a sleepArgs) (*sdk.CallToolResult, any, error) {
				if opts.Stderr != nil {
					fmt.Fprintf(opts.Stderr, "sleep started\n")
				}
				select {
				case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "slept"}}}, nil, nil
			})
	}
	if want("hang") {
		done := opts.Done
		sdk.AddTool(s, &sdk.Tool{Name: "hang", Description: "Never returns, and ignores cancellation."},
			func(context.Context, *sdk.CallToolRequest, empty) (*sdk.CallToolResult, any, error) {
				<-done // nil: forever
				return nil, nil, errors.New("server stopped")
			})
	}
	if opts.Exit && want("getenv") {
		sdk.AddTool(s, &sdk.Tool{Name: "getenv", Description: "Returns the value of an environment variable of the server process."},
			func(_ context.Context, _ *sdk.CallToolRequest, a getenvArgs) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: os.Getenv(a.Name)}}}, nil, nil
			})
	}
	if opts.Exit && want("exit") {
		sdk.AddTool(s, &sdk.Tool{Name: "exit", Description: "Ends the server process with the given status."},
			func(_ context.Context, _ *sdk.CallToolRequest, a exitArgs) (*sdk.CallToolResult, any, error) {
				fmt.Fprintf(os.Stderr, "mcptest: exiting with status %d as asked\n", a.Code)
				os.Exit(a.Code)
				return nil, nil, nil
			})
	}
	for i := range opts.Tools {
		name, desc := Generated(i)
		n := i + 1
		sdk.AddTool(s, &sdk.Tool{Name: name, Description: desc},
			func(_ context.Context, _ *sdk.CallToolRequest, a idArgs) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprintf("%s #%d: %s", name, n, a.ID)}}}, nil, nil
			})
	}
	return s
}

var (
	verbs = []string{"get", "list", "create", "update", "delete", "search", "export", "archive", "restore", "count",
		"validate", "merge", "tag", "share", "lock"}
	nouns = []string{"invoice", "customer", "order", "ticket", "user", "project", "repository", "issue", "document", "calendar_event",
		"payment", "shipment", "product", "review", "report", "dashboard", "alert", "contract", "meeting", "note"}
)

// Generated returns the name and description of generated tool i (0 <=
// i < 300 gives distinct names; beyond, names get a numeric suffix).
func Generated(i int) (name, description string) {
	v, n := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)]
	name = v + "_" + n
	if round := i / (len(verbs) * len(nouns)); round > 0 {
		name = fmt.Sprintf("%s_%d", name, round+1)
	}
	what := strings.ReplaceAll(n, "_", " ")
	description = fmt.Sprintf("%s the %s with the given id (generated tool %d). Returns a one-line summary.",
		strings.ToUpper(v[:1])+v[1:], what, i+1)
	return name, description
}

// ServeStdio serves s over this process's stdin and stdout until the
// client closes the connection or ctx ends.
func ServeStdio(ctx context.Context, s *sdk.Server) error {
	return s.Run(ctx, &sdk.StdioTransport{})
}

// ServeHTTP serves s over streamable HTTP on a loopback port; the server's
// URL is the returned server's URL. Close it when done.
func ServeHTTP(s *sdk.Server) *httptest.Server {
	return httptest.NewServer(Handler(s))
}

// Handler is the streamable HTTP handler of s.
func Handler(s *sdk.Server) http.Handler {
	return sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil)
}

// Main is the program "mcptest-server [-name NAME] [-tools N]": the test
// server over stdio, with the exit tool. It returns the process's exit
// status. Tests run it as a subprocess (a test binary re-executing itself,
// or a testscript command).
func Main(args []string) int {
	fs := flag.NewFlagSet("mcptest-server", flag.ContinueOnError)
	name := fs.String("name", "mcptest", "the server's name")
	tools := fs.Int("tools", 0, "how many generated tools to offer")
	stderr := fs.String("stderr", "", "a line to write to stderr at start")
	flood := fs.Int("stderr-flood", 0, "write this many bytes of numbered lines to stderr at start")
	failStart := fs.Int("fail-start", -1, "exit with this status at start, after -stderr, without serving")
	marker := fs.String("restart-marker", "", "a file created at the first start; when it exists, offer only the tools of -restart-only")
	restartOnly := fs.String("restart-only", "", "comma-separated fixed tools offered when -restart-marker exists")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	for i := 0; i < *flood; {
		n, _ := fmt.Fprintf(os.Stderr, "flood line %d\n", i)
		i += n
	}
	if *stderr != "" {
		fmt.Fprintln(os.Stderr, *stderr)
	}
	if *failStart >= 0 {
		return *failStart
	}
	opts := Options{Name: *name, Tools: *tools, Exit: true, Stderr: os.Stderr}
	if *marker != "" {
		if _, err := os.Stat(*marker); err == nil {
			opts.Only = strings.Split(*restartOnly, ",")
		} else if err := os.WriteFile(*marker, []byte("started\n"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mcptest-server:", err)
			return 1
		}
	}
	err := ServeStdio(context.Background(), New(opts))
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mcptest-server:", err)
		return 1
	}
	return 0
}
