package docker_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/client"

	"github.com/star-agent/star-agent/executors"
	"github.com/star-agent/star-agent/executors/docker"
)

// wedgeProxy relays the Engine API from a socket of its own to the real
// engine until wedged; then it holds every new request, unanswered, as a
// wedged engine does, until released.
type wedgeProxy struct {
	ln      net.Listener
	target  string
	release chan struct{}

	mu     sync.Mutex
	wedged bool
	held   map[string]*heldConn // request line → its connection
	conns  []net.Conn
}

type heldConn struct {
	closed chan struct{} // the client gave up on the request
}

func newWedgeProxy(t *testing.T) *wedgeProxy {
	host := os.Getenv("DOCKER_HOST")
	target := strings.TrimPrefix(host, "unix://")
	if host == "" {
		target = "/var/run/docker.sock"
	} else if !strings.HasPrefix(host, "unix://") {
		t.Skipf("the wedged-engine test relays a unix socket; DOCKER_HOST is %s", host)
	}
	sock := filepath.Join(t.TempDir(), "engine.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	p := &wedgeProxy{ln: ln, target: target, release: make(chan struct{}), held: map[string]*heldConn{}}
	go p.serve()
	t.Cleanup(func() {
		p.unwedge()
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
	})
	return p
}

func (p *wedgeProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		go p.relay(c)
	}
}

func (p *wedgeProxy) relay(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	p.mu.Lock()
	if p.wedged {
		// Hold the whole header block; requests held here have no body.
		for {
			h, err := br.ReadString('\n')
			if err != nil {
				p.mu.Unlock()
				return
			}
			line += h
			if h == "\r\n" {
				break
			}
		}
	}
	wedged := p.wedged
	var h *heldConn
	if wedged {
		h = &heldConn{closed: make(chan struct{})}
		first, _, _ := strings.Cut(line, "\n")
		p.held[first] = h
	}
	p.mu.Unlock()
	if wedged {
		// Notice the client hanging up while the request is held.
		go func() {
			io.Copy(io.Discard, br)
			close(h.closed)
		}()
		<-p.release
		select {
		case <-h.closed:
			return
		default:
		}
	}
	up, err := net.Dial("unix", p.target)
	if err != nil {
		return
	}
	defer up.Close()
	p.mu.Lock()
	p.conns = append(p.conns, up)
	p.mu.Unlock()
	if _, err := io.WriteString(up, line); err != nil {
		return
	}
	if !wedged {
		go func() {
			io.Copy(up, br)
			if cw, ok := up.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite()
			}
		}()
	}
	io.Copy(c, up)
}

func (p *wedgeProxy) wedge() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.wedged = true
}

func (p *wedgeProxy) unwedge() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wedged {
		p.wedged = false
		close(p.release)
	}
}

// heldRequest returns the held connection of the first request whose
// line contains s, waiting for it (bounded).
func (p *wedgeProxy) heldRequest(t *testing.T, s string) *heldConn {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p.mu.Lock()
		for line, h := range p.held {
			if strings.Contains(line, s) {
				p.mu.Unlock()
				return h
			}
		}
		p.mu.Unlock()
	}
	t.Fatalf("no request %q reached the engine", s)
	return nil
}

// A timeout while the engine is wedged returns at once: the container's
// removal waits in the background, and completes once the engine answers.
func TestTimeoutWithWedgedEngine(t *testing.T) {
	img := testImage(t)
	p := newWedgeProxy(t)
	cli, err := client.NewClientWithOpts(client.WithHost("unix://"+p.ln.Addr().String()), client.WithAPIVersionNegotiation(),
		client.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", p.ln.Addr().String())
		}}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	e := newExec(t, docker.Options{Image: img, Client: cli, Limits: executors.Limits{Timeout: time.Second}})
	ok(t, e, "1")
	id := e.ContainerID()
	p.wedge()
	res := run(t, e, "while True:\n    pass")
	if res.Err == nil || res.Err.Type != "TimeoutError" {
		t.Fatalf("timeout: %+v", res.Err)
	}
	// Execute returned while the removal is still waiting on the engine.
	h := p.heldRequest(t, "DELETE /v1.")
	select {
	case <-h.closed:
		t.Fatal("the removal request was abandoned before Execute returned")
	default:
	}
	p.unwedge()
	gone(t, id)
	if res := ok(t, e, "2 + 2"); res.Value != int64(4) {
		t.Errorf("after the engine recovered: %#v", res.Value)
	}
}
