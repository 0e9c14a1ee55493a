package merge

import (
	"strings"
	"testing"
)

func TestProftpdMerge(t *testing.T) {
	runMerges(t, ProFTPD, []mergeCase{{
		name: "a top-level directive is replaced in place, name compared without case",
		base: "ServerName\t\t\"NAS\"\nUseReverseDNS\t\ton\nPort 21\n",
		frag: "usereversedns off\n",
		want: "ServerName\t\t\"NAS\"\nUseReverseDNS\t\toff\nPort 21\n",
	}, {
		name: "a new directive goes after the last line, before closing comments",
		base: "ServerName \"NAS\"\n<Global>\n  Umask 022\n</Global>\n\n# end\n",
		frag: "WtmpLog off\n",
		want: "ServerName \"NAS\"\n<Global>\n  Umask 022\n</Global>\nWtmpLog off\n\n# end\n",
	}, {
		name: "a directive inside a block is set there only",
		base: "AllowOverwrite off\n<Global>\n  Umask 022\n  AllowOverwrite off\n</Global>\n",
		frag: "<global>\n AllowOverwrite on\n AllowStoreRestart on\n</global>\n",
		want: "AllowOverwrite off\n<Global>\n  Umask 022\n  AllowOverwrite on\n  AllowStoreRestart on\n</Global>\n",
	}, {
		name: "a new block is added with the file's indentation",
		base: "ServerName \"NAS\"\n<IfModule mod_delay.c>\n    DelayEngine on\n</IfModule>\n",
		frag: "<Global>\nAllowOverwrite on\n  <Limit SITE_CHMOD>\n  DenyAll\n  </Limit>\n</Global>\n",
		want: "ServerName \"NAS\"\n<IfModule mod_delay.c>\n    DelayEngine on\n</IfModule>\n<Global>\n    AllowOverwrite on\n    <Limit SITE_CHMOD>\n        DenyAll\n    </Limit>\n</Global>\n",
	}, {
		name: "<IfModule> is seen through: the guard stays",
		base: "<IfModule mod_ident.c>\n  IdentLookups on\n</IfModule>\nPort 21\n",
		frag: "IdentLookups off\n",
		want: "<IfModule mod_ident.c>\n  IdentLookups off\n</IfModule>\nPort 21\n",
	}, {
		name: "<IfModule> named in the fragment, with or without .c",
		base: "<IfModule mod_delay.c>\n  DelayEngine on\n</IfModule>\n",
		frag: "<IfModule mod_delay>\n  DelayEngine off\n</IfModule>\n",
		want: "<IfModule mod_delay.c>\n  DelayEngine off\n</IfModule>\n",
	}, {
		name: "!Directive deletes it, inside <IfModule> too",
		base: "WtmpLog on\n<IfModule mod_ident.c>\n  IdentLookups on\n</IfModule>\n",
		frag: "!wtmplog\n!IdentLookups\n",
		want: "<IfModule mod_ident.c>\n</IfModule>\n",
	}, {
		name: "!<Block> deletes the whole block",
		base: "Port 21\n<Anonymous ~ftp>\n  User ftp\n  <Directory *>\n    <Limit WRITE>\n      DenyAll\n    </Limit>\n  </Directory>\n</Anonymous>\n# after\n",
		frag: "!<Anonymous \"~ftp\">\n",
		want: "Port 21\n# after\n",
	}, {
		name: "a deleted then written block is replaced where it was",
		base: "<Limit LOGIN>\n  Order allow,deny\n  Allow from 10.0.0.0/8\n</Limit>\nPort 21\n",
		frag: "!<Limit login>\n<Limit LOGIN>\n  AllowAll\n</Limit>\n",
		want: "<Limit LOGIN>\n  AllowAll\n</Limit>\nPort 21\n",
	}, {
		name: "a replaced block keeps its indentation, for nested blocks too",
		base: "<Anonymous ~ftp>\n\tUser nobody\n\tMaxClients 10\n</Anonymous>\n",
		frag: "!<Anonymous ~ftp>\n<Anonymous ~ftp>\n  User ftp\n  <Limit WRITE>\n    DenyAll\n  </Limit>\n</Anonymous>\n",
		want: "<Anonymous ~ftp>\n\tUser ftp\n\t<Limit WRITE>\n\t\tDenyAll\n\t</Limit>\n</Anonymous>\n",
	}, {
		name: "blocks are matched by argument",
		base: "<Directory /srv>\n  Umask 022\n</Directory>\n<Directory /mnt>\n  Umask 022\n</Directory>\n",
		frag: "<Directory /mnt>\n  Umask 002\n</Directory>\n",
		want: "<Directory /srv>\n  Umask 022\n</Directory>\n<Directory /mnt>\n  Umask 002\n</Directory>\n",
	}, {
		name: "nested blocks",
		base: "<Anonymous ~ftp>\n  User ftp\n  <Directory *>\n    <Limit WRITE>\n      DenyAll\n    </Limit>\n  </Directory>\n</Anonymous>\n",
		frag: "<Anonymous ~ftp>\n  MaxClients 5\n  <Directory *>\n    <Limit WRITE>\n      !DenyAll\n      AllowAll\n    </Limit>\n  </Directory>\n</Anonymous>\n",
		want: "<Anonymous ~ftp>\n  User ftp\n  <Directory *>\n    <Limit WRITE>\n      AllowAll\n    </Limit>\n  </Directory>\n  MaxClients 5\n</Anonymous>\n",
	}, {
		name: "repeating directives are matched by first argument",
		base: "DefaultRoot ~ !adm\nDefaultRoot /srv users\nPort 21\n",
		frag: "DefaultRoot ~ users\nDefaultRoot /mnt ftp\n",
		want: "DefaultRoot ~ users\nDefaultRoot /srv users\nDefaultRoot /mnt ftp\nPort 21\n",
	}, {
		name: "Include and LoadModule: a new one goes after the last of its name",
		base: "LoadModule mod_ctrls_admin.c\nLoadModule mod_ratio.c\nInclude /etc/proftpd/a.conf\nPort 21\n",
		frag: "LoadModule mod_ident.c\nLoadModule mod_ratio.c\nInclude /etc/proftpd/tls.conf\n",
		want: "LoadModule mod_ctrls_admin.c\nLoadModule mod_ratio.c\nLoadModule mod_ident.c\nInclude /etc/proftpd/a.conf\nInclude /etc/proftpd/tls.conf\nPort 21\n",
	}, {
		name: "!Include ARG deletes that one, !Include all",
		base: "Include /a.conf\nInclude /b.conf\nLoadModule mod_a.c\nLoadModule mod_b.c\n",
		frag: "!Include /a.conf\n!LoadModule\n",
		want: "Include /b.conf\n",
	}, {
		name: "Allow lines are matched whole",
		base: "<Limit LOGIN>\n  Order allow,deny\n  Allow from 10.0.0.0/8\n</Limit>\n",
		frag: "<Limit LOGIN>\n  Allow from 192.168.0.0/16\n  Allow from 10.0.0.0/8\n  Order deny,allow\n</Limit>\n",
		want: "<Limit LOGIN>\n  Order deny,allow\n  Allow from 10.0.0.0/8\n  Allow from 192.168.0.0/16\n</Limit>\n",
	}, {
		name: "a directive without arguments in the file gets them",
		base: "UseIPv6\n",
		frag: "UseIPv6 off\n",
		want: "UseIPv6 off\n",
	}, {
		name: "an unclosed block in the file ends at the end",
		base: "<Global>\n  Umask 022\n",
		frag: "<Global>\n  Umask 002\n  AllowOverwrite on\n</Global>\n",
		want: "<Global>\n  Umask 002\n  AllowOverwrite on\n",
	}, {
		name: "continuation lines",
		base: "ServerName \\\n  \"NAS\"\nPort 21\n",
		frag: "ServerName \"My \\\nNAS\"\n",
		want: "ServerName \"My \\\nNAS\"\nPort 21\n",
	}})
}

func TestProftpdFragmentErrors(t *testing.T) {
	runErrors(t, ProFTPD, []errCase{
		{"unclosed block", "Port 21\n<Global>\n  AllowOverwrite on\n", "proftpd.conf.merge line 2: <Global> is not closed: add </Global>"},
		{"stray closer", "</Global>\n", "line 1: </Global> closes no open block"},
		{"wrong closer", "<Global>\n</Directory>\n</Global>\n", "line 2: </Directory> where </Global> was expected"},
		{"deleting a closer", "<Global>\n!</Global>\n</Global>\n", "line 2: </Global> cannot be deleted"},
		{"bare !", "!\n", "line 1: ! names nothing"},
		{"nameless block", "<>\n</>\n", "line 1: <> names no block"},
		{"continued at the end", "Port 21 \\\n", `line 1: the last line ends with \`},
	})
}

// proftpdSeed is the tuning block of the project's seeds.
const proftpdSeed = `IdentLookups off
UseReverseDNS off
WtmpLog off
<Global>
  AllowOverwrite on
  AllowRetrieveRestart on
  AllowStoreRestart on
</Global>
`

// TestProftpdRealWorld merges the seeds' tuning onto Debian's
// proftpd.conf (modules.conf inlined so that it stands alone) and a
// firmware-style file, compares with the golden files and proves
// proftpd -t accepts the results.
func TestProftpdRealWorld(t *testing.T) {
	tests := []struct{ file, frag string }{
		{"proftpd-standalone.conf", proftpdSeed},
		{"proftpd-standalone.conf", proftpdSeed + "LoadModule mod_ident.c\n!<IfModule mod_ratio.c>\n<IfModule mod_ctrls.c>\n  ControlsMaxClients 4\n</IfModule>\n"},
		// Debian builds mod_ident as a module, the firmware links it in.
		{"firmware-proftpd.conf", "LoadModule mod_ident.c\n" + proftpdSeed + "<Anonymous ~ftp>\n  MaxClients 3\n  <Directory *>\n    <Limit WRITE>\n      !DenyAll\n      AllowAll\n    </Limit>\n  </Directory>\n</Anonymous>\nDefaultRoot ~ users\n"},
	}
	for i, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := mustMerge(t, ProFTPD, readTestdata(t, tt.file), []byte(tt.frag))
			golden(t, strings.TrimSuffix(tt.file, ".conf")+"-"+string(rune('a'+i))+".conf.merged", got)
			proftpdCheck(t, got)
		})
	}
	// The verbatim Debian file needs /etc/proftpd: it is only merged.
	got := mustMerge(t, ProFTPD, readTestdata(t, "debian-proftpd.conf"), []byte(proftpdSeed))
	golden(t, "debian-proftpd.conf.merged", got)
}
