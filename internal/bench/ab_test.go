package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// shapedEnv marks the copy of the test binary that runs inside the
// shaped network namespace.
const shapedEnv = "USERSCRIPT_BENCH_SHAPED"

// inShapedNet runs the calling test again in a new network namespace
// whose loopback is shaped to 100 Mbit/s (tc tbf: a Fast Ethernet NAS)
// and reports true in that copy; the first copy relays its log.
func inShapedNet(t *testing.T) bool {
	t.Helper()
	if os.Getenv(shapedEnv) == "1" {
		return true
	}
	need(t, "smbd", "testparm", "tc", "ip", "unshare")
	script := `ip link set lo mtu 1500 up && tc qdisc add dev lo root tbf rate 100mbit burst 128kb latency 50ms && exec "$@"`
	timeout := 10 * time.Minute
	if d, ok := t.Deadline(); ok {
		timeout = time.Until(d) - 10*time.Second
	}
	cmd := exec.Command("unshare", "-n", "--", "/bin/sh", "-c", script, "sh",
		os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1", "-test.timeout="+timeout.String())
	cmd.Env = append(os.Environ(), shapedEnv+"=1", "PATH="+os.Getenv("PATH")+":/usr/sbin:/sbin")
	out, err := cmd.CombinedOutput()
	t.Logf("in a network namespace, loopback shaped to 100 Mbit/s:\n%s", out)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return false
}

// abNAS is a simulated IB-NAS4220-B whose firmware runs a real smbd on
// loopback, with the Go engine (`userscript run`) applying conf.d. It
// returns conf.d and the [public] share's smb:// URL.
func abNAS(t *testing.T) (confd, share, bin string) {
	t.Helper()
	nas, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	smbd, err := nas.UseSmbd()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(smbd.Stop)
	public := filepath.Join(nas.Mnt, "public")
	if err := os.MkdirAll(public, 0o777); err != nil {
		t.Fatal(err)
	}
	// root logs in (a guest could not reach a folder under the tests'
	// private temporary folders).
	pw := exec.Command("smbpasswd", "-c", filepath.Join(nas.Root, firmsim.SmbConf), "-s", "-a", "root")
	pw.Stdin = strings.NewReader("pw\npw\n")
	if out, err := pw.CombinedOutput(); err != nil {
		t.Fatalf("smbpasswd: %v: %s", err, out)
	}
	if err := nas.RunServices("start"); err != nil {
		t.Fatal(err)
	}
	if err := smbd.WaitListening(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	app := filepath.Join(nas.Root, firmsim.AppsDir, "userscript")
	confd = filepath.Join(app, "conf.d")
	os.MkdirAll(confd, 0o755)
	toml := fmt.Sprintf("profile = \"nas4220b\"\n[services.samba]\nports = [%d]\nprocess = \"\"\ntimeout = \"8s\"\n", smbd.Port)
	if err := os.WriteFile(filepath.Join(app, "userscript.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, err = firmsim.BuildEngine(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cmd := exec.Command(bin, "--root", nas.Root, "--app", app, "run", "--quiet", "100ms", "--max-wait", "1s")
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("engine:\n%s", log.String())
		}
	})
	return confd, fmt.Sprintf("smb://root:pw@127.0.0.1:%d/public", smbd.Port), bin
}

// The variants: writable opens [public] for writing, in a folder on a
// disk (not the tests' tmpfs: a sync must cost something). slow adds
// what makes Samba measurably slower there: SMB2 writes cut to 4 KiB
// (smb2 max write), so that each 4 KiB is a request the client waits
// for (go-smb2 has one write in flight): the server's time for a request
// is then of the order of the link's for its data, on any machine; a
// sync after every write (strict sync, sync always) and small socket
// buffers (SO_RCVBUF=4096 SO_SNDBUF=4096) add to it where the disk or
// the machine is slow. Those two alone were not enough: a small TCP
// window costs only where the round trip is long, and loopback has none
// on an idle machine (there B was 5 % slower, not conclusive, in one of
// two trials, 56 % in the other beside busy suites; the syncs alone
// 3-4 % on an idle disk). Writes cut to 64 KiB alone are not measurably
// slower (the transfer time of each request dominates), nor is log level
// 10.
func variants(t *testing.T) (writable, slow string) {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "userscript-ab-")
	if err != nil {
		t.Skipf("no disk folder for the share: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	writable = "[public]\n\tread only = no\n\tpath = " + dir + "\n"
	slow = writable + "\tstrict sync = yes\n\tsync always = yes\n[global]\n\tsmb2 max write = 4096\n\tsocket options = SO_RCVBUF=4096 SO_SNDBUF=4096\n"
	return writable, slow
}

func abFiles(t *testing.T, a, b string) [2]string {
	t.Helper()
	dir := t.TempDir()
	fa, fb := filepath.Join(dir, "a.merge"), filepath.Join(dir, "b.merge")
	os.WriteFile(fa, []byte(a), 0o644)
	os.WriteFile(fb, []byte(b), 0o644)
	return [2]string{fa, fb}
}

func abTrials(def int) int {
	if n, err := strconv.Atoi(os.Getenv("USERSCRIPT_AB_TRIALS")); err == nil && n > 0 {
		return n
	}
	return def
}

// bench ab against real smbd over a 100 Mbit/s link, with the engine
// applying conf.d for real: the variant with 4 KiB SMB2 writes, syncs and
// small socket buffers is called slower in every trial, each row carries its variant
// and the generation live, and the owner's original .merge is back at
// the end. Two identical files tie: over the trials (USERSCRIPT_AB_TRIALS,
// default 2) each test's verdict is "not conclusive" in at least 95 %
// of cases; the measured false-positive rate is logged.
func TestABShaped(t *testing.T) {
	t.Parallel() // minutes of real transfers: beside the sh tests, not after them
	if !inShapedNet(t) {
		return
	}
	confd, share, bin := abNAS(t)
	writable, slow := variants(t)
	original := writable + "\tcomment = the owner's own\n"
	if err := os.WriteFile(filepath.Join(confd, "smb.conf.merge"), []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); !readStatus(filepath.Join(confd, "smb.conf.status")).live(); {
		if time.Now().After(deadline) {
			t.Fatal("the owner's original was never applied")
		}
		time.Sleep(100 * time.Millisecond)
	}
	run := func(files [2]string, rounds int) (*ABResult, string) {
		var out bytes.Buffer
		ab := &AB{ConfD: confd, Name: "smb.conf.merge", Files: files, Rounds: rounds, Keep: KeepOriginal,
			Wait: time.Minute, Out: &out, Net: &Net{SMB: share, Size: 4 * MiB}}
		res, err := ab.Run(context.Background())
		if err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if got, _ := os.ReadFile(filepath.Join(confd, "smb.conf.merge")); string(got) != original {
			t.Fatalf("conf.d/smb.conf.merge at the end:\n%s\nwant the original", got)
		}
		return res, out.String()
	}
	slower := abFiles(t, writable, slow)
	if doc := os.Getenv("USERSCRIPT_AB_DOC"); doc != "" {
		abDocRun(t, bin, confd, share, slower, doc, writable, slow)
	}
	for trial := 1; trial <= 2; trial++ {
		res, out := run(slower, 8)
		gens := map[string]map[string]bool{"A": {}, "B": {}}
		for _, r := range res.Report.Results {
			gens[r.Variant][r.Generation] = true
		}
		for g := range gens["A"] {
			if gens["B"][g] || g == "" || g == "0" {
				t.Errorf("generation %q for both variants (or none): %v", g, gens)
			}
		}
		t.Logf("slower variant, trial %d:\n%s\n%s", trial, out, ABSummary(res.Rows))
		for _, r := range res.Rows {
			if r.Test == "SMBWrite" && r.Verdict != Slower {
				t.Errorf("trial %d: %s: %s (%s), want slower", trial, r.Test, r.Verdict, r.Why)
			}
		}
	}
	// A variant the NAS refuses ends the test with the status's reason;
	// the original is back.
	var out bytes.Buffer
	broken := &AB{ConfD: confd, Name: "smb.conf.merge", Files: abFiles(t, writable, "[public\n"), Rounds: 4, Keep: KeepB,
		Wait: time.Minute, Out: &out, Net: &Net{SMB: share, Size: MiB}}
	res, err := broken.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "round 1, variant B: smb.conf.status says REFUSED: ") || res.Kept != KeepOriginal {
		t.Errorf("a refused variant: %v (kept %s)\n%s", err, res.Kept, out.String())
	}
	if got, _ := os.ReadFile(filepath.Join(confd, "smb.conf.merge")); string(got) != original {
		t.Errorf("after a refused variant conf.d holds:\n%s", got)
	}

	same := abFiles(t, writable, writable)
	trials, verdicts, positives := abTrials(2), 0, 0
	for trial := 1; trial <= trials; trial++ {
		res, _ := run(same, 6)
		t.Logf("identical, trial %d:\n%s", trial, ABSummary(res.Rows))
		for _, r := range res.Rows {
			verdicts++
			if r.Verdict == Faster || r.Verdict == Slower {
				positives++
				t.Logf("identical, trial %d: %s %s (p = %.3f, %+.1f %%)", trial, r.Test, r.Verdict, r.P, r.Effect)
			}
		}
	}
	rate := float64(positives) / float64(verdicts)
	t.Logf("identical variants: %d of %d verdicts faster or slower: false-positive rate %.1f %% (%d trials of 6 rounds)", positives, verdicts, rate*100, trials)
	// Few trials cannot pin a rate down: fail when the count would be
	// rarer than 1 in 1000 were the true rate 5 %.
	if tail := binomialTail(verdicts, positives, 0.05); tail < 0.001 {
		t.Errorf("false-positive rate %.1f %%: incompatible with at most 5 %% (P = %.5f)", rate*100, tail)
	}
}

// abDocRun runs `userscript bench ab` itself, as an owner would, and
// keeps its output, CSV and chart in dir (docs/BENCH.md's example).
func abDocRun(t *testing.T, bin, confd, share string, files [2]string, dir, writable, slow string) {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "a.merge"), []byte(writable), 0o644)
	os.WriteFile(filepath.Join(dir, "b.merge"), []byte(slow), 0o644)
	cmd := exec.Command(bin, "bench", "ab", "--confd", confd, "--name", "smb.conf.merge", "--smb", share,
		"--rounds", "8", "--size", "8M", "--out", filepath.Join(dir, "ab.csv"), "--svg", filepath.Join(dir, "ab.svg"), files[0], files[1])
	out, err := cmd.CombinedOutput()
	os.WriteFile(filepath.Join(dir, "ab.out"), out, 0o644)
	if err != nil {
		t.Fatalf("bench ab: %v\n%s", err, out)
	}
}

// binomialTail is P(X >= k) for X ~ Binomial(n, p).
func binomialTail(n, k int, p float64) float64 {
	sum := 0.0
	for i := k; i <= n; i++ {
		c := 1.0
		for j := 0; j < i; j++ {
			c = c * float64(n-j) / float64(j+1)
		}
		sum += c * math.Pow(p, float64(i)) * math.Pow(1-p, float64(n-i))
	}
	return sum
}
