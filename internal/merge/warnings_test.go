package merge

import (
	"slices"
	"testing"
)

// TestDeleteNothing proves issue 12's message defect: a deletion that
// matches nothing (a misspelt share, key or block) says so, with the
// fragment's line, instead of passing for success. The file is merged
// all the same: what the line asks for, that the thing is gone, holds.
func TestDeleteNothing(t *testing.T) {
	for _, tc := range []struct {
		name, format, base, frag string
		want                     []string
	}{
		{"the issue's repro: a misspelt share", Samba, "[global]\n\tworkgroup = HOME\n[printers]\n\tpath = /var/tmp\n", "![nosuchshare]\n",
			[]string{"smb.conf.merge line 1: ![nosuchshare] deletes nothing: the file has no [nosuchshare] (misspelt, or already gone?)"}},
		{"the issue's repro: a key under a misspelt share", Samba, "[global]\n\tworkgroup = HOME\n", "# cleanup\n[nosuchshare]\n!path\n",
			[]string{"smb.conf.merge line 3: !path deletes nothing: the file has no [nosuchshare] (misspelt, or already gone?)"}},
		{"a misspelt key", Samba, "[global]\n\twrite cache size = 65535\n", "[global]\n!write cach size\n!write cache size\n",
			[]string{"smb.conf.merge line 2: !write cach size deletes nothing: [global] has no write cach size (misspelt, or already gone?)"}},
		{"a key with its value", Samba, "[global]\n\tuse sendfile = yes\n", "[global]\n! use sendfile = no\n", nil},
		{"the issue's repro: a misspelt block", ProFTPD, "<Anonymous ~ftp>\n  User ftp\n</Anonymous>\n", "!<Anonymous ~nosuch>\n",
			[]string{"proftpd.conf.merge line 1: !<Anonymous ~nosuch> deletes nothing: the file has no <Anonymous ~nosuch> (misspelt, or already gone?)"}},
		{"a directive in a block", ProFTPD, "<Global>\n  Umask 022\n</Global>\n", "<Global>\n  !AllowOverwrite\n  !Umask\n</Global>\n",
			[]string{"proftpd.conf.merge line 2: !AllowOverwrite deletes nothing: <Global> has no AllowOverwrite (misspelt, or already gone?)"}},
		{"a directive at the top", ProFTPD, "Port 21\n", "!Include /etc/proftpd/tls.conf\n",
			[]string{"proftpd.conf.merge line 1: !Include /etc/proftpd/tls.conf deletes nothing: the file has no Include /etc/proftpd/tls.conf (misspelt, or already gone?)"}},
		{"a path", Exports, "/srv *(ro)\n", "!/srv/nosuch\n",
			[]string{"exports.merge line 1: !/srv/nosuch deletes nothing: the file has no /srv/nosuch (misspelt, or already gone?)"}},
		{"a key = value key", KeyValue, "a = 1\n", "!b\n",
			[]string{"sysctl.conf.merge line 1: !b deletes nothing: the file has no b (misspelt, or already gone?)"}},
		{"a deletion then the same key is a replacement", Samba, "[global]\n\tworkgroup = HOME\n", "[global]\n!log level\nlog level = 1\n", nil},
		{"a deletion then the same share is a replacement", Samba, "[global]\n\tworkgroup = HOME\n", "![media]\n[media]\npath = /srv\n", nil},
		{"a deletion then the same directive", ProFTPD, "DefaultRoot ~\n", "!DefaultRoot\nDefaultRoot ~\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, warnings, err := MergeWarn(tc.format, []byte(tc.base), []byte(tc.frag), fragName[tc.format])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(warnings, tc.want) {
				t.Errorf("warnings\n%q\nwant\n%q", warnings, tc.want)
			}
			plain, _ := Merge(tc.format, []byte(tc.base), []byte(tc.frag), fragName[tc.format])
			if string(out) != string(plain) {
				t.Errorf("MergeWarn and Merge differ:\n%s\n%s", out, plain)
			}
			_, ew, err := Explain(tc.format, []Layer{{Kind: KindBase, Data: []byte(tc.base)}, {Name: fragName[tc.format], Kind: KindMerge, Data: []byte(tc.frag)}})
			if err != nil || !slices.Equal(ew, tc.want) {
				t.Errorf("explain: %v, warnings %q", err, ew)
			}
		})
	}
}
