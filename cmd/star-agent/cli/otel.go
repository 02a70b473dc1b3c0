package cli

import (
	"context"
	"io"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// newTracer configures trace export from --otel, or else from
// OTEL_TRACES_EXPORTER ("console" or "otlp"; OTLP itself is configured by
// the standard OTEL_EXPORTER_OTLP_* variables). It returns a nil tracer
// when tracing is off, and a function that flushes the spans.
func newTracer(ctx context.Context, flag string, stderr io.Writer) (trace.Tracer, func(), error) {
	kind := flag
	if kind == "" {
		switch os.Getenv("OTEL_TRACES_EXPORTER") {
		case "console":
			kind = "stdout"
		case "otlp":
			kind = "otlp"
		}
	}
	var exp sdktrace.SpanExporter
	var err error
	switch kind {
	case "", "none":
		return nil, func() {}, nil
	case "stdout":
		exp, err = stdouttrace.New(stdouttrace.WithWriter(stderr), stdouttrace.WithPrettyPrint())
	case "otlp":
		exp, err = otlptracehttp.New(ctx)
	default:
		return nil, nil, usageError("--otel must be stdout or otlp, not %q", kind)
	}
	if err != nil {
		return nil, nil, usageError("--otel %s: %v", kind, err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "star-agent")))
	if err != nil {
		res = resource.Default()
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	shutdown := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tp.Shutdown(ctx)
	}
	return tp.Tracer("github.com/star-agent/star-agent"), shutdown, nil
}
