// Command demo shows userscript on a simulated IcyBox IB-NAS4220-B: it
// builds the armv4 package, installs it, drops the example tuning into
// conf.d, boots twice and prints what happened. Run it with `make demo`
// from the repository root.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

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

	step("build the armv4 package (sh engine only)")
	dist := filepath.Join(dir, "dist")
	cmd := exec.Command("make", "-s", "dist", "DIST="+dist, "TARGETS=armv4")
	cmd.Stderr = os.Stderr
	if _, err := cmd.Output(); err != nil {
		return fmt.Errorf("make dist: %w", err)
	}
	archives, _ := filepath.Glob(filepath.Join(dist, "*-armv4.tgz"))
	if len(archives) != 1 {
		return fmt.Errorf("no armv4 archive in %s", dist)
	}
	fmt.Println("  ", filepath.Base(archives[0]))

	n, err := firmsim.New(filepath.Join(dir, "nas"))
	if err != nil {
		return err
	}
	defer n.Shutdown()
	if missing := n.AddTools("testparm", "proftpd"); len(missing) > 0 {
		fmt.Println("   (not on this machine, so not validated:", strings.Join(missing, ", ")+")")
	}
	step("install it into public/applications/ of a simulated IB-NAS4220-B")
	if err := n.Install(archives[0]); err != nil {
		return err
	}
	app := n.AppDir("userscript")
	fmt.Println("   app dir:", rel(n, app))

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
		report(n, app)
	}
	step("init stop")
	out, err := n.Init("userscript", "stop")
	fmt.Print(indent(out))
	return err
}

func report(n *firmsim.NAS, app string) {
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
	fmt.Println("   status files:")
	st, _ := filepath.Glob(filepath.Join(app, "conf.d", "*.status"))
	for _, p := range st {
		b, _ := os.ReadFile(p)
		fmt.Printf("     conf.d/%s\n", filepath.Base(p))
		fmt.Print(indent(strings.ReplaceAll(string(b), "\r\n", "\n")))
	}
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
