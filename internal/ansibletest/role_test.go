package ansibletest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

var repoRoot, _ = filepath.Abs(filepath.Join("..", ".."))

func TestMain(m *testing.M) { needtool.Main(m) }

// offline is true when ansible-playbook runs without network (as root,
// with unshare): the role must not need any.
var offline = os.Geteuid() == 0 && needtool.Look("unshare") != ""

// goSettings makes the amd64 package (built for the bananapi profile)
// manage the simulated IcyBox's files, with a samba that counts as healthy
// as soon as its restart script succeeds (the rc.d scripts are stubs).
const goSettings = `profile = "nas4220b"

[services.samba]
process = ""
ports = []
`

const broken = "[global]\n\tworkgroup = BROKEN\n[public\n\tpath = /tmp\n"

// A box is one simulated NAS and its inventory entry.
type box struct {
	name string
	nas  *firmsim.NAS
	vars map[string]any
}

func (b *box) app() string { return b.nas.AppDir("userscript") }

// newBox lays out a stock IB-NAS4220-B with nothing installed; the role
// installs the package. Its commands run under BusyBox's ash with the
// sh engine's applets, testparm, and what the role adds to them (uname,
// tar and gunzip to unpack the package, as the firmware does, and the
// throughput tests' dd).
func newBox(t *testing.T, name, machine string) *box {
	t.Helper()
	n, err := firmsim.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if missing := n.AddTools("testparm"); len(missing) > 0 {
		t.Fatalf("not installed: %v", missing)
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"uname", "tar", "gunzip", "dd"} {
		if err := os.Symlink(bb, filepath.Join(n.Bin, a)); err != nil {
			t.Fatal(err)
		}
	}
	if machine != "" {
		// The CPU cannot be simulated: uname -m says what the device's
		// kernel says (armv4l on the IcyBox's FA526).
		os.Remove(filepath.Join(n.Bin, "uname"))
		if err := systest.WriteFile(filepath.Join(n.Bin, "uname"), []byte("#!/bin/sh\necho "+machine+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { n.Shutdown() })
	env := map[string]string{}
	for _, kv := range append(n.Environ(), "USERSCRIPT_POLL=1") {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	b := &box{name: name, nas: n, vars: map[string]any{
		"ansible_connection":       "local",
		"ansible_shell_executable": n.Shell,
		"userscript_app":           filepath.Join(n.Root, firmsim.AppsDir, "userscript"),
		"userscript_shell":         n.Shell,
		"userscript_environment":   env,
		"workgroup":                strings.ToUpper(name),
	}}
	return b
}

// A run is what one ansible-playbook run reported (its JSON callback).
type run struct {
	rc      int
	out     []byte
	Stats   map[string]map[string]int `json:"stats"`
	Results []struct {
		Task   string `json:"task"`
		Host   string `json:"host"`
		Result result `json:"result"`
	} `json:"results"`
}

type result struct {
	Changed bool              `json:"changed"`
	Failed  bool              `json:"failed"`
	Seconds float64           `json:"seconds"`
	Skipped bool              `json:"skipped"`
	Msg     string            `json:"msg"`
	Diff    []json.RawMessage `json:"diff"`
}

// task returns host's result of the task called name.
func (r *run) task(t *testing.T, name, host string) result {
	t.Helper()
	for _, res := range r.Results {
		if res.Task == name && res.Host == host {
			return res.Result
		}
	}
	t.Fatalf("no result of %q for %s in:\n%s", name, host, r.out)
	return result{}
}

// play runs contrib/ansible/site.yml against boxes with args (--check,
// --diff) and returns what it reported.
func play(t *testing.T, dir string, boxes []*box, args ...string) *run {
	t.Helper()
	hosts := map[string]any{}
	for _, b := range boxes {
		hosts[b.name] = b.vars
	}
	inv, _ := json.Marshal(map[string]any{"all": map[string]any{"children": map[string]any{
		"nas": map[string]any{"hosts": hosts, "vars": map[string]any{"userscript_dist": filepath.Join(dir, "dist")}},
	}}})
	invFile := filepath.Join(dir, "inventory.json")
	if err := os.WriteFile(invFile, inv, 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	argv := append([]string{"ansible-playbook", "-i", invFile, filepath.Join(repoRoot, "contrib", "ansible", "site.yml")}, args...)
	if offline {
		// A network namespace of its own: no network but a loopback
		// that is down, so a run that reaches for the network fails.
		argv = append([]string{"unshare", "--net"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(),
		"HOME="+home,
		"ANSIBLE_CONFIG="+filepath.Join(dir, "none.cfg"),
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(home, "local"),
		"ANSIBLE_REMOTE_TEMP="+filepath.Join(home, "remote"),
		"ANSIBLE_COLLECTIONS_PATH="+filepath.Join(home, "collections"),
		"ANSIBLE_STDOUT_CALLBACK=results_json",
		"ANSIBLE_CALLBACK_PLUGINS="+filepath.Join(repoRoot, "internal", "ansibletest", "testdata", "callback"),
		"ANSIBLE_RETRY_FILES_ENABLED=false",
		"ANSIBLE_NOCOLOR=true",
		"ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3",
	)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	t.Logf("ansible-playbook %s: %.1f s", strings.Join(args, " "), time.Since(start).Seconds())
	r := &run{out: out}
	if ee, ok := err.(*exec.ExitError); ok {
		r.rc = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ansible-playbook: %v\n%s", err, stderr.Bytes())
	}
	if err := json.Unmarshal(out, r); err != nil {
		t.Fatalf("ansible-playbook (exit %d) printed no JSON: %v\n%s\n%s", r.rc, err, out, stderr.Bytes())
	}
	for _, res := range r.Results {
		t.Logf("  %s %s: %.1f s", res.Host, res.Task, res.Result.Seconds)
	}
	return r
}

// makeDist builds the armv4 and amd64 packages into dir/dist.
func makeDist(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("make", "-s", "dist", "DIST="+filepath.Join(dir, "dist"), "TARGETS=armv4 amd64", "CLI_TARGETS=")
	cmd.Dir = repoRoot
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	}
	t.Logf("make dist: %.1f s", time.Since(start).Seconds())
}

func live(t *testing.T, b *box) string {
	t.Helper()
	s, err := b.nas.Live(firmsim.SmbConf)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func stats(r *run, host string) string {
	s := r.Stats[host]
	return fmt.Sprintf("ok=%d changed=%d failed=%d", s["ok"], s["changed"], s["failures"])
}
