package vm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// The systemd box: Debian bookworm booted by systemd, userscript installed
// as the README tells a systemd owner: the amd64 package unpacked, then
// `userscript service install && userscript service start`.
const (
	SdApp = "/srv/nas/userscript"
	// SdSettings is the owner's userscript.toml for Debian: the package's
	// profile (bananapi, Arch Linux) names units and paths Debian does
	// not have (smb, vsftpd, /usr/bin/exportfs). Samba's restart is
	// given 90 s: under TCG, with the other test machines beside it on a
	// busy host, `systemctl restart smbd` took 30.4 s once and a good
	// smb.conf was REJECTED (on a BananaPi it takes a few seconds).
	SdSettings = `[targets."vsftpd.conf"]
remove = true

[targets."proftpd.conf"]
path = "/etc/proftpd/proftpd.conf"
validator = "proftpd"
service = "proftpd"

[services.smb]
restart = ["/usr/bin/systemctl", "restart", "smbd"]
timeout = "90s"

[services.nfs-server]
restart = ["/usr/sbin/exportfs", "-ra"]

[services.proftpd]
restart = ["/usr/bin/systemctl", "restart", "proftpd"]
process = "proftpd"
ports = [21]
`
	// sdPrecut keeps, for the power-cut test, what the disk held before
	// this boot's userscript ran (the test's, not part of userscript).
	// The agent starts earlier in the boot: the copy appears whole, by
	// a rename, and the test waits for it.
	sdPrecut = `[Unit]
Description=Copy what the disk held before userscript starts (test)
DefaultDependencies=no
After=local-fs.target
Before=userscript.service

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'rm -rf /run/precut /run/precut.tmp; cp -a ` + SdApp + ` /run/precut.tmp; mkdir -p /run/precut.tmp/live; cp -p /etc/samba/smb.conf /etc/proftpd/proftpd.conf /run/precut.tmp/live/; mv /run/precut.tmp /run/precut'

[Install]
WantedBy=multi-user.target
`
)

// A SystemdBox is one Debian machine with systemd; its root disk is kept
// across boots and cuts.
type SystemdBox struct {
	Dir   string
	Image *Image
	Root  string
	Spare string // /dev/vdb: the tools disk is /dev/vdc in both boxes
	Tools string
	M     *Machine
}

// NewSystemdBox copies the image's root and lays out the tools disk with
// the amd64 package pkg.
func NewSystemdBox(dir string, img *Image, pkg string) (*SystemdBox, error) {
	b := &SystemdBox{Dir: dir, Image: img, Root: filepath.Join(dir, "root.img"),
		Spare: filepath.Join(dir, "spare.img"), Tools: filepath.Join(dir, "tools.img")}
	if err := CopySparse(img.Root, b.Root); err != nil {
		return nil, err
	}
	if err := patchRoot(dir, b.Root); err != nil {
		return nil, err
	}
	tools := filepath.Join(dir, "tools")
	if err := os.MkdirAll(tools, 0o755); err != nil {
		return nil, err
	}
	if err := BuildGuest(tools); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tools, "agent"), []byte("#!/bin/sh\nexec /run/tools/guest agent\n"), 0o755); err != nil {
		return nil, err
	}
	body, err := os.ReadFile(pkg)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tools, "userscript-amd64.tgz"), body, 0o644); err != nil {
		return nil, err
	}
	if err := MakeDisk(b.Tools, "ext2", 64, tools, "vmtools"); err != nil {
		return nil, err
	}
	return b, MakeDisk(b.Spare, "ext4", 8, "", "spare")
}

// Boot starts the machine and waits for the agent.
func (b *SystemdBox) Boot(ctx context.Context) error {
	m, err := Start(ctx, Config{
		Dir: b.Dir, Image: b.Image,
		Append: "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=1 mitigations=off quiet",
		// One virtual CPU, as the firmware box: with two, a boot after a
		// cut once hung for good (both CPUs in a soft lockup, "rcu_preempt
		// kthread timer wakeup didn't happen": a timer or IPI lost between
		// TCG's vCPU threads); one vCPU has no IPIs to lose.
		CPUs:     1,
		Drives:   []Drive{{Path: b.Root}, {Path: b.Spare}, {Path: b.Tools}},
		Forwards: []int{445, 21, 2049},
	})
	if err != nil {
		return err
	}
	b.M = m
	return m.WaitAgent(ctx)
}

// WaitBooted waits until systemd has finished the boot's jobs (the
// userscript daemon among them once installed: its boot apply may still
// run; the tests wait for the statuses they expect).
func (b *SystemdBox) WaitBooted(ctx context.Context) error {
	out, rc, err := b.M.Exec(ctx, "systemctl is-system-running --wait")
	if err != nil || (rc != 0 && !strings.Contains(out, "degraded")) {
		return fmt.Errorf("boot: %v %s; console: %s", err, out, b.M.Tail())
	}
	return nil
}

// Install unpacks the package and installs and starts the service, as
// the README says.
func (b *SystemdBox) Install(ctx context.Context) (string, error) {
	return b.M.Run(ctx, `set -e
mkdir -p /srv/nas
tar -C /srv/nas -xzf /run/tools/userscript-amd64.tgz
cat >`+SdApp+`/userscript.toml <<'EOF'
`+SdSettings+`EOF
cat >/etc/systemd/system/vm-precut.service <<'EOF'
`+sdPrecut+`EOF
systemctl enable vm-precut.service 2>&1
cd `+SdApp+`
./bin/userscript service install && ./bin/userscript service start
sync`)
}

// Reboot is systemd's orderly reboot (qemu ends: -no-reboot), then Boot
// and WaitBooted.
func (b *SystemdBox) Reboot(ctx context.Context) error {
	b.M.Exec(ctx, "systemctl reboot")
	c, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	if err := b.M.Wait(c); err != nil {
		return err
	}
	if err := b.Boot(ctx); err != nil {
		return err
	}
	return b.WaitBooted(ctx)
}

// sdAgentUnit starts the agent once /dev/vdc is there, however long udev
// takes: the image's unit waited for dev-vdc.device, whose 90 s timeout
// a TCG boot on a busy machine overran (the agent never started).
const sdAgentUnit = `[Unit]
Description=Test agent from the run's disk (/dev/vdc)
DefaultDependencies=no
After=systemd-udevd.service

[Service]
ExecStart=/bin/sh -c 'until [ -b /dev/vdc ]; do sleep 1; done; mkdir -p /run/tools && mount -o ro /dev/vdc /run/tools && exec /run/tools/agent'

[Install]
WantedBy=sysinit.target
`

// patchRoot writes, with debugfs on the unmounted copy of the root, the
// agent's unit and an /etc/hosts naming the host (proftpd refuses to
// start when it cannot resolve it: "no valid servers configured").
func patchRoot(dir, root string) error {
	files := map[string]string{
		"/etc/systemd/system/vm-agent.service": sdAgentUnit,
		"/etc/hosts":                           "127.0.0.1 localhost\n127.0.1.1 vmroot\n",
	}
	cmds := ""
	i := 0
	for to, body := range files {
		from := filepath.Join(dir, fmt.Sprintf("patch%d", i))
		i++
		if err := os.WriteFile(from, []byte(body), 0o644); err != nil {
			return err
		}
		cmds += "rm " + to + "\nwrite " + from + " " + to + "\nsif " + to + " mode 0100644\n"
	}
	cf := filepath.Join(dir, "patch.cmds")
	if err := os.WriteFile(cf, []byte(cmds), 0o644); err != nil {
		return err
	}
	out, err := exec.Command(lookSbin("debugfs"), "-w", "-f", cf, root).CombinedOutput()
	if err != nil {
		return fmt.Errorf("debugfs: %v: %s", err, out)
	}
	return nil
}
