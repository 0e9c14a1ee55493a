package statuspage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nas-userscript/userscript/internal/system"
)

// stampPast sets the page's time an hour back and returns it, so a
// rewrite shows.
func stampPast(t *testing.T, app string) time.Time {
	t.Helper()
	p := filepath.Join(app, "conf.d", File)
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, past, past); err != nil {
		t.Fatal(err)
	}
	return past
}

func modTime(t *testing.T, app string) time.Time {
	t.Helper()
	fi, err := os.Stat(filepath.Join(app, "conf.d", File))
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// TestIdleWritesNothing proves that both engines leave the page alone
// when what it shows did not change (an idle engine writes nothing to
// the data disk), and rewrite it when it did.
func TestIdleWritesNothing(t *testing.T) {
	f := fixtures[2] // refused
	t.Run("go", func(t *testing.T) {
		app := makeApp(t, f)
		goPage(t, app, "")
		past := stampPast(t, app)
		goPage(t, app, "")
		if !modTime(t, app).Equal(past) {
			t.Fatal("the page was rewritten though nothing it shows changed")
		}
		putStatus(t, app, "exports", okExports(1))
		goPage(t, app, "")
		if modTime(t, app).Equal(past) {
			t.Fatal("the page was not rewritten after a status file came")
		}
	})
	for _, bb := range shMatrix(t) {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			app := makeApp(t, f)
			shPage(t, bb, app)
			past := stampPast(t, app)
			shPage(t, bb, app)
			if !modTime(t, app).Equal(past) {
				t.Fatal("the page was rewritten though nothing it shows changed")
			}
			put(t, app, "conf.d/DISABLE", nil)
			if page := shPage(t, bb, app); !strings.Contains(string(page), "b-off") {
				t.Fatal("DISABLE appeared and the page does not say so")
			}
		})
	}
}

// TestNeverThroughALink: a link (or a folder) named STATUS.html is left
// alone, by both engines; nothing is written where it points.
func TestNeverThroughALink(t *testing.T) {
	f := fixtures[1] // ok
	mk := func(t *testing.T) (app, target string) {
		app = makeApp(t, f)
		target = filepath.Join(app, "elsewhere")
		put(t, app, "elsewhere", []byte("keep\n"))
		if err := os.Symlink(target, filepath.Join(app, "conf.d", File)); err != nil {
			t.Fatal(err)
		}
		return app, target
	}
	check := func(t *testing.T, app, target string) {
		if data, _ := os.ReadFile(target); string(data) != "keep\n" {
			t.Errorf("written through the link: %q", data)
		}
		if fi, err := os.Lstat(filepath.Join(app, "conf.d", File)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v", err)
		}
	}
	t.Run("go", func(t *testing.T) {
		app, target := mk(t)
		if err := Write(system.NewReal("/"), app, ""); err == nil {
			t.Error("no error for a link named STATUS.html")
		}
		check(t, app, target)
	})
	for _, bb := range shMatrix(t) {
		t.Run(bb.Tag, func(t *testing.T) {
			t.Parallel()
			app, target := mk(t)
			if out, err := shEngine(t, bb, app).CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			check(t, app, target)
		})
	}
}

// TestTemplatesComplete: every template exists in every language and
// every {{name}} in it is one Build fills (the sh engine would stop at
// an unset variable).
func TestTemplatesComplete(t *testing.T) {
	for _, n := range names {
		for _, lang := range Langs {
			tpl, ok := map[string]map[string]string{"en": en, "de": de}[lang][n]
			if !ok {
				t.Errorf("%s: no template %s", lang, n)
			}
			for _, m := range placeholder.FindAllStringSubmatch(tpl, -1) {
				if !strings.Contains(pageGo, `"`+m[1]+`"`) {
					t.Errorf("%s/%s: {{%s}} is never filled", lang, n, m[1])
				}
			}
		}
	}
	if len(en) != len(names) || len(de) != len(names) {
		t.Errorf("templates not in names: en %d, de %d, names %d", len(en), len(de), len(names))
	}
}

var pageGo = func() string {
	data, _ := os.ReadFile("page.go")
	return string(data)
}()
