package shwords

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/source"
)

func TestMain(m *testing.M) { needtool.Main(m) }

var update = flag.Bool("update", false, "write package/lib/words.sh")

var committed = filepath.Join("..", "..", "package", "lib", "words.sh")

// TestCommitted proves that package/lib/words.sh is what the Go
// definitions give: a name added to the reserved names or a status word
// in Go fails here until the file is written again (-update).
func TestCommitted(t *testing.T) {
	want := Render()
	if *update {
		if err := os.WriteFile(committed, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is stale: run go test ./internal/shwords -update", committed)
	}
}

// TestShAgrees proves that the generated functions say what the Go
// functions say, name by name, in any case, under BusyBox ash.
func TestShAgrees(t *testing.T) {
	bb := needtool.Tool(t, "busybox")[0]
	names := []string{"DISABLE", "disable.TXT", "Disable.txt", "SAFE-MODE", "safe-mode", "Doctor.Txt", "DOCTOR.txt",
		"Thumbs.db", "THUMBS.DB", "ehthumbs.db", "Desktop.ini", "smb.conf", "DISABLED", "disable.txt.bak", "SAFE_MODE", "thumbs.db2",
		"DISABLE.txt.txt", "disable.TXT.txt", "smb.conf.bak", "SMB.CONF.OLD", "exports.Orig", "smb.conf.bak.txt", "smb.conf.bak2", "smb.conf.txt", "bak", "old.txt"}
	script := string(Render()) + `
for n in "$@"; do
	r=; reserved "$n" && r=r
	d=; is_disable "$n" && d=d
	s=; is_safe_mode "$n" && s=s
	x=; dropping "$n" && x=x
	b=; backup "$n" && b=b
	echo "$n:$r$d$s$x$b"
done
`
	args := append([]string{"sh", "-c", script, "sh"}, names...)
	out, err := exec.Command(bb, args...).Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	for i, n := range names {
		want := n + ":"
		if source.Reserved(n) {
			want += "r"
		}
		if source.IsDisable(n) {
			want += "d"
		}
		if strings.EqualFold(n, source.SafeMode) {
			want += "s"
		}
		if source.Ignored(n) && !source.Reserved(n) && !source.Backup(n) && !strings.HasPrefix(n, ".") {
			want += "x"
		}
		if source.Backup(n) {
			want += "b"
		}
		if i >= len(lines) || lines[i] != want {
			t.Errorf("sh says %q, Go %q", lines[min(i, len(lines)-1)], want)
		}
	}
}
