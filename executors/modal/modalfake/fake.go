// Package modalfake is a loopback stand-in for Modal's control plane, for
// tests only: a gRPC server implementing the generated ModalClientServer
// interface of Modal's Go SDK (modal-client/go/proto/modal_proto), with the
// calls the SDK makes to create a sandbox, talk to its entrypoint process
// and end it. On the control-plane backend (the SDK's with
// MODAL_SANDBOX_V2=0): AuthTokenGet, EnvironmentGetOrCreate, AppGetOrCreate, ImageGetOrCreate,
// ImageJoinStreaming, SecretGetOrCreate (ephemeral, for environment
// variables), SandboxCreate, SandboxGetTaskId, SandboxStdinWrite,
// SandboxGetLogs, SandboxWait and SandboxTerminate. On the V2 backend (the
// SDK's default): SandboxCreateV2, SandboxWaitV2, SandboxTerminateV2,
// SandboxGetCommandRouterAccess and, on a second server, the command
// router's SandboxStdinWriteV2 and SandboxStdioReadV2 (see v2.go). Every
// other call is UNIMPLEMENTED (the embedded Unimplemented servers).
//
// Each sandbox's entrypoint runs as a real local process (the image is the
// host: python3 from PATH), with a minimal environment. Its output is cut at
// random boundaries (never inside a UTF-8 character: log data is a proto
// string) into log entries with increasing ids, which SandboxGetLogs
// streams from the entry after last_entry_id.
//
// It is strict where Modal is: every call needs the token id and secret
// headers (UNAUTHENTICATED otherwise), every unary call but AuthTokenGet also
// a JWT this server issued (three parts, an exp claim); unknown app, image
// and sandbox ids are NOT_FOUND; a stdin write whose index is not the next
// one is INVALID_ARGUMENT unless it repeats an accepted write under the same
// x-idempotency-key (the SDK's retries); writes after EOF or to a finished
// sandbox are FAILED_PRECONDITION. Tests queue failures of SandboxCreate,
// drop log streams, and expire sandboxes as their timeout would.
//
// Tests import it from _test.go files only.
package modalfake

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	pb "github.com/modal-labs/modal-client/go/proto/modal_proto"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// BuilderVersion is the image builder version of the fake's environments.
const BuilderVersion = "2025.06"

// Server is the fake. Create it with New and stop it with Close.
type Server struct {
	pb.UnimplementedModalClientServer

	// URL is the server's address for MODAL_SERVER_URL (plain http: no TLS).
	URL string
	// RouterURL is the V2 command router's address (https:// in name; the
	// SDK connects to a localhost router without TLS).
	RouterURL   string
	TokenID     string
	TokenSecret string
	// MaxChunk bounds one log entry's size; output is cut at random sizes
	// up to it. Set it before creating sandboxes.
	MaxChunk int
	// LogStreamTimeout ends a SandboxGetLogs stream (without EOF) after
	// this long, as Modal ends them after the request's timeout (55 s);
	// 0 means the request's timeout.
	LogStreamTimeout time.Duration
	// ImagePath, by registry reference, is the PATH of an image's
	// processes (the fake's images are the host); an image not in it has
	// this process's PATH. Set it before creating sandboxes.
	ImagePath map[string]string

	stallStdin atomic.Bool

	srv       *grpc.Server
	routerSrv *grpc.Server
	key       []byte
	closed    chan struct{}

	mu         sync.Mutex
	calls      []string
	apps       map[string]string // env/name -> id
	appIDs     map[string]bool
	images     map[string]bool   // id -> built
	imageRefs  map[string]string // id -> the registry reference it is FROM
	sandboxes  map[string]*Sandbox
	createErrs []error
	termErrs   []error
	dropLogs   int
	resumes    []string // last_entry_id of every stdout SandboxGetLogs after the first
	rejected   []string // why stdin writes were rejected
	terminated []string
	secrets    map[string]map[string]string // id -> environment variables
}

// Sandbox is one fake sandbox.
type Sandbox struct {
	ID         string
	TaskID     string
	Definition *pb.Sandbox
	// Image is the registry reference of the sandbox's image.
	Image string
	// V2 is set for sandboxes of SandboxCreateV2.
	V2 bool

	srv     *Server
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdinMu sync.Mutex

	// Guarded by srv.mu.
	nextIndex uint32
	eof       bool
	idem      map[string]uint32
	logs      [3][]entry // by file descriptor (1 stdout, 2 stderr)
	raw       [3][]byte  // the same output as bytes, for the command router
	stdinAt   uint64     // stdin bytes received through the command router
	seq       int
	result    *pb.GenericResult
	changed   chan struct{} // closed and replaced when logs or result change
	readers   sync.WaitGroup
	done      chan struct{} // closed when the process is reaped
	streams   int           // stdout log streams opened
}

type entry struct {
	seq  int
	data string
}

func (e entry) id() string { return strconv.Itoa(e.seq) + "-0" }

// New starts a fake on a loopback port.
func New() *Server {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s := &Server{
		URL:         "http://" + lis.Addr().String(),
		TokenID:     "ak-fake" + randomID(12),
		TokenSecret: "as-fake" + randomID(24),
		MaxChunk:    64,
		ImagePath:   map[string]string{},
		key:         []byte(randomID(32)),
		closed:      make(chan struct{}),
		apps:        map[string]string{},
		appIDs:      map[string]bool{},
		images:      map[string]bool{},
		imageRefs:   map[string]string{},
		secrets:     map[string]map[string]string{},
		sandboxes:   map[string]*Sandbox{},
	}
	s.srv = grpc.NewServer(grpc.ChainUnaryInterceptor(s.unaryAuth), grpc.ChainStreamInterceptor(s.streamAuth))
	pb.RegisterModalClientServer(s.srv, s)
	go s.srv.Serve(lis)
	s.startRouter()
	return s
}

// Close stops the server and kills and reaps every process it started.
func (s *Server) Close() {
	close(s.closed)
	s.srv.Stop()
	s.routerSrv.Stop()
	s.mu.Lock()
	var all []*Sandbox
	for _, sb := range s.sandboxes {
		all = append(all, sb)
	}
	s.mu.Unlock()
	for _, sb := range all {
		s.finish(sb, pb.GenericResult_GENERIC_STATUS_TERMINATED, "server closed")
		<-sb.done
	}
}

// FailCreate makes the next SandboxCreate calls fail with these errors
// (status errors, e.g. status.Error(codes.ResourceExhausted, "...")).
func (s *Server) FailCreate(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.createErrs = append(s.createErrs, errs...)
}

// FailTerminate makes the next SandboxTerminate calls fail with these
// errors, the sandbox left running.
func (s *Server) FailTerminate(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.termErrs = append(s.termErrs, errs...)
}

// DropLogStreams makes stdout log streams fail with UNAVAILABLE, as a
// connection reset would, n times: each time before a batch of a stream
// that has already sent one, so the client must reopen it mid-output.
func (s *Server) DropLogStreams(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLogs += n
}

// StallStdin, while on, leaves stdin writes unanswered until the client
// gives up or the server closes.
func (s *Server) StallStdin(on bool) { s.stallStdin.Store(on) }

// Calls returns the methods called, in order ("SandboxCreate", ...).
func (s *Server) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// Count returns how many times method was called.
func (s *Server) Count(method string) int {
	n := 0
	for _, c := range s.Calls() {
		if c == method {
			n++
		}
	}
	return n
}

// Resumes returns the last_entry_id of every stdout log stream opened after
// a sandbox's first one.
func (s *Server) Resumes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.resumes...)
}

// Rejected returns why stdin writes were rejected.
func (s *Server) Rejected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.rejected...)
}

// Terminated returns the ids of the sandboxes SandboxTerminate ended.
func (s *Server) Terminated() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.terminated...)
}

// Sandboxes returns every sandbox created, in no order.
func (s *Server) Sandboxes() []*Sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Sandbox
	for _, sb := range s.sandboxes {
		out = append(out, sb)
	}
	return out
}

// Running returns the ids of the sandboxes whose process has not been reaped.
func (s *Server) Running() []string {
	var out []string
	for _, sb := range s.Sandboxes() {
		select {
		case <-sb.done:
		default:
			out = append(out, sb.ID)
		}
	}
	return out
}

// Expire ends sandbox id as its timeout would: the process is killed and
// the result is TIMEOUT.
func (s *Server) Expire(id string) {
	s.mu.Lock()
	sb := s.sandboxes[id]
	s.mu.Unlock()
	if sb != nil {
		s.finish(sb, pb.GenericResult_GENERIC_STATUS_TIMEOUT, "Sandbox timed out")
		<-sb.done
	}
}

// Publish appends data to a sandbox's output on file descriptor fd (1 or
// 2), as if its process had written it.
func (s *Server) Publish(id string, fd int, data string) {
	s.mu.Lock()
	sb := s.sandboxes[id]
	s.mu.Unlock()
	if sb != nil {
		sb.append(fd, data)
		sb.appendRaw(fd, []byte(data))
	}
}

// Pid returns the local process id of a sandbox's entrypoint, or 0.
func (sb *Sandbox) Pid() int {
	if sb.cmd == nil || sb.cmd.Process == nil {
		return 0
	}
	return sb.cmd.Process.Pid
}

// reaped reports whether the process has ended and its output is all in.
func (sb *Sandbox) reaped() bool {
	select {
	case <-sb.done:
		return true
	default:
		return false
	}
}

// Finished reports whether the sandbox has a result.
func (sb *Sandbox) Finished() bool {
	sb.srv.mu.Lock()
	defer sb.srv.mu.Unlock()
	return sb.result != nil
}

const v1Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = v1Alphabet[int(b[i])%len(v1Alphabet)]
	}
	return string(b)
}

// --- sandboxes ---

func (s *Server) lookup(id string) (*Sandbox, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sb := s.sandboxes[id]
	if sb == nil {
		return nil, status.Errorf(codes.NotFound, "Sandbox %s not found", id)
	}
	return sb, nil
}

// SandboxCreate starts the definition's entrypoint as a local process.
func (s *Server) SandboxCreate(ctx context.Context, req *pb.SandboxCreateRequest) (*pb.SandboxCreateResponse, error) {
	sb, err := s.create(req.GetAppId(), req.GetDefinition(), nil, false)
	if err != nil {
		return nil, err
	}
	return pb.SandboxCreateResponse_builder{SandboxId: sb.ID}.Build(), nil
}

// create starts a sandbox; v2 sandboxes get ids of another shape (the SDK
// routes by it) and their stdio through the command router.
func (s *Server) create(appID string, def *pb.Sandbox, sources []*pb.SecretSource, v2 bool) (*Sandbox, error) {
	s.mu.Lock()
	if len(s.createErrs) > 0 {
		err := s.createErrs[0]
		s.createErrs = s.createErrs[1:]
		s.mu.Unlock()
		return nil, err
	}
	switch {
	case !s.appIDs[appID]:
		s.mu.Unlock()
		return nil, status.Errorf(codes.NotFound, "App %s not found", appID)
	case !s.images[def.GetImageId()]:
		s.mu.Unlock()
		return nil, status.Errorf(codes.NotFound, "Image %s not found", def.GetImageId())
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "LANG=C.UTF-8"}
	for _, id := range def.GetSecretIds() {
		vars, ok := s.secrets[id]
		if !ok {
			s.mu.Unlock()
			return nil, status.Errorf(codes.NotFound, "Secret %s not found", id)
		}
		for k, v := range vars {
			env = append(env, k+"="+v)
		}
	}
	for _, src := range sources {
		if src.HasSecretId() {
			vars, ok := s.secrets[src.GetSecretId()]
			if !ok {
				s.mu.Unlock()
				return nil, status.Errorf(codes.NotFound, "Secret %s not found", src.GetSecretId())
			}
			for k, v := range vars {
				env = append(env, k+"="+v)
			}
		}
		for k, v := range src.GetEnv().GetContents() {
			env = append(env, k+"="+v)
		}
	}
	s.mu.Unlock()
	args := def.GetEntrypointArgs()
	if len(args) == 0 {
		return nil, status.Error(codes.InvalidArgument, "the fake runs entrypoint commands only")
	}
	if t := def.GetTimeoutSecs(); t == 0 || t > 24*3600 {
		return nil, status.Errorf(codes.InvalidArgument, "timeout_secs %d: must be between 1 and 86400", t)
	}
	if def.GetIdleTimeoutSecs() > 24*3600 {
		return nil, status.Errorf(codes.InvalidArgument, "idle_timeout_secs %d: too long", def.GetIdleTimeoutSecs())
	}
	sb := &Sandbox{
		ID: "sb-" + randomID(22), TaskID: "ta-" + randomID(22), Definition: def, Image: s.imageRefs[def.GetImageId()], V2: v2, srv: s,
		nextIndex: 1, idem: map[string]uint32{}, changed: make(chan struct{}), done: make(chan struct{}),
	}
	if v2 {
		sb.ID = "sb2-" + randomID(26)
	}
	cmd := exec.Command(args[0], args[1:]...)
	if path, ok := s.ImagePath[sb.Image]; ok {
		// The image's own PATH: look the command up there, not in ours.
		cmd.Path, cmd.Err = "", nil
		for _, dir := range filepath.SplitList(path) {
			if p := filepath.Join(dir, args[0]); isExecutable(p) {
				cmd.Path = p
				break
			}
		}
		if cmd.Path == "" {
			cmd.Err = fmt.Errorf("exec: %q: executable file not found in $PATH", args[0])
		}
		env[0] = "PATH=" + path
	}
	cmd.Env = env
	cmd.Dir = os.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	sb.cmd, sb.stdin = cmd, stdin
	s.mu.Lock()
	s.sandboxes[sb.ID] = sb
	s.mu.Unlock()
	if err := cmd.Start(); err != nil {
		sb.cmd = nil
		s.mu.Lock()
		sb.result = pb.GenericResult_builder{Status: pb.GenericResult_GENERIC_STATUS_FAILURE, Exception: err.Error(), Exitcode: 127}.Build()
		close(sb.changed)
		sb.changed = make(chan struct{})
		s.mu.Unlock()
		close(sb.done)
		return sb, nil
	}
	sb.readers.Add(2)
	go sb.capture(stdout, 1)
	go sb.capture(stderr, 2)
	timeout := time.Duration(def.GetTimeoutSecs()) * time.Second
	timer := time.AfterFunc(timeout, func() { s.finish(sb, pb.GenericResult_GENERIC_STATUS_TIMEOUT, "Sandbox timed out") })
	go func() {
		sb.readers.Wait()
		err := cmd.Wait()
		timer.Stop()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		st := pb.GenericResult_GENERIC_STATUS_SUCCESS
		if code != 0 {
			st = pb.GenericResult_GENERIC_STATUS_FAILURE
		}
		s.setResult(sb, pb.GenericResult_builder{Status: st, Exitcode: int32(code)}.Build())
		close(sb.done)
	}()
	return sb, nil
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// finish kills the sandbox's process with a result of status st.
func (s *Server) finish(sb *Sandbox, st pb.GenericResult_GenericStatus, why string) {
	s.setResult(sb, pb.GenericResult_builder{Status: st, Exception: why}.Build())
	if sb.cmd != nil && sb.cmd.Process != nil {
		sb.cmd.Process.Kill()
	}
}

// setResult records the first result and wakes the waiters.
func (s *Server) setResult(sb *Sandbox, r *pb.GenericResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sb.result == nil {
		sb.result = r
		close(sb.changed)
		sb.changed = make(chan struct{})
	}
}

// capture cuts a stream of the process into log entries of random sizes,
// never inside a UTF-8 character; invalid bytes become U+FFFD.
func (sb *Sandbox) capture(r io.Reader, fd int) {
	defer sb.readers.Done()
	buf := make([]byte, 32<<10)
	var pending []byte
	for {
		n, err := r.Read(buf)
		sb.appendRaw(fd, buf[:n])
		pending = append(pending, buf[:n]...)
		for len(pending) > 0 {
			size := 1 + mrand.IntN(max(1, sb.srv.MaxChunk))
			if size >= len(pending) {
				size = len(pending)
				if err == nil {
					// Keep an incomplete trailing character for the next read.
					for k := 1; k <= 3 && k <= size; k++ {
						if utf8.RuneStart(pending[size-k]) {
							if !utf8.FullRune(pending[size-k : size]) {
								size -= k
							}
							break
						}
					}
					if size == 0 {
						break
					}
				}
			} else {
				for size > 0 && !utf8.RuneStart(pending[size]) {
					size--
				}
				if size == 0 {
					_, size = utf8.DecodeRune(pending)
				}
			}
			sb.append(fd, strings.ToValidUTF8(string(pending[:size]), "\uFFFD"))
			pending = pending[size:]
		}
		if err != nil {
			if len(pending) > 0 {
				sb.append(fd, strings.ToValidUTF8(string(pending), "\uFFFD"))
			}
			return
		}
	}
}

func (sb *Sandbox) appendRaw(fd int, data []byte) {
	if len(data) == 0 {
		return
	}
	s := sb.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	sb.raw[fd] = append(sb.raw[fd], data...)
	close(sb.changed)
	sb.changed = make(chan struct{})
}

func (sb *Sandbox) append(fd int, data string) {
	s := sb.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	sb.seq++
	sb.logs[fd] = append(sb.logs[fd], entry{seq: sb.seq, data: data})
	close(sb.changed)
	sb.changed = make(chan struct{})
}

// SandboxGetTaskId returns the sandbox's task (it is scheduled at once).
func (s *Server) SandboxGetTaskId(ctx context.Context, req *pb.SandboxGetTaskIdRequest) (*pb.SandboxGetTaskIdResponse, error) {
	sb, err := s.lookup(req.GetSandboxId())
	if err != nil {
		return nil, err
	}
	return pb.SandboxGetTaskIdResponse_builder{TaskId: &sb.TaskID}.Build(), nil
}

// maxStdinWrite bounds one SandboxStdinWrite's input.
const maxStdinWrite = 4 << 20

// SandboxStdinWrite writes to the entrypoint's stdin; indexes start at 1
// and increase by one per write, EOF included.
func (s *Server) SandboxStdinWrite(ctx context.Context, req *pb.SandboxStdinWriteRequest) (*pb.SandboxStdinWriteResponse, error) {
	sb, err := s.lookup(req.GetSandboxId())
	if err != nil {
		return nil, err
	}
	if s.stallStdin.Load() {
		select {
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.closed:
			return nil, status.Error(codes.Unavailable, "server shutting down")
		}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	key := first(md, "x-idempotency-key")
	sb.stdinMu.Lock()
	defer sb.stdinMu.Unlock()
	s.mu.Lock()
	reject := func(c codes.Code, format string, a ...any) (*pb.SandboxStdinWriteResponse, error) {
		why := fmt.Sprintf(format, a...)
		s.rejected = append(s.rejected, why)
		s.mu.Unlock()
		return nil, status.Error(c, why)
	}
	if idx, ok := sb.idem[key]; ok && key != "" && idx == req.GetIndex() {
		s.mu.Unlock()
		return pb.SandboxStdinWriteResponse_builder{}.Build(), nil // a retry of an accepted write
	}
	switch {
	case sb.result != nil:
		return reject(codes.FailedPrecondition, "Sandbox %s has already finished", sb.ID)
	case sb.eof:
		return reject(codes.FailedPrecondition, "stdin of sandbox %s is closed", sb.ID)
	case req.GetIndex() != sb.nextIndex:
		return reject(codes.InvalidArgument, "stdin write index %d out of order: expected %d", req.GetIndex(), sb.nextIndex)
	case len(req.GetInput()) > maxStdinWrite:
		return reject(codes.InvalidArgument, "stdin write of %d bytes is larger than %d", len(req.GetInput()), maxStdinWrite)
	}
	sb.nextIndex++
	if key != "" {
		sb.idem[key] = req.GetIndex()
	}
	if req.GetEof() {
		sb.eof = true
	}
	s.mu.Unlock()
	if len(req.GetInput()) > 0 {
		sb.stdin.Write(req.GetInput()) // a dead process is reported by SandboxWait
	}
	if req.GetEof() {
		sb.stdin.Close()
	}
	return pb.SandboxStdinWriteResponse_builder{}.Build(), nil
}

func parseEntryID(id string) (int, bool) {
	a, b, ok := strings.Cut(id, "-")
	n, err := strconv.Atoi(a)
	if !ok || err != nil || n < 0 || b != "0" {
		return 0, false
	}
	return n, true
}

// SandboxGetLogs streams the entries of one file descriptor after
// last_entry_id, then a batch with eof once the sandbox has finished. It
// ends without eof after the request's timeout (the client reopens).
func (s *Server) SandboxGetLogs(req *pb.SandboxGetLogsRequest, st grpc.ServerStreamingServer[pb.TaskLogsBatch]) error {
	sb, err := s.lookup(req.GetSandboxId())
	if err != nil {
		return err
	}
	fd := int(req.GetFileDescriptor())
	if fd != 1 && fd != 2 {
		return status.Errorf(codes.InvalidArgument, "file descriptor %v: want stdout or stderr", req.GetFileDescriptor())
	}
	last := 0
	if id := req.GetLastEntryId(); id != "" {
		n, ok := parseEntryID(id)
		if !ok {
			return status.Errorf(codes.InvalidArgument, "bad last_entry_id %q", id)
		}
		last = n
	}
	timeout := time.Duration(req.GetTimeout() * float32(time.Second))
	if timeout <= 0 || timeout > 55*time.Second {
		timeout = 55 * time.Second
	}
	if s.LogStreamTimeout > 0 {
		timeout = min(timeout, s.LogStreamTimeout)
	}
	end := time.NewTimer(timeout)
	defer end.Stop()
	s.mu.Lock()
	if fd == 1 {
		sb.streams++
		if sb.streams > 1 {
			s.resumes = append(s.resumes, req.GetLastEntryId())
		}
	}
	s.mu.Unlock()
	sent := 0
	for {
		s.mu.Lock()
		var items []*pb.TaskLogs
		lastID := ""
		for _, e := range sb.logs[fd] {
			if e.seq > last && len(items) < 100 {
				items = append(items, pb.TaskLogs_builder{Data: e.data, FileDescriptor: pb.FileDescriptor(fd), TaskState: pb.TaskState_TASK_STATE_ACTIVE}.Build())
				lastID = e.id()
				last = e.seq
			}
		}
		finished := sb.reaped()
		changed := sb.changed
		drop := len(items) > 0 && fd == 1 && sent > 0 && s.dropLogs > 0
		if drop {
			s.dropLogs--
		}
		s.mu.Unlock()
		if drop {
			return status.Error(codes.Unavailable, "upstream connect error or disconnect/reset before headers. reset reason: connection termination")
		}
		if len(items) > 0 {
			if err := st.Send(pb.TaskLogsBatch_builder{TaskId: sb.TaskID, SandboxId: sb.ID, Items: items, EntryId: lastID}.Build()); err != nil {
				return err
			}
			sent++
			continue
		}
		if finished {
			// The process has been reaped, so every entry has been sent.
			return st.Send(pb.TaskLogsBatch_builder{TaskId: sb.TaskID, SandboxId: sb.ID, EntryId: strconv.Itoa(last) + "-0", Eof: true}.Build())
		}
		select {
		case <-changed:
		case <-sb.done:
		case <-end.C:
			return nil
		case <-st.Context().Done():
			return st.Context().Err()
		case <-s.closed:
			return status.Error(codes.Unavailable, "server shutting down")
		}
	}
}

// SandboxWait waits up to the request's timeout for the sandbox to finish.
func (s *Server) SandboxWait(ctx context.Context, req *pb.SandboxWaitRequest) (*pb.SandboxWaitResponse, error) {
	sb, err := s.lookup(req.GetSandboxId())
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(min(req.GetTimeout(), 55) * float32(time.Second)))
	defer t.Stop()
	for {
		s.mu.Lock()
		r, changed := sb.result, sb.changed
		s.mu.Unlock()
		if r != nil {
			return pb.SandboxWaitResponse_builder{Result: r}.Build(), nil
		}
		select {
		case <-changed:
		case <-t.C:
			return pb.SandboxWaitResponse_builder{}.Build(), nil
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		}
	}
}

// SandboxTerminate ends the sandbox (TERMINATED) unless it has finished.
func (s *Server) SandboxTerminate(ctx context.Context, req *pb.SandboxTerminateRequest) (*pb.SandboxTerminateResponse, error) {
	sb, err := s.lookup(req.GetSandboxId())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.termErrs) > 0 {
		err := s.termErrs[0]
		s.termErrs = s.termErrs[1:]
		s.mu.Unlock()
		return nil, err
	}
	existing := sb.result
	s.terminated = append(s.terminated, sb.ID)
	s.mu.Unlock()
	if existing != nil {
		return pb.SandboxTerminateResponse_builder{ExistingResult: existing}.Build(), nil
	}
	s.finish(sb, pb.GenericResult_GENERIC_STATUS_TERMINATED, "Sandbox terminated")
	return pb.SandboxTerminateResponse_builder{}.Build(), nil
}
