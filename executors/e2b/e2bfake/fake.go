// Package e2bfake is a loopback stand-in for E2B, for tests only: an HTTP
// server that speaks E2B's REST control plane and envd's process service
// over the Connect protocol (JSON, framed by hand: a flag byte, a 4-byte
// big-endian length, the message; the end-of-stream frame with flag 0x02)
// and runs every started process as a real local process.
//
// It is strict where E2B is: a missing or wrong X-API-Key is a 401 JSON
// error, a wrong X-Access-Token a 401, an unknown sandbox a 404 (on the
// control plane and at the edge), an ended or unknown pid not_found, a
// request without Connect-Protocol-Version or with the wrong content type
// is refused, unknown JSON fields are refused (as protojson refuses them),
// and a Connect-Timeout-Ms on a stream kills its process when it expires.
// Output is cut at random boundaries into data events, and events emitted
// while no client is attached are dropped, as envd's multiplexer drops
// them. Envd requests are routed by their Host header, 49983-ID.DOMAIN, as
// E2B's edge routes them.
//
// Tests import it from _test.go files only.
package e2bfake

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Failure is a canned error answer. Status 0 means no answer: the
// connection is cut.
type Failure struct {
	Status     int
	RetryAfter string // the Retry-After header, if any
	Message    string
	// Deliver, for SendInput, writes the input before failing (the
	// answer is what is lost).
	Deliver bool
}

// Server is the fake. Create it with New and stop it with Close.
type Server struct {
	// URL is the base URL of both APIs (envd requests need the Host
	// header 49983-ID.DOMAIN).
	URL    string
	APIKey string
	Domain string
	// Keepalive, when set, is the interval of keepalive events on streams;
	// else it is the request's Keepalive-Ping-Interval (seconds) or 90 s,
	// as in envd.
	Keepalive time.Duration
	// PATH is the sandbox's PATH, where commands are looked up; "" means
	// the test's own. Set it before use.
	PATH string
	// CreateDelay and DeleteDelay hold every creation or deletion this
	// long before it is carried out (a slow or stuck service); set them
	// before use.
	CreateDelay, DeleteDelay time.Duration
	// MaxChunk bounds the size of one data event (envd reads 32 KiB at
	// a time); set it before starting processes.
	MaxChunk int

	srv *httptest.Server

	mu        sync.Mutex
	sandboxes map[string]*Sandbox
	failures  []Failure
	delFails  []Failure
	envdFails map[string][]Failure
	calls     map[string]int
	times     map[string][]time.Time
	deleted   []string
	procs     map[int]*exec.Cmd // every process started, by os pid, until reaped
	attached  *sync.Cond
}

// Sandbox is one fake sandbox.
type Sandbox struct {
	ID      string
	Token   string
	Timeout int
	EnvVars map[string]string
	procs   map[uint32]*process
	timer   *time.Timer
	streams map[chan struct{}]struct{} // abort channels of open streams
	// stalledStreams are streams that send nothing more.
	stalledStreams map[chan struct{}]bool
	// Attaches counts Connect calls that attached to a process.
	Attaches int
	// sent counts the stdout bytes sent on its streams; dropAt, when
	// positive, cuts the streams once sent reaches it, in the middle of
	// an event if need be (the rest of that event is lost).
	sent, dropAt int64
}

// New starts a fake on 127.0.0.1.
func New() *Server {
	s := &Server{APIKey: "e2b_test_key", Domain: "e2b.test", Keepalive: 200 * time.Millisecond, MaxChunk: 32 << 10,
		sandboxes: map[string]*Sandbox{}, calls: map[string]int{}, times: map[string][]time.Time{}, procs: map[int]*exec.Cmd{}}
	s.attached = sync.NewCond(&s.mu)
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close kills every process and stops the server.
func (s *Server) Close() {
	s.mu.Lock()
	for id := range s.sandboxes {
		s.removeLocked(id)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// FailCreate queues error answers for the next creations.
func (s *Server) FailCreate(f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, f...)
}

// FailEnvd queues failures of the next calls of a unary envd method
// ("SendInput", "SendSignal", "CloseStdin").
func (s *Server) FailEnvd(method string, f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.envdFails == nil {
		s.envdFails = map[string][]Failure{}
	}
	s.envdFails[method] = append(s.envdFails[method], f...)
}

// FailDelete queues error answers for the next deletions.
func (s *Server) FailDelete(f ...Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delFails = append(s.delFails, f...)
}

// Calls returns how many requests of a kind arrived ("POST /sandboxes",
// "DELETE", "timeout", "Start", "Connect", "SendInput", ...).
func (s *Server) Calls(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[kind]
}

// Times returns when requests of a kind arrived.
func (s *Server) Times(kind string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times[kind]...)
}

// Deleted lists the sandboxes deleted with DELETE.
func (s *Server) Deleted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.deleted...)
}

// Live lists the sandboxes that exist.
func (s *Server) Live() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.sandboxes {
		ids = append(ids, id)
	}
	return ids
}

// Processes returns the os pids of processes started and not yet reaped.
func (s *Server) Processes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var pids []int
	for pid := range s.procs {
		pids = append(pids, pid)
	}
	return pids
}

// Expire ends a sandbox as its timeout would: processes killed, streams
// cut, the id unknown from now on.
func (s *Server) Expire(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(id)
}

// Drop cuts every open stream of a sandbox abruptly, as a network failure
// would; the processes keep running.
func (s *Server) Drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb := s.sandboxes[id]; sb != nil {
		for c := range sb.streams {
			close(c)
		}
		sb.streams = map[chan struct{}]struct{}{}
	}
}

// Publish sends stdout to the clients of every process of a sandbox, as
// a compromised envd could.
func (s *Server) Publish(id string, stdout []byte) {
	s.mu.Lock()
	var ps []*process
	if sb := s.sandboxes[id]; sb != nil {
		for _, p := range sb.procs {
			ps = append(ps, p)
		}
	}
	s.mu.Unlock()
	for _, p := range ps {
		p.publish(map[string]any{"data": map[string]any{"stdout": stdout}})
	}
}

// DropAfter cuts the streams of a sandbox once n more bytes of stdout
// have been sent on them, in the middle of an event if need be.
func (s *Server) DropAfter(id string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb := s.sandboxes[id]; sb != nil {
		sb.dropAt = sb.sent + n
	}
}

// Stall makes the open streams of a sandbox go silent, keepalives
// included, without closing their connections (a connection that died
// without a reset); streams opened later are not affected.
func (s *Server) Stall(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb := s.sandboxes[id]; sb != nil {
		for c := range sb.streams {
			sb.stalledStreams[c] = true
		}
	}
}

// WaitAttached waits until a sandbox has had n Connect attachments, or d.
func (s *Server) WaitAttached(id string, n int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	t := time.AfterFunc(d, func() { s.mu.Lock(); s.attached.Broadcast(); s.mu.Unlock() })
	defer t.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if sb := s.sandboxes[id]; sb != nil && sb.Attaches >= n {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		s.attached.Wait()
	}
}

// Sandbox returns the sandbox with this id, or nil. Its fields must not be
// changed.
func (s *Server) Sandbox(id string) *Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sandboxes[id]
}

func (s *Server) count(kind string) {
	s.calls[kind]++
	s.times[kind] = append(s.times[kind], time.Now())
}

// removeLocked deletes a sandbox: its processes are killed, its streams
// cut.
func (s *Server) removeLocked(id string) bool {
	sb := s.sandboxes[id]
	if sb == nil {
		return false
	}
	delete(s.sandboxes, id)
	if sb.timer != nil {
		sb.timer.Stop()
	}
	for c := range sb.streams {
		close(c)
	}
	for _, p := range sb.procs {
		p.cmd.Process.Kill()
	}
	return true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if rest, ok := strings.CutPrefix(host, "49983-"); ok {
		id, domain, _ := strings.Cut(rest, ".")
		if domain != s.Domain {
			http.Error(w, "unknown host", http.StatusNotFound)
			return
		}
		s.envd(w, r, id)
		return
	}
	s.control(w, r)
}

// apiError writes the control plane's JSON error.
func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": status, "message": msg})
}

func strictJSON(r io.Reader, v any) error {
	d := json.NewDecoder(io.LimitReader(r, 1<<20))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}

func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-API-Key") != s.APIKey {
		apiError(w, http.StatusUnauthorized, "Invalid API key, it must start with 'e2b_' prefix and be a valid key")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/sandboxes")
	if r.Method == http.MethodPost && path == "" && s.CreateDelay > 0 {
		// Read the body first: only then does the server notice a client
		// that gives up.
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case <-time.After(s.CreateDelay):
		case <-r.Context().Done():
			return
		}
	}
	if r.Method == http.MethodDelete && s.DeleteDelay > 0 {
		select {
		case <-time.After(s.DeleteDelay):
		case <-r.Context().Done():
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.Method == http.MethodPost && path == "":
		s.count("POST /sandboxes")
		if len(s.failures) > 0 {
			f := s.failures[0]
			s.failures = s.failures[1:]
			if f.Status == 0 {
				panic(http.ErrAbortHandler)
			}
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			apiError(w, f.Status, f.Message)
			return
		}
		if r.Header.Get("Content-Type") != "application/json" {
			apiError(w, http.StatusBadRequest, "Content-Type must be application/json")
			return
		}
		var req struct {
			TemplateID          string            `json:"templateID"`
			Timeout             *int              `json:"timeout"`
			Metadata            map[string]string `json:"metadata"`
			EnvVars             map[string]string `json:"envVars"`
			Secure              *bool             `json:"secure"`
			AutoPause           *bool             `json:"autoPause"`
			AllowInternetAccess *bool             `json:"allow_internet_access"`
		}
		if err := strictJSON(r.Body, &req); err != nil {
			apiError(w, http.StatusBadRequest, "Error when parsing request: "+err.Error())
			return
		}
		if req.TemplateID == "" {
			apiError(w, http.StatusBadRequest, "templateID is required")
			return
		}
		if req.TemplateID != "base" && req.TemplateID != "python-test" {
			apiError(w, http.StatusNotFound, fmt.Sprintf("template '%s' not found", req.TemplateID))
			return
		}
		timeout := 15
		if req.Timeout != nil {
			timeout = *req.Timeout
		}
		if timeout <= 0 || timeout > 3600 {
			apiError(w, http.StatusBadRequest, "Timeout must be between 1 and 3600 seconds")
			return
		}
		sb := &Sandbox{ID: "i" + randomID(10), Token: randomID(16), Timeout: timeout, EnvVars: req.EnvVars,
			procs: map[uint32]*process{}, streams: map[chan struct{}]struct{}{}, stalledStreams: map[chan struct{}]bool{}}
		s.sandboxes[sb.ID] = sb
		s.arm(sb)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"sandboxID": sb.ID, "templateID": req.TemplateID, "clientID": "6532622b",
			"envdVersion": "0.2.0", "envdAccessToken": sb.Token, "domain": s.Domain})
	case r.Method == http.MethodDelete:
		s.count("DELETE")
		id := strings.TrimPrefix(path, "/")
		if len(s.delFails) > 0 {
			f := s.delFails[0]
			s.delFails = s.delFails[1:]
			apiError(w, f.Status, f.Message)
			return
		}
		if !s.removeLocked(id) {
			apiError(w, http.StatusNotFound, fmt.Sprintf("sandbox \"%s\" not found", id))
			return
		}
		s.deleted = append(s.deleted, id)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && strings.HasSuffix(path, "/timeout"):
		s.count("timeout")
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/"), "/timeout")
		var req struct {
			Timeout *int `json:"timeout"`
		}
		if err := strictJSON(r.Body, &req); err != nil || req.Timeout == nil || *req.Timeout <= 0 {
			apiError(w, http.StatusBadRequest, "timeout is required and must be positive")
			return
		}
		sb := s.sandboxes[id]
		if sb == nil {
			apiError(w, http.StatusNotFound, fmt.Sprintf("sandbox \"%s\" not found", id))
			return
		}
		sb.Timeout = *req.Timeout
		s.arm(sb)
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodGet:
		s.count("GET")
		id := strings.TrimPrefix(path, "/")
		sb := s.sandboxes[id]
		if sb == nil {
			apiError(w, http.StatusNotFound, fmt.Sprintf("sandbox \"%s\" not found", id))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"sandboxID": sb.ID, "templateID": "base", "state": "running", "envdVersion": "0.2.0"})
	default:
		apiError(w, http.StatusNotFound, "no such route")
	}
}

// arm (re)starts a sandbox's expiry timer.
func (s *Server) arm(sb *Sandbox) {
	if sb.timer != nil {
		sb.timer.Stop()
	}
	id := sb.ID
	sb.timer = time.AfterFunc(time.Duration(sb.Timeout)*time.Second, func() { s.Expire(id) })
}

// connectError writes a unary Connect error.
func connectError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"code": code, "message": msg})
}

func (s *Server) envd(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	sb := s.sandboxes[id]
	s.mu.Unlock()
	if sb == nil {
		// What the edge answers for a sandbox that is not running.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"sandboxId": id, "message": "The sandbox was not found", "code": 404})
		return
	}
	if r.Header.Get("X-Access-Token") != sb.Token {
		http.Error(w, "unauthorized access, please provide a valid access token", http.StatusUnauthorized)
		return
	}
	if a := r.Header.Get("Authorization"); a != "" && a != "Basic dXNlcjo=" {
		http.Error(w, "invalid username", http.StatusUnauthorized)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/process.Process/")
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.count(method)
	s.mu.Unlock()
	if r.Header.Get("Connect-Protocol-Version") != "1" {
		connectError(w, http.StatusBadRequest, "invalid_argument", `missing required header: set Connect-Protocol-Version to "1"`)
		return
	}
	switch method {
	case "Start", "Connect":
		if r.Header.Get("Content-Type") != "application/connect+json" {
			w.Header().Set("Accept-Post", "application/connect+json")
			w.WriteHeader(http.StatusUnsupportedMediaType)
			return
		}
		s.stream(w, r, sb, method)
	case "SendInput", "CloseStdin", "SendSignal":
		if r.Header.Get("Content-Type") != "application/json" {
			w.Header().Set("Accept-Post", "application/json")
			w.WriteHeader(http.StatusUnsupportedMediaType)
			return
		}
		s.unary(w, r, sb, method)
	default:
		connectError(w, http.StatusNotFound, "unimplemented", "process.Process."+method+" is not implemented")
	}
}

type selector struct {
	Pid *uint32 `json:"pid"`
	Tag *string `json:"tag"`
}

func (s *Server) lookup(sb *Sandbox, sel selector) (*process, error) {
	if sel.Pid == nil {
		return nil, errors.New("a process selector with a pid is required")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p := sb.procs[*sel.Pid]
	if p == nil {
		return nil, fmt.Errorf("process with pid %d not found", *sel.Pid)
	}
	return p, nil
}

func (s *Server) unary(w http.ResponseWriter, r *http.Request, sb *Sandbox, method string) {
	var req struct {
		Process selector `json:"process"`
		Input   *struct {
			Stdin *[]byte `json:"stdin"`
			Pty   *[]byte `json:"pty"`
		} `json:"input"`
		Signal *string `json:"signal"`
	}
	if err := strictJSON(r.Body, &req); err != nil {
		connectError(w, http.StatusBadRequest, "invalid_argument", "unmarshal message: "+err.Error())
		return
	}
	p, err := s.lookup(sb, req.Process)
	if err != nil {
		connectError(w, http.StatusNotFound, "not_found", err.Error())
		return
	}
	s.mu.Lock()
	var fail *Failure
	if q := s.envdFails[method]; len(q) > 0 {
		fail = &q[0]
		s.envdFails[method] = q[1:]
	}
	s.mu.Unlock()
	if fail != nil {
		if fail.Deliver && req.Input != nil && req.Input.Stdin != nil && p.stdin != nil {
			p.stdin.Write(*req.Input.Stdin)
		}
		if fail.Status == 0 {
			panic(http.ErrAbortHandler)
		}
		if fail.RetryAfter != "" {
			w.Header().Set("Retry-After", fail.RetryAfter)
		}
		// What the edge answers when it cannot reach envd.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(fail.Status)
		json.NewEncoder(w).Encode(map[string]any{"code": fail.Status, "message": fail.Message})
		return
	}
	switch method {
	case "SendInput":
		if req.Input == nil || req.Input.Stdin == nil {
			connectError(w, http.StatusBadRequest, "invalid_argument", "input.stdin is required")
			return
		}
		if p.stdin == nil {
			connectError(w, http.StatusFailedDependency, "failed_precondition", "stdin not enabled or closed")
			return
		}
		if _, err := p.stdin.Write(*req.Input.Stdin); err != nil {
			connectError(w, http.StatusInternalServerError, "internal", "error writing to stdin: "+err.Error())
			return
		}
	case "CloseStdin":
		if p.stdin != nil {
			p.stdin.Close()
		}
	case "SendSignal":
		var sig os.Signal
		switch {
		case req.Signal == nil:
			connectError(w, http.StatusBadRequest, "invalid_argument", "signal is required")
			return
		case *req.Signal == "SIGNAL_SIGKILL":
			sig = syscall.SIGKILL
		case *req.Signal == "SIGNAL_SIGTERM":
			sig = syscall.SIGTERM
		default:
			connectError(w, http.StatusBadRequest, "invalid_argument", "invalid signal: "+*req.Signal)
			return
		}
		p.cmd.Process.Signal(sig)
	}
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, "{}")
}

// readEnvelope reads one enveloped request message.
func readEnvelope(r io.Reader, v any) error {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return fmt.Errorf("read envelope: %w", err)
	}
	if hdr[0] != 0 {
		return fmt.Errorf("envelope flag %#x: compression was not negotiated", hdr[0])
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > 1<<20 {
		return fmt.Errorf("message of %d bytes is too big", n)
	}
	if err := strictJSON(io.LimitReader(r, int64(n)), v); err != nil {
		return fmt.Errorf("unmarshal message: %w", err)
	}
	return nil
}

// frames writes a server stream.
type frames struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (f frames) send(flag byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var hdr [5]byte
	hdr[0] = flag
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(data)))
	if _, err := f.w.Write(append(hdr[:], data...)); err != nil {
		return err
	}
	return f.rc.Flush()
}

func (f frames) end(code, msg string) {
	if code == "" {
		f.send(2, map[string]any{})
		return
	}
	f.send(2, map[string]any{"error": map[string]any{"code": code, "message": msg}})
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, sb *Sandbox, method string) {
	var req struct {
		Process json.RawMessage `json:"process"`
		Pty     json.RawMessage `json:"pty"`
		Tag     *string         `json:"tag"`
		Stdin   *bool           `json:"stdin"`
	}
	w.Header().Set("Content-Type", "application/connect+json")
	f := frames{w: w, rc: http.NewResponseController(w)}
	if err := readEnvelope(r.Body, &req); err != nil {
		w.WriteHeader(http.StatusOK)
		f.end("invalid_argument", err.Error())
		return
	}
	var timeout time.Duration
	if v := r.Header.Get("Connect-Timeout-Ms"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms <= 0 || len(v) > 10 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	var p *process
	if method == "Start" {
		var cfg struct {
			Cmd  string            `json:"cmd"`
			Args []string          `json:"args"`
			Envs map[string]string `json:"envs"`
			Cwd  *string           `json:"cwd"`
		}
		d := json.NewDecoder(strings.NewReader(string(req.Process)))
		d.DisallowUnknownFields()
		if err := d.Decode(&cfg); err != nil || cfg.Cmd == "" {
			w.WriteHeader(http.StatusOK)
			f.end("invalid_argument", fmt.Sprintf("a process config with a cmd is required (%v)", err))
			return
		}
		var err error
		p, err = s.startProcess(sb, cfg.Cmd, cfg.Args, cfg.Envs, req.Stdin == nil || *req.Stdin)
		if err != nil {
			w.WriteHeader(http.StatusOK)
			f.end("internal", "error starting process: "+err.Error())
			return
		}
		if timeout > 0 {
			// envd ties the process to the request's deadline.
			time.AfterFunc(timeout, func() { p.cmd.Process.Kill() })
		}
	} else {
		var sel selector
		if err := json.Unmarshal(req.Process, &sel); err != nil {
			w.WriteHeader(http.StatusOK)
			f.end("invalid_argument", err.Error())
			return
		}
		var err error
		if p, err = s.lookup(sb, sel); err != nil {
			w.WriteHeader(http.StatusOK)
			f.end("not_found", err.Error())
			return
		}
	}
	abort := make(chan struct{})
	events, unsubscribe := p.subscribe()
	defer unsubscribe()
	s.mu.Lock()
	if s.sandboxes[sb.ID] == nil {
		s.mu.Unlock()
		panic(http.ErrAbortHandler)
	}
	sb.streams[abort] = struct{}{}
	if method == "Connect" {
		sb.Attaches++
		s.attached.Broadcast()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(sb.streams, abort)
		delete(sb.stalledStreams, abort)
		s.mu.Unlock()
	}()
	w.WriteHeader(http.StatusOK)
	if err := f.send(0, map[string]any{"event": map[string]any{"start": map[string]any{"pid": p.pid}}}); err != nil {
		return
	}
	interval := 90 * time.Second
	if sec, err := strconv.Atoi(r.Header.Get("Keepalive-Ping-Interval")); err == nil && sec > 0 {
		interval = time.Duration(sec) * time.Second
	}
	if s.Keepalive > 0 {
		interval = s.Keepalive
	}
	keep := time.NewTicker(interval)
	defer keep.Stop()
	for {
		s.mu.Lock()
		stalled := sb.stalledStreams[abort]
		s.mu.Unlock()
		if stalled {
			// What is sent now goes into a dead connection.
			select {
			case <-abort:
				panic(http.ErrAbortHandler)
			case <-r.Context().Done():
				return
			case <-events:
			}
			continue
		}
		select {
		case <-abort:
			// A network failure: the connection breaks without an
			// end-of-stream frame.
			panic(http.ErrAbortHandler)
		case <-r.Context().Done():
			return
		case <-keep.C:
			if f.send(0, map[string]any{"event": map[string]any{"keepalive": map[string]any{}}}) != nil {
				return
			}
		case ev, ok := <-events:
			if !ok {
				f.end("", "")
				return
			}
			if s.cut(sb, ev) {
				f.send(0, map[string]any{"event": ev})
				panic(http.ErrAbortHandler)
			}
			if f.send(0, map[string]any{"event": ev}) != nil {
				return
			}
		}
	}
}

// cut counts the stdout bytes of ev and reports whether the stream must
// be cut after it, shortening ev to the bytes before the cut.
func (s *Server) cut(sb *Sandbox, ev map[string]any) bool {
	data, _ := ev["data"].(map[string]any)
	out, _ := data["stdout"].([]byte)
	if out == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sb.sent += int64(len(out))
	if sb.dropAt <= 0 || sb.sent < sb.dropAt {
		return false
	}
	keep := int64(len(out)) - (sb.sent - sb.dropAt)
	sb.sent, sb.dropAt = sb.dropAt, 0
	ev["data"] = map[string]any{"stdout": out[:keep]}
	return true
}

// process is one started process.
type process struct {
	pid   uint32
	cmd   *exec.Cmd
	stdin io.WriteCloser

	// pub serializes publishing and finishing.
	pub    sync.Mutex
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

// subscriber is one stream's feed: ch carries the events and is closed
// after the last one; done is closed when the stream goes away.
type subscriber struct {
	ch   chan map[string]any
	done chan struct{}
}

func (p *process) subscribe() (chan map[string]any, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sub := &subscriber{ch: make(chan map[string]any, 16), done: make(chan struct{})}
	if p.closed {
		close(sub.ch)
		return sub.ch, func() {}
	}
	p.subs[sub] = struct{}{}
	return sub.ch, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if _, ok := p.subs[sub]; ok {
			delete(p.subs, sub)
			close(sub.done)
		}
	}
}

// publish sends ev to every subscriber, waiting for each; with none, the
// event is dropped (as envd drops it).
func (p *process) publish(ev map[string]any) {
	p.pub.Lock()
	defer p.pub.Unlock()
	p.mu.Lock()
	subs := make([]*subscriber, 0, len(p.subs))
	for c := range p.subs {
		subs = append(subs, c)
	}
	p.mu.Unlock()
	for _, c := range subs {
		select {
		case c.ch <- ev:
		case <-c.done:
		}
	}
}

// finish closes the feeds after the end event.
func (p *process) finish() {
	p.pub.Lock()
	defer p.pub.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for c := range p.subs {
		close(c.ch)
	}
	p.subs = nil
}

func (s *Server) startProcess(sb *Sandbox, cmdName string, args []string, envs map[string]string, stdin bool) (*process, error) {
	pathEnv := s.PATH
	if pathEnv == "" {
		pathEnv = os.Getenv("PATH")
	}
	path := ""
	for _, dir := range filepath.SplitList(pathEnv) {
		if st, err := os.Stat(filepath.Join(dir, cmdName)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			path = filepath.Join(dir, cmdName)
			break
		}
	}
	if path == "" {
		return nil, fmt.Errorf("exec: %q: executable file not found in $PATH", cmdName)
	}
	cmd := exec.Command(path, args...)
	// The sandbox's own environment, not the test's: only PATH and what
	// was asked for.
	cmd.Env = []string{"PATH=" + pathEnv, "HOME=" + os.TempDir()}
	for k, v := range sb.EnvVars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	for k, v := range envs {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = os.TempDir()
	p := &process{cmd: cmd, subs: map[*subscriber]struct{}{}}
	if stdin {
		var err error
		if p.stdin, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.pid = uint32(cmd.Process.Pid)
	s.mu.Lock()
	s.procs[cmd.Process.Pid] = cmd
	if s.sandboxes[sb.ID] == nil {
		cmd.Process.Kill()
	} else {
		sb.procs[p.pid] = p
	}
	s.mu.Unlock()
	// One goroutine publishes, in order, what both pipes produce.
	evs := make(chan map[string]any, 64)
	var wg sync.WaitGroup
	for _, o := range []struct {
		name string
		r    io.Reader
	}{{"stdout", stdout}, {"stderr", stderr}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			br := bufio.NewReaderSize(o.r, s.MaxChunk)
			buf := make([]byte, s.MaxChunk)
			for {
				n, err := br.Read(buf)
				for data := buf[:n]; len(data) > 0; {
					// Cut at random boundaries, as envd's reads fall.
					k := 1 + mrand.IntN(len(data))
					chunk := append([]byte(nil), data[:k]...)
					data = data[k:]
					evs <- map[string]any{"data": map[string]any{o.name: chunk}}
				}
				if err != nil {
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(evs)
	}()
	go func() {
		for ev := range evs {
			p.publish(ev)
		}
		err := cmd.Wait()
		end := map[string]any{"exited": true, "status": "exit status 0"}
		if cmd.ProcessState != nil {
			code := cmd.ProcessState.ExitCode()
			if code != 0 {
				end["exitCode"] = code
			}
			end["status"] = cmd.ProcessState.String()
			end["exited"] = cmd.ProcessState.Exited()
		}
		if err != nil && cmd.ProcessState == nil {
			end["error"] = err.Error()
		}
		s.mu.Lock()
		delete(sb.procs, p.pid)
		delete(s.procs, cmd.Process.Pid)
		s.mu.Unlock()
		p.publish(map[string]any{"end": end})
		p.finish()
	}()
	return p, nil
}
