package merge

import (
	"bytes"
	"strings"
	"testing"
)

// fuzzMerge proves, for any base and fragment: parsing is lossless
// (render(parse(x)) == x, for the base and for the fragment read as a
// file), a refused fragment is refused with its name and line, merging
// twice is merging once, and Explain reports exactly the entries of the
// merged file, at their lines.
func fuzzMerge(f *testing.F, format string, seeds ...[2]string) {
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	syn, err := syntaxFor(format)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, base, frag []byte) {
		for _, text := range [][]byte{base, frag} {
			if got := render(syn.parse(string(text))); got != string(text) {
				t.Fatalf("render(parse(x)) != x\nx   %q\ngot %q", text, got)
			}
		}
		once, err := Merge(format, base, frag, "f.merge")
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.merge line ") {
					t.Fatalf("an error that names no fragment line: %q", line)
				}
			}
			return
		}
		twice, err := Merge(format, once, frag, "f.merge")
		if err != nil {
			t.Fatalf("second merge: %v", err)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("merging twice differs from merging once\nbase  %q\nfrag  %q\nonce  %q\ntwice %q", base, frag, once, twice)
		}
		origins, _, err := Explain(format, []Layer{{Kind: KindBase, Data: base}, {Name: "f.merge", Kind: KindMerge, Data: frag}})
		if err != nil {
			t.Fatalf("explain: %v", err)
		}
		var want []int
		visit(syn.parse(string(once)), func(n *node, _ []*node, line int) {
			if n.kind == entry {
				want = append(want, line)
			}
		})
		got := make([]int, len(origins))
		for i, o := range origins {
			got[i] = o.Line
		}
		if !slicesEqual(got, want) {
			t.Fatalf("explain reports lines %v, the merged file has entries at %v\n%q", got, want, once)
		}
	})
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func FuzzSamba(f *testing.F) {
	fuzzMerge(f, Samba,
		[2]string{"[global]\n   workgroup = HOME\n   write cache size = 262144\n\n# shares\n[homes]\n   browseable = no\n", sambaSeed},
		[2]string{"log level = 3\n[global]\n\tpasswd chat = a \\\n  b\n[print$]\n;  write list = root\n", "![print$]\n[media]\npath = /srv\n[globals]\n!include\ninclude = /x\n"},
		[2]string{"[a]\nx=1\n[A]\nx=2\n", "![a]\n[a]\ny = 3\n[a]\n"},
		[2]string{"# shares\n[a]\n\twritable = yes\n\tread only = no\n\tpublic = yes\n[global]\n\tinclude = /x\n", "[a]\nread only = yes\n!browsable\nguest ok = no\n[global]\nlog level = 1\n"},
		[2]string{"[media]\n\tpath = /srv\n", "[global]\nhide dot files = no\n[media]\ndirectory = /mnt\n"},
	)
}

func FuzzProFTPD(f *testing.F) {
	fuzzMerge(f, ProFTPD,
		[2]string{"ServerName \"Debian\"\n<IfModule mod_ident.c>\n  IdentLookups off\n</IfModule>\nInclude /etc/proftpd/conf.d/\n", proftpdSeed},
		[2]string{"<Anonymous ~ftp>\n  User ftp\n  <Directory *>\n    <Limit WRITE>\n      DenyAll\n    </Limit>\n  </Directory>\n</Anonymous>\n", "!<Anonymous ~ftp>\n<Anonymous ~ftp>\n  <Limit LOGIN>\n    AllowAll\n  </Limit>\n</Anonymous>\n"},
		[2]string{"DefaultRoot ~ !adm\nLoadModule mod_a.c\n</Global>\n<Global>\n", "!LoadModule\nLoadModule mod_b.c\nDefaultRoot ~\n<Global>\n!Umask\n</Global>\n"},
		[2]string{twinVhosts, "<VirtualHost 0.0.0.0>[2]\nMaxClients 7\n</VirtualHost>\n<IfModule mod_sftp.c>\n<VirtualHost 0.0.0.0>\nPort 1\n</VirtualHost>\n</IfModule>\n!<Anonymous ~x>\n"},
		[2]string{"<Directory /a>\n</Directory>\n", "<Directory /a>\nUmask 1\n</Directory>\n<IfModule mod_x.c>\n<Directory /a>\nUmask 2\n</Directory>\n</IfModule>\n"},
	)
}

func FuzzExports(f *testing.F) {
	fuzzMerge(f, Exports,
		[2]string{"# exports\n/mnt/ide1/public 192.168.178.0/255.255.255.0(ro)\n\"/mnt/my disk\" \\\n  *(ro)\n", "/mnt/ide1/public 192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async) 10.0.0.5(ro)\n"},
		[2]string{"/a *(ro)\n/a/ h(rw)\n", "!/a\n/mnt/my\\040disk *(rw)\n"},
		[2]string{"/a h1(rw)\n/a h2(rw)\n#c\n/a/ h3(ro)\n", "/a h4(rw)\n!/b\n"},
	)
}

func FuzzKeyValue(f *testing.F) {
	fuzzMerge(f, KeyValue,
		[2]string{"#kernel.printk = 3 4 1 3\nnet/core/rmem_max=131071\n", "net.core.rmem_max = 8738000\nnet.ipv4.tcp_rmem = 8192 873800 8738000\nvm.min_free_kbytes=65536\n"},
		[2]string{"listen=YES\n-a = 1\n; c\n", "!a\nlisten = NO\nwrite_enable=YES\n"},
	)
}
