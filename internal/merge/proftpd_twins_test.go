package merge

import (
	"strings"
	"testing"
)

// twinVhosts is the shape of a NAS firmware's proftpd.conf (Thecus
// N5200): FTP on 21 and SFTP on 21210, both <VirtualHost 0.0.0.0>, the
// second inside <IfModule mod_sftp.c>.
const twinVhosts = `ServerName "NAS"
<VirtualHost 0.0.0.0>
  Port 21
  MaxClients 30
</VirtualHost>
<IfModule mod_sftp.c>
  <VirtualHost 0.0.0.0>
    SFTPEngine on
    Port 21210
  </VirtualHost>
</IfModule>
`

// TestProftpdTwinBlocks proves issue 12, fault 4: a fragment block that
// matches two blocks of the file is refused with both named and the way
// to address one; never guessed.
func TestProftpdTwinBlocks(t *testing.T) {
	refused := []struct{ name, frag, want string }{
		{"the issue's repro: MaxClients", "<VirtualHost 0.0.0.0>\n  MaxClients 7\n</VirtualHost>\n",
			"proftpd.conf.merge line 1: <VirtualHost 0.0.0.0> matches 2 blocks of the file: line 2, and line 7 inside <IfModule mod_sftp.c>: " +
				"say which with <VirtualHost 0.0.0.0>[1] (line 2) or <VirtualHost 0.0.0.0>[2] (line 7), counted from the top of the file"},
		{"the issue's repro: Port", "<VirtualHost 0.0.0.0>\nPort 2121\n</VirtualHost>\n", "proftpd.conf.merge line 1: <VirtualHost 0.0.0.0> matches 2 blocks"},
		{"a deletion", "!<VirtualHost 0.0.0.0>\n", "proftpd.conf.merge line 1: !<VirtualHost 0.0.0.0> matches 2 blocks of the file: line 2, and line 7 inside <IfModule mod_sftp.c>: " +
			"write the deletion inside the <IfModule> around the one to delete, or replace the whole file instead of merging"},
		{"a deletion by position: the next block would take its place", "!<VirtualHost 0.0.0.0>[2]\n",
			"proftpd.conf.merge line 1: !<VirtualHost 0.0.0.0>[2]: a position says which block to change, not which to delete"},
		{"a fragment that would make twins of its own", "<Directory /srv>\nUmask 002\n</Directory>\n<IfModule mod_sftp.c>\n<Directory /srv>\nUmask 022\n</Directory>\n</IfModule>\n",
			"proftpd.conf.merge line 1: <Directory /srv> matches 2 blocks of the file once merged: " +
				"the block fragment line 5 adds inside <IfModule mod_sftp.c>, and the block fragment line 1 adds: say which with"},
		{"a position that is no number", "<VirtualHost 0.0.0.0>[x]\nPort 1\n</VirtualHost>\n", "proftpd.conf.merge line 1: <VirtualHost 0.0.0.0>[x]: a position is written [N]"},
		{"a replacement", "!<VirtualHost 0.0.0.0>\n<VirtualHost 0.0.0.0>\nPort 2121\n</VirtualHost>\n", "line 1: !<VirtualHost 0.0.0.0> matches 2 blocks"},
		{"a number past the last", "<VirtualHost 0.0.0.0>[3]\nPort 2121\n</VirtualHost>\n",
			"proftpd.conf.merge line 1: <VirtualHost 0.0.0.0>[3]: the file has only 2 such blocks (line 2, and line 7 inside <IfModule mod_sftp.c>)"},
		{"a number for a block the file lacks", "<Anonymous ~ftp>[1]\nUser ftp\n</Anonymous>\n",
			"proftpd.conf.merge line 1: <Anonymous ~ftp>[1]: the file has no such block; write <Anonymous ~ftp> without [1] to add one"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Merge(ProFTPD, []byte(twinVhosts), []byte(tc.frag), "proftpd.conf.merge")
			if err == nil {
				t.Fatalf("merged instead of refusing:\n%s", got)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\ndoes not say %q", err, tc.want)
			}
		})
	}
	runMerges(t, ProFTPD, []mergeCase{{
		name: "[1] is the first block of the file",
		base: twinVhosts,
		frag: "<VirtualHost 0.0.0.0>[1]\n  MaxClients 7\n  Port 2121\n</VirtualHost>\n",
		want: strings.Replace(strings.Replace(twinVhosts, "MaxClients 30", "MaxClients 7", 1), "Port 21\n", "Port 2121\n", 1),
	}, {
		name: "[2] is the second, inside its <IfModule>",
		base: twinVhosts,
		frag: "<VirtualHost 0.0.0.0>[2]\n  MaxClients 7\n</VirtualHost>\n",
		want: strings.Replace(twinVhosts, "Port 21210\n", "Port 21210\n    MaxClients 7\n", 1),
	}, {
		name: "the enclosing <IfModule> says which",
		base: twinVhosts,
		frag: "<IfModule mod_sftp.c>\n<VirtualHost 0.0.0.0>\nPort 2222\n</VirtualHost>\n</IfModule>\n",
		want: strings.Replace(twinVhosts, "Port 21210", "Port 2222", 1),
	}, {
		name: "a deletion inside the enclosing <IfModule> deletes that one",
		base: twinVhosts,
		frag: "<IfModule mod_sftp.c>\n!<VirtualHost 0.0.0.0>\n</IfModule>\n",
		want: "ServerName \"NAS\"\n<VirtualHost 0.0.0.0>\n  Port 21\n  MaxClients 30\n</VirtualHost>\n<IfModule mod_sftp.c>\n</IfModule>\n",
	}, {
		name: "a replacement by position",
		base: twinVhosts,
		frag: "!<VirtualHost 0.0.0.0>[1]\n<VirtualHost 0.0.0.0>[1]\n  Port 2121\n</VirtualHost>\n",
		want: strings.Replace(twinVhosts, "  Port 21\n  MaxClients 30\n", "  Port 2121\n", 1),
	}, {
		name: "two blocks at the same level: [2]",
		base: "<Directory /srv>\n  Umask 022\n</Directory>\n<Directory /srv>\n  AllowOverwrite off\n</Directory>\n",
		frag: "<Directory /srv>[2]\n  AllowOverwrite on\n</Directory>\n",
		want: "<Directory /srv>\n  Umask 022\n</Directory>\n<Directory /srv>\n  AllowOverwrite on\n</Directory>\n",
	}, {
		name: "[1] of a single block is that block",
		base: "<Global>\n  Umask 022\n</Global>\n",
		frag: "<Global>[1]\n  Umask 002\n</Global>\n",
		want: "<Global>\n  Umask 002\n</Global>\n",
	}, {
		name: "twin <IfModule> guards are not places: a line goes into the last, as before",
		base: "<IfModule mod_tls.c>\n  TLSEngine off\n</IfModule>\n<IfModule mod_tls.c>\n  TLSLog /var/log/tls.log\n</IfModule>\n",
		frag: "<IfModule mod_tls.c>\n  TLSEngine on\n  TLSProtocol TLSv1.2\n</IfModule>\n",
		want: "<IfModule mod_tls.c>\n  TLSEngine on\n</IfModule>\n<IfModule mod_tls.c>\n  TLSLog /var/log/tls.log\n  TLSProtocol TLSv1.2\n</IfModule>\n",
	}})
}

// TestProftpdNoValue proves issue 12's last message defect: a directive
// with no value is refused with the fragment's line, not merged into an
// empty directive that proftpd -t then refuses at a line of the result.
func TestProftpdNoValue(t *testing.T) {
	runErrors(t, ProFTPD, []errCase{
		{"the issue's repro", "IdentLookups off\nServerName\n", "proftpd.conf.merge line 2: ServerName has no value: write ServerName VALUE, or !ServerName to delete it"},
		{"inside a block", "<Global>\n  Umask\n</Global>\n", "proftpd.conf.merge line 2: Umask has no value"},
	})
	// The directives that take no value still merge.
	got := mustMerge(t, ProFTPD, []byte("<Limit WRITE>\n  DenyAll\n</Limit>\n"), []byte("<Limit WRITE>\n  !DenyAll\n  AllowAll\n</Limit>\n"))
	if want := "<Limit WRITE>\n  AllowAll\n</Limit>\n"; string(got) != want {
		t.Errorf("AllowAll:\n%s", got)
	}
}
