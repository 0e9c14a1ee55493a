package bench

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/systest"
)

// The sh bench's arithmetic gives the right digits under every ash,
// although the old ones count in 32 bits: 32 GiB in bytes, rates and
// seconds with two decimals, an uptime past 248 days (in centiseconds
// beyond 2^31), start sectors of a 4 TB disk.
func TestShArithmetic(t *testing.T) {
	script := `BENCH_SOURCE=1 BENCH_DIR=lib
. lib/bench.sh
for m in 1 1000 2048 4096 32768; do bytes_of $m; echo "bytes $m $BYTES"; done
rate_of 1000 7300; echo "rate $RATE $RATE100"
rate_of 62 304; echo "rate $RATE"
rate_of 32768 1; echo "rate $RATE"
rate_of 1 0; echo "rate $RATE"
secs_of 7300; echo "secs $SECS"
secs_of 5; echo "secs $SECS"
for s in 3.04 2 0.5 12.345 0.07; do cs_of $s; echo "cs $s $CS"; done
elapsed 30000000 99 30000001 1; echo "elapsed $CS"
elapsed 21474836 40 21474900 5; echo "elapsed $CS"
mod 7814035456 2048; echo "mod $MOD"
mod 7814035457 8; echo "mod $MOD"
mod 63 8; echo "mod $MOD"
fmt100 1370; echo "fmt $F100"
fmt100 5; echo "fmt $F100"
sort_ints 1370 1348 1387 90; echo "sorted$SORTED"
clock; case $TS$TC in *[!0-9]*) echo "clock bad $TS $TC" ;; *) echo "clock ok" ;; esac
csv_field 'dd of="a,b"'; echo "csv $CF"
json_str 'a "b" \c'; echo "json $JS"
`
	want := `bytes 1 1048576
bytes 1000 1048576000
bytes 2048 2147483648
bytes 4096 4294967296
bytes 32768 34359738368
rate 13.70 1370
rate 20.39
rate 3276800.00
rate 100.00
secs 73.00
secs 0.05
cs 3.04 304
cs 2 200
cs 0.5 50
cs 12.345 1234
cs 0.07 7
elapsed 2
elapsed 6365
mod 0
mod 1
mod 7
fmt 13.70
fmt 0.05
sorted 90 1348 1370 1387
clock ok
csv "dd of=""a,b"""
json "a \"b\" \\c"
`
	for _, a := range ashes(t) {
		t.Run(a.name, func(t *testing.T) {
			app := shApp(t)
			if err := os.WriteFile(filepath.Join(app, "arith.sh"), []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out := runSh(t, a, "/", app, "arith.sh")
			if code != 0 || out != want {
				t.Errorf("exit %d, output:\n%s\nwant:\n%s", code, out, want)
			}
		})
	}
}

// A tiny real run under every ash on the fake NAS: the default tests on
// its three disks, one CSV row per test and run in the Go engine's
// columns (read back with ReadCSV), a JSON that parses, the generation
// live (the newest ok one), hdparm missing as a skip line, and no bench
// folder left.
func TestShRun(t *testing.T) {
	for _, a := range ashes(t) {
		t.Run(a.name, func(t *testing.T) {
			n := newFakeNAS(t)
			app := shApp(t)
			for gen, result := range map[string]string{"000003": "ok", "000004": "rejected", "000002": "ok"} {
				meta := filepath.Join(app, "state", "gen", gen, "meta.json")
				os.MkdirAll(filepath.Dir(meta), 0o755)
				if err := os.WriteFile(meta, []byte("{\n  \"id\": 1,\n  \"result\": \""+result+"\"\n}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out := runSh(t, a, n.root, app, "lib/bench.sh", "--dir", "/mnt/ide1", "--size", "1M", "--runs", "2")
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			rs, js := results(t, app)
			want := []string{"ZeroNull", "S1", "L1Null", "L2DD", "S3", "USB1-out", "USBWriteOnly1", "USBReadOnly1", "USB1-in"}
			var got []string
			for _, r := range rs {
				if r.Run == 1 {
					got = append(got, r.Test)
				}
				if r.Bytes != MiB || r.Engine != "sh" || r.Version != "sh-test" || r.Generation != "3" || r.Device != "IB-NAS4220-B" {
					t.Errorf("row %+v", r)
				}
			}
			if !slices.Equal(got, want) || len(rs) != 2*len(want) {
				t.Fatalf("tests %v (%d rows), want %v twice\n%s", got, len(rs), want, out)
			}
			byTest := map[string]Result{}
			for _, r := range rs {
				byTest[r.Test] = r
			}
			if r := byTest["S3"]; r.Source != "/dev/sda1" || r.Destination != "/dev/sdb1" || r.Filesystem != "ext3->ext2" {
				t.Errorf("S3 %+v", r)
			}
			if r := byTest["USB1-in"]; r.Source != "/dev/sdc1" || r.Destination != "/dev/sda1" || !strings.HasPrefix(r.Command, "cp /mnt/usb disk/userscript-bench.") {
				t.Errorf("USB1-in %+v", r)
			}
			var rep map[string]any
			if err := json.Unmarshal(js, &rep); err != nil {
				t.Fatalf("JSON: %v\n%s", err, js)
			}
			if len(rep["results"].([]any)) != len(rs) || rep["engine"] != "sh" || len(rep["partitions"].([]any)) != 4 {
				t.Errorf("JSON %s", js)
			}
			for _, line := range []string{"L3hdparm: skipped: hdparm not found on this device", "partition sda1: NOT ALIGNED: starts at sector 63", "S1: 2 runs, median "} {
				if !strings.Contains(out, line) {
					t.Errorf("no %q in:\n%s", line, out)
				}
			}
			for _, d := range []string{"/mnt/ide1", "/mnt/ide2", "/mnt/usb disk"} {
				if left := n.benchFolders(t, d); len(left) > 0 {
					t.Errorf("left behind: %v", left)
				}
			}
		})
	}
}

// Without dd nothing can run, each test says why and there are no
// results; with dd but without df the disk tests are skipped (the free
// space cannot be checked) and ZeroNull still runs.
func TestShMissingApplets(t *testing.T) {
	bb, _ := exec.LookPath("busybox")
	for _, a := range ashes(t) {
		t.Run(a.name, func(t *testing.T) {
			n := newFakeNAS(t)
			app := shApp(t)
			for _, x := range benchApplets {
				os.Remove(filepath.Join(a.path, x))
			}
			code, out := runSh(t, a, n.root, app, "lib/bench.sh", "--dir", "/mnt/ide1", "--size", "1M", "--runs", "1", "S1", "ZeroNull")
			if code != 1 || !strings.Contains(out, "ZeroNull: skipped: dd not found on this device") || !strings.Contains(out, "S1: skipped: dd not found") || !strings.Contains(out, "no results") {
				t.Errorf("without dd: exit %d:\n%s", code, out)
			}
			os.Symlink(bb, filepath.Join(a.path, "dd"))
			os.Symlink(bb, filepath.Join(a.path, "sync"))
			code, out = runSh(t, a, n.root, app, "lib/bench.sh", "--dir", "/mnt/ide1", "--size", "1M", "--runs", "1", "S1", "ZeroNull")
			if code != 0 || !strings.Contains(out, "S1: skipped: df not found (or it failed): cannot check the free space on /mnt/ide1") || !strings.Contains(out, "ZeroNull run 1: ") {
				t.Errorf("without df: exit %d:\n%s", code, out)
			}
		})
	}
}

// Ctrl-C while dd writes (the whole process group gets SIGINT): exit
// 130, the bench folder removed, no results written. The dd here writes
// its file's start and then waits, so the signal lands mid-write.
// Defect: a closed ssh or telnet session (SIGHUP) left the test file in
// the bench folder; it is cleaned up as INT is (exit 129).
func TestShInterrupt(t *testing.T) {
	for _, a := range ashes(t) {
		if a.name != "debian" && a.name != "1_00" {
			continue
		}
		for _, sig := range []struct {
			s    syscall.Signal
			exit int
		}{{syscall.SIGINT, 130}, {syscall.SIGHUP, 129}} {
			t.Run(a.name+"/"+sig.s.String(), func(t *testing.T) { shInterrupt(t, a, sig.s, sig.exit) })
		}
	}
}

func shInterrupt(t *testing.T, a ash, sig syscall.Signal, exit int) {
	{
		{
			n := newFakeNAS(t)
			app := shApp(t)
			fifo := filepath.Join(t.TempDir(), "never")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			dd := "#!/bin/sh\nfor a; do case $a in of=*userscript-bench*) : >\"${a#of=}\"; exec cat " + fifo + " ;; esac; done\nexec busybox dd \"$@\"\n"
			os.Remove(filepath.Join(a.path, "dd"))
			if err := systest.WriteFile(filepath.Join(a.path, "dd"), []byte(dd), 0o755); err != nil {
				t.Fatal(err)
			}
			bb, _ := exec.LookPath("busybox")
			os.Symlink(bb, filepath.Join(a.path, "busybox"))
			cmd := exec.Command(a.sh, "lib/bench.sh", "--dir", "/mnt/ide1", "--size", "1M", "--runs", "1", "S1")
			cmd.Env = []string{"PATH=" + a.path, "USERSCRIPT_ROOT=" + n.root, "USERSCRIPT_APP=" + app}
			cmd.Dir = app
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			var out syncBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(time.Minute)
			for {
				m, _ := filepath.Glob(filepath.Join(n.path("/mnt/ide1"), "userscript-bench.*", "bench.dat"))
				if len(m) == 1 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("dd never started:\n%s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			syscall.Kill(-cmd.Process.Pid, sig)
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exit {
				t.Errorf("exit %v, want %d\n%s", err, exit, out.String())
			}
			if left := n.benchFolders(t, "/mnt/ide1"); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			if m, _ := filepath.Glob(filepath.Join(app, "conf.d", ".bench", "*")); len(m) > 0 {
				t.Errorf("results written: %v", m)
			}
		}
	}
}

// A disk with less free than the test's file plus one test size to
// spare is refused before anything is written: a 4 MiB tmpfs in a
// private mount namespace for a 4M test. Defect: S1 S2 USB1 with the
// USB folder on the data disk passed "twice the size" disk by disk and
// then filled it; everything kept there at once is added up.
func TestShRefusesFullDisk(t *testing.T) {
	for _, c := range []struct {
		mib  string
		args []string
		want string
	}{
		{"4", []string{"S1"}, "/mnt/ide1: 4 MiB free, the tests keep up to 4 MiB here at once, plus 4 MiB to spare: use a smaller --size or fewer tests"},
		{"16", []string{"--usb", "/mnt/ide1/usb", "--runs", "2", "S1", "S2", "USB1"}, "/mnt/ide1: 16 MiB free, the tests keep up to 16 MiB here at once, plus 4 MiB to spare: use a smaller --size or fewer tests"},
	} {
		t.Run(c.mib, func(t *testing.T) { shRefusesFullDisk(t, c.mib, c.args, c.want) })
	}
}

func shRefusesFullDisk(t *testing.T, mib string, args []string, want string) {
	as := ashes(t)
	a := as[len(as)-1]
	n := newFakeNAS(t)
	app := shApp(t)
	mount, err := exec.LookPath("mount")
	if err != nil {
		t.Skip("no mount here")
	}
	argv := append([]string{"sh", mount, n.path("/mnt/ide1"), a.sh, "lib/bench.sh", "--dir", "/mnt/ide1", "--size", "4M", "--runs", "1"}, args...)
	cmd := exec.Command("unshare", append([]string{"-m", "--", "/bin/sh", "-c", `"$1" -t tmpfs -o size=` + mib + `m tmpfs "$2" || exit 99; mkdir "$2/usb"; shift 2; exec "$@"`}, argv...)...)
	cmd.Env = []string{"PATH=" + a.path, "USERSCRIPT_ROOT=" + n.root, "USERSCRIPT_APP=" + app}
	cmd.Dir = app
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	errors.As(err, &ee)
	if ee != nil && ee.ExitCode() == 99 || err != nil && ee == nil {
		t.Skipf("no private mount namespace here (needs root): %v: %s", err, out)
	}
	if ee == nil || ee.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Errorf("%v:\n%s", err, out)
	}
	if strings.Contains(string(out), "S1 run") {
		t.Errorf("ran anyway:\n%s", out)
	}
}

// `bench.sh align` says what the Go engine's Alignment says, partition
// by partition.
func TestShAlignMatchesGo(t *testing.T) {
	as := ashes(t)
	a := as[len(as)-1]
	n := newFakeNAS(t)
	parts, err := Alignment(n.sys)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, p := range parts {
		want.WriteString(p.Name + ": " + p.Advice + "\n")
	}
	code, out := runSh(t, a, n.root, shApp(t), "lib/bench.sh", "align")
	if code != 0 || out != want.String() {
		t.Errorf("exit %d:\n%s\nwant:\n%s", code, out, want.String())
	}
}

// `init bench` on a device without the Go engine runs the sh bench with
// the engine's shell (USERSCRIPT_SH), BusyBox 1.00 where it is here.
func TestInitBench(t *testing.T) {
	as := ashes(t)
	a := as[len(as)-1]
	n := newFakeNAS(t)
	app := shApp(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "package", "init"))
	if err != nil {
		t.Fatal(err)
	}
	if err := systest.WriteFile(filepath.Join(app, "init"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(a.sh, filepath.Join(app, "init"), "bench", "--dir", "/mnt/ide1", "--size", "1M", "--runs", "1", "S1")
	cmd.Env = []string{"PATH=" + a.path, "USERSCRIPT_ROOT=" + n.root, "USERSCRIPT_SH=" + a.sh}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	rs, _ := results(t, app)
	if len(rs) != 1 || rs[0].Test != "S1" || rs[0].Engine != "sh" {
		t.Errorf("%+v\n%s", rs, out)
	}
}
