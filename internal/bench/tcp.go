package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The TCP test's protocol, one request per connection: the client sends
// "USERSCRIPT-BENCH WRITE N\n" and N bytes, the server answers "OK N\n"
// once it has them all; or the client sends "USERSCRIPT-BENCH READ N\n"
// and the server sends N bytes. No disk is touched on either side.
const (
	tcpMagic    = "USERSCRIPT-BENCH"
	tcpMax      = 1 << 40          // the largest transfer a server accepts
	tcpIdle     = 60 * time.Second // a connection silent this long is dropped
	serveConns  = 4                // transfers a server runs at once
	DefaultPort = "4220"           // `bench serve` listens here by default
)

// tcpEndpoint talks to `userscript bench serve` at addr.
type tcpEndpoint struct {
	addr string
	size int64
}

func (t *tcpEndpoint) proto() string                 { return "TCP" }
func (t *tcpEndpoint) where() string                 { return "tcp://" + t.addr }
func (t *tcpEndpoint) how() string                   { return "userscript bench serve" }
func (t *tcpEndpoint) cached() bool                  { return false }
func (t *tcpEndpoint) free() (int64, error)          { return math.MaxInt64, nil }
func (t *tcpEndpoint) open(context.Context) error    { return nil }
func (t *tcpEndpoint) cleanup(context.Context) error { return nil }
func (t *tcpEndpoint) close()                        {}

func (t *tcpEndpoint) dial(ctx context.Context, verb string) (net.Conn, func() bool, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w (is `userscript bench serve` running there?)", t.addr, err)
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	if _, err := fmt.Fprintf(c, "%s %s %d\n", tcpMagic, verb, t.size); err != nil {
		stop()
		c.Close()
		return nil, nil, err
	}
	return c, stop, nil
}

func (t *tcpEndpoint) write(ctx context.Context, r io.Reader) error {
	c, stop, err := t.dial(ctx, "WRITE")
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	if _, err := io.Copy(c, r); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return fmt.Errorf("%s: no answer after the data: %w", t.addr, err)
	}
	if strings.TrimSpace(line) != "OK "+strconv.FormatInt(t.size, 10) {
		return fmt.Errorf("%s: answered %q", t.addr, strings.TrimSpace(line))
	}
	return nil
}

func (t *tcpEndpoint) read(ctx context.Context, w io.Writer) error {
	c, stop, err := t.dial(ctx, "READ")
	if err != nil {
		return err
	}
	defer stop()
	defer c.Close()
	_, err = io.CopyN(w, c, t.size)
	return err
}

// Serve is `userscript bench serve`: a TCP sink and source for the TCP
// test, until ctx ends. It logs each transfer to log.
func Serve(ctx context.Context, l net.Listener, log io.Writer) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	slots := make(chan struct{}, serveConns)
	stop := context.AfterFunc(ctx, func() {
		l.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	defer stop()
	for {
		c, err := l.Accept()
		if err != nil {
			wg.Wait()
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case slots <- struct{}{}:
		default:
			fmt.Fprintf(c, "BUSY %d transfers running\n", serveConns)
			c.Close()
			continue
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			serveOne(c, log, &mu)
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
			c.Close()
		}()
	}
}

// serveOne answers one request; mu serialises the log.
func serveOne(c net.Conn, log io.Writer, mu *sync.Mutex) {
	ic := &idleConn{Conn: c}
	br := bufio.NewReaderSize(ic, 64)
	line, err := br.ReadString('\n')
	verb, n, perr := parseRequest(line)
	if err != nil || perr != nil {
		fmt.Fprintf(ic, "ERROR %v\n", errors.Join(err, perr))
		return
	}
	start := time.Now()
	switch verb {
	case "WRITE":
		_, err = io.CopyN(io.Discard, br, n)
		if err == nil {
			_, err = fmt.Fprintf(ic, "OK %d\n", n)
		}
	case "READ":
		_, err = io.CopyN(ic, newPattern(n), n)
	}
	secs := time.Since(start).Seconds()
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		fmt.Fprintf(log, "%s %s %d MiB: %v\n", c.RemoteAddr(), verb, n/MiB, err)
		return
	}
	fmt.Fprintf(log, "%s %s %d MiB in %.3f s = %.2f MB/s\n", c.RemoteAddr(), verb, n/MiB, secs, Rate(n, secs))
}

func parseRequest(line string) (string, int64, error) {
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != tcpMagic || (f[1] != "WRITE" && f[1] != "READ") {
		return "", 0, fmt.Errorf("want %q", tcpMagic+" WRITE|READ BYTES")
	}
	n, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil || n < 0 || n > tcpMax {
		return "", 0, fmt.Errorf("bytes %q: want 0 to %d", f[2], int64(tcpMax))
	}
	return f[1], n, nil
}

// idleConn drops a peer that stays silent for tcpIdle.
type idleConn struct{ net.Conn }

func (c *idleConn) Read(p []byte) (int, error) {
	c.SetDeadline(time.Now().Add(tcpIdle))
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	c.SetDeadline(time.Now().Add(tcpIdle))
	return c.Conn.Write(p)
}

func (t *tcpEndpoint) address() string { return t.addr }
