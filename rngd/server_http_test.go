package rngd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// httpGet sends a GET /healthz on c and reads its answer, waiting at most
// wait.
func httpGet(c net.Conn, r *bufio.Reader, wait time.Duration) error {
	c.SetDeadline(time.Now().Add(wait))
	defer c.SetDeadline(time.Time{})
	if _, err := fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// http.max_connections bounds the HTTP listener's connections: with both
// slots held by idle clients, a third client's request waits; once one of
// them closes, it is answered.
func TestHTTPMaxConnections(t *testing.T) {
	td := newTestDaemon(t, func(c *Config) { c.HTTP.MaxConnections = 2 })
	addr := td.d.Addrs().HTTP
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := httpGet(c, bufio.NewReader(c), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	third, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	r := bufio.NewReader(third)
	// Sent once; the answer is read twice below.
	third.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintf(third, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	var ne net.Error
	if _, err := http.ReadResponse(r, nil); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a request with both connection slots held: %v, want it to wait (a timeout)", err)
	}
	held[0].Close()
	third.SetDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("the request once a slot is free: %v", err)
	}
	resp.Body.Close()
}

// An idle keep-alive connection is closed after the idle timeout: clients
// cannot hold the listener's connections (and rngd's descriptors) for
// ever.
func TestHTTPIdleConnectionClosed(t *testing.T) {
	saved := httpTimeouts
	httpTimeouts.idle = 300 * time.Millisecond
	t.Cleanup(func() { httpTimeouts = saved })
	td := newTestDaemon(t)
	c, err := net.Dial("tcp", td.d.Addrs().HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if err := httpGet(c, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("an idle keep-alive connection after the idle timeout: %v, want it closed by rngd (EOF)", err)
	}
}

// The HTTP server has every timeout set (a client that stops sending or
// reading holds its connection and handler no longer), with the values
// documented.
func TestHTTPServerTimeouts(t *testing.T) {
	td := newTestDaemon(t)
	s := td.d.http
	if s.ReadHeaderTimeout != 10*time.Second || s.ReadTimeout != 15*time.Second || s.WriteTimeout != 60*time.Second || s.IdleTimeout != 60*time.Second {
		t.Errorf("http.Server timeouts: read header %v, read %v, write %v, idle %v; want 10s, 15s, 60s, 60s",
			s.ReadHeaderTimeout, s.ReadTimeout, s.WriteTimeout, s.IdleTimeout)
	}
}

// http.max_connections defaults to 256; zero selects the default, a
// negative count is refused, naming the key.
func TestHTTPMaxConnectionsConfig(t *testing.T) {
	c, err := checkTOML(t, configTOML(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.MaxConnections != 256 {
		t.Errorf("http.max_connections default %d, want 256", c.HTTP.MaxConnections)
	}
	if c, err := checkTOML(t, configTOML(map[string]string{"http.max_connections": `3`})); err != nil || c.HTTP.MaxConnections != 3 {
		t.Errorf("http.max_connections = 3: %d, %v", c.HTTP.MaxConnections, err)
	}
	if _, err := checkTOML(t, configTOML(map[string]string{"http.max_connections": `-1`})); err == nil || !strings.Contains(err.Error(), "http.max_connections") {
		t.Errorf("http.max_connections = -1: %v, want an error naming the key", err)
	}
}

// A request's headers are bounded (httpMaxHeaderBytes), as the gRPC
// listeners bound a request message: anyone who reaches the listener could
// otherwise make rngd hold about a mebibyte of headers per connection for
// the header timeout. Beyond the bound the answer is 431; a request with
// small headers is served.
func TestHTTPHeaderBound(t *testing.T) {
	td := newTestDaemon(t)
	c, err := net.Dial("tcp", td.d.Addrs().HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	// Long lines, few of them: net/http bounds the count of header
	// values on its own (500), not their size.
	big := strings.Repeat("X-Padding: "+strings.Repeat("a", 1000)+"\r\n", 4*httpMaxHeaderBytes/1000)
	// rngd may answer and stop reading before the whole request is sent.
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n%s\r\n", big)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a request with %d bytes of headers: %s, want 431", len(big), resp.Status)
	}
	c2, err := net.Dial("tcp", td.d.Addrs().HTTP)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if err := httpGet(c2, bufio.NewReader(c2), 5*time.Second); err != nil {
		t.Errorf("a request with small headers: %v", err)
	}
}
