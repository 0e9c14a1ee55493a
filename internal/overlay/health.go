package overlay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/system"
)

// healthPoll is how often a restarted service is probed until it proves
// healthy or its timeout ends.
const healthPoll = 250 * time.Millisecond

// restart runs a service's restart command with its timeout, and its
// fallbacks in order while the one before failed (not when it ran out
// of time): a command whose absolute program is not on the device is
// skipped, and so is one whose program has the name of one already run
// (the same rc script in another folder). Its output goes to
// state/out/SERVICE.log; a daemon it starts is never waited for nor,
// when the script runs out of time, ended.
func (e *Engine) restart(ctx context.Context, name string) system.Exec {
	return e.restartTo(ctx, name, e.outputPath(name))
}

// restartTo restarts service name with its output going to the file
// output ("" throws it away).
func (e *Engine) restartTo(ctx context.Context, name, output string) system.Exec {
	svc := e.Profile.Services[name]
	var x system.Exec
	ran := map[string]bool{}
	for _, argv := range svc.Commands() {
		if ran[filepath.Base(argv[0])] || !e.onDevice(argv[0]) {
			continue
		}
		ran[filepath.Base(argv[0])] = true
		x = e.Sys.Run(ctx, system.Command{Argv: argv, Timeout: svc.Timeout, Output: output, Service: true})
		e.logger().Info("exec", "service", name, "argv", strings.Join(argv, " "), "exit", x.ExitCode, "err", errString(x.Err), "output", x.Output, "took", x.Duration.String())
		if x.OK() || x.TimedOut {
			return x
		}
	}
	if len(ran) == 0 {
		// None is on the device: the restart command's own failure says so.
		x = e.Sys.Run(ctx, system.Command{Argv: svc.Restart, Timeout: svc.Timeout, Output: output, Service: true})
		e.logger().Info("exec", "service", name, "argv", strings.Join(svc.Restart, " "), "exit", x.ExitCode, "err", errString(x.Err), "output", x.Output, "took", x.Duration.String())
	}
	return x
}

// RestartCommand is the command a restart of service name runs first:
// the first of its commands whose program is on the device (its restart
// command when none is). `userscript doctor` names it.
func (e *Engine) RestartCommand(name string) []string {
	svc := e.Profile.Services[name]
	for _, argv := range svc.Commands() {
		if e.onDevice(argv[0]) {
			return argv
		}
	}
	return svc.Restart
}

// onDevice is false for an absolute program the device does not have.
func (e *Engine) onDevice(program string) bool {
	if !filepath.IsAbs(program) {
		return true
	}
	_, err := e.Sys.Lstat(e.Sys.Root(program))
	return err == nil
}

func restartFailure(x system.Exec) string {
	why := fmt.Sprintf("%s exited %d", filepath.Base(x.Argv[0]), x.ExitCode)
	if x.Err != nil {
		why = fmt.Sprintf("%s: %v", filepath.Base(x.Argv[0]), x.Err)
	}
	if x.Output != "" {
		why += ": " + lastLine(x.Output)
	}
	return why
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// An observation is what a service looked like at one moment.
type observation struct {
	serving bool         // its process (if named) runs and a port accepts
	pids    map[int]bool // its processes (nil: no process to look for, or no /proc)
	why     string       // why it is not serving
}

// observe looks at a service once: its processes, and whether one of the
// addresses it is configured to listen on accepts. A service with
// neither a process to find nor a port to dial is never serving: there is
// nothing to prove it by, so its restart's exit code decides.
func (e *Engine) observe(ctx context.Context, svc profile.Service, l listen) observation {
	var ob observation
	if svc.Process != "" {
		ob.pids = e.processes(svc.Process)
		if ob.pids != nil && len(ob.pids) == 0 {
			ob.why = fmt.Sprintf("no %s process is running", svc.Process)
			return ob
		}
	}
	if len(l.ports) == 0 {
		ob.serving = ob.pids != nil
		if !ob.serving {
			ob.why = "nothing to check it by (no process in /proc, no port)"
		}
		return ob
	}
	for _, addr := range l.addrs() {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := e.Sys.Dial(dctx, addr)
		cancel()
		if err == nil {
			c.Close()
			ob.serving = true
			return ob
		}
	}
	ob.why = fmt.Sprintf("nothing accepts on %s", l)
	return ob
}

// awaitStart observes a service before its restart. While its process
// runs but nothing accepts yet, it is starting (smbd at a boot on a slow
// box: seconds), not down: it is watched until it serves, its processes
// are gone or its timeout ends, so that a change is never judged by its
// exit code alone for a service that was only not up yet.
func (e *Engine) awaitStart(ctx context.Context, name string, svc profile.Service, l listen) observation {
	ob := e.observe(ctx, svc, l)
	if ob.serving || len(ob.pids) == 0 {
		return ob
	}
	e.logger().Info("service runs but does not serve yet; waiting for it to start", "service", name, "why", ob.why, "timeout", svc.Timeout.String())
	for deadline := time.Now().Add(svc.Timeout); time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(healthPoll)
		if ob = e.observe(ctx, svc, l); ob.serving || len(ob.pids) == 0 {
			break
		}
	}
	return ob
}

// checkable reports whether observe can ever find svc serving on l: it
// has a port to dial, or a process to find in the device's /proc.
func (e *Engine) checkable(svc profile.Service, l listen) bool {
	return len(l.ports) > 0 || svc.Process != "" && e.processes(svc.Process) != nil
}

// renewed says why after is not a new instance of the service seen in
// before, or "". The process that owns its listening socket must be new;
// processes from before that own no listener may linger (Samba 3 keeps
// one smbd per connected client after its master restarts, and the owner
// saves over SMB). Where no owner can be found (no /proc/net/tcp, no
// /proc/PID/fd to read), every process must be new.
func (e *Engine) renewed(svc profile.Service, before, after observation, l listen) string {
	if before.pids == nil || after.pids == nil {
		return ""
	}
	old := oldest(after.pids, before.pids)
	if old == 0 {
		return ""
	}
	if owners := e.listenerOwners(after.pids, l.ports); owners != nil {
		if pid := oldest(owners, before.pids); pid != 0 {
			return fmt.Sprintf("the old %s process (pid %d) still owns the listening socket: the restart did not replace it", svc.Process, pid)
		}
		return ""
	}
	return fmt.Sprintf("the old %s process (pid %d) is still the one running: the restart did not replace it", svc.Process, old)
}

// oldest is the smallest pid of pids that is in before too, or 0.
func oldest(pids, before map[int]bool) int {
	old := 0
	for pid := range pids {
		if before[pid] && (old == 0 || pid < old) {
			old = pid
		}
	}
	return old
}

// listenerOwners returns which of pids own a listening TCP socket on one
// of ports (on any address): its inode from /proc/net/tcp and tcp6, found
// among /proc/PID/fd. It is nil when it finds none.
func (e *Engine) listenerOwners(pids map[int]bool, ports []int) map[int]bool {
	inodes := e.listeningInodes(ports)
	if len(inodes) == 0 {
		return nil
	}
	var owners map[int]bool
	for pid := range pids {
		fd := e.Sys.Root(fmt.Sprintf("/proc/%d/fd", pid))
		entries, err := e.Sys.ReadDir(fd)
		if err != nil {
			continue
		}
		for _, ent := range entries {
			link, err := e.Sys.Readlink(filepath.Join(fd, ent.Name()))
			ino, ok := strings.CutPrefix(link, "socket:[")
			if err == nil && ok && inodes[strings.TrimSuffix(ino, "]")] {
				if owners == nil {
					owners = map[int]bool{}
				}
				owners[pid] = true
				break
			}
		}
	}
	return owners
}

// listeningInodes are the inodes of the listening TCP sockets (state 0A)
// on one of ports, from the device's /proc/net/tcp and tcp6.
func (e *Engine) listeningInodes(ports []int) map[string]bool {
	want := map[string]bool{}
	for _, p := range ports {
		want[fmt.Sprintf("%04X", p)] = true
	}
	inodes := map[string]bool{}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := e.Sys.ReadFile(e.Sys.Root(name))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || f[9] == "0" {
				continue
			}
			if _, port, ok := strings.Cut(f[1], ":"); ok && want[port] {
				inodes[f[9]] = true
			}
		}
	}
	return inodes
}

// prove waits until the restarted service is healthy — serving, and its
// processes new — then waits its settle period and checks again. It
// returns why not when its timeout ends first or it stops in between.
func (e *Engine) prove(ctx context.Context, svc profile.Service, before observation, l listen) error {
	deadline := time.Now().Add(svc.Timeout)
	for {
		now := e.observe(ctx, svc, l)
		why := now.why
		if now.serving {
			why = e.renewed(svc, before, now, l)
		}
		if why == "" {
			break
		}
		if time.Now().After(deadline) {
			return errors.New(why)
		}
		time.Sleep(healthPoll)
	}
	settle := svc.SettlePeriod()
	if settle == 0 {
		return nil
	}
	time.Sleep(settle)
	now := e.observe(ctx, svc, l)
	why := now.why
	if now.serving {
		why = e.renewed(svc, before, now, l)
	}
	if why != "" {
		return fmt.Errorf("it started, but within %s: %s", settle, why)
	}
	return nil
}

// processes returns the pids of the processes called name in the
// device's /proc (under the root), or nil when there is no /proc to
// look in.
func (e *Engine) processes(name string) map[int]bool {
	proc := e.Sys.Root("/proc")
	entries, err := e.Sys.ReadDir(proc)
	if err != nil || len(entries) == 0 {
		return nil
	}
	pids := map[int]bool{}
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		comm, err := e.Sys.ReadFile(filepath.Join(proc, ent.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == name && !zombie(e.Sys, filepath.Join(proc, ent.Name(), "stat")) {
			pids[pid] = true
		}
	}
	return pids
}

// zombie reports whether /proc/PID/stat says the process is a zombie.
func zombie(sys system.System, stat string) bool {
	data, err := sys.ReadFile(stat)
	if err != nil {
		return false
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] == "Z"
}

// listen is where a service is probed: hosts × ports.
type listen struct {
	hosts []string
	ports []int
}

func (l listen) addrs() []string {
	var out []string
	for _, h := range l.hosts {
		for _, p := range l.ports {
			out = append(out, net.JoinHostPort(h, strconv.Itoa(p)))
		}
	}
	return out
}

func (l listen) String() string {
	ports := make([]string, len(l.ports))
	for i, p := range l.ports {
		ports[i] = strconv.Itoa(p)
	}
	return fmt.Sprintf("TCP port %s of %s", strings.Join(ports, " or "), strings.Join(l.hosts, ", "))
}

// listenOf is where svc listens with the files of outs — after the
// change (after) or before it: the addresses and ports its config names
// (smb.conf, proftpd.conf), else the profile's ports on the loopback.
// Ports the owner named in userscript.toml win over the config's.
func (e *Engine) listenOf(svc profile.Service, outs []*Outcome, after bool) listen {
	l := listen{hosts: []string{"127.0.0.1"}, ports: svc.Ports}
	ifaces, _ := e.Sys.Interfaces()
	for _, o := range outs {
		it := o.Item
		data := it.Live
		if after {
			data = it.Want
		}
		if !after && !it.LiveOK {
			continue
		}
		if c, ok := configuredListen(it.Target.Validator, data, ifaces); ok {
			if len(c.ports) > 0 && !svc.PortsPinned {
				l.ports = c.ports
			}
			if len(c.hosts) > 0 {
				l.hosts = c.hosts
			}
		}
	}
	l.hosts = slices.Compact(l.hosts)
	return l
}
