package shmerge

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/merge"
)

// runSh runs script under sh with merge.sh sourced, set -u, in dir, and
// returns what it printed.
func runSh(t *testing.T, sh shell, dir, script string, args ...string) string {
	t.Helper()
	lib := libPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh.sh, append([]string{"-c", "set -u; . \"$0\"; " + script, lib}, args...)...)
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + sh.path, "LC_ALL=C", "ENGINE_DIR=" + filepath.Dir(lib)}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("BusyBox %s: %v\n%s", sh.name, err, out)
	}
	return string(out)
}

// TestFormat proves merge_format names what merge.FormatFor names, but
// for proftpd.conf and exports, which sh does not merge, and that
// merge_unsupported says what to do for every name it cannot merge and
// sets MERGE_FORMAT as merge_format does.
func TestFormat(t *testing.T) {
	names := []string{"smb.conf", "/system/hddapp/etc/samba/smb.conf", "SMB.CONF", "rsyncd.conf", "x.smb.conf",
		"smb.conf.local", "smb.conf.sh", `C:\etc\smb.conf`, "etc/smb.conf/", "proftpd.conf", "proftpd-tls.conf",
		"proftpd.conf.bak", "exports", "nas.exports", "EXPORTS", "sysctl.conf", "vsftpd.conf", "tuning.conf",
		"minidlna.conf", "hosts", "passwd", "fstab", "crontab", "resolv.conf", "S80samba.sh", "rc.local", "php.ini",
		"RC.LOCAL", "a.JSON", "", "/", ".", "dir/", "noext", ".htaccess", "x.tdb"}
	var script strings.Builder
	for i := range names {
		n := "${" + strconv.Itoa(i+1) + "}"
		script.WriteString(`merge_format "` + n + `" || echo "-"; f=$MERGE_FORMAT; merge_unsupported "` + n + `" nas4220b; ` +
			`echo "$REASON"; case $f in "$MERGE_FORMAT") ;; *) echo "merge_unsupported set MERGE_FORMAT=$MERGE_FORMAT" ;; esac` + "\n")
	}
	for _, sh := range shells(t) {
		got := strings.Split(runSh(t, sh, t.TempDir(), script.String(), names...), "\n")
		for i, name := range names {
			format, ok := merge.FormatFor(name)
			want, why := "-", ""
			switch {
			case ok && format == merge.Samba:
				want = "smb.conf"
			case ok && format == merge.KeyValue:
				want = "keyvalue"
			case ok:
				why = "conf.d/" + name + ".merge: this device's sh engine merges only smb.conf and key = value files: make " +
					name + " on a PC with userscript render --profile nas4220b --base " + name + ".from-nas " + name +
					".merge > " + name + " (see the README) and put it in conf.d/" + name + " instead"
			default:
				why = "conf.d/" + name + ".merge: " + name + " is not a key = value file userscript can merge into: put the whole file in conf.d/" + name
			}
			if got[2*i] != want || got[2*i+1] != why {
				t.Errorf("BusyBox %s: %q: merge_format %q, merge_unsupported %q; want %q, %q", sh.name, name, got[2*i], got[2*i+1], want, why)
			}
		}
	}
}

// TestCannotRead proves a base or fragment that cannot be read refuses
// the merge, names the file, and writes nothing.
func TestCannotRead(t *testing.T) {
	for _, sh := range shells(t) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "base"), "[global]\n")
		writeFile(t, filepath.Join(dir, "frag"), "[global]\nx = 1\n")
		got := runSh(t, sh, dir, `
merge_file smb.conf nobase frag f out; echo "$? $REASON"
merge_file keyvalue base nofrag f out; echo "$? $REASON"
merge_file ini base frag f out; echo "$? $REASON"
ls`)
		want := "1 nobase: cannot be read\n1 f: cannot be read\n1 unknown merge format \"ini\" (use smb.conf or keyvalue)\nbase\nfrag\n"
		if got != want {
			t.Errorf("BusyBox %s:\n%s\nwant\n%s", sh.name, got, want)
		}
	}
}

// TestCallerKept proves merge_file leaves the caller's shell as it was:
// IFS, noglob, positional parameters, and no variable but REASON,
// MERGE_WARNINGS, MERGE_FORMAT and those starting with _m.
func TestCallerKept(t *testing.T) {
	for _, sh := range shells(t) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "base"), "[global]\n\tx = 1\n[a]\n\tinclude = /b\n")
		writeFile(t, filepath.Join(dir, "frag"), "[global]\nx = 2\n!y\n[a]\ninclude = /c\n![b]\nbad line\n")
		writeFile(t, filepath.Join(dir, "good"), "[global]\nx = 2\n!y\n[a]\ninclude = /c\n![b]\n")
		got := runSh(t, sh, dir, `
set -- one "two words"
o=$-
set >before
IFS=:
merge_file smb.conf base good f out
merge_file smb.conf base frag f out2
merge_format x.conf >/dev/null
echo "$# $2|$o|$-|$IFS"
IFS=' 	
'
set >after`)
		if want := "2 two words|" + strings.Split(got, "|")[1] + "|" + strings.Split(got, "|")[1] + "|:\n"; got != want {
			t.Errorf("BusyBox %s: positional parameters, options or IFS changed: %q, want %q", sh.name, got, want)
		}
		before, after := varNames(readFile(t, filepath.Join(dir, "before"))), varNames(readFile(t, filepath.Join(dir, "after")))
		for _, v := range after {
			if !slices.Contains(before, v) && !strings.HasPrefix(v, "_m") && v != "REASON" && !strings.HasPrefix(v, "MERGE_") {
				t.Errorf("BusyBox %s: merge_file sets %s", sh.name, v)
			}
		}
	}
}

var setName = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=`)

// varNames are the names `set` lists; a value quoted over several
// lines is read whole (an odd number of ' leaves it open).
func varNames(set string) []string {
	var out []string
	open := false
	for _, l := range strings.Split(set, "\n") {
		if !open {
			if m := setName.FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			}
		}
		if strings.Count(l, "'")%2 == 1 {
			open = !open
		}
	}
	return out
}
