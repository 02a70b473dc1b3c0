package modalfake

// The V2 sandbox backend, the SDK's default since v0.11: SandboxCreateV2
// answers with the task id, the command router's address and a JWT for it;
// the entrypoint's stdin and stdout then go through the TaskCommandRouter
// service on that second connection (SandboxStdinWriteV2 by byte offset,
// SandboxStdioReadV2 streaming raw bytes from an offset, ending with EOF
// once the output has ended), and wait and terminate through SandboxWaitV2
// and SandboxTerminateV2. The router is a second gRPC server on loopback;
// its URL is https:// as the SDK demands, but it serves without TLS, as the
// SDK expects of a localhost server.

import (
	"context"
	"encoding/json"
	mrand "math/rand/v2"
	"net"
	"strings"
	"time"

	pb "github.com/modal-labs/modal-client/go/proto/modal_proto"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// router is the TaskCommandRouter service.
type router struct {
	pb.UnimplementedTaskCommandRouterServer
	s *Server
}

func (s *Server) startRouter() {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	s.RouterURL = "https://" + lis.Addr().String()
	r := &router{s: s}
	s.routerSrv = grpc.NewServer(grpc.ChainUnaryInterceptor(r.unaryAuth), grpc.ChainStreamInterceptor(r.streamAuth))
	pb.RegisterTaskCommandRouterServer(s.routerSrv, r)
	go s.routerSrv.Serve(lis)
}

// routerJWT is a JWT for one task's command router, valid for an hour.
func (s *Server) routerJWT(task string) string {
	head := b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"task": task, "exp": time.Now().Add(time.Hour).Unix()})
	body := b64.EncodeToString(claims)
	return head + "." + body + "." + s.sign(head+"."+body)
}

// taskOf checks the router call's bearer JWT and returns its task.
func (r *router) taskOf(ctx context.Context, method string) (string, error) {
	r.s.record(method)
	md, _ := metadata.FromIncomingContext(ctx)
	tok, ok := strings.CutPrefix(first(md, "authorization"), "Bearer ")
	if !ok {
		return "", status.Error(codes.Unauthenticated, "missing bearer token")
	}
	if err := r.s.checkJWT(tok); err != nil {
		return "", err
	}
	body, _ := b64.DecodeString(strings.Split(tok, ".")[1])
	var claims struct {
		Task string `json:"task"`
	}
	json.Unmarshal(body, &claims)
	return claims.Task, nil
}

type taskCtxKey struct{}

func (r *router) unaryAuth(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	task, err := r.taskOf(ctx, info.FullMethod)
	if err != nil {
		return nil, err
	}
	return h(context.WithValue(ctx, taskCtxKey{}, task), req)
}

type taskStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (t taskStream) Context() context.Context { return t.ctx }

func (r *router) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	task, err := r.taskOf(ss.Context(), info.FullMethod)
	if err != nil {
		return err
	}
	return h(srv, taskStream{ss, context.WithValue(ss.Context(), taskCtxKey{}, task)})
}

// byTask finds the V2 sandbox of a task the caller's JWT is for.
func (r *router) byTask(ctx context.Context, task string) (*Sandbox, error) {
	if ctx.Value(taskCtxKey{}) != task {
		return nil, status.Errorf(codes.PermissionDenied, "the token is not for task %s", task)
	}
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	for _, sb := range r.s.sandboxes {
		if sb.TaskID == task && sb.V2 {
			return sb, nil
		}
	}
	return nil, status.Errorf(codes.NotFound, "task %s not found", task)
}

// SandboxCreateV2 creates a sandbox on the V2 backend.
func (s *Server) SandboxCreateV2(ctx context.Context, req *pb.SandboxCreateV2Request) (*pb.SandboxCreateV2Response, error) {
	sb, err := s.create(req.GetAppId(), req.GetDefinition(), req.GetSecretSources(), true)
	if err != nil {
		return nil, err
	}
	return pb.SandboxCreateV2Response_builder{
		SandboxId:           sb.ID,
		TaskId:              sb.TaskID,
		CommandRouterAccess: pb.CommandRouterAccess_builder{Jwt: s.routerJWT(sb.TaskID), Url: s.RouterURL}.Build(),
	}.Build(), nil
}

func (s *Server) lookupV2(id string) (*Sandbox, error) {
	sb, err := s.lookup(id)
	if err == nil && !sb.V2 {
		return nil, status.Errorf(codes.NotFound, "Sandbox %s not found", id)
	}
	return sb, err
}

// SandboxGetCommandRouterAccess renews the router's JWT.
func (s *Server) SandboxGetCommandRouterAccess(ctx context.Context, req *pb.SandboxGetCommandRouterAccessRequest) (*pb.SandboxGetCommandRouterAccessResponse, error) {
	sb, err := s.lookupV2(req.GetSandboxId())
	if err != nil {
		return nil, err
	}
	return pb.SandboxGetCommandRouterAccessResponse_builder{Jwt: s.routerJWT(sb.TaskID), Url: s.RouterURL}.Build(), nil
}

// SandboxGetTaskIdV2 is SandboxGetTaskId for V2 sandboxes.
func (s *Server) SandboxGetTaskIdV2(ctx context.Context, req *pb.SandboxGetTaskIdRequest) (*pb.SandboxGetTaskIdResponse, error) {
	if _, err := s.lookupV2(req.GetSandboxId()); err != nil {
		return nil, err
	}
	return s.SandboxGetTaskId(ctx, req)
}

// SandboxWaitV2 is SandboxWait for V2 sandboxes.
func (s *Server) SandboxWaitV2(ctx context.Context, req *pb.SandboxWaitRequest) (*pb.SandboxWaitResponse, error) {
	if _, err := s.lookupV2(req.GetSandboxId()); err != nil {
		return nil, err
	}
	return s.SandboxWait(ctx, req)
}

// SandboxTerminateV2 is SandboxTerminate for V2 sandboxes.
func (s *Server) SandboxTerminateV2(ctx context.Context, req *pb.SandboxTerminateRequest) (*pb.SandboxTerminateResponse, error) {
	if _, err := s.lookupV2(req.GetSandboxId()); err != nil {
		return nil, err
	}
	return s.SandboxTerminate(ctx, req)
}

// SandboxStdinWriteV2 writes at a byte offset: a write past what was
// received is refused, one that overlaps it (a retry) must repeat the same
// bytes, and only what is new is written.
func (r *router) SandboxStdinWriteV2(ctx context.Context, req *pb.SandboxStdinWriteV2Request) (*pb.SandboxStdinWriteV2Response, error) {
	sb, err := r.byTask(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	s := r.s
	if s.stallStdin.Load() {
		select {
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.closed:
			return nil, status.Error(codes.Unavailable, "server shutting down")
		}
	}
	sb.stdinMu.Lock()
	defer sb.stdinMu.Unlock()
	s.mu.Lock()
	reject := func(c codes.Code, format string, a ...any) (*pb.SandboxStdinWriteV2Response, error) {
		err := status.Errorf(c, format, a...)
		s.rejected = append(s.rejected, status.Convert(err).Message())
		s.mu.Unlock()
		return nil, err
	}
	off, data := req.GetOffset(), req.GetData()
	switch {
	case sb.result != nil:
		return reject(codes.FailedPrecondition, "Sandbox %s has already finished", sb.ID)
	case off > sb.stdinAt:
		return reject(codes.InvalidArgument, "stdin write at offset %d past the %d bytes received", off, sb.stdinAt)
	case len(data) > maxStdinWrite:
		return reject(codes.InvalidArgument, "stdin write of %d bytes is larger than %d", len(data), maxStdinWrite)
	}
	skip := sb.stdinAt - off
	if skip > uint64(len(data)) {
		skip = uint64(len(data))
	}
	if sb.eof && uint64(len(data)) > skip {
		return reject(codes.FailedPrecondition, "stdin of sandbox %s is closed", sb.ID)
	}
	data = data[skip:]
	sb.stdinAt += uint64(len(data))
	eof := req.GetEof() && !sb.eof
	sb.eof = sb.eof || req.GetEof()
	s.mu.Unlock()
	if len(data) > 0 {
		sb.stdin.Write(data)
	}
	if eof {
		sb.stdin.Close()
	}
	return pb.SandboxStdinWriteV2Response_builder{}.Build(), nil
}

// SandboxStdioReadV2 streams the output from an offset in chunks of random
// sizes, and ends (EOF) once the sandbox has finished and all is sent.
func (r *router) SandboxStdioReadV2(req *pb.SandboxStdioReadV2Request, st grpc.ServerStreamingServer[pb.SandboxStdioReadV2Response]) error {
	sb, err := r.byTask(st.Context(), req.GetTaskId())
	if err != nil {
		return err
	}
	s := r.s
	var fd int
	switch req.GetFileDescriptor() {
	case pb.SandboxStdioFileDescriptor_SANDBOX_STDIO_FILE_DESCRIPTOR_STDOUT:
		fd = 1
	case pb.SandboxStdioFileDescriptor_SANDBOX_STDIO_FILE_DESCRIPTOR_STDERR:
		fd = 2
	default:
		return status.Errorf(codes.InvalidArgument, "file descriptor %v: want stdout or stderr", req.GetFileDescriptor())
	}
	off := req.GetOffset()
	var end <-chan time.Time
	if s.LogStreamTimeout > 0 {
		t := time.NewTimer(s.LogStreamTimeout)
		defer t.Stop()
		end = t.C
	}
	s.mu.Lock()
	if off > uint64(len(sb.raw[fd])) {
		s.mu.Unlock()
		return status.Errorf(codes.OutOfRange, "offset %d past the %d bytes of output", off, len(sb.raw[fd]))
	}
	if fd == 1 {
		sb.streams++
		if sb.streams > 1 {
			s.resumes = append(s.resumes, "offset "+itoa(off))
		}
	}
	s.mu.Unlock()
	sent := 0
	for {
		s.mu.Lock()
		avail := sb.raw[fd][off:]
		if len(avail) > 0 {
			avail = avail[:min(len(avail), 1+mrand.IntN(max(1, s.MaxChunk)))]
		}
		finished := sb.reaped()
		changed := sb.changed
		drop := len(avail) > 0 && fd == 1 && sent > 0 && s.dropLogs > 0
		if drop {
			s.dropLogs--
		}
		s.mu.Unlock()
		if drop {
			return status.Error(codes.Unavailable, "upstream connect error or disconnect/reset before headers. reset reason: connection termination")
		}
		if len(avail) > 0 {
			if err := st.Send(pb.SandboxStdioReadV2Response_builder{Data: append([]byte(nil), avail...), StartingOffset: off}.Build()); err != nil {
				return err
			}
			off += uint64(len(avail))
			sent++
			continue
		}
		if finished {
			return nil
		}
		select {
		case <-changed:
		case <-sb.done:
		case <-end:
			return status.Error(codes.DeadlineExceeded, "stream deadline exceeded")
		case <-st.Context().Done():
			return st.Context().Err()
		case <-s.closed:
			return status.Error(codes.Unavailable, "server shutting down")
		}
	}
}

func itoa(n uint64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
