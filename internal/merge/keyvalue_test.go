package merge

import "testing"

func TestKeyValueMerge(t *testing.T) {
	runMerges(t, KeyValue, []mergeCase{{
		name: "a key is replaced in place, keeping its spacing",
		base: "# tuning\nnet.core.rmem_max = 131071\nvm.swappiness=60\n",
		frag: "net.core.rmem_max = 8738000\nvm.swappiness = 10\n",
		want: "# tuning\nnet.core.rmem_max = 8738000\nvm.swappiness=10\n",
	}, {
		name: "sysctl: / is . and a leading - does not count",
		base: "net/ipv4/tcp_sack = 0\n-net.ipv4.tcp_ecn = 2\n",
		frag: "net.ipv4.tcp_sack = 1\nnet/ipv4/tcp_ecn = 0\n",
		want: "net/ipv4/tcp_sack = 1\n-net.ipv4.tcp_ecn = 0\n",
	}, {
		name: "a new key uses the file's separator",
		base: "listen=YES\nanonymous_enable=NO\n\n# end\n",
		frag: "write_enable = YES\n",
		want: "listen=YES\nanonymous_enable=NO\nwrite_enable=YES\n\n# end\n",
	}, {
		name: "!key deletes; ; and # are comments",
		base: "; comment\na = 1\nb = 2\n# c = 3\n",
		frag: "!a\n; b stays\n",
		want: "; comment\nb = 2\n# c = 3\n",
	}, {
		name: "a key set twice in the file is changed twice",
		base: "a = 1\nb = 2\na = 3\n",
		frag: "a = 4\n",
		want: "a = 4\nb = 2\na = 4\n",
	}, {
		name: "lines that are not key = value are kept",
		base: "include /etc/x\na = 1\n",
		frag: "a = 2\n",
		want: "include /etc/x\na = 2\n",
	}})
}

func TestKeyValueFragmentErrors(t *testing.T) {
	runErrors(t, KeyValue, []errCase{
		{"no =", "net.core.rmem_max 8738000\n", `sysctl.conf.merge line 1: "net.core.rmem_max 8738000" is not key = value`},
		{"no key", "= 1\n", "line 1: a line starting with = names no key"},
		{"bare !", "# x\n!\n", "line 2: ! names nothing"},
		{"only a dash", "- = 1\n", `line 1: "-" names no key`},
	})
}

// TestKeyValueRealWorld merges the BananaPi values onto Debian's
// sysctl.conf, which holds only comments.
func TestKeyValueRealWorld(t *testing.T) {
	frag := "net.core.rmem_max = 8738000\nnet.ipv4.tcp_rmem = 8192 873800 8738000\nvm.min_free_kbytes=65536\n"
	got := mustMerge(t, KeyValue, readTestdata(t, "debian-sysctl.conf"), []byte(frag))
	golden(t, "debian-sysctl.conf.merged", got)
	// Uncommenting a line in the base is a different key line: the merge
	// changes it in place from then on.
	base := string(readTestdata(t, "debian-sysctl.conf")) + "vm.min_free_kbytes = 1024\n"
	got = mustMerge(t, KeyValue, []byte(base), []byte(frag))
	golden(t, "debian-sysctl.conf.merged2", got)
}
