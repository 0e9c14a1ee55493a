package profile

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
)

// Validators a target can name.
const (
	ValidateNone     = ""
	ValidateTestparm = "testparm"
	ValidateProftpd  = "proftpd"
	ValidateExports  = "exports"
)

// A Target is one file userscript may write on the device.
type Target struct {
	Name      string // name of the source in conf.d, e.g. "smb.conf"
	Path      string // absolute path on the device
	Validator string // one of the Validate* constants
	Service   string // service restarted when the target changes, or ""
	// NeverEmpty refuses an empty target (a 0-byte smb.conf deletes
	// every share: it is a failed copy, not a wish).
	NeverEmpty bool
	// Mode is the mode of the file when it does not exist yet (0: 0644);
	// an existing file keeps its own mode and owner.
	Mode fs.FileMode
	// Checked refuses a candidate when its validator's program is not on
	// the device, instead of applying it NOT VALIDATED: where the
	// validator belongs to the firmware (DSM's testparm), a missing one
	// means the profile looked in the wrong place, not that the owner
	// chose to go unchecked.
	Checked bool
	// GlobalOnly: the firmware keeps the shares in a file of its own
	// (DSM 6 and 7: smb.share.conf), so a share section in this target
	// collides with them; its status gets a note naming them.
	GlobalOnly bool
}

// FileMode is the mode a new file at the target gets.
func (t Target) FileMode() fs.FileMode {
	if t.Mode == 0 {
		return 0o644
	}
	return t.Mode
}

// A Service is a daemon on the device and how to restart it.
type Service struct {
	Name    string
	Restart []string // argv; an absolute argv[0] is resolved under the root
	// Fallbacks are tried in order after Restart: one whose absolute
	// argv[0] is not on the device is skipped, and the next one runs
	// when the one before failed (not when it ran out of time). A
	// firmware whose versions keep their scripts in different places, or
	// whose service has two ways to restart, lists them here.
	Fallbacks [][]string
	Timeout   time.Duration
	Process   string // process name that must be alive (and new) after a restart, or ""
	Ports     []int  // TCP ports that must accept after a restart (unless its config names others)
	// PortsPinned: the owner named the ports (userscript.toml); they win
	// over the ports the service's config names.
	PortsPinned bool
	// Settle is how long a restarted service must stay healthy before
	// the change is committed (0: DefaultSettle).
	Settle time.Duration
}

// DefaultSettle is the settle period of a service that names none.
const DefaultSettle = 3 * time.Second

// SettlePeriod is how long the service must stay healthy after a restart.
func (s Service) SettlePeriod() time.Duration {
	if s.Settle == 0 {
		return DefaultSettle
	}
	return max(s.Settle, 0)
}

// A Profile describes one kind of device.
type Profile struct {
	Name        string
	Description string
	Targets     []Target // sorted by name
	Services    map[string]Service
	// Tools are where the device keeps a validator's program (device
	// paths, resolved under the root), by validator name: looked at
	// before PATH.
	Tools map[string][]string
}

// Commands are a service's restart command and its fallbacks, in the
// order they are tried.
func (s Service) Commands() [][]string {
	return append([][]string{s.Restart}, s.Fallbacks...)
}

// Units are the systemd units the services' commands restart, start or
// reload (`systemctl restart smbd` names smbd.service), sorted, each
// once. `userscript service install` orders its own unit after them, so
// that at boot the engine finds them started (a Type=notify smbd:
// serving), never about to be: one not running yet would be taken for
// one that is down, and a change judged by its restart's exit code.
func (p *Profile) Units() []string {
	var units []string
	for _, s := range p.Services {
		for _, argv := range s.Commands() {
			units = append(units, systemctlUnits(argv)...)
		}
	}
	slices.Sort(units)
	return slices.Compact(units)
}

// systemctlUnits are the units of a `systemctl restart|start|reload...
// UNIT...` command, or none.
func systemctlUnits(argv []string) []string {
	if len(argv) < 3 || path.Base(argv[0]) != "systemctl" {
		return nil
	}
	var units []string
	verb := ""
	for _, a := range argv[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
		case verb == "":
			verb = a
		default:
			if !strings.Contains(a, ".") {
				a += ".service"
			}
			units = append(units, a)
		}
	}
	switch verb {
	case "restart", "try-restart", "reload-or-restart", "try-reload-or-restart", "start", "reload":
		return units
	}
	return nil
}

// Target returns the target called name.
func (p *Profile) Target(name string) (Target, bool) {
	i := slices.IndexFunc(p.Targets, func(t Target) bool { return t.Name == name })
	if i < 0 {
		return Target{}, false
	}
	return p.Targets[i], true
}

// Check reports everything that makes p unusable: targets outside the
// device's absolute paths, names that could escape conf.d, services that
// are named but not defined.
func (p *Profile) Check() error {
	var errs []string
	seenPath := map[string]string{}
	for _, t := range p.Targets {
		if err := CheckName(t.Name); err != nil {
			errs = append(errs, fmt.Sprintf("target %q: %v", t.Name, err))
		}
		if err := CheckPath(t.Path); err != nil {
			errs = append(errs, fmt.Sprintf("target %s: %v", t.Name, err))
		}
		if other, dup := seenPath[t.Path]; dup {
			errs = append(errs, fmt.Sprintf("targets %s and %s both write %s", other, t.Name, t.Path))
		}
		seenPath[t.Path] = t.Name
		switch t.Validator {
		case ValidateNone, ValidateTestparm, ValidateProftpd, ValidateExports:
		default:
			errs = append(errs, fmt.Sprintf("target %s: unknown validator %q (use testparm, proftpd, exports or none)", t.Name, t.Validator))
		}
		if t.Service != "" {
			if _, ok := p.Services[t.Service]; !ok {
				errs = append(errs, fmt.Sprintf("target %s: service %q is not defined", t.Name, t.Service))
			}
		}
	}
	for _, name := range p.serviceNames() {
		s := p.Services[name]
		if len(s.Restart) == 0 {
			errs = append(errs, fmt.Sprintf("service %s: no restart command", name))
		}
		for _, f := range s.Fallbacks {
			if len(f) == 0 {
				errs = append(errs, fmt.Sprintf("service %s: an empty fallback command", name))
			}
		}
		if s.Timeout <= 0 {
			errs = append(errs, fmt.Sprintf("service %s: timeout must be positive", name))
		}
	}
	for _, tool := range slices.Sorted(maps.Keys(p.Tools)) {
		for _, at := range p.Tools[tool] {
			if err := CheckPath(at); err != nil {
				errs = append(errs, fmt.Sprintf("tool %s: %v", tool, err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("profile %s: %s", p.Name, strings.Join(errs, "; "))
	}
	return nil
}

// CheckName reports whether name can be a target name: a plain file name
// of letters, digits and . _ - that does not start with a dot or dash and
// does not end in one of the suffixes sources use.
func CheckName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("name must be 1 to 64 characters")
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if !ok {
			return fmt.Errorf("name may hold only letters, digits and . _ -")
		}
	}
	if name[0] == '.' || name[0] == '-' {
		return fmt.Errorf("name must not start with . or -")
	}
	for _, suf := range []string{".add", ".merge", ".status", ".tmp", ".swp"} {
		if strings.HasSuffix(name, suf) {
			return fmt.Errorf("name must not end in %s", suf)
		}
	}
	return nil
}

// CheckPath reports whether p is an acceptable target path: absolute,
// clean, without spaces, and not inside the places userscript must never
// write (/proc, /sys, /dev).
func CheckPath(p string) error {
	if !path.IsAbs(p) {
		return fmt.Errorf("path %q is not absolute", p)
	}
	if path.Clean(p) != p || strings.Contains(p, "/../") {
		return fmt.Errorf("path %q is not clean (no .., no // and no trailing /)", p)
	}
	if p == "/" {
		return fmt.Errorf("path / is not a file")
	}
	if strings.ContainsAny(p, " \t\n\r\\") {
		return fmt.Errorf("path %q holds a space or control character", p)
	}
	for _, bad := range []string{"/proc", "/sys", "/dev"} {
		if p == bad || strings.HasPrefix(p, bad+"/") {
			return fmt.Errorf("path %q is under %s", p, bad)
		}
	}
	return nil
}

func (p *Profile) serviceNames() []string {
	names := make([]string, 0, len(p.Services))
	for n := range p.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WriteShell renders p in the plain format the sh engine reads
// (docs/FORMATS.md, "lib/profile").
func (p *Profile) WriteShell(w io.Writer) error {
	if err := p.Check(); err != nil {
		return err
	}
	none := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "profile %s\n", p.Name)
	for _, t := range p.Targets {
		var fl []string
		if t.NeverEmpty {
			fl = append(fl, "nonempty")
		}
		if t.Checked {
			fl = append(fl, "checked")
		}
		if t.GlobalOnly {
			fl = append(fl, "globalonly")
		}
		flags := none(strings.Join(fl, ","))
		fmt.Fprintf(&b, "target %s %s %s %s %s %04o\n", t.Name, t.Path, none(t.Validator), none(t.Service), flags, t.FileMode().Perm())
	}
	for _, name := range p.serviceNames() {
		s := p.Services[name]
		for _, argv := range s.Commands() {
			for _, a := range argv {
				if a == "" || strings.ContainsAny(a, " \t\n\r") {
					return fmt.Errorf("profile %s: service %s: argument %q cannot be rendered for the sh engine", p.Name, name, a)
				}
			}
		}
		fmt.Fprintf(&b, "service %s %d %s\n", name, int(s.Timeout/time.Second), strings.Join(s.Restart, " "))
		for _, f := range s.Fallbacks {
			fmt.Fprintf(&b, "fallback %s %s\n", name, strings.Join(f, " "))
		}
		fmt.Fprintf(&b, "health %s %d %s %s\n", name, int(s.SettlePeriod()/time.Second), none(s.Process), none(joinPorts(s.Ports)))
	}
	for _, tool := range slices.Sorted(maps.Keys(p.Tools)) {
		for _, at := range p.Tools[tool] {
			fmt.Fprintf(&b, "tool %s %s\n", tool, at)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (p *Profile) sortTargets() {
	slices.SortFunc(p.Targets, func(a, b Target) int { return strings.Compare(a.Name, b.Name) })
}

// Sort puts p's targets in name order.
func Sort(p *Profile) { p.sortTargets() }

func joinPorts(ports []int) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ",")
}
