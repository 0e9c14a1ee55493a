package tuning

import (
	"fmt"
	"path"
	"strings"
)

// A Setting is one line of tuning.conf or sysctl.conf.
type Setting struct {
	File  string // "tuning.conf" or "sysctl.conf"
	Line  int
	Kind  string // sysctl, sysfs, txqueuelen, irq, cpufreq
	Key   string // as written, e.g. "eth0" or "net.core.rmem_max"
	Value string
}

// Name is how the setting is shown: "sysctl net.core.rmem_max".
func (s Setting) Name() string { return s.Kind + " " + s.Key }

// A Problem is a line that cannot be used.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) Error() string { return fmt.Sprintf("%s line %d: %s", p.File, p.Line, p.Msg) }

// ParseSysctl reads sysctl.conf: `key = value`, keys with dots or
// slashes, `#` and `;` comments; a leading `-` (ignore errors) is
// accepted and dropped.
func ParseSysctl(data []byte) ([]Setting, []Problem) {
	var out []Setting
	var probs []Problem
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		key, val = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(key), "-")), strings.TrimSpace(val)
		if !ok || key == "" {
			probs = append(probs, Problem{"sysctl.conf", i + 1, "expected key = value"})
			continue
		}
		if err := checkKey(sysctlPath(key)); err != nil {
			probs = append(probs, Problem{"sysctl.conf", i + 1, err.Error()})
			continue
		}
		out = append(out, Setting{File: "sysctl.conf", Line: i + 1, Kind: "sysctl", Key: key, Value: val})
	}
	return out, probs
}

// sysctlPath turns a sysctl key into its path under /proc/sys: dots are
// separators unless the key already uses slashes.
func sysctlPath(key string) string {
	if !strings.Contains(key, "/") {
		key = strings.ReplaceAll(key, ".", "/")
	}
	return strings.TrimPrefix(key, "/")
}

// ParseTuning reads tuning.conf: `KIND KEY = VALUE`, `#` comments.
func ParseTuning(data []byte) ([]Setting, []Problem) {
	var out []Setting
	var probs []Problem
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		bad := func(format string, args ...any) {
			probs = append(probs, Problem{"tuning.conf", i + 1, fmt.Sprintf(format, args...)})
		}
		lhs, val, ok := strings.Cut(line, "=")
		fields := strings.Fields(lhs)
		val = strings.TrimSpace(val)
		if !ok || len(fields) != 2 || val == "" {
			bad("expected KIND KEY = VALUE, e.g. txqueuelen eth0 = 10000")
			continue
		}
		kind, key := fields[0], fields[1]
		switch kind {
		case "sysfs":
			if err := checkSysfs(key); err != nil {
				bad("%v", err)
				continue
			}
		case "txqueuelen":
			if err := checkWord(key); err != nil {
				bad("interface %v", err)
				continue
			}
			if !isNumber(val) {
				bad("txqueuelen must be a number, not %q", val)
				continue
			}
		case "irq":
			if err := checkWord(key); err != nil {
				bad("irq name %v", err)
				continue
			}
			if !isHex(val) {
				bad("irq wants a CPU mask in hex like 2 (CPU 1) or 3 (CPUs 0 and 1), not %q", val)
				continue
			}
		case "cpufreq":
			if err := checkKey(key); err != nil || strings.Count(key, "/") > 1 {
				bad("cpufreq key %q: use governor, min_freq, max_freq, scaling_* or GOVERNOR/TUNABLE", key)
				continue
			}
		default:
			bad("unknown kind %q: use sysfs, txqueuelen, irq or cpufreq", kind)
			continue
		}
		out = append(out, Setting{File: "tuning.conf", Line: i + 1, Kind: kind, Key: key, Value: val})
	}
	return out, probs
}

// sysfsAllowed are the parts of /sys tuning.conf may write: block
// queues, network devices, CPU frequency, transparent huge pages and
// module parameters. Nothing that powers off, removes or rebinds devices.
var sysfsAllowed = []string{"block/", "class/net/", "class/block/", "devices/system/cpu/", "kernel/mm/transparent_hugepage/", "module/"}

func checkSysfs(p string) error {
	if err := checkKey(p); err != nil {
		return err
	}
	for _, a := range sysfsAllowed {
		if strings.HasPrefix(p, a) {
			if strings.HasPrefix(p, "module/") && !strings.Contains(p, "/parameters/") {
				break
			}
			return nil
		}
	}
	return fmt.Errorf("sysfs path %q is not one userscript writes (allowed: %s, module/*/parameters/)", p, strings.Join(sysfsAllowed[:5], ", "))
}

// checkKey allows a relative path of plain names and glob characters.
func checkKey(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p {
		return fmt.Errorf("%q is not a clean relative path", p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." || part == "." {
			return fmt.Errorf("%q climbs out with ..", p)
		}
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/*?[]:+", r)) {
			return fmt.Errorf("%q holds %q", p, r)
		}
	}
	return nil
}

func checkWord(s string) error {
	if strings.ContainsAny(s, "/*?[]") || strings.HasPrefix(s, ".") {
		return fmt.Errorf("%q must be a plain name", s)
	}
	return checkKey(s)
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

func isHex(s string) bool {
	for _, r := range strings.ReplaceAll(s, ",", "") {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return s != ""
}
