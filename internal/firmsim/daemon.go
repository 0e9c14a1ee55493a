package firmsim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// daemonScript is an rc.d script that logs its call and runs a real
// daemon (start runs cmd in the background and keeps its pid; stop kills
// it and waits up to 10 s for it to go). Like the firmware's scripts it
// does not redirect the daemon's output: the daemon keeps the output of
// whoever ran the script.
func (n *NAS) daemonScript(name, pidFile, cmd string) string {
	return fmt.Sprintf(`#!/bin/sh
# firmsim: logs its call and runs a real daemon
echo "%s $*" >>%s
pidf=%s
stop() {
	[ -f "$pidf" ] || return 0
	read -r p <"$pidf"
	kill "$p" 2>/dev/null
	i=0
	while kill -0 "$p" 2>/dev/null && [ "$i" -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	rm -f "$pidf"
}
start() {
	%s </dev/null &
	echo "$!" >"$pidf"
}
case "$1" in
start) start ;;
stop) stop ;;
restart) stop; start ;;
esac
exit 0
`, name, shQuote(filepath.Join(n.Root, RestartLog)), shQuote(pidFile), cmd)
}

// UseProftpd makes S91proftpd.sh run a real proftpd on a free loopback
// port, with its pid, scoreboard and log under the NAS's folder, and
// makes the ROM's proftpd.conf one that serves there. It returns the
// port.
func (n *NAS) UseProftpd() (int, error) {
	bin, err := exec.LookPath("proftpd")
	if err != nil {
		bin = "/usr/sbin/proftpd"
	}
	port, err := FreePort()
	if err != nil {
		return 0, err
	}
	dir := filepath.Join(n.Dir, "proftpd")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	conf := filepath.Join(n.Root, ProftpdConf)
	script := n.daemonScript("S91proftpd.sh", filepath.Join(dir, "stub.pid"), shQuote(bin)+" -n -c "+shQuote(conf))
	if err := n.SetROMScript("S91proftpd.sh", script); err != nil {
		return 0, err
	}
	// The device's proftpd has mod_ident built in; Debian's loads it.
	rom := fmt.Sprintf(`<IfModule mod_dso.c>
ModulePath /usr/lib/proftpd
LoadModule mod_ident.c
</IfModule>
ServerName "IB-NAS4220-B"
ServerType standalone
DefaultServer on
DefaultAddress 127.0.0.1
SocketBindTight on
UseIPv6 off
Port %d
User nobody
Group nogroup
PidFile %s/proftpd.pid
ScoreboardFile %s/proftpd.scoreboard
DelayTable none
WtmpLog off
TransferLog none
`, port, dir, dir)
	if err := n.SetROM(ProftpdConf, rom); err != nil {
		return 0, err
	}
	return port, n.Restore()
}
