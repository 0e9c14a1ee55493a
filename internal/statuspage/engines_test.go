package statuspage

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nas-userscript/userscript/internal/firmsim"
	"github.com/nas-userscript/userscript/internal/needtool"
	"github.com/nas-userscript/userscript/internal/system"
)

func TestMain(m *testing.M) { needtool.Main(m) }

// makeApp builds the fixture in a new app dir and returns it.
func makeApp(t *testing.T, f fixture) string {
	t.Helper()
	app := filepath.Join(t.TempDir(), "app")
	for _, d := range []string{"conf.d", "state"} {
		if err := os.MkdirAll(filepath.Join(app, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if f.lang != "" {
		put(t, app, "userscript.toml", []byte("language = \""+f.lang+"\"\n"))
	}
	f.build(t, app)
	return app
}

// goPage writes the page with the Go engine's package and returns it.
func goPage(t *testing.T, app, lang string) []byte {
	t.Helper()
	if err := Write(system.NewReal("/"), app, lang); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(app, "conf.d", File))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// shMatrix is the BusyBox builds the sh page is held to: Debian's and
// 1.00, the oldest (the page's code has no branch for a version).
func shMatrix(t *testing.T) []firmsim.BusyBox {
	needtool.Tool(t, "busybox")
	bbs, missing := firmsim.BusyBoxes()
	var out []firmsim.BusyBox
	for _, bb := range bbs {
		if bb.Tag == "debian" || bb.Tag == "1_00" {
			out = append(out, bb)
		}
	}
	if why, ok := missing["1_00"]; ok {
		needtool.Optional(t, why, firmsim.OldBusyBoxRequired())
	}
	return out
}

// shEngine installs package/lib into app/lib and returns the command
// that runs `engine.sh page` under bb with only the allowed applets.
func shEngine(t *testing.T, bb firmsim.BusyBox, app string) *exec.Cmd {
	t.Helper()
	lib := filepath.Join(app, "lib")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "package", "lib", "*.sh"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib, filepath.Base(f)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path, shell, err := firmsim.AppletsOf(bb.Path, filepath.Join(t.TempDir(), "bin"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shell, filepath.Join(lib, "engine.sh"), "page")
	cmd.Env = []string{"PATH=" + path, "USERSCRIPT_APP=" + app, "USERSCRIPT_ROOT=" + filepath.Join(app, "root")}
	return cmd
}

func shPage(t *testing.T, bb firmsim.BusyBox, app string) []byte {
	t.Helper()
	out, err := shEngine(t, bb, app).CombinedOutput()
	if err != nil {
		t.Fatalf("engine.sh page: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(app, "conf.d", File))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return data
}

// TestEnginesAgree proves that for the same files on disk the sh engine
// writes the page the Go engine writes, byte for byte, in every state
// (the hostile conf.d too), under Debian's BusyBox and BusyBox 1.00.
func TestEnginesAgree(t *testing.T) {
	for _, bb := range shMatrix(t) {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			for _, f := range fixtures {
				t.Run(f.name, func(t *testing.T) {
					app := makeApp(t, f)
					want := goPage(t, app, f.lang)
					os.Remove(filepath.Join(app, "conf.d", File))
					got := shPage(t, bb, app)
					if !bytes.Equal(got, want) {
						t.Errorf("the sh engine's page differs from the Go engine's:\n%s", firstDiff(got, want))
					}
				})
			}
		})
	}
}

// firstDiff shows where a and b part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return "sh: ..." + string(a[from:min(len(a), i+200)]) + "\n\ngo: ..." + string(b[from:min(len(b), i+200)])
}
