package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSambaSynonyms proves issue 12, fault 1: a key in a fragment
// replaces every line of the same parameter in that section, under any
// of the names Samba knows it by, inverted booleans included, so that a
// later synonym can no longer undo the change.
func TestSambaSynonyms(t *testing.T) {
	runMerges(t, Samba, []mergeCase{{
		name: "the issue's repro: a later writable no longer undoes read only",
		base: "[SambaDrive]\n\tpath = /mnt/usb\n\tread only = no\n\tbrowseable = yes\n\twritable = yes\n",
		frag: "[SambaDrive]\nread only = yes\n",
		want: "[SambaDrive]\n\tpath = /mnt/usb\n\tread only = yes\n\tbrowseable = yes\n",
	}, {
		name: "an inverted synonym first: the line takes the fragment's key",
		base: "[a]\n  writeable = yes\n  path = /srv\n  write ok = yes\n",
		frag: "[a]\nread only = yes\n",
		want: "[a]\n  read only = yes\n  path = /srv\n",
	}, {
		name: "a synonym of the same sense keeps its name",
		base: "[a]\n\tdirectory = /old\n\tbrowsable = no\n\tpublic = yes\n\tguest ok = no\n",
		frag: "[a]\npath = /srv\nbrowseable = yes\nguest ok = yes\n",
		want: "[a]\n\tdirectory = /srv\n\tbrowsable = yes\n\tpublic = yes\n",
	}, {
		name: "the same name twice in one section is one line too",
		base: "[global]\n\tlog level = 0\n\tdebuglevel = 3\n\tLog Level = 2\n",
		frag: "[global]\nlog level = 1\n",
		want: "[global]\n\tlog level = 1\n",
	}, {
		name: "!key removes every synonym",
		base: "[a]\n\tpath = /srv\n\tread only = no\n\twritable = yes\n\twrite ok = yes\n",
		frag: "[a]\n!writable\n",
		want: "[a]\n\tpath = /srv\n",
	}, {
		name: "two synonyms in a fragment: the last line wins",
		base: "[a]\n\tread only = yes\n",
		frag: "[a]\nread only = yes\nwritable = yes\n",
		want: "[a]\n\twritable = yes\n",
	}, {
		name: "synonyms are per section: another share keeps its own",
		base: "[a]\n\twritable = yes\n[b]\n\twritable = yes\n",
		frag: "[a]\nread only = yes\n",
		want: "[a]\n\tread only = yes\n[b]\n\twritable = yes\n",
	}, {
		name: "a section twice: the parameter is one line in each",
		base: "[global]\n\tlog level = 0\n[public]\n\tpath = /srv\n[global]\n\tdebuglevel = 2\n",
		frag: "[global]\nlog level = 1\n",
		want: "[global]\n\tlog level = 1\n[public]\n\tpath = /srv\n[global]\n\tdebuglevel = 1\n",
	}, {
		name: "a boolean pair in [global]: enable spoolss is disable spoolss inverted",
		base: "[global]\n\tdisable spoolss = yes\n\tenable spoolss = yes\n",
		frag: "[global]\nenable spoolss = no\n",
		want: "[global]\n\tenable spoolss = no\n",
	}})
}

// TestSambaSynonymsTestparm proves with the real testparm that the
// merged share is read-only, as the fragment says.
func TestSambaSynonymsTestparm(t *testing.T) {
	mergedReads(t, "[global]\n\tworkgroup = HOME\n[SambaDrive]\n\tpath = /tmp\n\tread only = no\n\tbrowseable = yes\n\twritable = yes\n",
		"[SambaDrive]\nread only = yes\n", map[string]map[string]string{"SambaDrive": {"read only": "Yes"}})
}

// mergedReads merges frag onto base and proves that testparm reads
// from the result the values of want (section → parameter → value).
func mergedReads(t *testing.T, base, frag string, want map[string]map[string]string) sambaDump {
	t.Helper()
	got := mustMerge(t, Samba, []byte(base), []byte(frag))
	eff := sambaEffective(t, got)
	for section, params := range want {
		for p, v := range params {
			if g := eff.get(section, p); g != v {
				t.Errorf("testparm: %s = %q in [%s], want %q\n%s", p, g, section, v, got)
			}
		}
	}
	return eff
}

// TestSambaNewGlobal proves issue 12, fault 2: in a file of shares
// only, a new [global] goes before the first share, so that Samba reads
// its share defaults for every share.
func TestSambaNewGlobal(t *testing.T) {
	runMerges(t, Samba, []mergeCase{{
		name: "the issue's repro: a share-only file",
		base: "[media]\n\tpath = /srv/media\n\n[backup]\n\tpath = /srv/backup\n",
		frag: "[global]\nhide dot files = no\n",
		want: "[global]\n\thide dot files = no\n\n[media]\n\tpath = /srv/media\n\n[backup]\n\tpath = /srv/backup\n",
	}, {
		name: "above the comments right above the first share, below the file's header",
		base: "# written by the NAS\n\n# the media share\n[media]\n    path = /srv\n",
		frag: "[globals]\ndead time = 5\n",
		want: "# written by the NAS\n\n[globals]\n    dead time = 5\n\n# the media share\n[media]\n    path = /srv\n",
	}, {
		name: "after the keys before the first section",
		base: "log level = 3\n[public]\n\tpath = /srv\n",
		frag: "[global]\ndead time = 5\n",
		want: "log level = 3\n\n[global]\n\tdead time = 5\n\n[public]\n\tpath = /srv\n",
	}, {
		name: "a new share still goes at the end",
		base: "[media]\n\tpath = /srv\n",
		frag: "[global]\ndead time = 5\n[backup]\npath = /b\n",
		want: "[global]\n\tdead time = 5\n\n[media]\n\tpath = /srv\n\n[backup]\n\tpath = /b\n",
	}})
}

// TestSambaNewGlobalTestparm proves with the real testparm that the
// share default reaches the shares.
func TestSambaNewGlobalTestparm(t *testing.T) {
	mergedReads(t, "[media]\n\tpath = /tmp\n\n[backup]\n\tpath = /tmp\n", "[global]\nhide dot files = no\n",
		map[string]map[string]string{"media": {"hide dot files": "No"}, "backup": {"hide dot files": "No"}})
}

// TestSambaInclude proves issue 12, fault 3: a new key goes before the
// first include of its section, which may pull in shares.
func TestSambaInclude(t *testing.T) {
	runMerges(t, Samba, []mergeCase{{
		name: "the issue's repro: [global] ends with an include of shares",
		base: "[global]\n\tworkgroup = HOME\n\tinclude = /etc/cockpit/zfs/shares.conf\n",
		frag: "[global]\nsocket options = TCP_NODELAY\nhide dot files = no\n",
		want: "[global]\n\tworkgroup = HOME\n\tsocket options = TCP_NODELAY\n\thide dot files = no\n\tinclude = /etc/cockpit/zfs/shares.conf\n",
	}, {
		name: "before the first include, not after the keys that follow it",
		base: "[global]\n\tinclude = /etc/samba/a.conf\n\tworkgroup = HOME\n\tinclude = /etc/samba/b.conf\n",
		frag: "[global]\ndead time = 5\n",
		want: "[global]\n\tdead time = 5\n\tinclude = /etc/samba/a.conf\n\tworkgroup = HOME\n\tinclude = /etc/samba/b.conf\n",
	}, {
		name: "a new include still goes after the last include",
		base: "[global]\n\tinclude = /etc/samba/a.conf\n\n[media]\n\tpath = /srv\n",
		frag: "[global]\ninclude = /etc/samba/b.conf\nlog level = 1\n",
		want: "[global]\n\tlog level = 1\n\tinclude = /etc/samba/a.conf\n\tinclude = /etc/samba/b.conf\n\n[media]\n\tpath = /srv\n",
	}, {
		name: "in a share too",
		base: "[media]\n\tpath = /srv\n\tinclude = /etc/samba/media-%m.conf\n",
		frag: "[media]\nread only = yes\n",
		want: "[media]\n\tpath = /srv\n\tread only = yes\n\tinclude = /etc/samba/media-%m.conf\n",
	}})
}

// TestSambaIncludeTestparm proves with the real testparm and a real
// included file of shares that the new global keys are read as global.
func TestSambaIncludeTestparm(t *testing.T) {
	shares := filepath.Join(t.TempDir(), "shares.conf")
	if err := os.WriteFile(shares, []byte("[tank]\n\tpath = /tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eff := mergedReads(t, "[global]\n\tworkgroup = HOME\n\tinclude = "+shares+"\n", "[global]\nsocket options = TCP_NODELAY\nhide dot files = no\n",
		map[string]map[string]string{"global": {"socket options": "TCP_NODELAY", "hide dot files": "No"}, "tank": {"hide dot files": "No"}})
	if strings.Contains(eff.stderr, "found in service section") {
		t.Errorf("testparm: %s", eff.stderr)
	}
}

// Latin-1 names (old firmware writes them) are compared byte for byte
// where they are not UTF-8: [Bücher] and [Böcher] in Latin-1 are two
// shares, and a fragment for one never changes the other.
func TestLatin1NamesStayApart(t *testing.T) {
	base := "[B\xfccher]\n\tpath = /a\n[B\xf6cher]\n\tpath = /b\n"
	got, err := Merge(Samba, []byte(base), []byte("[B\xf6cher]\npath = /c\n"), "f.merge")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[B\xfccher]\n\tpath = /a\n[B\xf6cher]\n\tpath = /c\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
