// Command fakedaemon stands in for a service's daemon in tests: it
// listens on a TCP port of 127.0.0.1 and accepts (and closes) every
// connection until it gets TERM. Tests run it through a link named after
// the process the health check looks for, so /proc/PID/comm and stat
// show that name.
//
//	fakedaemon PORT PIDFILE [sessions] [late=DURATION]
//	                          write the pid to PIDFILE; listen
//	fakedaemon stop PIDFILE   TERM the pid in PIDFILE, wait until it is gone
//
// With sessions it serves as Samba 3's smbd does: each connection gets a
// process of its own (the same name, without the listening socket) that
// lives until its client disconnects, however the master ends. With late
// it runs DURATION before it listens, as smbd does while it starts on a
// slow box (a boot on one emulated CPU took seconds).
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "session" {
		session()
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "stop" {
		stop(os.Args[2])
		return
	}
	sessions, late, ok := options(os.Args[min(3, len(os.Args)):])
	if len(os.Args) < 3 || !ok {
		fmt.Fprintln(os.Stderr, "usage: fakedaemon PORT PIDFILE [sessions] [late=DURATION] | fakedaemon stop PIDFILE")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[2], []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
		return
	case <-time.After(late):
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if sessions {
				fork(c)
			}
			c.Close()
		}
	}()
	<-sig
	l.Close()
}

// options reads the words after PIDFILE: sessions, late=DURATION.
func options(words []string) (sessions bool, late time.Duration, ok bool) {
	for _, w := range words {
		d, isLate := strings.CutPrefix(w, "late=")
		switch {
		case w == "sessions":
			sessions = true
		case isLate:
			var err error
			if late, err = time.ParseDuration(d); err != nil {
				return false, 0, false
			}
		default:
			return false, 0, false
		}
	}
	return sessions, late, true
}

// fork hands the connection to a session process: this program again,
// through the same link (so /proc shows the same name), with the
// connection as fd 3 and without the listening socket (Go opens it
// close-on-exec, as Samba 3's child closes it).
func fork(c net.Conn) {
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		return
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "session")
	cmd.ExtraFiles = []*os.File{f}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

// session serves one client on fd 3 until it disconnects (at most ten
// minutes: a test that forgets its client leaves no process behind).
func session() {
	c := os.NewFile(3, "session")
	c.Write([]byte("+")) // the client knows its session runs
	go func() {
		time.Sleep(10 * time.Minute)
		os.Exit(0)
	}()
	buf := make([]byte, 512)
	for {
		if _, err := c.Read(buf); err != nil {
			return
		}
	}
}

func stop(pidFile string) {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 200 && syscall.Kill(pid, 0) == nil && !zombie(pid); i++ {
		time.Sleep(25 * time.Millisecond)
	}
	os.Remove(pidFile)
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && strings.HasPrefix(s[i+1:], " Z")
}
