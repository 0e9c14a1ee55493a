package shmerge

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fragNames are how the cases name their fragments: as apply does, as
// render does, and one with a space.
var fragNames = []string{"conf.d/smb.conf.merge", "f.merge", "my frag/x.merge"}

// TestGoInputs runs the inputs of every Go merge test, each as smb.conf
// and as key = value, and each result merged again.
func TestGoInputs(t *testing.T) {
	var cases []mergeCase
	for i, p := range goTestInputs(t) {
		for _, format := range []string{"smb.conf", "keyvalue"} {
			cases = append(cases, mergeCase{
				name: fmt.Sprintf("Go test input %d as %s", i, format), format: format,
				base: p.base, frag: p.frag, fragName: fragNames[i%len(fragNames)],
			})
		}
	}
	compare(t, again(cases))
}

// TestCorpus runs every file of the merge corpus that sh merges through
// every operation, and each result merged again.
func TestCorpus(t *testing.T) {
	var cases []mergeCase
	for _, f := range corpusFiles(t) {
		for i, frag := range opsFor(f) {
			cases = append(cases, mergeCase{
				name: fmt.Sprintf("%s, operation %d", f.name, i+1), format: f.format,
				base: f.text, frag: frag, fragName: "conf.d/" + f.name + ".merge",
			})
		}
	}
	compare(t, again(cases))
}

// A corpusFile is a base file of the merge corpus.
type corpusFile struct{ name, format, text string }

// corpusFiles are the smb.conf and key = value files of internal/merge's
// testdata, and a few key = value files of NAS tuning.
func corpusFiles(t *testing.T) []corpusFile {
	t.Helper()
	td := filepath.Join("..", "merge", "testdata")
	names, err := filepath.Glob(filepath.Join(td, "corpus", "samba", "*.smb.conf*"))
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, filepath.Join(td, "debian-smb.conf"), filepath.Join(td, "firmware-smb.conf"))
	var out []corpusFile
	for _, n := range names {
		out = append(out, corpusFile{filepath.Base(n), "smb.conf", readFile(t, n)})
	}
	out = append(out, corpusFile{"debian-sysctl.conf", "keyvalue", readFile(t, filepath.Join(td, "debian-sysctl.conf"))})
	for name, text := range keyValueBases {
		out = append(out, corpusFile{name, "keyvalue", text})
	}
	return out
}

// keyValueBases are key = value files as NAS firmware and owners write
// them.
var keyValueBases = map[string]string{
	"vsftpd.conf":   "listen=YES\nanonymous_enable=NO\nlocal_enable=YES\n#write_enable=YES\n\n# end\n",
	"sysctl.conf":   "# tuning\nnet.core.rmem_max = 131071\n-net.ipv4.tcp_ecn = 2\nnet/ipv4/tcp_sack = 0\n\tvm.swappiness=60\n; old\n",
	"tuning.conf":   "readahead = 256\n  nr_requests\t=\t128\ninclude /etc/more\nscheduler =\n",
	"minidlna.conf": "media_dir=/mnt/ide1/public\nfriendly_name=NAS\ninotify=yes",
}

var sectionLine = regexp.MustCompile(`(?m)^[ \t]*\[([^\]\n]*)\]`)

// opsFor are the fragments each file goes through: set, add, delete and
// replace keys and sections, the synonyms, includes, and misspellings.
func opsFor(f corpusFile) []string {
	if f.format == "keyvalue" {
		return []string{
			"net.core.rmem_max = 8738000\nvm.swappiness=10\n",
			"!anonymous_enable\n!nosuchkey\nwrite_enable = YES\n",
			"net/ipv4/tcp_sack = 1\n-net.ipv4.tcp_ecn = 0\n! readahead = 256\nfriendly_name = My NAS\n",
			"!listen\nlisten = NO\nscheduler = deadline\n# a comment\n\n",
		}
	}
	ops := []string{
		"[global]\nworkgroup = CORPUS\n",
		"[global]\nsocket options = TCP_NODELAY\nhide dot files = no\n",
		"[corpus-new]\npath = /tmp\nread only = no\nguest ok = yes\ncomment = added by the corpus\n",
		"![corpus-nosuchshare]\n",
		"[global]\n   getwd cache = yes\n   dead time = 5\n   log level = 1\n   use sendfile = yes\n   !write cache size\n" +
			"[media]\n   path = /mnt/ide1/media\n   read only = no\n![printers]\n",
		"[global]\ninclude = /etc/samba/extra.conf\n!include = /nonexistent.conf\n!nosuch key\n",
		"[Global]\n!load printers\nload printers = no\nprinting = bsd\n[globals]\nserver string = x\n",
	}
	var shares []string
	seen := map[string]bool{}
	for _, m := range sectionLine.FindAllStringSubmatch(f.text, -1) {
		id := strings.ToLower(strings.Join(strings.Fields(m[1]), ""))
		if id != "global" && id != "globals" && !seen[strings.ToLower(m[1])] {
			seen[strings.ToLower(m[1])] = true
			shares = append(shares, m[1])
		}
	}
	if len(shares) == 0 {
		return ops
	}
	s := shares[0]
	var every strings.Builder
	for _, sh := range shares {
		fmt.Fprintf(&every, "[%s]\nbrowseable = no\n", sh)
	}
	return append(ops,
		"["+s+"]\nread only = yes\n",
		"["+s+"]\nwritable = yes\n",
		every.String(),
		"!["+s+"]\n",
		"!["+s+"]\n["+s+"]\npath = /tmp\ncomment = replaced by the corpus\n",
		"["+strings.ToUpper(s)+"]\n!path\n!directory\n!nosuch\ninclude = /etc/samba/"+s+".conf\n",
		"["+s+"]\n!browsable\nbrowseable = yes\ncreate mode = 0644\n[nosuch]\n!path\n",
	)
}

// TestRandom runs random bases and fragments of both formats (more with
// USERSCRIPT_SHMERGE_CASES=N).
func TestRandom(t *testing.T) {
	n := 150
	if v, err := fmt.Sscan(os.Getenv("USERSCRIPT_SHMERGE_CASES"), &n); v != 1 || err != nil {
		n = 150
	}
	g := newGen(uint64(n))
	var cases []mergeCase
	for i := range n {
		cases = append(cases, g.sambaCase(i), g.keyValueCase(i))
	}
	compare(t, again(cases))
}

// TestEdges are cases written for what random ones rarely reach: node
// numbers of two digits, names that look like the sh's own markers.
func TestEdges(t *testing.T) {
	many := strings.Repeat("k = v\n# c\n", 6)
	var cases []mergeCase
	for i, c := range [][3]string{
		{"keyvalue", many + "a = 1\nb = 2\na = 3\na = 4\n", "a = 5\n"},
		{"keyvalue", "x = 1\n", "x = 2\n1abc = 3\n"},
		{"keyvalue", "x = 1\n", "10 = 3\n"},
		{"keyvalue", many + "1include = 1\n", "1include = 2\n!1include\n1include = 3\n"},
		{"smb.conf", "[a]\n\tinclude = /x\n" + many, "[a]\na:1 = 2\nb1 = 3\ninclude = /y\n"},
		{"smb.conf", "[a]\n" + many + "\tx = 1\n\tx = 2\n\tinclude = /i\n", "[a]\nx = 3\nz:9 = 1\n"},
		{"smb.conf", "[a]\n\tx = 1\n", "[a]\n1 = 2\n[1]\n"},
		{"smb.conf", "[x]\n\ta:b = 1\n  c = 2\n[y]\n", "[new]\nk = v\n"},
		{"smb.conf", "[x]\n  a:sb = 1\n\ta:c = 1\n \tx:b = 2\n", "[x]\nnew = 1\n"},
	} {
		cases = append(cases, mergeCase{name: fmt.Sprintf("edge %d", i), format: c[0], base: c[1], frag: c[2], fragName: "f.merge"})
	}
	compare(t, again(cases))
}
