package merge

import (
	"fmt"
	"testing"
)

// exportsOps are the operations on an exports file of the corpus, each
// proved on the parsed result and by exportfs -ra: a path's merged line
// replaces all its lines once, so exportfs finds no duplicated entries.
func exportsOps(f corpusFile) []op {
	ops := []op{{
		name:    "add a path",
		frag:    "/srv/corpus-new 10.9.0.0/16(ro,no_subtree_check)\n",
		touches: named(nil, nil, nil),
		check:   exportsWants(f, "/srv/corpus-new", 1),
	}, {
		name:    "delete a misspelt path",
		frag:    "!/srv/corpus-nosuch\n",
		touches: named(nil, nil, nil),
		warns:   "exports.merge line 1: !/srv/corpus-nosuch deletes nothing: the file has no /srv/corpus-nosuch",
		check:   exportsWants(f, "", 0),
	}}
	first, most := exportsPaths(f.text)
	if first == "" {
		return ops
	}
	return append(ops, op{
		name:    "replace the path with the most lines",
		frag:    most + " 192.168.1.0/24(rw,sync,no_subtree_check)\n",
		touches: named(nil, []string{most}, nil),
		check:   exportsWants(f, most, 1),
	}, op{
		name:    "replace a path written another way",
		frag:    fmt.Sprintf("%q 10.9.9.9(ro,no_subtree_check)\n", first+"/"),
		touches: named(nil, []string{first}, nil),
		check:   exportsWants(f, first, 1),
	}, op{
		name:    "delete a path",
		frag:    "!" + first + "\n",
		touches: named(nil, []string{first}, nil),
		check:   exportsWants(f, first, 0),
	})
}

// exportsPaths returns the first path of the file and the one on most
// lines.
func exportsPaths(text []byte) (first, most string) {
	count := map[string]int{}
	for _, e := range entriesOf(Exports, text) {
		if first == "" {
			first = e.name
		}
		if count[e.name]++; count[e.name] > count[most] {
			most = e.name
		}
	}
	return first, most
}

// exportsWants proves the result has n lines for path, then that
// exportfs -ra finds nothing wrong in it.
func exportsWants(f corpusFile, path string, n int) func(*testing.T, []byte) {
	return func(t *testing.T, got []byte) {
		if path != "" {
			have := 0
			for _, e := range entriesOf(Exports, got) {
				if e.name == path {
					have++
				}
			}
			if have != n {
				t.Errorf("%d lines for %s, want %d:\n%s", have, path, n, got)
			}
		}
		tool(t, "exportfs", "nfs-kernel-server")
		f.base.once.Do(func() { f.base.err = exportfsRun(t, f.text) })
		if f.base.err != "" {
			t.Skipf("exportfs -ra refuses the base on this host, so it cannot judge the result: %s", firstLine(f.base.err))
		}
		exportfsCheck(t, got)
	}
}
