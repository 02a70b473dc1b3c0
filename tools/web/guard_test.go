package web

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"127.0.0.1", "a loopback address"},
		{"127.255.0.9", "a loopback address"},
		{"::1", "a loopback address"},
		{"::ffff:127.0.0.1", "a loopback address"},
		{"0.0.0.0", "the unspecified address"},
		{"0.1.2.3", "the unspecified address"},
		{"::", "the unspecified address"},
		{"10.0.0.5", "a private address"},
		{"172.16.3.4", "a private address"},
		{"172.31.255.255", "a private address"},
		{"192.168.1.1", "a private address"},
		{"fd00::1", "a private address"},
		{"fc00::1", "a private address"},
		{"::ffff:10.1.2.3", "a private address"},
		{"169.254.169.254", "the cloud metadata address"},
		{"::ffff:169.254.169.254", "the cloud metadata address"},
		{"fd00:ec2::254", "the cloud metadata address"},
		{"169.254.1.1", "a link-local address"},
		{"fe80::1", "a link-local address"},
		{"fe80::1%eth0", "a link-local address"},
		{"100.64.0.1", "a shared (carrier-grade NAT) address"},
		{"100.127.255.254", "a shared (carrier-grade NAT) address"},
		{"224.0.0.1", "a multicast address"},
		{"ff02::1", "a multicast address"},
		{"255.255.255.255", "the broadcast address"},
		{"240.0.0.1", "a reserved address"},
		{"198.18.0.1", "a reserved address"},
		{"192.0.0.8", "a reserved address"},
		{"192.0.2.10", "a documentation address"},
		{"2001:db8::1", "a documentation address"},
		{"64:ff9b::a00:1", "a private address"},             // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", "a loopback address"},           // NAT64 of 127.0.0.1
		{"2002:7f00:1::1", "a loopback address"},            // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", "the cloud metadata address"}, // 6to4 of 169.254.169.254
		{"::127.0.0.1", "a loopback address"},               // IPv4-compatible
		{"fec0::1", "a site-local address"},
		// Public addresses pass.
		{"8.8.8.8", ""},
		{"93.184.215.14", ""},
		{"100.63.255.255", ""},
		{"100.128.0.0", ""},
		{"172.32.0.1", ""},
		{"2606:4700:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
	} {
		if got := classify(netip.MustParseAddr(c.addr)); got != c.want {
			t.Errorf("classify(%s) = %q, want %q", c.addr, got, c.want)
		}
	}
}

func TestParseLooseIPv4(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2130706433", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"10.1", "10.0.0.1"},
		{"0xA9.0xFE.0xA9.0xFE", "169.254.169.254"},
		{"2852039166", "169.254.169.254"},
		{"134744072", "8.8.8.8"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"}, // as inet_aton and the WHATWG URL parser read it
		{"1.2.3.4", "1.2.3.4"},
	} {
		a, ok := parseLooseIPv4(c.in)
		if !ok || a.String() != c.want {
			t.Errorf("parseLooseIPv4(%q) = %v, %v; want %s", c.in, a, ok, c.want)
		}
	}
	for _, in := range []string{"", "example.com", "1.2.3.4.5", "256.1.1.1", "4294967296", "1.2.65536", "08", "1..2", "a.b.c.d", "1.2.3.0x100"} {
		if a, ok := parseLooseIPv4(in); ok {
			t.Errorf("parseLooseIPv4(%q) = %v, want no address", in, a)
		}
	}
}

// noDial is the dial function of tests in which nothing may be dialed.
func noDial(t *testing.T) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		t.Errorf("dialed %s: the guard should have refused before dialing", address)
		return nil, errors.New("test: dial blocked")
	}
}

// TestRefused: without AllowPrivate, every non-public destination is
// refused before anything is dialed, whatever the form of the URL.
func TestRefused(t *testing.T) {
	n := newTestNet(t)
	opts := Options{Resolver: n, Dial: noDial(t)}
	visit := n.tool("visit_webpage", opts)
	for _, c := range []struct{ url, want string }{
		// The test server itself is loopback: refused without AllowAddrs.
		{n.srv.URL + "/article", "127.0.0.1 is a loopback address"},
		{"http://127.0.0.1/", "127.0.0.1 is a loopback address"},
		{"http://127.8.9.10:8080/admin", "127.8.9.10 is a loopback address"},
		{"http://[::1]:6379/", "::1 is a loopback address"},
		{"http://localhost:8080/", "localhost is this machine (loopback)"},
		{"http://LOCALHOST./", "LOCALHOST. is this machine (loopback)"},
		{"http://api.localhost/", "api.localhost is this machine (loopback)"},
		{"http://0.0.0.0:8000/", "0.0.0.0 is the unspecified address"},
		{"http://[::]/", ":: is the unspecified address"},
		{"http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 (that is, 127.0.0.1) is a loopback address"},
		{"http://[::ffff:7f00:1]/", "(that is, 127.0.0.1) is a loopback address"},
		{"http://2130706433/", "2130706433 (that is, 127.0.0.1) is a loopback address"},
		{"http://0177.0.0.1/", "0177.0.0.1 (that is, 127.0.0.1) is a loopback address"},
		{"http://0x7f.1/", "0x7f.1 (that is, 127.0.0.1) is a loopback address"},
		{"http://127.1:22/", "127.1 (that is, 127.0.0.1) is a loopback address"},
		{"http://10.0.0.5/", "10.0.0.5 is a private address"},
		{"https://172.16.3.4/", "172.16.3.4 is a private address"},
		{"http://192.168.1.1/login", "192.168.1.1 is a private address"},
		{"http://[fd00::1]/", "fd00::1 is a private address"},
		{"http://169.254.169.254/latest/meta-data/iam/security-credentials/", "169.254.169.254 is the cloud metadata address"},
		{"http://2852039166/latest/meta-data/", "2852039166 (that is, 169.254.169.254) is the cloud metadata address"},
		{"http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254 is the cloud metadata address"},
		{"http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is a cloud metadata service"},
		{"http://metadata/computeMetadata/v1/", "metadata is a cloud metadata service"},
		{"http://169.254.1.1/", "169.254.1.1 is a link-local address"},
		{"http://[fe80::1%25eth0]/", "fe80::1 is a link-local address"},
		{"http://100.64.0.1/", "100.64.0.1 is a shared (carrier-grade NAT) address"},
		{"http://224.0.0.251/", "224.0.0.251 is a multicast address"},
		{"http://255.255.255.255/", "255.255.255.255 is the broadcast address"},
		{"http://[64:ff9b::a00:1]/", "64:ff9b::a00:1 is a private address"},
		// Other spellings: case, a final dot, full IPv6, Unicode forms that
		// IDNA maps to ASCII (the transport does, and the dialer checks
		// what it is handed), credentials that look like a host.
		{"HTTP://127.0.0.1/", "127.0.0.1 is a loopback address"},
		{"http://LocalHost:80/", "LocalHost is this machine (loopback)"},
		{"http://127.0.0.1./", "refused http://127.0.0.1./: 127.0.0.1 is a loopback address"},
		{"http://0X7F.1/", "0X7F.1 (that is, 127.0.0.1) is a loopback address"},
		{"http://[0:0:0:0:0:ffff:127.0.0.1]/", "(that is, 127.0.0.1) is a loopback address"},
		{"http://[::ffff:a9fe:a9fe]/", "::ffff:a9fe:a9fe (that is, 169.254.169.254) is the cloud metadata address"},
		{"http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", "localhost is this machine (loopback)"},
		{"http://①②⑦.⓪.⓪.①/", "127.0.0.1 is a loopback address"},
		{"http://127.0.0.1:80@intranet.test/", "intranet.test resolves to 10.0.0.5, a private address"},
		// Names resolving to non-public addresses, through the resolver.
		{"http://intranet.test/wiki", "intranet.test resolves to 10.0.0.5, a private address"},
		{"http://meta.test/latest/meta-data/", "meta.test resolves to 169.254.169.254, the cloud metadata address"},
		{"http://mixed.test/", "mixed.test resolves to 192.168.1.20, a private address"},
		{"http://v6.test/", "v6.test resolves to fd12::1, a private address"},
		{"http://mapped.test/", "mapped.test resolves to 10.0.0.1, a private address"},
		// Schemes other than http(s).
		{"file:///etc/passwd", `the scheme "file" is not http or https`},
		{"gopher://127.0.0.1:6379/_INFO", `the scheme "gopher" is not http or https`},
		{"ftp://ftp.example.com/pub/", `the scheme "ftp" is not http or https`},
		{"dict://127.0.0.1:11211/stat", `the scheme "dict" is not http or https`},
	} {
		_, err := visit.Call(context.Background(), map[string]any{"url": c.url})
		if err == nil {
			t.Errorf("%s: fetched, want refused", c.url)
			continue
		}
		if !errors.Is(err, errRefused) {
			t.Errorf("%s: %v; want a refusal", c.url, err)
		}
		msg := err.Error()
		if strings.Contains(c.want, "scheme") {
			if !strings.Contains(msg, c.want) || !strings.HasSuffix(msg, "; star-agent's web tools only fetch http and https URLs") {
				t.Errorf("%s:\n got %s\nwant it to say %q, and that only http(s) is fetched", c.url, msg, c.want)
			}
			continue
		}
		// The model reads this: no flag (the operator's hint is logged).
		if !strings.Contains(msg, c.want) || !strings.Contains(msg, "only reach public http(s) addresses") || strings.Contains(msg, "--") {
			t.Errorf("%s:\n got %s\nwant it to say %q, that only public addresses are reached, and no flag", c.url, msg, c.want)
		}
	}
}

// TestPublicAddressesAreDialed: the guard lets public addresses through,
// in every form, and dials the address it checked. The dial function
// records the address and fails, so nothing is sent anywhere.
func TestPublicAddressesAreDialed(t *testing.T) {
	n := newTestNet(t)
	n.setName("public.test", netip.MustParseAddr("93.184.215.14"))
	n.setName("half.test", netip.MustParseAddr("10.9.9.9"), netip.MustParseAddr("93.184.215.14"))
	var dialed []string
	opts := Options{Resolver: n, Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		dialed = append(dialed, address)
		return nil, errors.New("test: not dialing out")
	}}
	visit := n.tool("visit_webpage", opts)
	for _, c := range []struct{ url, dial string }{
		{"http://8.8.8.8/", "8.8.8.8:80"},
		{"https://134744072/", "8.8.8.8:443"},
		{"http://[2606:4700:4700::1111]:8080/", "[2606:4700:4700::1111]:8080"},
		{"http://[::ffff:8.8.4.4]/", "8.8.4.4:80"},
		{"http://public.test/", "93.184.215.14:80"},
		// Of a name's addresses, only the public ones are dialed.
		{"http://half.test/", "93.184.215.14:80"},
	} {
		dialed = nil
		_, err := visit.Call(context.Background(), map[string]any{"url": c.url})
		if err == nil || errors.Is(err, errRefused) || !strings.Contains(err.Error(), "test: not dialing out") {
			t.Errorf("%s: %v; want the dial's error", c.url, err)
		}
		if len(dialed) != 1 || dialed[0] != c.dial {
			t.Errorf("%s: dialed %v, want [%s]", c.url, dialed, c.dial)
		}
	}
}

// TestRedirectRefused: a public server redirecting to a non-public
// address is refused at the hop, and the error names the hop.
func TestRedirectRefused(t *testing.T) {
	n := newTestNet(t)
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	visit := n.tool("visit_webpage", n.options())
	for _, c := range []struct{ to, want string }{
		{"http://" + other.Addr().String() + "/", "127.0.0.1 is a loopback address"},
		{"http://10.0.0.5/admin", "refused http://10.0.0.5/admin: 10.0.0.5 is a private address"},
		{"http://169.254.169.254/latest/meta-data/", "169.254.169.254 is the cloud metadata address"},
		{"http://intranet.test/", "refused http://intranet.test/: intranet.test resolves to 10.0.0.5, a private address"},
		{"http://localhost/", "localhost is this machine (loopback)"},
		{"http://2130706433/", "2130706433 (that is, 127.0.0.1) is a loopback address"},
		{"file:///etc/passwd", `the scheme "file" is not http or https`},
		{"gopher://127.0.0.1:25/", `the scheme "gopher" is not http or https`},
	} {
		u := n.url("pages.test", "/redirect?to="+url.QueryEscape(c.to))
		_, err := visit.Call(context.Background(), map[string]any{"url": u})
		if err == nil || !errors.Is(err, errRefused) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("redirect to %s: %v\nwant a refusal saying %q", c.to, err, c.want)
		}
	}
	// A redirect to a public-looking name of the same server is followed.
	u := n.url("pages.test", "/redirect?to="+url.QueryEscape(n.url("search.test", "/plain")))
	if out, err := visit.Call(context.Background(), map[string]any{"url": u}); err != nil || !strings.Contains(out.(string), "kept as written") {
		t.Errorf("redirect to the allowed server: %v, %v", out, err)
	}
	// Redirects are bounded.
	_, err = visit.Call(context.Background(), map[string]any{"url": n.url("pages.test", "/loop")})
	if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Errorf("redirect loop: %v", err)
	}
	// The other listener never saw a connection: accept would block, so
	// check with a deadline that nothing is pending.
	other.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Millisecond))
	if c, err := other.Accept(); err == nil {
		c.Close()
		t.Errorf("the redirect target on loopback was connected to")
	}
}

// TestDNSRebinding: the address is checked each time a connection is
// dialed, after its name is resolved, so a name that answered with an
// allowed address and then with a private one is refused the second time.
func TestDNSRebinding(t *testing.T) {
	n := newTestNet(t)
	n.setName("rebind.test", n.addr.Addr())
	visit := n.tool("visit_webpage", n.options())
	u := n.url("rebind.test", "/close")
	if out, err := visit.Call(context.Background(), map[string]any{"url": u}); err != nil || out != "first answer" {
		t.Fatalf("first visit: %v, %v", out, err)
	}
	n.setName("rebind.test", netip.MustParseAddr("192.168.0.10"))
	_, err := visit.Call(context.Background(), map[string]any{"url": u})
	if err == nil || !strings.Contains(err.Error(), "rebind.test resolves to 192.168.0.10, a private address") {
		t.Errorf("second visit after rebinding: %v", err)
	}
}

// TestAllowPrivate: --allow-private-urls lets the tools reach loopback
// (here the test server, by its address, through the default dialer).
func TestAllowPrivate(t *testing.T) {
	n := newTestNet(t)
	visit := n.tool("visit_webpage", Options{AllowPrivate: true})
	out, err := visit.Call(context.Background(), map[string]any{"url": n.srv.URL + "/plain"})
	if err != nil || !strings.Contains(out.(string), "kept as written") {
		t.Errorf("with AllowPrivate: %v, %v", out, err)
	}
	// Schemes stay refused.
	if _, err := visit.Call(context.Background(), map[string]any{"url": "file:///etc/passwd"}); err == nil || !errors.Is(err, errRefused) {
		t.Errorf("file URL with AllowPrivate: %v", err)
	}
}

// TestAllowAddrsIsExact: the exception is one address and port, not the
// address's other ports.
func TestAllowAddrsIsExact(t *testing.T) {
	n := newTestNet(t)
	opts := n.options()
	opts.Dial = noDial(t)
	opts.AllowAddrs = []netip.AddrPort{netip.AddrPortFrom(n.addr.Addr(), n.addr.Port()+1)}
	visit := n.tool("visit_webpage", opts)
	_, err := visit.Call(context.Background(), map[string]any{"url": n.url("pages.test", "/plain")})
	if err == nil || !strings.Contains(err.Error(), "pages.test resolves to 127.0.0.1, a loopback address") {
		t.Errorf("other port: %v", err)
	}
}

// TestControl: the default dialer checks the socket's address once more.
func TestControl(t *testing.T) {
	g := &guard{}
	for _, a := range []string{"10.0.0.5:80", "127.0.0.1:8080", "[::1]:443", "169.254.169.254:80", "[::ffff:192.168.0.1]:80"} {
		if err := g.control("tcp", a, nil); err == nil || !errors.Is(err, errRefused) {
			t.Errorf("control(%s) = %v, want a refusal", a, err)
		}
	}
	if err := g.control("tcp4", "93.184.215.14:443", nil); err != nil {
		t.Errorf("control(public) = %v", err)
	}
	if err := (&guard{allowPrivate: true}).control("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("control with allowPrivate = %v", err)
	}
	// Through a real dialer: the connection to a loopback listener is
	// refused by Control before connect.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := net.Dialer{Control: g.control}
	if c, err := d.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
		t.Errorf("a dialer with the guard's Control connected to %s", ln.Addr())
	} else if !errors.Is(err, errRefused) {
		t.Errorf("dial: %v, want a refusal", err)
	}
}

// TestClient: the client given to other Go code refuses what the tools
// refuse, at the dial, and its errors say so.
func TestClient(t *testing.T) {
	n := newTestNet(t)
	c := Client(Options{Resolver: n, Dial: noDial(t)})
	for _, u := range []string{n.srv.URL + "/plain", "http://intranet.test/", "http://[::1]/", "http://2130706433/"} {
		resp, err := c.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Errorf("%s: fetched", u)
			continue
		}
		var re *RefusedError
		if !errors.As(err, &re) || !errors.Is(err, errRefused) {
			t.Errorf("%s: %v, want a *RefusedError", u, err)
		}
	}
	opts := n.options()
	resp, err := Client(opts).Get(n.url("pages.test", "/headers"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	n.mu.Lock()
	ua := n.seen.Get("User-Agent")
	n.mu.Unlock()
	if ua != DefaultUserAgent {
		t.Errorf("User-Agent %q, want %q", ua, DefaultUserAgent)
	}
}
