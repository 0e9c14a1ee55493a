package exports

import (
	"reflect"
	"strings"
	"testing"
)

func problemStrings(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		s := p.String()
		if p.Warning {
			s = "warning: " + s
		}
		out = append(out, s)
	}
	return out
}

// TestParseExports proves the parser reads exports(5) as exportfs does
// (each case was run through exportfs 2.6.2 to see what it makes of it)
// and names the line of every problem.
func TestParse(t *testing.T) {
	c := func(line int, host string, opts ...string) Client {
		cl := Client{Host: host, Line: line}
		if opts != nil {
			cl.Options = opts
		}
		return cl
	}
	withDefaults := func(cl Client, d ...string) Client { cl.Defaults = d; return cl }
	for _, tc := range []struct {
		name, in string
		want     []Export
		problems []string
	}{
		{"the seed's line", "/mnt/ide1/myfiles 192.168.178.0/255.255.255.0(rw,no_root_squash,no_all_squash,async)\n",
			[]Export{{"/mnt/ide1/myfiles", 1, []Client{c(1, "192.168.178.0/255.255.255.0", "rw", "no_root_squash", "no_all_squash", "async")}}}, nil},
		{"comments, blank lines and a continued line", "# exports\n\n/srv/a *(ro) \\\n   10.0.0.1(rw) # why\n/srv/b\thost(ro)",
			[]Export{{"/srv/a", 3, []Client{c(3, "*", "ro"), c(4, "10.0.0.1", "rw")}}, {"/srv/b", 5, []Client{c(5, "host", "ro")}}}, nil},
		{"a quoted path and an octal escape", "\"/srv/with space\" *(ro)\n/srv/with\\040space 10.0.0.2(ro)\n",
			[]Export{{"/srv/with space", 1, []Client{c(1, "*", "ro")}}, {"/srv/with space", 2, []Client{c(2, "10.0.0.2", "ro")}}}, nil},
		{"an escape can make the next one, as in exportfs", "\"/x b\\134123\" *(ro)\n/x\\040b\\13412\\063 h(ro)\n",
			[]Export{{"/x bS", 1, []Client{c(1, "*", "ro")}}, {"/x b\\123", 2, []Client{c(2, "h", "ro")}}}, nil},
		{"# inside a token is a character", "/srv/h#x *(ro) # comment\n",
			[]Export{{"/srv/h#x", 1, []Client{c(1, "*", "ro")}}}, nil},
		{"default options apply to the clients after them", "/srv/www -sync,rw server @trusted @external(ro)\n",
			[]Export{{"/srv/www", 1, []Client{withDefaults(c(1, "server"), "sync", "rw"), withDefaults(c(1, "@trusted"), "sync", "rw"), withDefaults(c(1, "@external", "ro"), "sync", "rw")}}}, nil},
		{"IPv6 and IPv4 networks, a wildcard, an empty option list", "/foo 2001:db8:9:e54::/64(rw) 192.0.2.0/24(rw)\n/build buildhost[0-9].local.domain(rw) pc()\n",
			[]Export{{"/foo", 1, []Client{c(1, "2001:db8:9:e54::/64", "rw"), c(1, "192.0.2.0/24", "rw")}}, {"/build", 2, []Client{c(2, "buildhost[0-9].local.domain", "rw"), c(2, "pc", []string{}...)}}},
			nil},
		{"valued options", "/a \"*(anonuid=150,anongid=-2,fsid=0x1a,sec=krb5:krb5i,mp=/a,fsid=01234567-89ab-cdef-0123-456789abcdef, ro)\"\n",
			[]Export{{"/a", 1, []Client{c(1, "*", "anonuid=150", "anongid=-2", "fsid=0x1a", "sec=krb5:krb5i", "mp=/a", "fsid=01234567-89ab-cdef-0123-456789abcdef", "ro")}}}, nil},
		{"a misspelt option is refused with its line", "# x\n/srv *(ro)\n\n/srv/b *(rw,asnyc)\n", nil,
			[]string{`line 4: unknown option "asnyc" in "*(rw,asnyc)" (did you mean "async"?)`}},
		{"a space between client and ( is a warning", "/srv host (rw,sync)\n", nil,
			[]string{`warning: line 1: space between "host" and "(rw,sync)": exportfs reads two clients, host with default options (read-only) and (rw,sync) for everyone; remove the space`}},
		{"a relative path is refused", "srv/a *(ro)\n", nil, []string{`line 1: path "srv/a" is not absolute`}},
		{"a path without clients is exported to everyone", "/srv/a\n", nil,
			[]string{"warning: line 1: no client for /srv/a: exportfs exports it to everyone; name the clients, e.g. /srv/a 192.168.1.0/24(ro)"}},
		{"default options last export to everyone", "/srv/a 10.0.0.1(ro) -rw\n", nil,
			[]string{"warning: line 1: no client for /srv/a: exportfs exports it to everyone; name the clients, e.g. /srv/a 192.168.1.0/24(ro)"}},
		{"a client without options gets read-only defaults", "/srv/a host\n", nil,
			[]string{"warning: line 1: no options for host: exportfs uses read-only defaults; write them, e.g. host(ro,sync) or host(rw,sync)"}},
		{"options without a client are for everyone", "/srv/a (rw)\n", nil,
			[]string{`warning: line 1: no client before "(rw)": exportfs exports it to everyone; write *(rw) to mean that, or name the client`}},
		{"a space inside the parentheses is refused", "/srv/a *(rw, sync)\n", nil,
			[]string{`line 1: bad option list in "*(rw,": no closing ")" (no spaces are allowed inside the parentheses)`}},
		{"text after ) is refused", "/srv/a *(rw)#c\n", nil, []string{`line 1: bad option list in "*(rw)#c": text after ")"`}},
		{"bad values are refused", "/a *(anonuid=abc)\n/b *(fsid=xyz)\n/c *(sec=krb9)\n/d *(squash_uids=-1)\n", nil,
			[]string{`line 1: bad anonuid "anonuid=abc" in "*(anonuid=abc)": want a number`,
				`line 2: bad fsid "fsid=xyz" in "*(fsid=xyz)": want root, a number or a UUID of 32 hex digits`,
				`line 3: bad sec "sec=krb9" in "*(sec=krb9)": unknown security flavor "krb9" (use krb5, krb5i, krb5p, unix, sys, null, none)`,
				`line 4: bad squash_uids "squash_uids=-1" in "*(squash_uids=-1)": uid/gid -1 not permitted`}},
		{"bad networks are refused", "/a 10.0.0.0/33(ro)\n/b 10.0.0.300/24(ro)\n/c 10.0.0.0/255.0.x.0(ro)\n/d 2001:db8::/129(ro)\n/e 10.0.0.0/8(ro) 10.0.0.1/(ro)\n", nil,
			[]string{`line 1: invalid prefix "33" in client "10.0.0.0/33" (0 to 32)`,
				`line 2: invalid IP address in client "10.0.0.300/24"`,
				`line 3: invalid netmask "255.0.x.0" in client "10.0.0.0/255.0.x.0"`,
				`line 4: invalid prefix "129" in client "2001:db8::/129" (0 to 128)`}},
		{"a client twice with other options is refused; the same options only warn", "/a 10.0.0.1(ro)\n/a 10.0.0.1(rw)\n/b h(rw,sync)\n/b h(sync,ro,rw)\n", nil,
			[]string{"line 2: /a is exported to 10.0.0.1 twice with different options (first on line 1): exportfs refuses that",
				"warning: line 4: /b is exported to h twice (first on line 3)"}},
		{"a blank CRLF line stops exportfs", "/a *(ro)\r\n\r\n/b *(ro)\r\n", nil,
			[]string{`line 2: empty path (a stray control character or ""): exportfs stops reading the file here`}},
		{"two default lists in a row are refused", "/a -ro -rw 10.1.1.2\n", nil,
			[]string{`line 1: two default option lists in a row: exportfs reads "-rw" as a host name; join them, e.g. -ro,sync`}},
		{"gss/ clients are deprecated", "/a gss/krb5(rw)\n", nil,
			[]string{`warning: line 1: client "gss/krb5" is deprecated: use * with sec=krb5`}},
		{"an open quote is refused", "\"/a *(ro)\n/b *(ro)\n", nil, []string{"line 1: no closing double quote on the line"}},
		{"a NUL byte is refused", "/a *(ro)\n/b\x00 *(ro)\n", nil, []string{"line 2: NUL byte in the file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, problems := Parse([]byte(tc.in))
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("exports\n got %+v\nwant %+v", got, tc.want)
			}
			if g := problemStrings(problems); !reflect.DeepEqual(g, tc.problems) {
				t.Errorf("problems\n got %q\nwant %q", g, tc.problems)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"asnyc", "async", 1}, {"rw", "ro", 1}, {"no_subtre_check", "no_subtree_check", 1}, {"", "abc", 3}, {strings.Repeat("x", 50), "x", 99}} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}
