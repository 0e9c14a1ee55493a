package merge

import (
	"strings"
	"testing"
)

func TestSambaMerge(t *testing.T) {
	runMerges(t, Samba, []mergeCase{{
		name: "a key is replaced in place, keeping indentation and spelling",
		base: "[global]\n\tworkgroup = HOME\n   Log Level = 0\n# end\n",
		frag: "[global]\nloglevel = 1\n",
		want: "[global]\n\tworkgroup = HOME\n   Log Level = 1\n# end\n",
	}, {
		name: "keys compare without case or white space",
		base: "[global]\n  getwdcache = no\n",
		frag: "[GLOBAL]\n  GetWD Cache = yes\n",
		want: "[global]\n  getwdcache = yes\n",
	}, {
		name: "a new key goes before the section's closing comments",
		base: "[global]\n   workgroup = HOME\n\n# shares\n[homes]\n   browseable = no\n",
		frag: "[global]\nsocket options = TCP_NODELAY\n",
		want: "[global]\n   workgroup = HOME\n   socket options = TCP_NODELAY\n\n# shares\n[homes]\n   browseable = no\n",
	}, {
		name: "!key deletes, with or without a value",
		base: "[global]\n\twrite cache size = 262144\n\tuse sendfile = no\n\tdead time = 15\n",
		frag: "[global]\n!write cache size\n! use sendfile = no\n",
		want: "[global]\n\tdead time = 15\n",
	}, {
		name: "a new section is added at the end after a blank line",
		base: "[global]\n\tworkgroup = HOME\n",
		frag: "[media]\npath = /mnt/ide1/media\n  read only = no\n",
		want: "[global]\n\tworkgroup = HOME\n\n[media]\n\tpath = /mnt/ide1/media\n\tread only = no\n",
	}, {
		name: "a new section in a file that ends in a blank line",
		base: "[global]\n   workgroup = HOME\n\n",
		frag: "[media]\npath = /srv\n",
		want: "[global]\n   workgroup = HOME\n\n[media]\n   path = /srv\n",
	}, {
		name: "![section] deletes it and keeps the comments that follow it",
		base: "[global]\n\tworkgroup = HOME\n[printers]\n\tpath = /var/tmp\n\n# Windows drivers\n[print$]\n\tpath = /srv\n",
		frag: "![printers]\n",
		want: "[global]\n\tworkgroup = HOME\n\n# Windows drivers\n[print$]\n\tpath = /srv\n",
	}, {
		name: "![section] then [section] replaces it where it was",
		base: "[public]\n\tpath = /old\n\tguest ok = yes\n# next\n[global]\n\tworkgroup = HOME\n",
		frag: "![public]\n[public]\npath = /mnt/ide1/public\nread only = no\n",
		want: "[public]\n\tpath = /mnt/ide1/public\n\tread only = no\n# next\n[global]\n\tworkgroup = HOME\n",
	}, {
		name: "a section twice: both are changed, a new key goes into the first, before the shares",
		base: "[global]\n\tlog level = 0\n[public]\n\tpath = /srv\n[global]\n\tlog level = 2\n\tload printers = no\n",
		frag: "[global]\nlog level = 1\ndead time = 5\n!load printers\n",
		want: "[global]\n\tlog level = 1\n\tdead time = 5\n[public]\n\tpath = /srv\n[global]\n\tlog level = 1\n",
	}, {
		name: "keys before the first section are global",
		base: "log level = 3\n[public]\n\tpath = /srv\n",
		frag: "[global]\nlog level = 1\n",
		want: "log level = 1\n[public]\n\tpath = /srv\n",
	}, {
		name: "a global key not in the file makes a [global] section, before the shares",
		base: "[public]\n\tpath = /srv\n",
		frag: "[globals]\ndead time = 5\n",
		want: "[globals]\n\tdead time = 5\n\n[public]\n\tpath = /srv\n",
	}, {
		name: "continuation lines are replaced whole, and kept in a fragment",
		base: "[global]\n   passwd chat = *new* %n\\\n      *again* %n\n   workgroup = HOME\n",
		frag: "[global]\npasswd chat = *Enter* %n \\\n  *Retype* %n\n",
		want: "[global]\n   passwd chat = *Enter* %n \\\n  *Retype* %n\n   workgroup = HOME\n",
	}, {
		name: "include repeats: a new include goes after the last one",
		base: "[global]\n\tinclude = /etc/a.conf\n\tworkgroup = HOME\n\tinclude = /etc/b.conf\n\tlog level = 0\n",
		frag: "[global]\ninclude = /etc/c.conf\ninclude = /etc/a.conf\n",
		want: "[global]\n\tinclude = /etc/a.conf\n\tworkgroup = HOME\n\tinclude = /etc/b.conf\n\tinclude = /etc/c.conf\n\tlog level = 0\n",
	}, {
		name: "!include removes all includes but those the fragment sets",
		base: "[global]\n\tinclude = /etc/a.conf\n\tinclude = /etc/b.conf\n",
		frag: "[global]\n!include\ninclude = /etc/b.conf\n",
		want: "[global]\n\tinclude = /etc/b.conf\n",
	}, {
		name: "the last line about a key wins",
		base: "[global]\n\tlog level = 0\n\tdead time = 0\n",
		frag: "[global]\nlog level = 1\nlog level = 2\ndead time = 5\n!dead time\n",
		want: "[global]\n\tlog level = 2\n",
	}, {
		name: "!key then key = value replaces in place",
		base: "[global]\n\tlog level = 0\n\tworkgroup = HOME\n",
		frag: "[global]\n!log level\nlog level = 1\n",
		want: "[global]\n\tlog level = 1\n\tworkgroup = HOME\n",
	}, {
		name: "a section with only deletions is not created",
		base: "[global]\n\tworkgroup = HOME\n",
		frag: "[media]\n!path\n",
		want: "[global]\n\tworkgroup = HOME\n",
	}, {
		name: "an empty section in the fragment is created",
		base: "[global]\n\tworkgroup = HOME\n",
		frag: "[media]\n",
		want: "[global]\n\tworkgroup = HOME\n\n[media]\n",
	}, {
		name: "a base without a final newline",
		base: "[global]\n\tworkgroup = HOME",
		frag: "[global]\nlog level = 1\n",
		want: "[global]\n\tworkgroup = HOME\n\tlog level = 1\n",
	}, {
		name: "a base ending in a continuation gets the empty line it asks for",
		base: "[global]\n\tcomment = a \\\n",
		frag: "[global]\nlog level = 1\n",
		want: "[global]\n\tcomment = a \\\n\n\tlog level = 1\n",
	}, {
		name: "an empty base",
		base: "",
		frag: "[global]\n; tuning\nlog level = 1\n",
		want: "[global]\n\tlog level = 1\n",
	}, {
		name: "an empty value",
		base: "[global]\n\tcomment = old\n",
		frag: "[global]\ncomment =\n",
		want: "[global]\n\tcomment = \n",
	}, {
		name: "section names keep their case in the file",
		base: "[Public]\n\tpath = /srv\n",
		frag: "[public]\npath = /mnt\n",
		want: "[Public]\n\tpath = /mnt\n",
	}})
}

func TestSambaFragmentErrors(t *testing.T) {
	runErrors(t, Samba, []errCase{
		{"key outside a section", "# tuning\nlog level = 1\n", "smb.conf.merge line 2: a key outside any section: put it under [global]"},
		{"deletion outside a section", "!log level\n", "smb.conf.merge line 1: a key outside any section"},
		{"key after a deleted section", "![media]\npath = /x\n", "line 2: a key outside any section"},
		{"not key = value", "[global]\nlog level 1\n", `line 2: "log level 1" is not key = value`},
		{"no key", "[global]\n= 1\n", "line 2: a line starting with = names no key"},
		{"unclosed section", "[global\n", `line 1: "[global" has no closing ]`},
		{"empty section", "[ ]\n", "line 1: [] names no section"},
		{"bare !", "[global]\n!\n", "line 2: ! names nothing"},
		{"continued at the end", "[global]\ncomment = a \\\n", `line 2: the last line ends with \ but no line follows`},
	})
	_, err := Merge(Samba, nil, []byte("a = 1\n[global]\nb\n"), "smb.conf.merge")
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("every mistake is reported: %v", err)
	}
}

// sambaSeed is the tuning block of the project's seeds.
const sambaSeed = `# tuning from the old userscript seeds
[global]
   getwd cache = yes
   dead time = 5
   log level = 1
   read raw = yes
   write raw = yes
   oplocks = yes
   max xmit = 65535
   use sendfile = yes
   socket options = TCP_NODELAY
   !write cache size
`

// TestSambaRealWorld merges the seeds' tuning, a new share and a removed
// share onto Debian's smb.conf and a firmware-style one, compares with
// the golden files and proves testparm -s accepts the results.
func TestSambaRealWorld(t *testing.T) {
	frag := sambaSeed + "[media]\n   path = /mnt/ide1/media\n   read only = no\n![printers]\n"
	for _, file := range []string{"debian-smb.conf", "firmware-smb.conf"} {
		t.Run(file, func(t *testing.T) {
			got := mustMerge(t, Samba, readTestdata(t, file), []byte(frag))
			golden(t, file+".merged", got)
			if strings.Contains(string(got), "write cache size") || strings.Contains(string(got), "[printers]") {
				t.Errorf("deleted key or section left in:\n%s", got)
			}
			testparm(t, got)
		})
	}
}
