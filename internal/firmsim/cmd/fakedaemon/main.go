// Command fakedaemon stands in for a service's daemon in tests: it
// listens on a TCP port of 127.0.0.1 and accepts (and closes) every
// connection until it gets TERM. Tests run it through a link named after
// the process the health check looks for, so /proc/PID/comm and stat
// show that name.
//
//	fakedaemon PORT PIDFILE   listen; write the pid to PIDFILE
//	fakedaemon stop PIDFILE   TERM the pid in PIDFILE, wait until it is gone
package main

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: fakedaemon PORT PIDFILE | fakedaemon stop PIDFILE")
		os.Exit(2)
	}
	if os.Args[1] == "stop" {
		stop(os.Args[2])
		return
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(os.Args[2], []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	l.Close()
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
