package modalfake

// Authentication and the objects a sandbox needs: environments, apps,
// images, ephemeral secrets.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	pb "github.com/modal-labs/modal-client/go/proto/modal_proto"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// --- authentication ---

func (s *Server) record(method string) {
	s.mu.Lock()
	s.calls = append(s.calls, method[strings.LastIndex(method, "/")+1:])
	s.mu.Unlock()
}

func (s *Server) checkCredentials(ctx context.Context) error {
	md, _ := metadata.FromIncomingContext(ctx)
	if first(md, "x-modal-client-type") == "" || first(md, "x-modal-client-version") == "" {
		return status.Error(codes.InvalidArgument, "missing client type or version headers")
	}
	id, secret := first(md, "x-modal-token-id"), first(md, "x-modal-token-secret")
	if id == "" || secret == "" {
		return status.Error(codes.Unauthenticated, "Token missing. Could not authenticate client. If you have token credentials, see modal.com/docs/reference/modal.config for setup help.")
	}
	if !hmac.Equal([]byte(id), []byte(s.TokenID)) || !hmac.Equal([]byte(secret), []byte(s.TokenSecret)) {
		return status.Error(codes.Unauthenticated, "Token ID or secret is invalid. Please check your Modal token credentials.")
	}
	return nil
}

func first(md metadata.MD, k string) string {
	if v := md.Get(k); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (s *Server) unaryAuth(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	s.record(info.FullMethod)
	if err := s.checkCredentials(ctx); err != nil {
		return nil, err
	}
	if !strings.HasSuffix(info.FullMethod, "/AuthTokenGet") {
		md, _ := metadata.FromIncomingContext(ctx)
		if err := s.checkJWT(first(md, "x-modal-auth-token")); err != nil {
			return nil, err
		}
	}
	return h(ctx, req)
}

func (s *Server) streamAuth(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
	s.record(info.FullMethod)
	if err := s.checkCredentials(ss.Context()); err != nil {
		return err
	}
	return h(srv, ss)
}

var b64 = base64.RawURLEncoding

func (s *Server) sign(data string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(data))
	return b64.EncodeToString(m.Sum(nil))
}

func (s *Server) checkJWT(tok string) error {
	parts := strings.Split(tok, ".")
	if tok == "" || len(parts) != 3 || !hmac.Equal([]byte(s.sign(parts[0]+"."+parts[1])), []byte(parts[2])) {
		return status.Error(codes.Unauthenticated, "missing or invalid auth token")
	}
	body, err := b64.DecodeString(parts[1])
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err != nil || json.Unmarshal(body, &claims) != nil || claims.Exp < time.Now().Unix() {
		return status.Error(codes.Unauthenticated, "auth token expired")
	}
	return nil
}

// AuthTokenGet issues a JWT valid for an hour.
func (s *Server) AuthTokenGet(ctx context.Context, _ *pb.AuthTokenGetRequest) (*pb.AuthTokenGetResponse, error) {
	head := b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"sub": s.TokenID, "exp": time.Now().Add(time.Hour).Unix()})
	body := b64.EncodeToString(claims)
	return pb.AuthTokenGetResponse_builder{Token: head + "." + body + "." + s.sign(head+"."+body)}.Build(), nil
}

// --- environment, app, image ---

// EnvironmentGetOrCreate returns the environment's settings; "" is "main".
func (s *Server) EnvironmentGetOrCreate(ctx context.Context, req *pb.EnvironmentGetOrCreateRequest) (*pb.EnvironmentGetOrCreateResponse, error) {
	name := req.GetDeploymentName()
	if name == "" {
		name = "main"
	}
	return pb.EnvironmentGetOrCreateResponse_builder{
		EnvironmentId: "en-" + name,
		Metadata: pb.EnvironmentMetadata_builder{
			Name:     name,
			Settings: pb.EnvironmentSettings_builder{ImageBuilderVersion: BuilderVersion, WebhookSuffix: "modal.run"}.Build(),
		}.Build(),
	}.Build(), nil
}

// AppGetOrCreate looks up an app by name, creating it if asked.
func (s *Server) AppGetOrCreate(ctx context.Context, req *pb.AppGetOrCreateRequest) (*pb.AppGetOrCreateResponse, error) {
	if req.GetAppName() == "" {
		return nil, status.Error(codes.InvalidArgument, "app name required")
	}
	key := req.GetEnvironmentName() + "/" + req.GetAppName()
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.apps[key]
	if !ok {
		if req.GetObjectCreationType() != pb.ObjectCreationType_OBJECT_CREATION_TYPE_CREATE_IF_MISSING {
			return nil, status.Errorf(codes.NotFound, "App '%s' not found", req.GetAppName())
		}
		id = "ap-" + randomID(22)
		s.apps[key] = id
		s.appIDs[id] = true
	}
	return pb.AppGetOrCreateResponse_builder{AppId: id}.Build(), nil
}

// ImageGetOrCreate accepts an image made FROM a registry reference. The
// first request for an image answers without a result (a build starts), so
// the client waits with ImageJoinStreaming; later requests answer SUCCESS.
func (s *Server) ImageGetOrCreate(ctx context.Context, req *pb.ImageGetOrCreateRequest) (*pb.ImageGetOrCreateResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.appIDs[req.GetAppId()] {
		return nil, status.Errorf(codes.NotFound, "App %s not found", req.GetAppId())
	}
	if req.GetBuilderVersion() != BuilderVersion {
		return nil, status.Errorf(codes.InvalidArgument, "unsupported image builder version %q", req.GetBuilderVersion())
	}
	cmds := req.GetImage().GetDockerfileCommands()
	if len(cmds) == 0 || !strings.HasPrefix(cmds[0], "FROM ") || strings.TrimSpace(cmds[0][5:]) == "" {
		return nil, status.Error(codes.InvalidArgument, "image definition must start FROM a base image")
	}
	sum := sha256.Sum256([]byte(strings.Join(cmds, "\n")))
	id := "im-" + b64.EncodeToString(sum[:])[:22]
	built, ok := s.images[id]
	s.images[id] = true
	s.imageRefs[id] = strings.TrimSpace(cmds[0][5:])
	if !ok || !built {
		return pb.ImageGetOrCreateResponse_builder{ImageId: id}.Build(), nil
	}
	return pb.ImageGetOrCreateResponse_builder{ImageId: id, Result: success()}.Build(), nil
}

func success() *pb.GenericResult {
	return pb.GenericResult_builder{Status: pb.GenericResult_GENERIC_STATUS_SUCCESS}.Build()
}

// ImageJoinStreaming reports a build log line, then the build's success.
func (s *Server) ImageJoinStreaming(req *pb.ImageJoinStreamingRequest, st grpc.ServerStreamingServer[pb.ImageJoinStreamingResponse]) error {
	s.mu.Lock()
	_, ok := s.images[req.GetImageId()]
	s.mu.Unlock()
	if !ok {
		return status.Errorf(codes.NotFound, "Image %s not found", req.GetImageId())
	}
	logs := []*pb.TaskLogs{pb.TaskLogs_builder{Data: "Building image " + req.GetImageId() + "\n", FileDescriptor: pb.FileDescriptor_FILE_DESCRIPTOR_INFO}.Build()}
	if err := st.Send(pb.ImageJoinStreamingResponse_builder{TaskLogs: logs, EntryId: "1-0"}.Build()); err != nil {
		return err
	}
	return st.Send(pb.ImageJoinStreamingResponse_builder{Result: success(), EntryId: "2-0", Eof: true}.Build())
}

// SecretGetOrCreate creates ephemeral secrets from environment variables
// (the SDK's Secrets.FromMap); named secrets are NOT_FOUND.
func (s *Server) SecretGetOrCreate(ctx context.Context, req *pb.SecretGetOrCreateRequest) (*pb.SecretGetOrCreateResponse, error) {
	if req.GetObjectCreationType() != pb.ObjectCreationType_OBJECT_CREATION_TYPE_EPHEMERAL || req.GetDeploymentName() != "" {
		return nil, status.Errorf(codes.NotFound, "Secret '%s' not found", req.GetDeploymentName())
	}
	id := "st-" + randomID(22)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets[id] = req.GetEnvDict()
	return pb.SecretGetOrCreateResponse_builder{SecretId: id}.Build(), nil
}
