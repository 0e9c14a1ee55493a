package pkgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestGoBinaryUnderQemu proves the packaged Go engines run on their CPUs:
// armv7 under qemu-arm -cpu cortex-a7 and armv5 under -cpu arm926 answer
// `version` with the stamped version and apply a user's smb.conf on a
// simulated IB-NAS4220-B root.
func TestGoBinaryUnderQemu(t *testing.T) {
	for _, tc := range []struct{ target, cpu string }{
		{"armv7", "cortex-a7"},
		{"armv5", "arm926"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			need(t, "qemu-arm", "busybox")
			archive := dist(t, tc.target)
			n, err := firmsim.New(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := n.Install(archive); err != nil {
				t.Fatal(err)
			}
			app := n.AppDir("userscript")
			bin := filepath.Join(app, "bin", "userscript")

			out, err := exec.Command("qemu-arm", "-cpu", tc.cpu, bin, "version").CombinedOutput()
			if err != nil {
				t.Fatalf("version under -cpu %s: %v\n%s", tc.cpu, err, out)
			}
			// The archive is named userscript-VERSION-TARGET.tgz.
			version := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(archive), "userscript-"), "-"+tc.target+".tgz")
			if !strings.Contains(string(out), version) {
				t.Errorf("version says %q, want it to hold %q", out, version)
			}

			writeFile(t, filepath.Join(app, "conf.d", "smb.conf"), userSmbConf)
			cmd := exec.Command("qemu-arm", "-cpu", tc.cpu, bin,
				"--root", n.Root, "--app", app, "--profile", "nas4220b", "apply")
			cmd.Env = append(os.Environ(), "PATH="+n.Bin)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("apply under -cpu %s: %v\n%s", tc.cpu, err, out)
			}
			want := strings.ReplaceAll(userSmbConf, "\r\n", "\n")
			if got, _ := n.Live(firmsim.SmbConf); got != want {
				t.Errorf("live smb.conf:\n%q\nwant\n%q", got, want)
			}
			if got := n.Restarts(); !slices.Equal(got, []string{"S80samba.sh restart"}) {
				t.Errorf("restarts %q, want one S80samba.sh restart", got)
			}
		})
	}
}
