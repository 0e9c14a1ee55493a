package tuning

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/system"
)

func TestParseTuning(t *testing.T) {
	in := `# the BananaPi's tuning (seeds/004)
sysfs block/sd*/queue/scheduler = deadline
txqueuelen eth0 = 10000
irq eth0 = 2
cpufreq governor = ondemand
cpufreq max_freq = 960000
cpufreq ondemand/io_is_busy = 1
; bad lines, each reported, none stopping the others
sysfs ../../etc/shadow = x
sysfs power/state = mem
txqueuelen eth0 = lots
irq eth0 = CPU1
frobnicate x = 1
cpufreq governor
sysfs module/x/holders/y = 1
`
	got, probs := ParseTuning([]byte(in))
	if len(got) != 6 {
		t.Errorf("parsed %d settings, want 6: %+v", len(got), got)
	}
	wantProbs := []string{"line 9: ", "line 10: sysfs path \"power/state\" is not one", "line 11: txqueuelen must be a number", "line 12: irq wants a CPU mask", "line 13: unknown kind", "line 14: expected KIND KEY = VALUE", "line 15: sysfs path"}
	if len(probs) != len(wantProbs) {
		t.Fatalf("problems = %v", probs)
	}
	for i, w := range wantProbs {
		if !strings.Contains(probs[i].Error(), w) {
			t.Errorf("problem %d = %q, want %q", i, probs[i].Error(), w)
		}
	}
}

func TestParseSysctl(t *testing.T) {
	in := "net.core.rmem_max = 8738000\n# c\n; c\nnet/ipv4/tcp_rmem=8192 873800 8738000\n-vm.min_free_kbytes=65536\nnonsense\nkernel.x/../../y = 1\n"
	got, probs := ParseSysctl([]byte(in))
	if len(got) != 3 || got[1].Value != "8192 873800 8738000" || got[2].Key != "vm.min_free_kbytes" {
		t.Errorf("settings = %+v", got)
	}
	if len(probs) != 2 {
		t.Errorf("problems = %v", probs)
	}
	if sysctlPath("net.ipv4.tcp_sack") != "net/ipv4/tcp_sack" || sysctlPath("net/ipv4/conf/eth0.100/rp_filter") != "net/ipv4/conf/eth0.100/rp_filter" {
		t.Error("sysctlPath")
	}
}

const interrupts = `           CPU0       CPU1
 29:          0          0       GIC  29  sun4i_timer0
 48:     123456          0       GIC  117  eth0
 49:          0          0       GIC  118  eth0-rx, eth0-tx
 50:          0          0       GIC  119  eth10
 51:         12          0       GIC  120  ahci_sunxi
IPI0:          0          0  CPU wakeup interrupts
`

func TestIRQsNamed(t *testing.T) {
	if got := strings.Join(IRQsNamed([]byte(interrupts), "eth0"), " "); got != "48 49" {
		t.Errorf("IRQsNamed(eth0) = %q, want 48 49 (not eth10)", got)
	}
	if got := IRQsNamed([]byte(interrupts), "wlan0"); len(got) != 0 {
		t.Errorf("IRQsNamed(wlan0) = %v", got)
	}
}

// The parser meets this machine's real /proc/interrupts: every IRQ it
// finds for a device named in the file really is on that device's line.
func TestRealProcInterrupts(t *testing.T) {
	data, err := os.ReadFile("/proc/interrupts")
	if err != nil {
		t.Skip("no /proc/interrupts here")
	}
	lines := strings.Split(string(data), "\n")
	last := strings.Fields(lines[1])
	name := last[len(last)-1]
	irqs := IRQsNamed(data, name)
	if len(irqs) == 0 {
		t.Fatalf("no IRQ found for %q, named on the line %q", name, lines[1])
	}
	for _, irq := range irqs {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), irq+":") && strings.Contains(l, name) {
				found = true
			}
		}
		if !found {
			t.Errorf("IRQ %s is not on a line naming %s", irq, name)
		}
	}
}

// Show reads real /proc/sys keys without writing: the current value of
// a key every Linux has.
func TestRealProcSysShow(t *testing.T) {
	if _, err := os.Stat("/proc/sys/kernel/ostype"); err != nil {
		t.Skip("no /proc/sys here")
	}
	tu := &Tuner{Sys: system.NewReal("/"), StateDir: t.TempDir()}
	rows := tu.Show([]Setting{{Kind: "sysctl", Key: "kernel.ostype", Value: "Linux"}, {Kind: "sysctl", Key: "net.nosuch.key", Value: "1"}})
	if rows[0].Result != AlreadySet || rows[0].Current != "Linux" {
		t.Errorf("kernel.ostype: %+v", rows[0])
	}
	if rows[1].Result != Unsupported {
		t.Errorf("net.nosuch.key: %+v", rows[1])
	}
}

// fakeKernel lays out /proc and /sys files under a root.
func fakeKernel(t *testing.T) string {
	root := t.TempDir()
	files := map[string]string{
		"proc/sys/net/core/rmem_max":                               "212992\n",
		"proc/sys/net/ipv4/tcp_rmem":                               "4096\t131072\t6291456\n",
		"proc/interrupts":                                          interrupts,
		"proc/irq/48/smp_affinity":                                 "3\n",
		"proc/irq/49/smp_affinity":                                 "00000003\n",
		"sys/block/sda/queue/scheduler":                            "noop deadline [cfq]\n",
		"sys/block/sdb/queue/scheduler":                            "noop deadline [cfq]\n",
		"sys/class/net/eth0/tx_queue_len":                          "1000\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor":     "performance\n",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_governor":     "performance\n",
		"sys/devices/system/cpu/cpufreq/ondemand/io_is_busy":       "0\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq":     "1008000\n",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_max_freq":     "1008000\n",
		"sys/devices/system/cpu/cpufreq/ondemand/up_threshold":     "95\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq":     "144000\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq":     "144000\n",
		"sys/devices/system/cpu/cpu1/cpufreq/scaling_min_freq":     "144000\n",
		"sys/devices/system/cpu/cpufreq/ondemand/sampling_rate":    "10000\n",
		"sys/devices/system/cpu/cpufreq/ondemand/powersave_bias":   "0\n",
		"sys/devices/system/cpu/cpufreq/ondemand/ignore_nice_load": "0\n",
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func rowsByName(rows []Row) map[string][]Row {
	m := map[string][]Row{}
	for _, r := range rows {
		m[r.Setting.Name()] = append(m[r.Setting.Name()], r)
	}
	return m
}

func read(t *testing.T, root, rel string) string {
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// Apply writes what differs (globs, an IRQ found by name among several),
// reports a missing path as unsupported, and keeps the old values so
// Revert and removing a line put them back.
func TestApplyAndRevert(t *testing.T) {
	root := fakeKernel(t)
	tu := &Tuner{Sys: system.NewReal(root), StateDir: t.TempDir()}
	sys, _ := ParseSysctl([]byte("net.core.rmem_max = 8738000\nnet.ipv4.tcp_rmem = 4096 131072 6291456\nnet.nosuch = 1\n"))
	tun, _ := ParseTuning([]byte("sysfs block/sd*/queue/scheduler = deadline\ntxqueuelen eth0 = 10000\nirq eth0 = 2\ncpufreq governor = ondemand\ncpufreq ondemand/io_is_busy = 1\ntxqueuelen wlan0 = 10\n"))
	rows, err := tu.Apply(append(sys, tun...))
	if err != nil {
		t.Fatal(err)
	}
	m := rowsByName(rows)
	expect := map[string][]string{
		"sysctl net.core.rmem_max":        {Applied},
		"sysctl net.ipv4.tcp_rmem":        {AlreadySet},
		"sysctl net.nosuch":               {Unsupported},
		"sysfs block/sd*/queue/scheduler": {Applied, Applied},
		"txqueuelen eth0":                 {Applied},
		"irq eth0":                        {Applied, Applied},
		"cpufreq governor":                {Applied, Applied},
		"cpufreq ondemand/io_is_busy":     {Applied},
		"txqueuelen wlan0":                {Unsupported},
	}
	for name, want := range expect {
		got := m[name]
		if len(got) != len(want) {
			t.Errorf("%s: %d rows %+v, want %v", name, len(got), got, want)
			continue
		}
		for i := range want {
			if got[i].Result != want[i] {
				t.Errorf("%s: %s, want %s (%s)", name, got[i].Result, want[i], got[i].Reason)
			}
		}
	}
	if read(t, root, "proc/irq/49/smp_affinity") != "2" || read(t, root, "sys/block/sdb/queue/scheduler") != "deadline" {
		t.Error("values not written")
	}
	// Applying again writes nothing.
	rows, _ = tu.Apply(append(sys, tun...))
	for _, r := range rows {
		if r.Result == Applied {
			t.Errorf("second apply wrote %s", r)
		}
	}
	// A line removed: its original value comes back.
	rows, _ = tu.Apply(append(sys, tun[1:]...))
	if !slices.ContainsFunc(rows, func(r Row) bool { return r.Result == Reverted && r.Path == "/sys/block/sda/queue/scheduler" }) {
		t.Errorf("no reverted row for the removed scheduler line: %+v", rows)
	}
	if read(t, root, "sys/block/sda/queue/scheduler") != "cfq" {
		t.Errorf("scheduler after its line was removed: %q", read(t, root, "sys/block/sda/queue/scheduler"))
	}
	// Revert puts everything back.
	if _, err := tu.Revert(); err != nil {
		t.Fatal(err)
	}
	if read(t, root, "proc/sys/net/core/rmem_max") != "212992" || read(t, root, "sys/class/net/eth0/tx_queue_len") != "1000" || read(t, root, "proc/irq/48/smp_affinity") != "3" {
		t.Error("Revert did not restore the values")
	}
}

// A value the kernel refuses is reported with the kernel's error and
// does not stop the other settings. A read-only sysctl refuses writes
// even from root: the fake root's proc/sys/fs is the real one.
func TestKernelRefuses(t *testing.T) {
	if _, err := os.Stat("/proc/sys/fs/file-nr"); err != nil {
		t.Skip("no /proc/sys/fs/file-nr here")
	}
	root := fakeKernel(t)
	if err := os.Symlink("/proc/sys/fs", filepath.Join(root, "proc/sys/fs")); err != nil {
		t.Fatal(err)
	}
	tu := &Tuner{Sys: system.NewReal(root), StateDir: t.TempDir()}
	set, _ := ParseSysctl([]byte("fs.file-nr = 1 2 3\nnet.core.rmem_max = 4194304\n"))
	rows, err := tu.Apply(set)
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Result != Failed || !strings.Contains(rows[0].Reason, "permission denied") {
		t.Errorf("fs.file-nr: %+v", rows[0])
	}
	if rows[1].Result != Applied {
		t.Errorf("the next setting: %+v", rows[1])
	}
}

// state/tuning.json is on the share: an entry planted there must not
// make the revert write outside the kernel's settings.
func TestRevertRefusesPlantedPaths(t *testing.T) {
	root := fakeKernel(t)
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/passwd"), []byte("root:x:0:0\n"), 0o644)
	state := t.TempDir()
	planted := `{
  "/etc/passwd": {"file": "tuning.conf", "value": "evil"},
  "/proc/sys/../../etc/passwd": {"file": "tuning.conf", "value": "evil"},
  "/sys/power/state": {"file": "tuning.conf", "value": "mem"},
  "/proc/sys/net/core/rmem_max": {"file": "sysctl.conf", "value": "4096"}
}`
	os.WriteFile(filepath.Join(state, "tuning.json"), []byte(planted), 0o644)
	os.MkdirAll(filepath.Join(root, "sys/power"), 0o755)
	os.WriteFile(filepath.Join(root, "sys/power/state"), []byte("freeze mem\n"), 0o644)
	tu := &Tuner{Sys: system.NewReal(root), StateDir: state}
	rows, err := tu.Apply(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, root, "etc/passwd"); got != "root:x:0:0" {
		t.Fatalf("/etc/passwd was written: %q", got)
	}
	if got := read(t, root, "sys/power/state"); got != "freeze mem" {
		t.Fatalf("/sys/power/state was written: %q", got)
	}
	if got := read(t, root, "proc/sys/net/core/rmem_max"); got != "4096" {
		t.Errorf("the legitimate entry was not reverted: %q", got)
	}
	failed := 0
	for _, r := range rows {
		if r.Result == Failed && strings.Contains(r.Reason, "not a kernel setting") {
			failed++
		}
	}
	if failed != 3 {
		t.Errorf("%d planted entries refused, want 3: %+v", failed, rows)
	}
	if tu.Active() {
		t.Error("planted entries were kept in state/tuning.json")
	}
}
