package pkgtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/tuning"
	"github.com/nas-userscript/userscript/internal/validate"
)

var examples = filepath.Join(repoRoot, "conf.d", "examples")

// TestExamplesValid proves the shipped examples pass the real validators:
// smb.conf and the firmware's smb.conf + smb.conf.add with testparm -s,
// proftpd.conf with proftpd -t.
func TestExamplesValid(t *testing.T) {
	t.Run("smb.conf", func(t *testing.T) {
		need(t, "testparm")
		testparm(t, filepath.Join(examples, "smb.conf"))
	})
	t.Run("smb.conf.add", func(t *testing.T) {
		need(t, "testparm")
		add, err := os.ReadFile(filepath.Join(examples, "smb.conf.add"))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "smb.conf")
		writeFile(t, p, "[global]\n\tworkgroup = WORKGROUP\n[public]\n\tpath = /tmp\n"+string(add))
		testparm(t, p)
	})
	t.Run("exports", func(t *testing.T) {
		p, _ := filepath.Abs(filepath.Join(examples, "exports"))
		r := validate.Check(context.Background(), validate.Exports, p, validate.Options{})
		if r.Refused || !r.Validated {
			t.Errorf("exports: %+v", r)
		}
		for _, w := range r.Warnings {
			if !strings.Contains(w, "Failed to stat /mnt/ide1/public") { // this host has no IcyBox data disk
				t.Errorf("exports: warning %s", w)
			}
		}
	})
	t.Run("proftpd.conf", func(t *testing.T) {
		proftpd := needtool.Tool(t, "proftpd")[0]
		p, _ := filepath.Abs(filepath.Join(examples, "proftpd.conf"))
		if out, err := exec.Command(proftpd, "-t", "-c", p).CombinedOutput(); err != nil {
			t.Fatalf("proftpd -t: %v\n%s", err, out)
		}
	})
}

// testparm proves Samba takes the file as it is: testparm -s exits 0 and
// names no unknown or deprecated parameter (it exits 0 for those too).
func testparm(t *testing.T, path string) {
	t.Helper()
	bin := needtool.Tool(t, "testparm")[0]
	out, err := exec.Command(bin, "-s", path).CombinedOutput()
	if err != nil {
		t.Fatalf("testparm -s %s: %v\n%s", path, err, out)
	}
	for _, bad := range []string{"Unknown parameter", "Ignoring unknown", "deprecated", "Ignoring invalid value", "Badly formed"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("testparm -s %s: %q:\n%s", path, bad, out)
		}
	}
}

// TestExamplesTuningParse proves the shipped sysctl.conf and tuning.conf
// examples hold no line the parser rejects, and the settings they are
// about.
func TestExamplesTuningParse(t *testing.T) {
	for _, tc := range []struct {
		file string
		want int
	}{{"sysctl.conf", 9}, {"tuning.conf", 9}} {
		data, err := os.ReadFile(filepath.Join(examples, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		set, probs := tuning.Parse(tc.file, data)
		for _, p := range probs {
			t.Errorf("%s: %v", tc.file, p)
		}
		if len(set) != tc.want {
			t.Errorf("%s: %d settings, want %d: %+v", tc.file, len(set), tc.want, set)
		}
	}
}

// TestExamplesTuningSh boots the armv4 package (sh engine) with the
// examples as conf.d/sysctl.conf and conf.d/tuning.conf on a fake
// BananaPi kernel (two CPUs, two disks, eth0 on IRQ 48): every setting is
// applied and reported, no line is refused, and removing the files puts
// every value back.
func TestExamplesTuningSh(t *testing.T) {
	n := installed(t)
	app := n.AppDir("userscript")
	kernel := map[string]string{
		"proc/interrupts":                       "           CPU0       CPU1\n 48:     123456          0       GIC  117  eth0\n 50:          0          0       GIC  119  eth10\n",
		"proc/irq/48/smp_affinity":              "3\n",
		"proc/irq/50/smp_affinity":              "3\n",
		"sys/block/sda/queue/scheduler":         "noop deadline [cfq]\n",
		"sys/block/sdb/queue/scheduler":         "noop deadline [cfq]\n",
		"sys/class/net/eth0/tx_queue_len":       "1000\n",
		"proc/sys/vm/min_free_kbytes":           "3794\n",
		"proc/sys/net/ipv4/tcp_no_metrics_save": "0\n",
	}
	for _, cpu := range []string{"cpu0", "cpu1"} {
		d := "sys/devices/system/cpu/" + cpu + "/cpufreq/"
		kernel[d+"scaling_governor"] = "performance\n"
		kernel[d+"scaling_min_freq"] = "60000\n"
		kernel[d+"scaling_max_freq"] = "1008000\n"
	}
	for _, k := range []string{"io_is_busy", "up_threshold", "sampling_down_factor"} {
		kernel["sys/devices/system/cpu/cpufreq/ondemand/"+k] = "0\n"
	}
	for _, k := range []string{"core/rmem_max", "core/wmem_max", "ipv4/tcp_rmem", "ipv4/tcp_wmem", "ipv4/tcp_window_scaling", "ipv4/tcp_timestamps", "ipv4/tcp_sack"} {
		kernel["proc/sys/net/"+k] = "0\n"
	}
	for rel, body := range kernel {
		writeFile(t, filepath.Join(n.Root, rel), body)
	}
	for _, f := range []string{"sysctl.conf", "tuning.conf"} {
		data, err := os.ReadFile(filepath.Join(examples, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(app, "conf.d", f), string(data))
	}
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	for name, settings := range map[string]int{"sysctl": 9, "tuning": 13} {
		b, err := os.ReadFile(filepath.Join(app, "conf.d", name+".status"))
		if err != nil {
			t.Fatal(err)
		}
		st := string(b)
		if !strings.HasPrefix(st, "status: OK\r\n") || strings.Contains(st, "warning:") {
			t.Errorf("%s.status:\n%s", name, st)
		}
		if got := strings.Count(st, ": applied ("); got != settings {
			t.Errorf("%s.status: %d settings applied, want %d:\n%s", name, got, settings, st)
		}
	}
	if got, _ := n.Live("sys/block/sdb/queue/scheduler"); got != "deadline\n" {
		t.Errorf("sdb scheduler %q, want deadline", got)
	}
	if got, _ := n.Live("proc/irq/50/smp_affinity"); got != "3\n" {
		t.Errorf("eth10's IRQ was changed: %q", got)
	}

	for _, f := range []string{"sysctl.conf", "tuning.conf"} {
		os.Remove(filepath.Join(app, "conf.d", f))
	}
	if out, err := n.Init("userscript", "restart"); err != nil {
		t.Fatalf("init restart: %v\n%s", err, out)
	}
	for rel, body := range kernel {
		if strings.HasSuffix(rel, "scheduler") {
			body = "cfq\n" // a scheduler list's selected entry is put back
		}
		if got, _ := n.Live(rel); got != body && rel != "proc/interrupts" {
			t.Errorf("%s: %q after the examples were removed, want %q back", rel, got, body)
		}
	}
}

// TestUninstallRevertsKernelSh: `init uninstall` (sh engine) puts back
// the kernel values conf.d/sysctl.conf changed, as `userscript
// uninstall` does, although the file is still in conf.d (found on the
// firmware box under qemu: uninstall left every value tuned).
func TestUninstallRevertsKernelSh(t *testing.T) {
	n := installed(t)
	app := n.AppDir("userscript")
	writeFile(t, filepath.Join(n.Root, "proc/sys/net/core/rmem_max"), "212992\n")
	writeFile(t, filepath.Join(app, "conf.d", "sysctl.conf"), "net.core.rmem_max = 4194304\n")
	if err := n.Boot(firmsim.ServicesFirst); err != nil {
		t.Fatal(err)
	}
	if got, _ := n.Live("proc/sys/net/core/rmem_max"); got != "4194304\n" {
		t.Fatalf("rmem_max %q after boot, want 4194304", got)
	}
	if out, err := n.Init("userscript", "uninstall"); err != nil {
		t.Fatalf("init uninstall: %v\n%s", err, out)
	}
	if got, _ := n.Live("proc/sys/net/core/rmem_max"); got != "212992\n" {
		t.Errorf("rmem_max %q after init uninstall, want 212992 back", got)
	}
}
