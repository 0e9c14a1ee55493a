package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/systest"
)

func TestMain(m *testing.M) {
	testscript.Main(counted{m}, map[string]func(){
		"userscript": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr, "test")) },
	})
}

// TestScripts runs the CLI end to end against a fake IB-NAS4220-B root
// whose rc.d scripts record their calls in $ROOT/restarts.log.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:   "testdata/scripts",
		Setup: setupNAS,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"treehash": cmdTreehash,
			"crlf":     cmdCRLF,
			"crlfonly": cmdCRLFOnly,
		},
		RequireExplicitExec: true,
		// [!need:TOOL] skip: a missing tool is counted in needtool's
		// summary (and fails under CI=true).
		Condition: func(cond string) (bool, error) {
			if tool, ok := strings.CutPrefix(cond, "need:"); ok {
				return needtool.Have(tool)
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// stub is a firmware rc.d script: it records its call and fails when
// ROOT/fail-NAME exists.
const stub = `#!/bin/sh
R=${0%/system/hddapp/etc/rc.d/*}
echo "${0##*/} $*" >> "$R/restarts.log"
if [ -e "$R/fail-${0##*/}" ]; then echo "${0##*/}: cannot start" >&2; exit 1; fi
exit 0
`

// setupNAS lays out $WORK/root like the device (the test seam: every device path under --root) and
// $WORK/app like an installed package with profile nas4220b.
func setupNAS(env *testscript.Env) error {
	root := filepath.Join(env.WorkDir, "root")
	app := filepath.Join(env.WorkDir, "app")
	files := map[string]string{
		"system/hddapp/etc/samba/smb.conf": "[global]\n\tworkgroup = WORKGROUP\n\n[public]\n\tpath = /mnt/ide1/public\n",
		"system/hddapp/etc/proftpd.conf":   "ServerName \"NAS\"\nPort 21\n",
		"etc/exports":                      "/mnt/ide1/public *(ro)\n",
	}
	for name, content := range files {
		if err := writeFile(filepath.Join(root, name), content, 0o644); err != nil {
			return err
		}
	}
	for _, s := range []string{"S80samba.sh", "S85nfs.sh", "S91proftpd.sh"} {
		if err := writeFile(filepath.Join(root, "system/hddapp/etc/rc.d", s), stub, 0o755); err != nil {
			return err
		}
	}
	if err := writeFile(filepath.Join(app, "userscript.toml"), "profile = \"nas4220b\"\n", 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(app, "conf.d"), 0o755); err != nil {
		return err
	}
	env.Setenv("USERSCRIPT_ROOT", root)
	env.Setenv("USERSCRIPT_APP", app)
	env.Setenv("ROOT", root)
	env.Setenv("APP", app)
	return nil
}

func writeFile(name, content string, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return systest.WriteFile(name, []byte(content), perm)
}

// cmdTreehash writes one line per file under DIR (path, mode, content
// hash) to FILE, so two trees can be compared with cmp.
func cmdTreehash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: treehash DIR FILE")
	}
	dir := ts.MkAbs(args[0])
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			sum = hex.EncodeToString(h[:8])
		}
		fmt.Fprintf(&b, "%s %s %s %d\n", rel, info.Mode(), sum, info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		ts.Fatalf("treehash: %v", err)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// cmdCRLF turns a file's line ends into CRLF, as Notepad saves them.
func cmdCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: crlf FILE")
	}
	name := ts.MkAbs(args[0])
	data, err := os.ReadFile(name)
	ts.Check(err)
	ts.Check(os.WriteFile(name, []byte(strings.ReplaceAll(string(data), "\n", "\r\n")), 0o644))
}

// cmdCRLFOnly checks that every line of a file ends in CRLF.
func cmdCRLFOnly(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: crlfonly FILE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	if len(data) == 0 || !strings.HasSuffix(string(data), "\r\n") || strings.Count(string(data), "\n") != strings.Count(string(data), "\r\n") {
		ts.Fatalf("%s is not CRLF text", args[0])
	}
}

// counted runs the tests with needtool's summary of the skips.
type counted struct{ m *testing.M }

func (c counted) Run() int { return needtool.Run(c.m) }
