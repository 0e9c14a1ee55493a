package scenario

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/systest"
)

// eachBusyBox runs f for every BusyBox of the matrix, in parallel (and
// in parallel with the package's other tests: an old BusyBox run
// emulated takes a minute, and the Debian one beside it seconds); a
// missing one is a visible skip (a failure under CI=true).
func eachBusyBox(t *testing.T, f func(t *testing.T, bb string)) {
	t.Parallel()
	firmsim.EachBusyBox(t, f)
}

// Defect 8: `grep -i -F` is case-sensitive in BusyBox up to 1.10. A
// validator warning that names a parameter in other case than the
// file's line (Samba 3 prints some names canonically) must still be put
// on that line, under every BusyBox: the sh engine lowers both sides
// instead of trusting -i.
func TestShWarningLineAnyCase(t *testing.T) {
	eachBusyBox(t, func(t *testing.T, bb string) {
		w := shWorldWith(t, bb)
		host := hostBusyBox(t)
		fake := fmt.Sprintf("#!%s sh\necho 'Unknown parameter encountered: \"lpq cache\"' >&2\nexit 0\n", host)
		if err := systest.WriteFile(filepath.Join(w.Bin, "testparm"), []byte(fake), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "[global]\n\tworkgroup = MINE\n\tLPQ Cache = 30\n"
		if err := os.WriteFile(filepath.Join(w.App, "conf.d", "smb.conf"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, err := ShEngine{}.Apply(w)
		if err != nil || code != 0 {
			t.Fatalf("apply: exit %d, %v\n%s", code, err, out)
		}
		text, err := w.statusText("smb.conf")
		if err != nil {
			t.Fatal(err)
		}
		want := "warning: line 3: Unknown parameter encountered: \"lpq cache\"\r\n"
		if !strings.Contains(text, want) {
			t.Errorf("conf.d/smb.conf.status has no %q:\n%s", want, text)
		}
	})
}

// hostBusyBox is Debian's busybox, to run the test's own fake tools.
func hostBusyBox(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("busybox not found")
	}
	return p
}
