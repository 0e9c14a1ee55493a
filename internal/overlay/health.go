package overlay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/profile"
)

// healthPoll is how often a restarted service is probed until it proves
// healthy or its timeout ends.
const healthPoll = 250 * time.Millisecond

// healthy waits until svc proves healthy: its process (when the profile
// names one) is alive and one of its TCP ports (when it names any)
// accepts on the device's loopback. It returns why not when the timeout
// ends first.
func (e *Engine) healthy(ctx context.Context, svc profile.Service) error {
	ctx, cancel := context.WithTimeout(ctx, svc.Timeout)
	defer cancel()
	for {
		why := e.probe(ctx, svc)
		if why == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.New(why)
		case <-time.After(healthPoll):
		}
	}
}

// probe returns "" when svc is healthy now, else what is wrong.
func (e *Engine) probe(ctx context.Context, svc profile.Service) string {
	if svc.Process != "" {
		alive, checked := e.processAlive(svc.Process)
		if checked && !alive {
			return fmt.Sprintf("no %s process is running", svc.Process)
		}
	}
	if len(svc.Ports) == 0 {
		return ""
	}
	var d net.Dialer
	for _, port := range svc.Ports {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := d.DialContext(dctx, "tcp", net.JoinHostPort(e.host(), strconv.Itoa(port)))
		cancel()
		if err == nil {
			c.Close()
			return ""
		}
	}
	return fmt.Sprintf("nothing accepts on TCP port %s", joinInts(svc.Ports, " or "))
}

// host is where the device's ports are probed: its own loopback.
func (e *Engine) host() string {
	if e.ProbeHost != "" {
		return e.ProbeHost
	}
	return "127.0.0.1"
}

// processAlive looks for a process called name in the device's /proc
// (under the root). checked is false when there is no /proc to look in.
func (e *Engine) processAlive(name string) (alive, checked bool) {
	proc := e.Sys.Root("/proc")
	entries, err := os.ReadDir(proc)
	if err != nil {
		return false, false
	}
	for _, ent := range entries {
		if _, err := strconv.Atoi(ent.Name()); err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join(proc, ent.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == name {
			return true, true
		}
	}
	return false, len(entries) > 0
}

func joinInts(ns []int, sep string) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, sep)
}
