package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// settings make the amd64 package (built for the bananapi profile)
// manage the simulated IcyBox's files. The simulation's rc.d scripts
// start no daemons, so each service is judged by its restart's exit code.
const settings = `profile = "nas4220b"

[services.samba]
process = ""
ports = []

[services.proftpd]
process = ""
ports = []
`

// proftpdScript is the simulated S91proftpd.sh: like the firmware's, it
// fails when the daemon cannot start — here, with a config that asks for
// port 2121, which "another program" holds. proftpd -t accepts that
// config: only starting the server shows the problem.
const proftpdScript = `#!/bin/sh
echo "S91proftpd.sh $*" >>%s
if grep -q '^Port 2121' %s; then
	echo "proftpd: unable to bind to port 2121: Address already in use" >&2
	exit 1
fi
exit 0
`

func goPart(dir, archive string) error {
	step("part 2: the Go engine (amd64 package) on a simulated IB-NAS4220-B: edits while it runs")
	n, app, err := newNAS(dir, archive)
	if err != nil {
		return err
	}
	defer n.Shutdown()
	script := fmt.Sprintf(proftpdScript, shQuote(filepath.Join(n.Root, firmsim.RestartLog)), shQuote(filepath.Join(n.Root, firmsim.ProftpdConf)))
	if err := n.SetROMScript("S91proftpd.sh", script); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(app, "userscript.toml"), []byte(settings), 0o644); err != nil {
		return err
	}
	conf := filepath.Join(app, "conf.d")
	if err := copyFile(filepath.Join(conf, "examples", "proftpd.conf"), filepath.Join(conf, "proftpd.conf")); err != nil {
		return err
	}
	step("boot: conf.d/proftpd.conf (the example) goes live; the Go daemon then watches conf.d")
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		return err
	}
	report(n, app, false)

	step("edit conf.d/smb.conf with a typo (a share's name without its closing bracket)")
	n.ClearCalls()
	typo := "[global]\r\n\tworkgroup = HOME\r\n\r\n[music\r\n\tpath = /mnt/ide1/public/music\r\n"
	if err := edited(n, app, "smb.conf", typo, "REFUSED"); err != nil {
		return err
	}
	fmt.Println("   the live smb.conf is still the firmware's:", same(n, firmsim.SmbConf))
	report(n, app, false)

	step("edit conf.d/proftpd.conf: Port 2121 passes proftpd -t, but the FTP server cannot start with it")
	n.ClearCalls()
	good, _ := os.ReadFile(filepath.Join(conf, "proftpd.conf"))
	bad := strings.Replace(string(good), "Port\t\t\t21", "Port 2121", 1)
	if err := edited(n, app, "proftpd.conf", bad, "REJECTED"); err != nil {
		return err
	}
	live, _ := n.Live(firmsim.ProftpdConf)
	fmt.Println("   the live proftpd.conf is the previous one again:", strings.Contains(live, "Port\t\t\t21"))
	report(n, app, false)

	step("the status files, and DOCTOR.txt")
	st, _ := filepath.Glob(filepath.Join(conf, "*.status"))
	for _, p := range st {
		show(p)
	}
	show(filepath.Join(conf, "DOCTOR.txt"))
	step("init stop")
	out, err := n.Init("userscript", "stop")
	fmt.Print(indent(out))
	return err
}

// edited saves conf.d/NAME as Notepad would and waits until its status
// says word.
func edited(n *firmsim.NAS, app, name, text, word string) error {
	p := filepath.Join(app, "conf.d", name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		return err
	}
	status := p + ".status"
	ok := waitFor(60*time.Second, func() bool {
		b, _ := os.ReadFile(status)
		return strings.HasPrefix(string(b), "status: "+word+"\r\n")
	})
	if !ok {
		b, _ := os.ReadFile(status)
		return fmt.Errorf("conf.d/%s.status did not say %s in time:\n%s", name, word, b)
	}
	fmt.Printf("   conf.d/%s.status says %s\n", name, word)
	return nil
}

func same(n *firmsim.NAS, rel string) bool {
	live, _ := os.ReadFile(filepath.Join(n.Root, rel))
	rom, _ := os.ReadFile(filepath.Join(n.ROM, rel))
	return string(live) == string(rom)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
