package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// Net measures the NAS's services from the owner's PC: write a file,
// read it back, Runs times, for each service given. SMB and NFS go
// through a mounted path (or, for SMB, an smb:// URL: the go-smb2
// client), FTP through an ftp:// URL (the jlaffaye/ftp client), TCP to
// `userscript bench serve` (no disk at all).
type Net struct {
	SMB, FTP, NFS, TCP string
	Size               int64
	Runs               int
	Meta               Meta
	Out                io.Writer     // each test and result
	Progress           io.Writer     // the progress bar (on a terminal)
	Sys                system.System // this PC: drops its page cache before reading a mounted path
}

// An endpoint is one service under test: a file on it, or a TCP stream.
type endpoint interface {
	proto() string // SMB, FTP, NFS or TCP
	where() string // the place, as shown (never with a password)
	how() string   // the client: "mounted path", "go-smb2", ...
	open(context.Context) error
	free() (int64, error) // space left, errNoStatfs when it cannot be told
	write(context.Context, io.Reader) error
	read(context.Context, io.Writer) error
	cached() bool // reads may come from this PC's page cache
	cleanup(context.Context) error
	close()
}

// Run measures every service given; a service that fails is reported
// and the others still run.
func (n *Net) Run(ctx context.Context) (*Report, error) {
	eps, err := n.endpoints()
	if err != nil {
		return nil, err
	}
	if len(eps) == 0 {
		return nil, errors.New("nothing to measure: give --smb, --ftp, --nfs or --tcp")
	}
	rep := &Report{Meta: n.Meta, Size: n.Size, Runs: n.Runs}
	var failed []error
	for _, ep := range eps {
		err := n.measure(ctx, ep, rep)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted: the test file was removed, no results written: %w", ctx.Err())
		}
		if err != nil {
			fmt.Fprintf(n.Out, "%s: failed: %v\n", ep.proto(), err)
			rep.Skipped = append(rep.Skipped, Skip{Test: ep.proto(), Reason: "failed: " + err.Error()})
			failed = append(failed, fmt.Errorf("%s: %w", ep.proto(), err))
		}
	}
	return rep, errors.Join(failed...)
}

func (n *Net) endpoints() ([]endpoint, error) {
	var eps []endpoint
	name := fmt.Sprintf("userscript-bench-%d.dat", os.Getpid())
	if n.SMB != "" {
		if strings.HasPrefix(n.SMB, "smb://") {
			ep, err := newSMB(n.SMB, name)
			if err != nil {
				return nil, err
			}
			eps = append(eps, ep)
		} else {
			eps = append(eps, &pathEndpoint{protocol: "SMB", dir: n.SMB, name: name})
		}
	}
	if n.FTP != "" {
		ep, err := newFTP(n.FTP, name)
		if err != nil {
			return nil, err
		}
		eps = append(eps, ep)
	}
	if n.NFS != "" {
		eps = append(eps, &pathEndpoint{protocol: "NFS", dir: n.NFS, name: name})
	}
	if n.TCP != "" {
		eps = append(eps, &tcpEndpoint{addr: n.TCP, size: n.Size})
	}
	return eps, nil
}

// addrs are the TCP addresses of the services reached over the network
// (not through a mounted path).
func (n *Net) addrs() []string {
	eps, _ := n.endpoints()
	var out []string
	for _, ep := range eps {
		if a, ok := ep.(interface{ address() string }); ok {
			out = append(out, a.address())
		}
	}
	return out
}

// measure writes and reads one service Runs times, then removes its
// file (also when interrupted).
func (n *Net) measure(ctx context.Context, ep endpoint, rep *Report) error {
	fmt.Fprintf(n.Out, "%s: %s (%s)\n", ep.proto(), ep.where(), ep.how())
	if err := ep.open(ctx); err != nil {
		return err
	}
	defer ep.close()
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
		defer cancel()
		if err := ep.cleanup(cctx); err != nil {
			fmt.Fprintf(n.Out, "warning: %s: the test file could not be removed: %v\n", ep.where(), err)
		}
	}()
	if err := n.checkFree(ep); err != nil {
		return err
	}
	warned := false
	for run := 1; run <= n.Runs; run++ {
		r, err := n.timed(ctx, ep, run, true)
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, r)
		if ep.cached() && !n.dropCaches(ctx) && !warned {
			warned = true
			msg := fmt.Sprintf("%s: the read may come from this PC's cache, not the network: cannot drop the page cache here (not Linux, or not root); use a --size larger than this PC's RAM", ep.where())
			fmt.Fprintf(n.Out, "warning: %s\n", msg)
			rep.Warnings = append(rep.Warnings, msg)
		}
		if r, err = n.timed(ctx, ep, run, false); err != nil {
			return err
		}
		rep.Results = append(rep.Results, r)
	}
	return nil
}

func (n *Net) checkFree(ep endpoint) error {
	free, err := ep.free()
	switch {
	case errors.Is(err, errNoStatfs):
		fmt.Fprintf(n.Out, "%s: free space cannot be checked: make sure %d MiB fit\n", ep.proto(), n.Size/MiB)
		return nil
	case err != nil:
		return fmt.Errorf("%s: cannot tell the free space (%v): refusing to write", ep.where(), err)
	case free < 2*n.Size:
		return fmt.Errorf("%s: %d MiB free, the test needs twice %d MiB: use a smaller --size", ep.where(), free/MiB, n.Size/MiB)
	}
	return nil
}

// dropCaches empties this PC's page cache (Linux, as root) so a read
// through a mounted path comes over the network.
func (n *Net) dropCaches(ctx context.Context) bool {
	if n.Sys == nil {
		return false
	}
	if ex := n.Sys.Run(ctx, system.Command{Argv: []string{"sync"}}); !ex.OK() {
		return false
	}
	return n.Sys.WriteInPlace(n.Sys.Root("/proc/sys/vm/drop_caches"), []byte("3\n")) == nil
}

// timed runs one write or read and makes its result.
func (n *Net) timed(ctx context.Context, ep endpoint, run int, write bool) (Result, error) {
	test, verb := ep.proto()+"Read", "read"
	if write {
		test, verb = ep.proto()+"Write", "write"
	}
	cmd := fmt.Sprintf("%s %d MiB %s %s (%s)", verb, n.Size/MiB, map[bool]string{true: "to", false: "from"}[write], ep.where(), ep.how())
	fmt.Fprintf(n.Out, "%s run %d/%d: %s\n", test, run, n.Runs, cmd)
	var count atomic.Int64
	stop := meter(n.Progress, test, n.Size, count.Load)
	started := n.now()
	var err error
	if write {
		err = ep.write(ctx, &counter{r: newPattern(n.Size), n: &count})
	} else {
		err = ep.read(ctx, &counter{w: io.Discard, n: &count})
	}
	elapsed := n.now().Sub(started).Seconds()
	stop()
	if err == nil && count.Load() != n.Size {
		err = fmt.Errorf("%s %d bytes, want %d", verb, count.Load(), n.Size)
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", test, err)
	}
	r := Result{Time: started, Device: n.Meta.Device, Engine: n.Meta.Engine, Version: n.Meta.Version, Generation: n.Meta.Generation,
		Test: test, Run: run, Bytes: n.Size, Seconds: elapsed, MBPerS: Rate(n.Size, elapsed), Command: cmd,
		Source: "memory", Destination: ep.where(), Filesystem: strings.ToLower(ep.proto())}
	if !write {
		r.Source, r.Destination = ep.where(), "memory"
	}
	fmt.Fprintf(n.Out, "  %s run %d: %.2f MB/s (%d MiB in %.3f s)\n", test, run, r.MBPerS, n.Size/MiB, elapsed)
	return r, nil
}

func (n *Net) now() time.Time {
	if n.Sys != nil {
		return n.Sys.Now()
	}
	return time.Now()
}

// cleanupTimeout bounds removing the test file after an interruption.
const cleanupTimeout = 10 * time.Second

// counter counts the bytes through a reader or a writer.
type counter struct {
	r io.Reader
	w io.Writer
	n *atomic.Int64
}

func (c *counter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

func (c *counter) Write(p []byte) (int, error) {
	k, err := c.w.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// pattern is the data written: one MiB of fixed pseudo-random bytes,
// repeated (zeros could be compressed on the way and flatter the rate).
type pattern struct {
	left int64
	off  int
}

// patternBlock is made on first use, not at start-up: every run of
// userscript (the daemon on a 128 MB NAS too) would carry it.
var patternBlock = sync.OnceValue(func() []byte {
	b := make([]byte, MiB)
	rand.NewChaCha8([32]byte{'u', 's', 'e', 'r', 's', 'c', 'r', 'i', 'p', 't'}).Read(b)
	return b
})

func newPattern(size int64) *pattern { return &pattern{left: size} }

func (p *pattern) Read(b []byte) (int, error) {
	if p.left <= 0 {
		return 0, io.EOF
	}
	k := copy(b, patternBlock()[p.off:])
	if int64(k) > p.left {
		k = int(p.left)
	}
	p.off = (p.off + k) % MiB
	p.left -= int64(k)
	return k, nil
}
