// Command guest runs inside the test machines (internal/vm), from the
// run's disk, never on a NAS:
//
//	guest init SCRIPT   PID 1 of the firmware box: runs SCRIPT and reaps
//	                    every orphan, as an init must
//	guest agent         answers the host on the second serial port
//	                    (/dev/ttyS1): each line "ID BASE64" is a script for
//	                    /bin/sh; the answer is one line "@@R ID RC BASE64"
//	                    holding its output (stdout and stderr); the script
//	                    "@wait PATH" waits for PATH without a process;
//	                    its first line, "@@R hello 0", says it is up
package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

const port = "/dev/ttyS1"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: guest init SCRIPT | guest agent")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "init":
		initMain(os.Args[2:])
	case "agent":
		if err := agent(); err != nil {
			fmt.Fprintln(os.Stderr, "guest agent:", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "guest: unknown verb", os.Args[1])
		os.Exit(2)
	}
}

// initMain starts the script and then reaps children for ever: PID 1
// must not exit, and orphans (daemons, the sh engine's poller) are its.
func initMain(argv []string) {
	cmd := exec.Command("/bin/sh", argv...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "guest init:", err)
	}
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(-1, &ws, 0, nil); err == syscall.ECHILD {
			syscall.Pause()
		}
	}
}

func agent() error {
	if out, err := exec.Command("stty", "-F", port, "raw", "-echo", "115200").CombinedOutput(); err != nil {
		return fmt.Errorf("stty: %v: %s", err, out)
	}
	f, err := os.OpenFile(port, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, "@@R hello 0 \n") // the host waits for it (WaitAgent)
	in := bufio.NewReader(f)
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return err
		}
		id, b64, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		script, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			fmt.Fprintf(f, "@@R %s 255 %s\n", id, base64.StdEncoding.EncodeToString([]byte(err.Error())))
			continue
		}
		if p, ok := strings.CutPrefix(string(script), "@wait "); ok {
			// Wait for a file without starting a process (the speed test
			// counts the guest's processes).
			for {
				if _, err := os.Stat(p); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			fmt.Fprintf(f, "@@R %s 0 \n", id)
			continue
		}
		cmd := exec.Command("/bin/sh", "-c", string(script))
		cmd.WaitDelay = 2 * time.Second // a daemon the script started may keep its output open
		out, _ := cmd.CombinedOutput()
		rc := cmd.ProcessState.ExitCode()
		fmt.Fprintf(f, "@@R %s %d %s\n", id, rc, base64.StdEncoding.EncodeToString(out))
	}
}
