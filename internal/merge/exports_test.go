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

// TestExportsSeveralLines proves issue 12, fault 5: a path exported on
// several lines (one per client) is replaced by the merged line once,
// where its first line was, so exportfs sees no duplicated entries.
func TestExportsSeveralLines(t *testing.T) {
	runMerges(t, Exports, []mergeCase{{
		name: "the issue's repro: one line per Raspberry Pi",
		base: "# NFS root for the Pis\n/home/nfs/pi 192.168.1.11(rw,sync,no_subtree_check,no_root_squash)\n" +
			"/home/nfs/pi 192.168.1.12(rw,sync,no_subtree_check,no_root_squash)\n" +
			"/home/nfs/pi 192.168.1.13(rw,sync,no_subtree_check,no_root_squash)\n/srv/media *(ro)\n",
		frag: "/home/nfs/pi 192.168.1.0/24(rw,sync,no_subtree_check,no_root_squash)\n",
		want: "# NFS root for the Pis\n/home/nfs/pi 192.168.1.0/24(rw,sync,no_subtree_check,no_root_squash)\n/srv/media *(ro)\n",
	}, {
		name: "the lines between stay; spellings of the path count as one",
		base: "/srv/a h1(ro)\n# b\n/srv/b *(ro)\n\"/srv/a/\" h2(ro)\n",
		frag: "/srv/a h3(rw)\n",
		want: "/srv/a h3(rw)\n# b\n/srv/b *(ro)\n",
	}})
}

// TestExportsSeveralLinesExportfs proves with the real exportfs -ra
// that the merged file has no duplicated export entries.
func TestExportsSeveralLinesExportfs(t *testing.T) {
	base := "/tmp 192.168.1.11(rw,sync,no_subtree_check)\n/tmp 192.168.1.12(rw,sync,no_subtree_check)\n/tmp 192.168.1.13(ro,sync,no_subtree_check)\n"
	got := mustMerge(t, Exports, []byte(base), []byte("/tmp 192.168.1.11(rw,sync,no_subtree_check) 192.168.1.12(rw,sync,no_subtree_check)\n"))
	exportfsCheck(t, got)
}
