package merge

import "testing"

func TestExportsMerge(t *testing.T) {
	runMerges(t, Exports, []mergeCase{{
		name: "a path's line is replaced whole, all clients at once",
		base: "# exports\n/mnt/ide1/public\t192.168.178.0/255.255.255.0(ro)\n/srv *(ro)\n",
		frag: "/mnt/ide1/public 192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async) 10.0.0.5(ro)\n",
		want: "# exports\n/mnt/ide1/public\t192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async) 10.0.0.5(ro)\n/srv *(ro)\n",
	}, {
		name: "continuation lines are part of the line",
		base: "/srv \\\n  host1(rw) \\\n  host2(ro)\n/home *(ro)\n",
		frag: "/srv host3(rw)\n",
		want: "/srv host3(rw)\n/home *(ro)\n",
	}, {
		name: "quoted paths and \\040 escapes name the same path",
		base: "\"/mnt/my disk\" *(ro)\n/mnt/other\\040disk *(ro)\n",
		frag: "/mnt/my\\040disk *(rw)\n\"/mnt/other disk/\" 10.0.0.5(rw)\n",
		want: "\"/mnt/my disk\" *(rw)\n/mnt/other\\040disk 10.0.0.5(rw)\n",
	}, {
		name: "!/path deletes every line of that path",
		base: "/a *(ro)\n/b *(ro)\n/a/ host(rw)\n",
		frag: "!/a\n",
		want: "/b *(ro)\n",
	}, {
		name: "a new path is added at the end",
		base: "# /etc/exports\n\n/a *(ro)\n\n# end\n",
		frag: "/b 10.0.0.0/8(rw,sync,no_subtree_check)\n",
		want: "# /etc/exports\n\n/a *(ro)\n/b 10.0.0.0/8(rw,sync,no_subtree_check)\n\n# end\n",
	}, {
		name: "a file of comments gets new paths at its end",
		base: "# /etc/exports: the access control list\n# /srv/homes hostname1(rw)\n",
		frag: "/mnt/ide1/public 192.168.178.0/255.255.255.0(rw,async)\n",
		want: "# /etc/exports: the access control list\n# /srv/homes hostname1(rw)\n/mnt/ide1/public 192.168.178.0/255.255.255.0(rw,async)\n",
	}, {
		name: "a comment ending in a backslash does not continue",
		base: "# note \\\n/a *(ro)\n",
		frag: "/a *(rw)\n",
		want: "# note \\\n/a *(rw)\n",
	}})
}

func TestExportsFragmentErrors(t *testing.T) {
	runErrors(t, Exports, []errCase{
		{"no path", "mnt/a *(rw)\n", `exports.merge line 1: "mnt/a *(rw)" does not start with a path`},
		{"bare !", "!\n", "line 1: \"!\" does not start with a path"},
		{"empty quoted path", "\"\" *(rw)\n", `line 1: "\"\"" names no path`},
		{"continued at the end", "/a *(rw) \\\n", "line 1: the last line ends with \\"},
	})
}

func TestExportsRealWorld(t *testing.T) {
	frag := "/mnt/ide1/public 192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async) 10.0.0.5(ro)\n" +
		"/mnt/ide1/backup 192.168.178.10(rw,sync,no_subtree_check)\n"
	got := mustMerge(t, Exports, readTestdata(t, "debian-exports"), []byte(frag))
	golden(t, "debian-exports.merged", got)
	// Merged again onto its own result with a change and a removal.
	got = mustMerge(t, Exports, got, []byte("/mnt/ide1/public 10.0.0.5(ro)\n!/mnt/ide1/backup\n"))
	golden(t, "debian-exports.remerged", got)
}
