// Command demo shows userscript on a simulated IcyBox IB-NAS4220-B. Part
// one builds the armv4 package (the sh engine: what the IcyBox runs),
// installs it, drops the example tuning into conf.d, boots twice and
// prints what happened. Part two installs the amd64 package (the Go
// engine, which runs on this machine) on a fresh simulated box and edits
// conf.d while it runs: an edit with a typo is REFUSED (its status shows
// the offending line, nothing changes), an edit the FTP server cannot
// start with is REJECTED (the previous file is put back and the server
// restarted with it); it prints every status file and DOCTOR.txt. Run it
// with `make demo` from the repository root.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "userscript-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	step("build the armv4 package (sh engine only) and the amd64 package (Go engine)")
	archives, err := build(filepath.Join(dir, "dist"), "armv4", "amd64")
	if err != nil {
		return err
	}
	if err := shPart(filepath.Join(dir, "sh"), archives["armv4"]); err != nil {
		return err
	}
	return goPart(filepath.Join(dir, "go"), archives["amd64"])
}

// build runs make dist for targets and returns each target's archive.
func build(dist string, targets ...string) (map[string]string, error) {
	cmd := exec.Command("make", "-s", "dist", "DIST="+dist, "TARGETS="+strings.Join(targets, " "), "CLI_TARGETS=")
	cmd.Stderr = os.Stderr
	if _, err := cmd.Output(); err != nil {
		return nil, fmt.Errorf("make dist: %w", err)
	}
	out := map[string]string{}
	for _, t := range targets {
		m, _ := filepath.Glob(filepath.Join(dist, "*-"+t+".tgz"))
		if len(m) != 1 {
			return nil, fmt.Errorf("no %s archive in %s", t, dist)
		}
		out[t] = m[0]
		fmt.Println("  ", filepath.Base(m[0]))
	}
	return out, nil
}

// newNAS makes a simulated IB-NAS4220-B with testparm and proftpd -t
// where this machine has them, and installs archive.
func newNAS(dir, archive string) (*firmsim.NAS, string, error) {
	n, err := firmsim.New(dir)
	if err != nil {
		return nil, "", err
	}
	if missing := n.AddTools("testparm", "proftpd"); len(missing) > 0 {
		fmt.Println("   (not on this machine, so not validated:", strings.Join(missing, ", ")+")")
	}
	if err := n.Install(archive); err != nil {
		return nil, "", err
	}
	app := n.AppDir("userscript")
	fmt.Println("   installed into", rel(n, app))
	return n, app, nil
}

func shPart(dir, archive string) error {
	step("part 1: the sh engine on a simulated IB-NAS4220-B")
	n, app, err := newNAS(dir, archive)
	if err != nil {
		return err
	}
	defer n.Shutdown()
	step("drop the example tuning into conf.d: smb.conf.add, proftpd.conf, exports")
	for _, name := range []string{"smb.conf.add", "proftpd.conf", "exports"} {
		b, err := os.ReadFile(filepath.Join(app, "conf.d", "examples", name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(app, "conf.d", name), b, 0o644); err != nil {
			return err
		}
	}
	for boot := 1; boot <= 2; boot++ {
		n.ClearCalls()
		if boot == 1 {
			step("boot 1: restore ROM, start services, run init start")
			err = n.Boot(firmsim.ServicesFirst)
		} else {
			step("boot 2 (reboot): init stop, ROM restored again, apps first this time")
			err = n.Reboot(firmsim.AppsFirst)
		}
		if err != nil {
			return err
		}
		report(n, app, boot == 2)
	}
	step("init stop")
	out, err := n.Init("userscript", "stop")
	fmt.Print(indent(out))
	return err
}

func report(n *firmsim.NAS, app string, statuses bool) {
	fmt.Println("   files that differ from the ROM copy:")
	for _, f := range []string{firmsim.SmbConf, firmsim.ProftpdConf, firmsim.Exports} {
		live, _ := os.ReadFile(filepath.Join(n.Root, f))
		rom, _ := os.ReadFile(filepath.Join(n.ROM, f))
		if string(live) != string(rom) {
			fmt.Printf("     /%s (%d → %d bytes)\n", f, len(rom), len(live))
		}
	}
	fmt.Println("   rc.d calls, in order:")
	for _, c := range n.Calls() {
		fmt.Println("     " + c)
	}
	if !statuses {
		return
	}
	fmt.Println("   status files:")
	st, _ := filepath.Glob(filepath.Join(app, "conf.d", "*.status"))
	for _, p := range st {
		show(p)
	}
}

// show prints a text file of conf.d (CRLF as it is on the share).
func show(p string) {
	b, _ := os.ReadFile(p)
	fmt.Printf("     conf.d/%s\n", filepath.Base(p))
	fmt.Print(indent(strings.ReplaceAll(string(b), "\r\n", "\n")))
}

// waitFor waits until cond holds, for at most d (the daemon applies an
// edit within about a second).
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return cond()
}

func step(s string) { fmt.Println("==>", s) }

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "       " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n       ") + "\n"
}

func rel(n *firmsim.NAS, p string) string {
	r, err := filepath.Rel(n.Root, p)
	if err != nil {
		return p
	}
	return "/" + r
}
