package firmsim

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nas-userscript/userscript/internal/systest"
)

// Paths of the IB-NAS4220-B, relative to the root.
const (
	SmbConf     = "system/hddapp/etc/samba/smb.conf"
	ProftpdConf = "system/hddapp/etc/proftpd.conf"
	Exports     = "etc/exports"
	RCDir       = "system/hddapp/etc/rc.d"
	DataDisk    = "mnt/ide1"
	AppsDir     = DataDisk + "/public/applications"
	RestartLog  = "restarts.log"
)

// Services are the firmware's rc.d scripts, in the order it starts them.
var Services = []string{"S80samba.sh", "S85nfs.sh", "S91proftpd.sh"}

// Order says whether the firmware starts its services before or after it
// runs the applications' init scripts; the real order is not known.
type Order int

const (
	ServicesFirst Order = iota
	AppsFirst
)

func (o Order) String() string {
	if o == AppsFirst {
		return "apps-first"
	}
	return "services-first"
}

// A NAS is one simulated IB-NAS4220-B.
type NAS struct {
	Dir   string   // holds everything below
	Root  string   // the device's /, USERSCRIPT_ROOT
	ROM   string   // the system files as the ROM holds them
	Mnt   string   // the data disk, HD_MNT_POINT
	Bin   string   // PATH for init scripts: the allowed applets only
	Shell string   // the shell init scripts run under (BusyBox ash)
	Env   []string // more environment for init scripts, e.g. USERSCRIPT_POLL=1
	rc    []string // the service scripts RunServices calls, relative to Root
}

// Stock firmware files (not the real ones, which are not public: close
// enough for testparm and proftpd -t).
var stock = map[string]string{
	SmbConf: `[global]
	workgroup = WORKGROUP
	server string = IB-NAS4220-B
	security = user
	map to guest = Bad User
	load printers = no

[public]
	path = /mnt/ide1/public
	read only = no
	guest ok = yes
`,
	ProftpdConf: `ServerName "IB-NAS4220-B"
ServerType standalone
DefaultServer on
Port 21
User nobody
Group nogroup
`,
	Exports: "",
}

// New lays out a stock IB-NAS4220-B under dir, with its ROM copy. The
// system files are not live until the first Boot.
func New(dir string) (*NAS, error) {
	n := &NAS{
		Dir:  dir,
		Root: filepath.Join(dir, "root"),
		ROM:  filepath.Join(dir, "rom"),
	}
	n.Mnt = filepath.Join(n.Root, DataDisk)
	if err := os.MkdirAll(filepath.Join(n.Root, AppsDir), 0o755); err != nil {
		return nil, err
	}
	for rel, body := range stock {
		if err := n.SetROM(rel, body); err != nil {
			return nil, err
		}
	}
	for _, s := range Services {
		if err := n.SetROMScript(s, n.logStub(s)); err != nil {
			return nil, err
		}
		n.rc = append(n.rc, filepath.Join(RCDir, s))
	}
	bin, shell, err := Applets(filepath.Join(dir, "bin"))
	if err != nil {
		return nil, err
	}
	n.Bin, n.Shell = bin, shell
	return n, n.Restore()
}

// SetROM changes a system file in the ROM copy (rel is relative to the
// root); it goes live at the next Boot or Restore.
func (n *NAS) SetROM(rel, body string) error {
	p := filepath.Join(n.ROM, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(body), 0o644)
}

// SetROMScript changes the rc.d script name in the ROM copy.
func (n *NAS) SetROMScript(name, body string) error {
	return n.SetROMExec(filepath.Join(RCDir, name), body)
}

// SetROMExec changes the executable rel (relative to the root) in the
// ROM copy.
func (n *NAS) SetROMExec(rel, body string) error {
	p := filepath.Join(n.ROM, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return systest.WriteFile(p, []byte(body), 0o755)
}

func (n *NAS) logStub(name string) string { return LogStub(n.Root, name) }

// Restore copies the ROM over the live system files, as the firmware does
// at every boot.
func (n *NAS) Restore() error {
	return filepath.WalkDir(n.ROM, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(n.ROM, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		body, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(n.Root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		os.Remove(dst)
		return systest.WriteFile(dst, body, info.Mode().Perm())
	})
}

// Boot restores the ROM copy, then starts the services and runs every
// application's init start, in the given order.
func (n *NAS) Boot(order Order) error {
	if err := n.Restore(); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if order == AppsFirst {
		if err := n.RunApps("start"); err != nil {
			return err
		}
		return n.RunServices("start")
	}
	if err := n.RunServices("start"); err != nil {
		return err
	}
	return n.RunApps("start")
}

// Shutdown runs every application's init stop, then stops the services.
func (n *NAS) Shutdown() error {
	err := n.RunApps("stop")
	if err2 := n.RunServices("stop"); err == nil {
		err = err2
	}
	return err
}

// Reboot is Shutdown, then Boot.
func (n *NAS) Reboot(order Order) error {
	if err := n.Shutdown(); err != nil {
		return err
	}
	return n.Boot(order)
}

// RunServices calls every rc.d script with verb.
func (n *NAS) RunServices(verb string) error {
	for _, rel := range n.rc {
		p := filepath.Join(n.Root, rel)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if out, err := n.run(p, verb); err != nil {
			return fmt.Errorf("%s %s: %v: %s", filepath.Base(rel), verb, err, out)
		}
	}
	return nil
}

// Apps lists the installed applications' folders.
func (n *NAS) Apps() []string {
	m, _ := filepath.Glob(filepath.Join(n.Root, AppsDir, "*", "init"))
	sort.Strings(m)
	for i := range m {
		m[i] = filepath.Dir(m[i])
	}
	return m
}

// RunApps runs every installed application's init script with verb.
func (n *NAS) RunApps(verb string) error {
	for _, app := range n.Apps() {
		if out, err := n.run(n.Shell, filepath.Join(app, "init"), verb); err != nil {
			return fmt.Errorf("%s/init %s: %v: %s", filepath.Base(app), verb, err, out)
		}
	}
	return nil
}

// Init runs one application's init script and returns its output.
func (n *NAS) Init(app, verb string) (string, error) {
	out, err := n.run(n.Shell, filepath.Join(n.Root, AppsDir, app, "init"), verb)
	return string(out), err
}

// Environ is the environment init scripts run with.
func (n *NAS) Environ() []string {
	env := []string{
		"PATH=" + n.Bin,
		"HD_MNT_POINT=" + n.Mnt,
		"USERSCRIPT_ROOT=" + n.Root,
		"USERSCRIPT_SH=" + n.Shell,
		"HOME=/",
		"LC_ALL=C",
	}
	return append(env, n.Env...)
}

// run runs argv as the firmware's boot does: its output goes to a file,
// the console, which the daemons it starts in the background keep open
// (stock rc.d scripts do not redirect them), so run waits for argv only.
func (n *NAS) run(argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = n.Environ()
	cmd.Dir = n.Root
	out, err := os.CreateTemp(n.Dir, "console-")
	if err != nil {
		return nil, err
	}
	os.Remove(out.Name())
	cmd.Stdout, cmd.Stderr = out, out
	// Like the firmware's boot, in a session of their own: smbd
	// signals its whole process group when it stops.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Run()
	text, _ := os.ReadFile(fmt.Sprintf("/proc/self/fd/%d", out.Fd()))
	out.Close()
	return text, err
}

// Calls returns the lines of ROOT/restarts.log: every rc.d call since the
// last ClearCalls.
func (n *NAS) Calls() []string {
	b, err := os.ReadFile(filepath.Join(n.Root, RestartLog))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// Restarts returns the restart calls only (the services' own start and stop
// at boot and shutdown left out).
func (n *NAS) Restarts() []string {
	var r []string
	for _, c := range n.Calls() {
		if strings.HasSuffix(c, " restart") {
			r = append(r, c)
		}
	}
	return r
}

// ClearCalls empties ROOT/restarts.log.
func (n *NAS) ClearCalls() error {
	err := os.Remove(filepath.Join(n.Root, RestartLog))
	if os.IsNotExist(err) {
		return nil
	}
	return err
}

// Live reads a file under the root.
func (n *NAS) Live(rel string) (string, error) {
	b, err := os.ReadFile(filepath.Join(n.Root, rel))
	return string(b), err
}

// AppDir is the folder of the installed application name.
func (n *NAS) AppDir(name string) string {
	return filepath.Join(n.Root, AppsDir, name)
}

func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
