package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RefusedError is the error of a request the web tools will not make: a
// scheme other than http(s), or a destination that is not a public
// address. Its message is written for the model that asked.
type RefusedError struct {
	URL    string     // the URL asked for (or the redirect hop refused)
	Host   string     // the host name as written in the URL
	Addr   netip.Addr // the address refused; invalid when refused by name or scheme
	Reason string     // "a private address", "the cloud metadata address", ...
}

func (e *RefusedError) Error() string {
	var what string
	literal, same := isLiteral(e.Host, e.Addr)
	switch {
	case e.Addr.IsValid() && literal && !same:
		what = fmt.Sprintf("%s (that is, %s) is %s", e.Host, e.Addr, e.Reason)
	case e.Addr.IsValid() && !literal && e.Host != "":
		what = fmt.Sprintf("%s resolves to %s, %s", e.Host, e.Addr, e.Reason)
	case e.Addr.IsValid():
		what = fmt.Sprintf("%s is %s", e.Addr, e.Reason)
	case e.Host != "":
		what = fmt.Sprintf("%s is %s", e.Host, e.Reason)
	default:
		what = e.Reason
	}
	if !e.byAddress() {
		return fmt.Sprintf("refused %s: %s; star-agent's web tools only fetch http and https URLs", e.URL, what)
	}
	return fmt.Sprintf("refused %s: %s; star-agent's web tools only reach public http(s) addresses", e.URL, what)
}

// byAddress says whether the refusal is for the destination (which
// AllowPrivate lifts) rather than for the scheme.
func (e *RefusedError) byAddress() bool { return e.Addr.IsValid() || e.Host != "" }

// isLiteral says whether host is an address rather than a name, and if
// so whether it is written as a is (127.0.0.1, not 2130706433).
func isLiteral(host string, a netip.Addr) (literal, same bool) {
	host = strings.TrimSuffix(host, ".")
	_, ok := parseHost(host)
	written, _, _ := strings.Cut(strings.Trim(host, "[]"), "%")
	return ok, ok && strings.EqualFold(written, a.String())
}

// errRefused lets errors.Is find a refusal through url.Error and
// net.OpError wrappers.
var errRefused = errors.New("refused")

func (e *RefusedError) Is(target error) bool { return target == errRefused }

// Special-purpose ranges that are neither loopback, private, link-local
// nor multicast by netip's predicates, and still not the public internet.
var (
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	thisNet    = netip.MustParsePrefix("0.0.0.0/8")
	ietf       = netip.MustParsePrefix("192.0.0.0/24")
	benchmark  = netip.MustParsePrefix("198.18.0.0/15")
	reserved4  = netip.MustParsePrefix("240.0.0.0/4") // includes 255.255.255.255
	testNets   = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32")}
	compat6    = netip.MustParsePrefix("::/96")        // IPv4-compatible IPv6 (deprecated)
	nat64      = netip.MustParsePrefix("64:ff9b::/96") // well-known NAT64: embeds an IPv4 address
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16") // 6to4: embeds an IPv4 address
	siteLocal  = netip.MustParsePrefix("fec0::/10")
	metadata   = netip.MustParseAddr("169.254.169.254")
	metadata6  = netip.MustParseAddr("fd00:ec2::254") // AWS's IPv6 metadata endpoint
)

// classify says why a is not a public unicast address, or "" when it is.
// IPv4 addresses written as IPv6 (mapped, compatible, NAT64, 6to4) are
// judged by the IPv4 address they carry.
func classify(a netip.Addr) string {
	if !a.IsValid() {
		return "not an address"
	}
	a = a.WithZone("")
	if a.Is4In6() {
		a = a.Unmap()
	}
	if a.Is6() {
		switch {
		case a == metadata6:
			return "the cloud metadata address"
		case a.IsUnspecified():
			return "the unspecified address"
		case a.IsLoopback():
			return "a loopback address"
		case compat6.Contains(a), nat64.Contains(a):
			b := a.As16()
			if r := classify(netip.AddrFrom4([4]byte(b[12:16]))); r != "" {
				return r
			}
		case nat64Local.Contains(a):
			return "a local-use NAT64 address"
		case sixToFour.Contains(a):
			b := a.As16()
			if r := classify(netip.AddrFrom4([4]byte(b[2:6]))); r != "" {
				return r
			}
		case siteLocal.Contains(a):
			return "a site-local address"
		}
	}
	switch {
	case a == metadata:
		return "the cloud metadata address"
	case a.IsUnspecified(), thisNet.Contains(a):
		return "the unspecified address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsMulticast():
		return "a multicast address"
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "the broadcast address"
	case cgnat.Contains(a):
		return "a shared (carrier-grade NAT) address"
	case ietf.Contains(a), benchmark.Contains(a), reserved4.Contains(a):
		return "a reserved address"
	}
	for _, p := range testNets {
		if p.Contains(a) {
			return "a documentation address"
		}
	}
	return ""
}

// blockedName says why a host name is refused before it is resolved:
// names that always mean this machine or a cloud's metadata service.
func blockedName(host string) string {
	switch host {
	case "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback":
		return "this machine (loopback)"
	case "metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal", "metadata.azure.com", "metadata.platformequinix.com":
		return "a cloud metadata service"
	}
	if strings.HasSuffix(host, ".localhost") {
		return "this machine (loopback)"
	}
	return ""
}

// parseHost turns the host of a URL into an address when it is a literal:
// IPv6 in brackets, dotted IPv4, and the forms inet_aton and browsers also
// read as IPv4 (2130706433, 0x7f.1, 0177.0.0.1, 127.1), which a name
// lookup would otherwise hand to the system resolver.
func parseHost(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return a, true
	}
	return parseLooseIPv4(host)
}

func parseLooseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0"
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i := range last {
		if vals[i] > 255 {
			return netip.Addr{}, false
		}
		n |= vals[i] << (24 - 8*i)
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// Resolver looks host names up; *net.Resolver is one. Tests give their
// own so that no real DNS is asked.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// guard decides which destinations the web tools may reach.
type guard struct {
	allowPrivate bool
	allow        map[netip.AddrPort]bool
	resolver     Resolver
	dial         func(ctx context.Context, network, address string) (net.Conn, error)
}

func (g *guard) permitted(a netip.Addr, port uint16) string {
	if g.allowPrivate || g.allow[netip.AddrPortFrom(a.Unmap().WithZone(""), port)] {
		return ""
	}
	return classify(a)
}

// checkURL refuses what can be refused from the URL alone: the scheme,
// names of this machine and of metadata services, and literal addresses.
// Names are checked again, after resolution, when they are dialed.
func (g *guard) checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return &RefusedError{URL: u.Redacted(), Reason: fmt.Sprintf("the scheme %q is not http or https", u.Scheme)}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return &RefusedError{URL: u.Redacted(), Reason: "the URL has no host"}
	}
	if g.allowPrivate {
		return nil
	}
	if a, ok := parseHost(host); ok {
		if r := g.permitted(a, portOf(u)); r != "" {
			return &RefusedError{URL: u.Redacted(), Host: u.Hostname(), Addr: a.Unmap().WithZone(""), Reason: r}
		}
		return nil
	}
	if r := blockedName(host); r != "" {
		return &RefusedError{URL: u.Redacted(), Host: u.Hostname(), Reason: r}
	}
	return nil
}

func portOf(u *url.URL) uint16 {
	if p, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		return uint16(p)
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// dialContext is the transport's dialer: it resolves the name itself,
// keeps only the addresses the guard permits, and dials those by address,
// so that the address checked is the address connected to (a DNS answer
// that changes between a check and the connection cannot slip through).
func (g *guard) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	port64, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port in %q", address)
	}
	port := uint16(port64)
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	var addrs []netip.Addr
	if a, ok := parseHost(name); ok {
		addrs = []netip.Addr{a}
	} else {
		if r := blockedName(name); r != "" && !g.allowPrivate {
			return nil, &RefusedError{URL: address, Host: host, Reason: r}
		}
		addrs, err = g.resolver.LookupNetIP(ctx, "ip", name)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("cannot resolve %s: no addresses", host)
		}
	}
	var refused *RefusedError
	var errs []error
	for _, a := range addrs {
		if r := g.permitted(a, port); r != "" {
			if refused == nil {
				refused = &RefusedError{URL: address, Host: host, Addr: a.Unmap().WithZone(""), Reason: r}
			}
			continue
		}
		conn, err := g.dial(ctx, network, netip.AddrPortFrom(a.Unmap(), port).String())
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if len(errs) == 0 && refused != nil {
		return nil, refused
	}
	return nil, errors.Join(errs...)
}

// control runs on the socket just before connect: a second check, on the
// address the kernel is asked to connect to, so that no dial path of the
// transport can reach a refused address.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{URL: address, Reason: "not an IP address and port"}
	}
	if r := g.permitted(ap.Addr(), ap.Port()); r != "" {
		return &RefusedError{URL: address, Addr: ap.Addr().Unmap().WithZone(""), Reason: r}
	}
	return nil
}

// newClient builds the one HTTP client of the web tools from opts (with
// defaults filled in).
func newClient(opts *Options) (*http.Client, *guard) {
	g := &guard{allowPrivate: opts.AllowPrivate, resolver: opts.Resolver, dial: opts.Dial}
	if len(opts.AllowAddrs) > 0 {
		g.allow = map[netip.AddrPort]bool{}
		for _, ap := range opts.AllowAddrs {
			g.allow[netip.AddrPortFrom(ap.Addr().Unmap().WithZone(""), ap.Port())] = true
		}
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	if g.dial == nil {
		d := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second, Control: g.control}
		g.dial = d.DialContext
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would dial on our behalf, past the guard
		DialContext:            g.dialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           16,
		IdleConnTimeout:        60 * time.Second,
		TLSHandshakeTimeout:    opts.ConnectTimeout,
		ResponseHeaderTimeout:  opts.Timeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: userAgent{opts.UserAgent, tr},
		Timeout:   opts.Timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opts.MaxRedirects {
				return fmt.Errorf("stopped after %d redirects (the last to %s)", opts.MaxRedirects, req.URL.Redacted())
			}
			if req.URL.Host != via[0].URL.Host {
				// Go drops Authorization and cookies on a redirect to
				// another host, not the API key headers of the services.
				req.Header.Del("X-Subscription-Token")
			}
			return g.checkURL(req.URL)
		},
	}, g
}

// userAgent sets the User-Agent of requests that have none.
type userAgent struct {
	ua string
	rt http.RoundTripper
}

func (u userAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", u.ua)
	}
	return u.rt.RoundTrip(req)
}
