package e2b

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
)

// This file is the client of envd's process service (package process of
// E2B's envd, service process.Process) over the Connect protocol with JSON
// encoding. connectrpc.com/connect does the framing (a flag byte, a 4-byte
// big-endian length, JSON; the end-of-stream frame with flag 0x02 and its
// error), the Connect-Protocol-Version header, error decoding and the
// bound on message sizes; the messages are plain Go structs marshalled by
// jsonCodec, since there are no generated protobuf types (see the package
// documentation for why).

// jsonCodec is a connect.Codec for plain structs as JSON, in the shape
// protojson gives envd's messages: lowerCamelCase names, bytes as base64,
// zero values omitted. Unknown fields are accepted, as protojson clients
// of newer servers accept them.
type jsonCodec struct{}

func (jsonCodec) Name() string                    { return "json" }
func (jsonCodec) Marshal(v any) ([]byte, error)   { return json.Marshal(v) }
func (jsonCodec) Unmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// Messages of process.proto, as JSON.
type (
	processConfig struct {
		Cmd  string            `json:"cmd"`
		Args []string          `json:"args,omitempty"`
		Envs map[string]string `json:"envs,omitempty"`
		Cwd  string            `json:"cwd,omitempty"`
	}
	startRequest struct {
		Process processConfig `json:"process"`
		Stdin   bool          `json:"stdin"`
	}
	processSelector struct {
		Pid uint32 `json:"pid"`
	}
	connectRequest struct {
		Process processSelector `json:"process"`
	}
	processInput struct {
		Stdin []byte `json:"stdin"`
	}
	sendInputRequest struct {
		Process processSelector `json:"process"`
		Input   processInput    `json:"input"`
	}
	closeStdinRequest struct {
		Process processSelector `json:"process"`
	}
	sendSignalRequest struct {
		Process processSelector `json:"process"`
		Signal  string          `json:"signal"`
	}
	empty struct{}

	// eventResponse is StartResponse and ConnectResponse.
	eventResponse struct {
		Event processEvent `json:"event"`
	}
	processEvent struct {
		Start *struct {
			Pid uint32 `json:"pid"`
		} `json:"start,omitempty"`
		Data *struct {
			Stdout []byte `json:"stdout,omitempty"`
			Stderr []byte `json:"stderr,omitempty"`
			Pty    []byte `json:"pty,omitempty"`
		} `json:"data,omitempty"`
		End *struct {
			ExitCode int32  `json:"exitCode"`
			Exited   bool   `json:"exited"`
			Status   string `json:"status"`
			Error    string `json:"error"`
		} `json:"end,omitempty"`
		Keepalive *struct{} `json:"keepalive,omitempty"`
	}
)

// envdPort is the port envd listens on inside every sandbox.
const envdPort = 49983

// maxEvent bounds one event read from envd (envd sends output in chunks of
// at most 32 KiB, 44 KiB as base64); a bigger frame breaks the stream.
const maxEvent = 1 << 20

// envd is the process-service client of one sandbox.
type envd struct {
	token     string
	keepalive time.Duration // asked of envd on streams

	start      *connect.Client[startRequest, eventResponse]
	connect    *connect.Client[connectRequest, eventResponse]
	sendInput  *connect.Client[sendInputRequest, empty]
	closeStdin *connect.Client[closeStdinRequest, empty]
	sendSignal *connect.Client[sendSignalRequest, empty]
}

// newEnvd returns a client for envd at base (https://49983-ID.DOMAIN).
// When host is not empty, requests go to base with that Host header: the
// fake's loopback server routes by Host as E2B's edge does.
func newEnvd(base, host, token string, hc *http.Client) *envd {
	c := *hc
	tr := c.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	c.Transport = envdTransport{host: host, base: tr}
	hc = &c
	opts := []connect.ClientOption{connect.WithCodec(jsonCodec{}), connect.WithReadMaxBytes(maxEvent)}
	u := func(m string) string { return base + "/process.Process/" + m }
	return &envd{
		token:      token,
		keepalive:  keepaliveInterval,
		start:      connect.NewClient[startRequest, eventResponse](hc, u("Start"), opts...),
		connect:    connect.NewClient[connectRequest, eventResponse](hc, u("Connect"), opts...),
		sendInput:  connect.NewClient[sendInputRequest, empty](hc, u("SendInput"), opts...),
		closeStdin: connect.NewClient[closeStdinRequest, empty](hc, u("CloseStdin"), opts...),
		sendSignal: connect.NewClient[sendSignalRequest, empty](hc, u("SendSignal"), opts...),
	}
}

// envdTransport sets the Host header (when host is set) and records the
// status of the answer for unary, which must tell an answer that refused
// a call from a call lost in transit.
type envdTransport struct {
	host string
	base http.RoundTripper
}

type statusKey struct{}

func (t envdTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.host != "" {
		r = r.Clone(r.Context())
		r.Host = t.host
	}
	resp, err := t.base.RoundTrip(r)
	if st, ok := r.Context().Value(statusKey{}).(*atomic.Int32); ok && resp != nil {
		st.Store(int32(resp.StatusCode))
	}
	return resp, err
}

// envdUser is the sandbox user processes run as, named the way the SDKs
// name it (HTTP basic authentication with an empty password).
var envdUser = "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"))

func request[T any](e *envd, msg *T) *connect.Request[T] {
	r := connect.NewRequest(msg)
	r.Header().Set("X-Access-Token", e.token)
	r.Header().Set("Authorization", envdUser)
	return r
}

// streamRequest is request with the keepalive interval envd should use
// on the stream (its default is 90 s).
func streamRequest[T any](e *envd, msg *T) *connect.Request[T] {
	r := request(e, msg)
	r.Header().Set("Keepalive-Ping-Interval", strconv.Itoa(max(1, int(e.keepalive/time.Second))))
	return r
}

// The streams' contexts must have no deadline: connect would send it as
// Connect-Timeout-Ms, and envd kills a process when that expires.

func (e *envd) startProcess(ctx context.Context, cfg processConfig) (*connect.ServerStreamForClient[eventResponse], error) {
	return e.start.CallServerStream(ctx, streamRequest(e, &startRequest{Process: cfg, Stdin: true}))
}

func (e *envd) connectProcess(ctx context.Context, pid uint32) (*connect.ServerStreamForClient[eventResponse], error) {
	return e.connect.CallServerStream(ctx, streamRequest(e, &connectRequest{Process: processSelector{Pid: pid}}))
}

// unary calls f, retrying when a response said the call was not carried
// out (429, 502, 503 from the edge) — never after a transport error, since
// input that may have arrived must not be sent twice.
func unary[T any](ctx context.Context, e *envd, f func(context.Context, *connect.Request[T]) (*connect.Response[empty], error), msg *T) error {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		var status atomic.Int32
		_, err := f(context.WithValue(ctx, statusKey{}, &status), request(e, msg))
		if err == nil || attempt == 5 || !refused(int(status.Load())) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay *= 2
	}
}

// refused reports whether an answer with this status (0: none came)
// says the call was not carried out and may be sent again.
func refused(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable:
		return true
	}
	return false
}

func (e *envd) input(ctx context.Context, pid uint32, data []byte) error {
	return unary(ctx, e, e.sendInput.CallUnary, &sendInputRequest{Process: processSelector{Pid: pid}, Input: processInput{Stdin: data}})
}

func (e *envd) signal(ctx context.Context, pid uint32, sig string) error {
	return unary(ctx, e, e.sendSignal.CallUnary, &sendSignalRequest{Process: processSelector{Pid: pid}, Signal: sig})
}

func (e *envd) closeInput(ctx context.Context, pid uint32) error {
	return unary(ctx, e, e.closeStdin.CallUnary, &closeStdinRequest{Process: processSelector{Pid: pid}})
}

// retryableStart reports whether a failed Start may be sent again:
// connect reports transport failures and 429/502/503 answers as these.
func retryableStart(err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeResourceExhausted:
		return true
	}
	return false
}
