package modal

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	pb "github.com/modal-labs/modal-client/go/proto/modal_proto"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/star-agent/star-agent/executors/modal/modalfake"
)

// rawClient talks to the fake without the SDK, to check that the fake
// refuses what Modal refuses rather than what the SDK happens not to send.
func rawClient(t *testing.T, f *modalfake.Server) pb.ModalClientClient {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(f.URL, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewModalClientClient(conn)
}

func withCreds(f *modalfake.Server, kv ...string) context.Context {
	md := []string{"x-modal-client-type", "9", "x-modal-client-version", "1.0.0", "x-modal-token-id", f.TokenID, "x-modal-token-secret", f.TokenSecret}
	return metadata.AppendToOutgoingContext(context.Background(), append(md, kv...)...)
}

func code(err error) codes.Code { return status.Code(err) }

func TestFakeIsStrict(t *testing.T) {
	f := newFake(t)
	c := rawClient(t, f)
	base := metadata.AppendToOutgoingContext(context.Background(), "x-modal-client-type", "9", "x-modal-client-version", "1.0.0")

	// Credentials.
	if _, err := c.AuthTokenGet(base, &pb.AuthTokenGetRequest{}); code(err) != codes.Unauthenticated {
		t.Errorf("AuthTokenGet without a token: %v", err)
	}
	wrong := metadata.AppendToOutgoingContext(base, "x-modal-token-id", f.TokenID, "x-modal-token-secret", "as-wrong")
	if _, err := c.AuthTokenGet(wrong, &pb.AuthTokenGetRequest{}); code(err) != codes.Unauthenticated {
		t.Errorf("AuthTokenGet with a wrong secret: %v", err)
	}
	ctx := withCreds(f)
	if _, err := c.AppGetOrCreate(ctx, pb.AppGetOrCreateRequest_builder{AppName: "a"}.Build()); code(err) != codes.Unauthenticated {
		t.Errorf("a unary call without a JWT: %v", err)
	}
	if _, err := c.AppGetOrCreate(withCreds(f, "x-modal-auth-token", "a.b.c"), pb.AppGetOrCreateRequest_builder{AppName: "a"}.Build()); code(err) != codes.Unauthenticated {
		t.Errorf("a unary call with a forged JWT: %v", err)
	}
	tok, err := c.AuthTokenGet(ctx, &pb.AuthTokenGetRequest{})
	if err != nil || len(strings.Split(tok.GetToken(), ".")) != 3 {
		t.Fatalf("AuthTokenGet: %v %q", err, tok.GetToken())
	}
	ctx = withCreds(f, "x-modal-auth-token", tok.GetToken())

	// Objects that do not exist.
	if _, err := c.AppGetOrCreate(ctx, pb.AppGetOrCreateRequest_builder{AppName: "missing"}.Build()); code(err) != codes.NotFound {
		t.Errorf("an app that does not exist, without create-if-missing: %v", err)
	}
	app, err := c.AppGetOrCreate(ctx, pb.AppGetOrCreateRequest_builder{AppName: "a", ObjectCreationType: pb.ObjectCreationType_OBJECT_CREATION_TYPE_CREATE_IF_MISSING}.Build())
	if err != nil {
		t.Fatal(err)
	}
	def := func(image string) *pb.Sandbox {
		return pb.Sandbox_builder{ImageId: image, EntrypointArgs: []string{"python3", "-c", "import sys; sys.stdout.write(sys.stdin.read())"}, TimeoutSecs: 60}.Build()
	}
	if _, err := c.SandboxCreate(ctx, pb.SandboxCreateRequest_builder{AppId: app.GetAppId(), Definition: def("im-nope")}.Build()); code(err) != codes.NotFound {
		t.Errorf("a sandbox of an unknown image: %v", err)
	}
	img, err := c.ImageGetOrCreate(ctx, pb.ImageGetOrCreateRequest_builder{AppId: app.GetAppId(), BuilderVersion: modalfake.BuilderVersion,
		Image: pb.Image_builder{DockerfileCommands: []string{"FROM python:3.11-slim"}}.Build()}.Build())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"sb-0000000000000000000000", ""} {
		if _, err := c.SandboxStdinWrite(ctx, pb.SandboxStdinWriteRequest_builder{SandboxId: id, Index: 1}.Build()); code(err) != codes.NotFound {
			t.Errorf("stdin of sandbox %q: %v", id, err)
		}
		if _, err := c.SandboxWait(ctx, pb.SandboxWaitRequest_builder{SandboxId: id}.Build()); code(err) != codes.NotFound {
			t.Errorf("wait for sandbox %q: %v", id, err)
		}
		if _, err := c.SandboxTerminate(ctx, pb.SandboxTerminateRequest_builder{SandboxId: id}.Build()); code(err) != codes.NotFound {
			t.Errorf("terminate sandbox %q: %v", id, err)
		}
		st, err := c.SandboxGetLogs(ctx, pb.SandboxGetLogsRequest_builder{SandboxId: id, FileDescriptor: pb.FileDescriptor_FILE_DESCRIPTOR_STDOUT}.Build())
		if err == nil {
			_, err = st.Recv()
		}
		if code(err) != codes.NotFound {
			t.Errorf("logs of sandbox %q: %v", id, err)
		}
	}
	if _, err := c.SandboxCreate(ctx, pb.SandboxCreateRequest_builder{AppId: app.GetAppId(), Definition: pb.Sandbox_builder{ImageId: img.GetImageId(), EntrypointArgs: []string{"true"}, TimeoutSecs: 90000}.Build()}.Build()); code(err) != codes.InvalidArgument {
		t.Errorf("a timeout over 24 h: %v", err)
	}

	// Stdin indexes.
	sb, err := c.SandboxCreate(ctx, pb.SandboxCreateRequest_builder{AppId: app.GetAppId(), Definition: def(img.GetImageId())}.Build())
	if err != nil {
		t.Fatal(err)
	}
	id := sb.GetSandboxId()
	write := func(index uint32, data string, eof bool, key string) error {
		_, err := c.SandboxStdinWrite(metadata.AppendToOutgoingContext(ctx, "x-idempotency-key", key),
			pb.SandboxStdinWriteRequest_builder{SandboxId: id, Index: index, Input: []byte(data), Eof: eof}.Build())
		return err
	}
	if err := write(2, "x", false, "k0"); code(err) != codes.InvalidArgument {
		t.Errorf("index 2 first: %v", err)
	}
	if err := write(1, "hello ", false, "k1"); err != nil {
		t.Fatal(err)
	}
	if err := write(1, "hello ", false, "k1"); err != nil {
		t.Errorf("a retry of index 1 under its idempotency key: %v", err)
	}
	if err := write(1, "again ", false, "k2"); code(err) != codes.InvalidArgument {
		t.Errorf("index 1 again under another key: %v", err)
	}
	if err := write(3, "x", false, "k3"); code(err) != codes.InvalidArgument {
		t.Errorf("index 3 after 1: %v", err)
	}
	if err := write(2, "world", false, "k4"); err != nil {
		t.Fatal(err)
	}
	if err := write(3, "", true, "k5"); err != nil {
		t.Fatal(err)
	}
	if err := write(4, "late", false, "k6"); code(err) != codes.FailedPrecondition {
		t.Errorf("a write after EOF: %v", err)
	}
	if got := len(f.Rejected()); got != 4 {
		t.Errorf("%d writes rejected, want 4: %v", got, f.Rejected())
	}

	// The output, reassembled from its entries, then EOF.
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := c.SandboxGetLogs(sctx, pb.SandboxGetLogsRequest_builder{SandboxId: id, FileDescriptor: pb.FileDescriptor_FILE_DESCRIPTOR_STDOUT, Timeout: 55, LastEntryId: "0-0"}.Build())
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for {
		b, err := st.Recv()
		if err == io.EOF {
			t.Fatal("the stream ended without eof")
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range b.GetItems() {
			out.WriteString(it.GetData())
		}
		if b.GetEof() {
			break
		}
	}
	if out.String() != "hello world" {
		t.Errorf("output %q", out.String())
	}
	w, err := c.SandboxWait(ctx, pb.SandboxWaitRequest_builder{SandboxId: id, Timeout: 10}.Build())
	if err != nil || w.GetResult().GetStatus() != pb.GenericResult_GENERIC_STATUS_SUCCESS {
		t.Errorf("wait: %v %v", w.GetResult(), err)
	}
	bad, err := c.SandboxGetLogs(sctx, pb.SandboxGetLogsRequest_builder{SandboxId: id, FileDescriptor: pb.FileDescriptor_FILE_DESCRIPTOR_STDOUT, LastEntryId: "nope"}.Build())
	if err == nil {
		_, err = bad.Recv()
	}
	if code(err) != codes.InvalidArgument {
		t.Errorf("a malformed last entry id: %v", err)
	}
}
