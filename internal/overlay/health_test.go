package overlay

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/systest"
)

// With Confirm, a restarted service must accept on its port: when it
// does, the generation is ok; when it does not, the previous file is put
// back, the service restarted again, the generation rejected and the
// source held until edited.
func TestConfirmedRestart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	f := newFixture(t)
	svc := f.eng.Profile.Services["svc"]
	svc.Ports, svc.Timeout = []int{port}, 2*time.Second
	f.eng.Profile.Services["svc"] = svc
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "good\n")
	ctx := context.Background()
	res, err := f.eng.Apply(ctx)
	if err != nil || res.Generation.Result != history.OK {
		t.Fatalf("healthy apply: %v, %+v", err, res.Generation)
	}

	// The service dies when it restarts with the next config: the
	// restart script leaves a mark, and the listener closes on it.
	// The script waits until the listener is closed, so the health
	// probe after it can only find the port dead.
	script := "#!/bin/sh\nR=${0%/bin/restart}\necho \"restart $*\" >> \"$R/restarts.log\"\n" +
		"[ -e \"$R/closed\" ] && exit 0\ntouch \"$R/died\"\n" +
		"i=0; while [ ! -e \"$R/closed\" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done\n"
	systest.WriteFile(filepath.Join(f.root, "bin/restart"), []byte(script), 0o755)
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(f.root, "died")); err == nil {
				ln.Close()
				os.WriteFile(filepath.Join(f.root, "closed"), nil, 0o644)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	f.source(t, "a.conf", "kills it\n")
	res, err = f.eng.Apply(ctx)
	if err == nil || !strings.Contains(err.Error(), "nothing accepts on TCP port") {
		t.Fatalf("unhealthy apply: err = %v", err)
	}
	if res.Generation.Result != history.Rejected {
		t.Errorf("generation %d is %s, want rejected", res.Generation.ID, res.Generation.Result)
	}
	if got := f.live(t, "etc/a.conf"); got != "good\n" {
		t.Errorf("live = %q, want the previous file back", got)
	}
	if got := f.restarts(); got != "restart svc\nrestart svc\nrestart svc\n" {
		t.Errorf("restarts = %q, want apply, apply, restart with the old file", got)
	}
	st, _ := os.ReadFile(filepath.Join(f.app, "conf.d/a.conf.status"))
	if !strings.Contains(string(st), "status: REJECTED") || !strings.Contains(string(st), "did not prove healthy") {
		t.Errorf("status:\n%s", st)
	}
	// Held: the same source is not tried again.
	res, err = f.eng.Apply(ctx)
	if err != nil || res.Generation != nil {
		t.Errorf("re-apply of a rejected source: %v, %+v", err, res.Generation)
	}
	// The rollback target skips the rejected generation.
	gens, _ := f.eng.History().List()
	prev, err := history.Previous(gens)
	if err != nil || prev.ID != 1 {
		t.Errorf("Previous = %+v, %v; want generation 1", prev, err)
	}
}

// A service that was not serving before the restart is not held to its
// port afterwards: the new files cannot be blamed for a daemon the owner
// never ran.
func TestConfirmSkipsServiceThatWasDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing serves there, before or after
	f := newFixture(t)
	svc := f.eng.Profile.Services["svc"]
	svc.Ports, svc.Timeout = []int{port}, 2*time.Second
	f.eng.Profile.Services["svc"] = svc
	f.source(t, "a.conf", "new\n")
	res, err := f.eng.Apply(context.Background())
	if err != nil || res.Generation.Result != history.OK {
		t.Fatalf("apply: %v, %+v", err, res.Generation)
	}
	if got := f.live(t, "etc/a.conf"); got != "new\n" {
		t.Errorf("live = %q", got)
	}
}

// A daemon that binds, answers the first probe and dies a moment later
// is not healthy: the settle period catches it, the previous file goes
// back and the change is REJECTED.
func TestHealthSettle(t *testing.T) {
	f := newFixture(t)
	f.useDaemon(t, "127.0.0.1")
	svc := f.eng.Profile.Services["svc"]
	svc.Settle = 300 * time.Millisecond
	f.eng.Profile.Services["svc"] = svc
	f.put(t, "etc/a.conf", "rom\n")
	f.put(t, "accepts", "1")
	f.source(t, "a.conf", "dies\n")
	res, err := f.eng.Apply(context.Background())
	if err == nil || res.Generation.Result != history.Rejected {
		t.Fatalf("a daemon that dies after its first connection: %v %+v", err, res.Generation)
	}
	if !strings.Contains(err.Error(), "within 300ms") {
		t.Errorf("err = %v, want the settle period named", err)
	}
	if got := f.live(t, "etc/a.conf"); got != "rom\n" {
		t.Errorf("live = %q, want the previous file", got)
	}
}

// An old daemon that keeps accepting while the restart never replaced
// it proves nothing: the process must be new.
func TestHealthProcessMustBeNew(t *testing.T) {
	f := newFixture(t)
	name, _ := f.useDaemon(t, "127.0.0.1")
	f.put(t, "nostop", "")
	f.put(t, "etc/a.conf", "rom\n")
	f.source(t, "a.conf", "never started\n")
	res, err := f.eng.Apply(context.Background())
	if err == nil || res.Generation.Result != history.Rejected {
		t.Fatalf("a restart that left the old daemon running: %v %+v", err, res.Generation)
	}
	if !strings.Contains(err.Error(), "the old "+name+" process") {
		t.Errorf("err = %v", err)
	}
}

// A daemon bound to its LAN address only (interfaces + bind interfaces
// only) is probed there, not on 127.0.0.1.
func TestHealthConfiguredAddress(t *testing.T) {
	f := newFixture(t)
	_, port := f.useDaemon(t, "127.0.0.2")
	f.eng.Profile.Targets[0].Validator = "testparm" // a.conf is an smb.conf
	f.put(t, "etc/a.conf", fmt.Sprintf("[global]\n\tsmb ports = %d\n\tinterfaces = 127.0.0.2/8\n\tbind interfaces only = yes\n", port))
	f.source(t, "a.conf", fmt.Sprintf("[global]\n\tsmb ports = %d\n\tinterfaces = 127.0.0.2/8\n\tbind interfaces only = yes\n\tworkgroup = NEW\n", port))
	res, err := f.eng.Apply(context.Background())
	if err != nil || res.Generation.Result != history.OK {
		t.Fatalf("a daemon on its configured address: %v %+v", err, res.Generation)
	}
}
