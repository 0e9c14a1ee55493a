package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func newNet(out *bytes.Buffer) *Net {
	return &Net{Size: 4 * MiB, Runs: 2, Out: out, Progress: out, Meta: Meta{Device: "pc", Engine: "go", Version: "test", Generation: "-"}}
}

// checkNet checks a net run: a write and a read row per run, of the
// whole size, in order, and the test file gone from dir.
func checkNet(t *testing.T, rep *Report, proto, dest string, dir string) {
	t.Helper()
	want := []string{proto + "Write", proto + "Read", proto + "Write", proto + "Read"}
	if len(rep.Results) != len(want) {
		t.Fatalf("results %+v", rep.Results)
	}
	for i, r := range rep.Results {
		if r.Test != want[i] || r.Run != i/2+1 || r.Bytes != 4*MiB || r.MBPerS <= 0 || r.Filesystem != strings.ToLower(proto) {
			t.Errorf("row %d: %+v", i, r)
		}
		where := r.Destination
		if i%2 == 1 {
			where = r.Source
		}
		if !strings.HasPrefix(where, dest) || strings.Contains(where, ":pw@") {
			t.Errorf("row %d: place %q, want %s... (without the password)", i, where, dest)
		}
	}
	if dir == "" {
		return
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "userscript-bench-*")); len(left) > 0 {
		t.Errorf("test file left on the share: %v", left)
	}
}

// SMB through the go-smb2 client against a real smbd: written, flushed,
// read back, removed.
func TestNetSMB(t *testing.T) {
	need(t, "smbd", "smbpasswd")
	dir := openDir(t)
	port := startSmbd(t, dir)
	var out bytes.Buffer
	n := newNet(&out)
	n.SMB = fmt.Sprintf("smb://root:pw@127.0.0.1:%d/bench", port)
	rep, err := n.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	checkNet(t, rep, "SMB", fmt.Sprintf("smb://root@127.0.0.1:%d/bench/userscript-bench-", port), dir)
}

// FTP through the jlaffaye/ftp client against a real proftpd, logged in
// anonymously.
func TestNetFTP(t *testing.T) {
	need(t, "proftpd")
	dir := openDir(t)
	port := startProftpd(t, dir)
	var out bytes.Buffer
	n := newNet(&out)
	n.FTP = fmt.Sprintf("ftp://127.0.0.1:%d/", port)
	rep, err := n.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	checkNet(t, rep, "FTP", fmt.Sprintf("ftp://anonymous@127.0.0.1:%d/userscript-bench-", port), dir)
	if !strings.Contains(out.String(), "FTP: free space cannot be checked") {
		t.Errorf("no free-space note:\n%s", out.String())
	}
}

// NFS (and SMB) through a mounted path: here a local folder stands in
// for the mount; without a writable drop_caches the read is flagged.
func TestNetPath(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := (&Net{NFS: dir, Size: 4 * MiB, Runs: 2, Out: &out, Progress: &out}).Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	checkNet(t, rep, "NFS", filepath.Join(dir, "userscript-bench-"), dir)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "may come from this PC's cache") {
		t.Errorf("warnings %q", rep.Warnings)
	}
	_, err = (&Net{SMB: filepath.Join(dir, "nothing"), Size: MiB, Runs: 1, Out: &out}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a mounted folder: mount the share first") {
		t.Errorf("missing mount: %v", err)
	}
}

// The TCP test against `bench serve` on loopback: no disk, both ways;
// the server logs each transfer and stops with its context.
func TestNetTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, l, &log) }()
	var out bytes.Buffer
	n := newNet(&out)
	n.TCP = l.Addr().String()
	rep, err := n.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	checkNet(t, rep, "TCP", "tcp://127.0.0.1:", "")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop with its context")
	}
	if got := strings.Count(log.String(), " MiB in "); got != 4 {
		t.Errorf("server log has %d transfers, want 4:\n%s", got, log.String())
	}
}

// A request that is not the protocol, or too large, gets an ERROR line
// and nothing else.
func TestServeRefuses(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, l, &syncBuffer{})
	for _, req := range []string{"GET / HTTP/1.0\n", "USERSCRIPT-BENCH READ 99999999999999999\n", "USERSCRIPT-BENCH WRITE -1\n"} {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, req)
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if !strings.HasPrefix(line, "ERROR ") {
			t.Errorf("%q: answered %q", req, line)
		}
	}
}

// Ctrl-C during a transfer: no results, and the test file is removed.
// The "share" holds a FIFO where the test file goes, so the test reads
// the first MiB, presses Ctrl-C and drains the rest: the interrupt lands
// mid-write, every time.
func TestNetInterrupt(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, fmt.Sprintf("userscript-bench-%d.dat", os.Getpid()))
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			return
		}
		defer f.Close()
		io.ReadFull(f, make([]byte, MiB))
		cancel()
		io.Copy(io.Discard, f)
	}()
	var out bytes.Buffer
	rep, err := (&Net{NFS: dir, Size: 64 * MiB, Runs: 1, Out: &out}).Run(ctx)
	if err == nil || rep != nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("%v %v\n%s", rep, err, out.String())
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("left %v", left)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
