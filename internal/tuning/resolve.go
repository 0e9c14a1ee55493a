package tuning

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nas-userscript/userscript/internal/system"
)

// paths returns the device paths a setting writes. A setting whose path
// does not exist on this kernel gives none and says why.
func paths(sys system.System, s Setting) ([]string, string) {
	switch s.Kind {
	case "sysctl":
		return existing(sys, "/proc/sys/"+sysctlPath(s.Key))
	case "sysfs":
		return existing(sys, "/sys/"+s.Key)
	case "txqueuelen":
		return existing(sys, "/sys/class/net/"+s.Key+"/tx_queue_len")
	case "irq":
		return irqPaths(sys, s.Key)
	case "cpufreq":
		return cpufreqPaths(sys, s.Key)
	}
	return nil, "unknown kind"
}

// existing expands a device path pattern under the root.
func existing(sys system.System, pattern string) ([]string, string) {
	matches, err := filepath.Glob(sys.Root(pattern))
	if err != nil || len(matches) == 0 {
		return nil, pattern + " does not exist on this kernel"
	}
	root := sys.Root("/")
	out := make([]string, len(matches))
	for i, m := range matches {
		rel, _ := filepath.Rel(root, m)
		out[i] = "/" + filepath.ToSlash(rel)
	}
	return out, ""
}

func cpufreqPaths(sys system.System, key string) ([]string, string) {
	const cpus = "/sys/devices/system/cpu/cpu[0-9]*/cpufreq/"
	switch {
	case key == "governor":
		return existing(sys, cpus+"scaling_governor")
	case key == "min_freq" || key == "max_freq":
		return existing(sys, cpus+"scaling_"+key)
	case strings.HasPrefix(key, "scaling_"):
		return existing(sys, cpus+key)
	case strings.Contains(key, "/"):
		// A governor's tunable: system-wide on most kernels, per CPU on
		// some.
		if p, why := existing(sys, "/sys/devices/system/cpu/cpufreq/"+key); why == "" {
			return p, ""
		}
		return existing(sys, cpus+key)
	}
	return nil, fmt.Sprintf("cpufreq key %q is not known", key)
}

// irqPaths finds every IRQ whose /proc/interrupts line names the device:
// never a hard-coded number, which changes between kernels and boards.
func irqPaths(sys system.System, name string) ([]string, string) {
	data, err := sys.ReadFile(sys.Root("/proc/interrupts"))
	if err != nil {
		return nil, "cannot read /proc/interrupts: " + err.Error()
	}
	var out []string
	for _, irq := range IRQsNamed(data, name) {
		p, why := existing(sys, "/proc/irq/"+irq+"/smp_affinity")
		if why == "" {
			out = append(out, p...)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("no IRQ named %s in /proc/interrupts", name)
	}
	return out, ""
}

// IRQsNamed returns the numbers of the IRQs whose line in
// /proc/interrupts names the device (a word equal to name, or name
// followed by - or :, as in eth0-rx).
func IRQsNamed(interrupts []byte, name string) []string {
	sc := bufio.NewScanner(bytes.NewReader(interrupts))
	ncpu := -1
	var irqs []string
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if ncpu < 0 {
			ncpu = len(fields) // the header: one column per CPU
			continue
		}
		if len(fields) < 2 || !strings.HasSuffix(fields[0], ":") {
			continue
		}
		irq := strings.TrimSuffix(fields[0], ":")
		if !isNumber(irq) {
			continue
		}
		rest := fields[1:]
		if len(rest) > ncpu {
			rest = rest[ncpu:]
		}
		for _, f := range rest {
			for _, w := range strings.Split(f, ",") {
				if w == name || strings.HasPrefix(w, name+"-") || strings.HasPrefix(w, name+":") {
					irqs = append(irqs, irq)
				}
			}
		}
	}
	return dedupe(irqs)
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Same reports whether the kernel's current value is the wanted one:
// whitespace runs are equal, a scheduler list matches its [selected]
// entry, and hex masks match without leading zeros and commas.
func Same(kind, current, want string) bool {
	cur := strings.Join(strings.Fields(current), " ")
	w := strings.Join(strings.Fields(want), " ")
	if cur == w {
		return true
	}
	if i := strings.Index(cur, "["); i >= 0 {
		if j := strings.Index(cur[i:], "]"); j > 0 && cur[i+1:i+j] == w {
			return true
		}
	}
	if kind == "irq" {
		norm := func(s string) string {
			s = strings.TrimLeft(strings.ReplaceAll(strings.ToLower(s), ",", ""), "0")
			if s == "" {
				return "0"
			}
			return s
		}
		return norm(cur) == norm(w)
	}
	return false
}
