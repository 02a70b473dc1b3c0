package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// go-openai's ChatCompletionRequest has a fixed set of fields, and its
// own extra-body option works only for the request types it builds as
// maps. ExtraBody therefore travels in the request's context to
// extraBodyTransport, which merges it into the JSON body on its way out:
// one place, for every request the client sends, streaming or not, and
// for every retry.

type extraBodyKey struct{}

// withExtraBody returns ctx carrying the fields to merge into the body.
func withExtraBody(ctx context.Context, extra map[string]any) context.Context {
	if len(extra) == 0 {
		return ctx
	}
	return context.WithValue(ctx, extraBodyKey{}, extra)
}

// extraBodyTransport sets the top-level fields of the context's extra
// body in a JSON request body, replacing fields of the same name.
type extraBodyTransport struct {
	base http.RoundTripper
}

func (t *extraBodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	extra, _ := req.Context().Value(extraBodyKey{}).(map[string]any)
	if len(extra) == 0 || req.Body == nil || req.Body == http.NoBody {
		return base.RoundTrip(req)
	}
	body, err := mergeBody(req.Body, extra)
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return base.RoundTrip(req)
}

// mergeBody reads a JSON object from r and sets extra's fields in it.
func mergeBody(r io.ReadCloser, extra map[string]any) ([]byte, error) {
	defer r.Close()
	var obj map[string]json.RawMessage
	if err := json.NewDecoder(r).Decode(&obj); err != nil {
		return nil, fmt.Errorf("extra body: the request body is not a JSON object: %w", err)
	}
	for k, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("extra body: field %q: %w", k, err)
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}
