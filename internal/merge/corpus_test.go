package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The corpus (testdata/corpus, see testdata/README.md) is real-world
// configuration files: those Debian installs, and files written for it
// in the shapes found on NAS firmware and in public projects. Every
// file goes through every merge operation; each result is proved by the
// real daemon's checker (testparm, proftpd -t, exportfs -ra) and, where
// the checker can say it, that the daemon reads what the fragment says.

// A corpusFile is one base file of the corpus.
type corpusFile struct {
	name, format string
	text         []byte
	base         *baseVerdict // what the checker says of the base, run once
}

// A baseVerdict is what a checker says of a base file.
type baseVerdict struct {
	once  sync.Once
	samba sambaDump
	err   string // proftpd -t or exportfs refuses the base on this host
}

// An op is one merge operation on a corpus file.
type op struct {
	name string
	frag string
	// touches reports whether the fragment names the line (place, name)
	// of the base: every other line must stay as it was.
	touches func(place, name string) bool
	// refused, when set, is what the refusal must say.
	refused []string
	// warns, when set, is what the one warning must say.
	warns string
	// check proves the result; it may run the daemon's checker.
	check func(t *testing.T, got []byte)
}

// TestCorpus runs every operation on every file of the corpus.
func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	ops := 0
	for _, f := range files {
		var list []op
		switch f.format {
		case Samba:
			list = sambaOps(f)
		case ProFTPD:
			list = proftpdOps(f)
		case Exports:
			list = exportsOps(f)
		}
		ops += len(list)
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			for _, o := range list {
				t.Run(o.name, func(t *testing.T) { runOp(t, f, o) })
			}
		})
	}
	t.Logf("corpus: %d files, %d operations", len(files), ops)
}

// runOp merges o's fragment onto f and proves what every merge must
// hold, then o's own check.
func runOp(t *testing.T, f corpusFile, o op) {
	got, warnings, err := MergeWarn(f.format, f.text, []byte(o.frag), fragName[f.format])
	if o.refused != nil {
		if err == nil {
			t.Fatalf("merged instead of refusing:\n%s", o.frag)
		}
		for _, w := range o.refused {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("refusal %q does not say %q", err, w)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("merge: %v\n%s", err, o.frag)
	}
	switch {
	case o.warns == "" && len(warnings) > 0:
		t.Errorf("warnings %q", warnings)
	case o.warns != "" && (len(warnings) != 1 || !strings.Contains(warnings[0], o.warns)):
		t.Errorf("warnings %q, want one saying %q", warnings, o.warns)
	}
	again, err := Merge(f.format, got, []byte(o.frag), fragName[f.format])
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("merging again changes the result (%v):\n%s", err, again)
	}
	if o.touches != nil {
		keptLines(t, f, got, o.touches)
	}
	if o.check != nil {
		o.check(t, got)
	}
}

// keptLines proves that every line of the base the fragment does not
// name is in the result, unchanged and in its order.
func keptLines(t *testing.T, f corpusFile, got []byte, touches func(place, name string) bool) {
	t.Helper()
	var want []string
	for _, e := range entriesOf(f.format, f.text) {
		if !touches(e.place, e.name) {
			want = append(want, e.raw)
		}
	}
	have := entriesOf(f.format, got)
	i := 0
	for _, e := range have {
		if i < len(want) && e.raw == want[i] {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("a line the fragment does not name is gone or changed: %q\n%s", want[i], got)
	}
}

// An entryRef is a line of a file: where it is (the identities of the
// blocks around it, joined by "/"), its name as compared and its text.
type entryRef struct {
	place, name, raw string
}

func entriesOf(format string, text []byte) []entryRef {
	syn, _ := syntaxFor(format)
	var out []entryRef
	visit(syn.parse(string(text)), func(n *node, path []*node, _ int) {
		if n.kind != entry {
			return
		}
		ids := make([]string, len(path))
		for i, b := range path {
			ids[i] = b.id
		}
		out = append(out, entryRef{place: strings.Join(ids, "/"), name: n.name, raw: n.raw})
	})
	return out
}

// corpusFiles reads testdata/corpus/{samba,proftpd,exports} and the
// real-world files at the top of testdata. "@CORPUS@" in a file stands
// for the folder it is in (for the files it includes).
func corpusFiles(t *testing.T) []corpusFile {
	t.Helper()
	files := []corpusFile{
		{name: "debian-smb.conf", format: Samba, text: readTestdata(t, "debian-smb.conf")},
		{name: "firmware-smb.conf", format: Samba, text: readTestdata(t, "firmware-smb.conf")},
		{name: "proftpd-standalone.conf", format: ProFTPD, text: readTestdata(t, "proftpd-standalone.conf")},
		{name: "firmware-proftpd.conf", format: ProFTPD, text: readTestdata(t, "firmware-proftpd.conf")},
		{name: "debian-exports", format: Exports, text: readTestdata(t, "debian-exports")},
	}
	for _, dir := range []struct{ dir, format string }{{"samba", Samba}, {"proftpd", ProFTPD}, {"exports", Exports}} {
		abs, err := filepath.Abs(filepath.Join("testdata", "corpus", dir.dir))
		if err != nil {
			t.Fatal(err)
		}
		names, err := os.ReadDir(abs)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if strings.HasSuffix(n.Name(), ".inc") {
				continue // included by a file of the corpus
			}
			text, err := os.ReadFile(filepath.Join(abs, n.Name()))
			if err != nil {
				t.Fatal(err)
			}
			text = bytes.ReplaceAll(text, []byte("@CORPUS@"), []byte(abs))
			files = append(files, corpusFile{name: dir.dir + "/" + n.Name(), format: dir.format, text: text})
		}
	}
	for i := range files {
		files[i].base = &baseVerdict{}
	}
	return files
}

// named is a touches func for fragments that name keys (by name as
// compared) in places, and whole blocks.
func named(places []string, names []string, blocks []string) func(place, name string) bool {
	return func(place, name string) bool {
		for _, b := range blocks {
			if place == b || strings.HasPrefix(place, b+"/") {
				return true
			}
		}
		return (places == nil || slices.Contains(places, place)) && slices.Contains(names, name)
	}
}
