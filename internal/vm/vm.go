package vm

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Drive is one virtio disk, in the order given (/dev/vda, vdb, vdc).
type Drive struct {
	Path     string
	Snapshot bool // writes go to a temporary file qemu drops when it ends
}

// A Config says how to boot a machine.
type Config struct {
	Dir      string // the run's folder: the control socket, console.log
	Image    *Image
	Append   string // the kernel command line
	Drives   []Drive
	Forwards []int // guest TCP ports reached through 127.0.0.1 (Machine.Port)
	MemMB    int
	CPUs     int // 2 unless given
}

// A Machine is one running qemu-system-x86_64 (TCG: KVM hangs here).
type Machine struct {
	Console string // the guest's console (ttyS0), a file
	cmd     *exec.Cmd
	conn    net.Conn
	ports   map[int]int
	exited  chan struct{}
	mu      sync.Mutex
	seq     int
	waiting map[string]chan reply
	started time.Time
	// up is closed when the agent says hello (its first line): a probe
	// sent before it had opened its port is lost with the port's input.
	up     chan struct{}
	upOnce sync.Once
}

type reply struct {
	rc  int
	out string
}

// Start boots a machine; it returns once qemu runs, before the guest has
// booted (WaitAgent waits for that).
func Start(ctx context.Context, c Config) (*Machine, error) {
	if c.MemMB == 0 {
		c.MemMB = 1024
	}
	if c.CPUs == 0 {
		c.CPUs = 2
	}
	sock := filepath.Join(c.Dir, "ctl.sock")
	os.Remove(sock)
	m := &Machine{Console: filepath.Join(c.Dir, "console.log"), ports: map[int]int{},
		exited: make(chan struct{}), waiting: map[string]chan reply{}, up: make(chan struct{})}
	fwd := ""
	for _, gp := range c.Forwards {
		hp, err := freePort()
		if err != nil {
			return nil, err
		}
		m.ports[gp] = hp
		fwd += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-:%d", hp, gp)
	}
	args := []string{"-accel", "tcg", "-smp", strconv.Itoa(c.CPUs), "-m", strconv.Itoa(c.MemMB),
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-kernel", c.Image.Kernel, "-initrd", c.Image.Initrd, "-append", c.Append,
		"-serial", "file:" + m.Console,
		"-chardev", "socket,id=ctl,path=" + sock + ",server=on,wait=off",
		"-serial", "chardev:ctl",
		"-netdev", "user,id=n0,net=10.0.2.0/24" + fwd,
		"-device", "virtio-net-pci,netdev=n0"}
	for _, d := range c.Drives {
		spec := "file=" + d.Path + ",if=virtio,format=raw"
		if d.Snapshot {
			spec += ",snapshot=on"
		}
		args = append(args, "-drive", spec)
	}
	m.cmd = exec.Command("qemu-system-x86_64", args...)
	log, err := os.Create(filepath.Join(c.Dir, "qemu.log"))
	if err != nil {
		return nil, err
	}
	m.cmd.Stdout, m.cmd.Stderr = log, log
	if err := m.cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("qemu-system-x86_64: %w (apt-get install qemu-system-x86; make vmdeps)", err)
	}
	m.started = time.Now()
	go func() { m.cmd.Wait(); log.Close(); close(m.exited) }()
	for {
		m.conn, err = net.Dial("unix", sock)
		if err == nil {
			break
		}
		select {
		case <-m.exited:
			out, _ := os.ReadFile(filepath.Join(c.Dir, "qemu.log"))
			return nil, fmt.Errorf("qemu ended at once: %s", out)
		case <-ctx.Done():
			m.Kill()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	go m.read()
	return m, nil
}

// given holds the ports freePort has handed out: machines booted side
// by side never get the same one.
var given = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// freePort is a port of 127.0.0.1 nobody listens on now and no machine
// of this process was given before.
func freePort() (int, error) {
	given.Lock()
	defer given.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !given.ports[p] {
			given.ports[p] = true
			return p, nil
		}
	}
}

// Port is the host port on 127.0.0.1 that reaches the guest's port.
func (m *Machine) Port(guest int) int { return m.ports[guest] }

// Since is how long qemu has run.
func (m *Machine) Since() time.Duration { return time.Since(m.started) }

func (m *Machine) read() {
	r := bufio.NewReaderSize(m.conn, 1<<20)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "@@R" {
			continue
		}
		if f[1] == "hello" {
			m.upOnce.Do(func() { close(m.up) })
			continue
		}
		rc, _ := strconv.Atoi(f[2])
		var out []byte
		if len(f) > 3 {
			out, _ = base64.StdEncoding.DecodeString(f[3])
		}
		m.mu.Lock()
		ch := m.waiting[f[1]]
		delete(m.waiting, f[1])
		m.mu.Unlock()
		if ch != nil {
			ch <- reply{rc, string(out)}
		}
	}
}

// ErrExited is returned by Exec when qemu has ended.
var ErrExited = errors.New("the machine is off")

// Exec runs script under the guest's /bin/sh (Debian's, outside any
// firmware root) and returns its output and exit code.
func (m *Machine) Exec(ctx context.Context, script string) (string, int, error) {
	m.mu.Lock()
	m.seq++
	id := fmt.Sprintf("q%d", m.seq)
	ch := make(chan reply, 1)
	m.waiting[id] = ch
	m.mu.Unlock()
	defer func() { m.mu.Lock(); delete(m.waiting, id); m.mu.Unlock() }()
	line := id + " " + base64.StdEncoding.EncodeToString([]byte(script)) + "\n"
	if _, err := m.conn.Write([]byte(line)); err != nil {
		return "", 0, err
	}
	select {
	case r := <-ch:
		return r.out, r.rc, nil
	case <-m.exited:
		return "", 0, ErrExited
	case <-ctx.Done():
		return "", 0, fmt.Errorf("guest: %q: %w", firstLine(script), ctx.Err())
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// Run is Exec that fails unless the script exits 0.
func (m *Machine) Run(ctx context.Context, script string) (string, error) {
	out, rc, err := m.Exec(ctx, script)
	if err == nil && rc != 0 {
		err = fmt.Errorf("guest: %q exited %d: %s", firstLine(script), rc, out)
	}
	return out, err
}

// BootLimit bounds WaitAgent: a TCG boot takes seconds on an idle
// machine and a few minutes on a loaded one; a guest whose kernel hangs
// (seen once with two virtual CPUs: both in a soft lockup from 13 s on,
// until the suite's timeout) fails with its console instead.
const BootLimit = 10 * time.Minute

// WaitAgent waits until the guest's agent is up: its hello, or the
// answer to a probe sent every 3 s; at most BootLimit.
func (m *Machine) WaitAgent(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, BootLimit)
	defer cancel()
	for {
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		probe := make(chan error, 1)
		go func() { _, _, err := m.Exec(c, "true"); probe <- err }()
		var err error
		select {
		case <-m.up:
		case err = <-probe:
		}
		cancel()
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrExited) {
			return fmt.Errorf("the machine ended while booting: %s", m.Tail())
		}
		if ctx.Err() != nil {
			return fmt.Errorf("no answer from the guest: %w; console: %s", ctx.Err(), m.Tail())
		}
	}
}

// Tail is the end of the console log.
func (m *Machine) Tail() string {
	b, _ := os.ReadFile(m.Console)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// Kill ends qemu with SIGKILL: the guest loses what it had not written
// to its disks, as in a power cut.
func (m *Machine) Kill() {
	m.cmd.Process.Signal(syscall.SIGKILL)
	<-m.exited
	if m.conn != nil {
		m.conn.Close()
	}
}

// Wait waits for qemu to end on its own (a guest that powered off or
// rebooted: -no-reboot ends qemu then).
func (m *Machine) Wait(ctx context.Context) error {
	select {
	case <-m.exited:
		m.conn.Close()
		return nil
	case <-ctx.Done():
		m.Kill()
		return fmt.Errorf("the machine did not stop: %w; console: %s", ctx.Err(), m.Tail())
	}
}
