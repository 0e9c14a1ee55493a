package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
)

// TestDoctorShareAgrees holds the sh engine's doctor to the Go engine's
// on who can write conf.d through the live smb.conf (docs/FORMATS.md,
// "DOCTOR.txt"): the same finding, word for word, for shares that let
// guests write, that any user or only a write list may write, that are
// read-only or switched off, defaults from [global], Samba's synonyms,
// continuation lines, the longest path winning and paths with %
// skipped. Under every BusyBox of the matrix.
func TestDoctorShareAgrees(t *testing.T) {
	t.Parallel()
	needTool(t, "busybox")
	if goBuildErr != nil {
		t.Fatal(goBuildErr)
	}
	cases := map[string]string{
		"guests":        "[public]\n\tpath = PARENT\n\tread only = no\n\tguest ok = yes\n",
		"users":         "[public]\n\tpath = PARENT/\n\twritable = yes\n\tpublic = no\n",
		"write list":    "[public]\n\tpath = PARENT\n\twrite list = admin, @staff\n",
		"guest listed":  "[public]\n\tpath = PARENT\n\tguest ok = yes\n\twrite list = +nobody\n",
		"switched off":  "[public]\n\tpath = PARENT\n\tavailable = no\n\tread only = no\n",
		"global":        "[global]\n\tguest ok = yes\n[public]\n\tpath = PARENT\n\twriteable = yes\n",
		"read-only":     "[public]\n\tpath = PARENT\n\tguest ok = yes\n",
		"none":          "[public]\n\tpath = /elsewhere\n\tread only = no\n",
		"longest":       "[all]\n\tpath = /\n\tread only = no\n\tguest ok = yes\n[apps]\n\tpath = PARENT\n\tread only = yes\n[home]\n\tpath = %H\n",
		"continuation":  "[public]\n\tpath = PARENT\n\tread only = \\\n\t\tno\n\tguest ok = yes\n",
		"last one wins": "[public]\n\tpath = PARENT\n\tread only = no\n\tread only = yes\n",
	}
	wants := map[string]string{
		"guests": "GUESTS CAN WRITE IT (guest ok = yes, read only = no)", "users": "every user the share lets in can write it",
		"write list":   "the users of its write list can write it (guest ok = no, read only = yes, write list = admin, @staff)",
		"guest listed": "GUESTS CAN WRITE IT", "switched off": "the share is switched off", "global": "GUESTS CAN WRITE IT",
		"read-only": "read-only over the network", "none": "no share of the live smb.conf holds the app folder",
		"longest": "the share [apps]", "continuation": "GUESTS CAN WRITE IT", "last one wins": "read-only over the network",
	}
	bbs, _ := firmsim.BusyBoxes()
	for _, bb := range bbs {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			for name, conf := range cases {
				w := shWorldWith(t, bb.Path)
				conf = strings.ReplaceAll(conf, "PARENT", filepath.Dir(w.App))
				smb := filepath.Join(w.Root, "system", "hddapp", "etc", "samba", "smb.conf")
				if err := os.WriteFile(smb, []byte("[global]\n\tworkgroup = W\n"+conf), 0o644); err != nil {
					t.Fatal(err)
				}
				_, sh, err := run(w, w.Shell, filepath.Join(w.App, "lib", "engine.sh"), "doctor")
				if err != nil {
					t.Fatal(err)
				}
				_, goOut, err := run(w, goBin, "--root", w.Root, "--app", w.App, "--profile", w.Profile.Name, "doctor")
				if err != nil {
					t.Fatal(err)
				}
				if got, want := shareLine(sh), shareLine(goOut); got != want || !strings.Contains(want, wants[name]) {
					t.Errorf("%s: who can write conf.d:\n  sh: %s\n  go: %s", name, got, want)
				}
			}
		})
	}
}

// shareLine is the first line under "who can write conf.d:".
func shareLine(report string) string {
	_, after, ok := strings.Cut(report, "who can write conf.d:\n")
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(after, "\n")
	return strings.TrimSpace(line)
}
