package exports

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// exportFlags are the option words of exports(5) (nfs-utils parseopts),
// each with the flag it sets and the value, so that "ro,rw" and "rw"
// compare equal.
var exportFlags = map[string][2]string{
	"ro": {"rw", "ro"}, "rw": {"rw", "rw"},
	"secure": {"secure", "secure"}, "insecure": {"secure", "insecure"},
	"sync": {"sync", "sync"}, "async": {"sync", "async"},
	"wdelay": {"wdelay", "wdelay"}, "no_wdelay": {"wdelay", "no_wdelay"},
	"hide": {"hide", "hide"}, "nohide": {"hide", "nohide"},
	"crossmnt": {"crossmnt", "crossmnt"}, "nocrossmnt": {"crossmnt", "nocrossmnt"},
	"root_squash": {"root_squash", "root_squash"}, "no_root_squash": {"root_squash", "no_root_squash"},
	"all_squash": {"all_squash", "all_squash"}, "no_all_squash": {"all_squash", "no_all_squash"},
	"subtree_check": {"subtree_check", "subtree_check"}, "no_subtree_check": {"subtree_check", "no_subtree_check"},
	"auth_nlm": {"auth_nlm", "auth_nlm"}, "secure_locks": {"auth_nlm", "auth_nlm"},
	"no_auth_nlm": {"auth_nlm", "no_auth_nlm"}, "insecure_locks": {"auth_nlm", "no_auth_nlm"},
	"acl": {"acl", "acl"}, "no_acl": {"acl", "no_acl"},
	"pnfs": {"pnfs", "pnfs"}, "no_pnfs": {"pnfs", "no_pnfs"},
	"nordirplus": {"nordirplus", ""}, "security_label": {"security_label", ""}, "sign_fh": {"sign_fh", ""},
	"mountpoint": {"mountpoint", ""}, "mp": {"mountpoint", ""},
}

// exportValued are the options written name=value, and what checks the
// value ("" when any value will do).
var exportValued = map[string]func(string) string{
	"anonuid": checkID, "anongid": checkID,
	"squash_uids": checkSquash, "squash_gids": checkSquash,
	"fsid":       checkFsid,
	"mountpoint": nil, "mp": nil, "refer": nil, "replicas": nil,
	"sec":      checkList("security flavor", "krb5", "krb5i", "krb5p", "unix", "sys", "null", "none"),
	"xprtsec":  checkList("xprtsec mode", "none", "tls", "mtls"),
	"reexport": checkList("reexport method", "auto-fsidnum", "predefined-fsidnum", "none"),
}

// options splits and checks an option list as parseopts does: options are
// separated by commas, blanks after a comma are skipped. where is the
// token, for messages.
func (p *exportsParser) options(s, where string, line int) ([]string, bool) {
	out := []string{}
	sawReexport := false
	s = strings.TrimLeft(s, " \t")
	for s != "" {
		opt, rest, _ := strings.Cut(s, ",")
		s = strings.TrimLeft(rest, " \t")
		name, value, valued := strings.Cut(opt, "=")
		if _, ok := exportFlags[opt]; ok {
			out = append(out, opt)
			continue
		}
		check, ok := exportValued[name]
		if !ok || !valued {
			p.errorf(line, "unknown option %q in %q%s", opt, where, suggestOption(opt))
			return out, false
		}
		msg := ""
		if check != nil {
			msg = check(value)
		}
		switch {
		case name == "fsid" && sawReexport:
			msg = "fsid= must come before reexport="
		case name == "reexport" && sawReexport:
			msg = "only one reexport= is allowed"
		}
		sawReexport = sawReexport || name == "reexport"
		if msg != "" {
			p.errorf(line, "bad %s %q in %q: %s", name, opt, where, msg)
			return out, false
		}
		out = append(out, opt)
	}
	return out, true
}

// checkID wants a decimal number (strtol, base 10, all of it).
func checkID(v string) string {
	if !isDigits(strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")) {
		return "want a number"
	}
	return ""
}

// checkSquash wants N or N-M (parsesquash; one range per option).
func checkSquash(v string) string {
	id0, rest := parseNum(v)
	id1 := id0
	if strings.HasPrefix(rest, "-") {
		id1, rest = parseNum(rest[1:])
	}
	switch {
	case id0 == -1 || id1 == -1:
		return "uid/gid -1 not permitted"
	case rest != "" && rest[0] != ')':
		return "want N or N-M"
	}
	return ""
}

// parseNum is parsenum: an optional minus and digits, read with atoi.
func parseNum(s string) (int, string) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(s[:i])
	return n, s[i:]
}

// checkFsid wants root, a number in C syntax (10, 0x1a, 017) or a UUID
// of 32 hex digits with any punctuation.
func checkFsid(v string) string {
	if v == "root" || isCUnsigned(v) {
		return ""
	}
	hex := 0
	for i := 0; i < len(v); i++ {
		if strings.IndexByte(hexDigits, v[i]) >= 0 {
			hex++
		}
	}
	if hex == 32 {
		return ""
	}
	return "want root, a number or a UUID of 32 hex digits"
}

const hexDigits = "0123456789abcdefABCDEF"

// isCUnsigned reports whether strtoul(v, &end, 0) reads all of v.
func isCUnsigned(v string) bool {
	if v != "" && (v[0] == '+' || v[0] == '-') {
		v = v[1:]
	}
	switch {
	case strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X"):
		return v[2:] != "" && strings.Trim(v[2:], hexDigits) == ""
	case strings.HasPrefix(v, "0"):
		return strings.Trim(v, "01234567") == ""
	}
	return isDigits(v)
}

func checkList(what string, words ...string) func(string) string {
	return func(v string) string {
		for _, w := range strings.Split(v, ":") {
			if !contains(words, w) {
				return fmt.Sprintf("unknown %s %q (use %s)", what, w, strings.Join(words, ", "))
			}
		}
		return ""
	}
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// suggestOption names the option word closest to a misspelt one.
func suggestOption(opt string) string {
	best, dist := "", 3
	for w := range exportFlags {
		if d := editDistance(opt, w); d < dist || d == dist && w < best {
			best, dist = w, d
		}
	}
	for w := range exportValued {
		if d := editDistance(opt, w+"="); d < dist || d == dist && w+"=" < best {
			best, dist = w+"=", d
		}
	}
	if best == "" || dist > 2 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance, with a swap of two
// neighbouring letters counting as one edit ("asnyc" is one from "async").
func editDistance(a, b string) int {
	if len(a) > 40 || len(b) > 40 {
		return 99
	}
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// checkHost checks a client as exportfs's client_gettype sorts it; a
// network must be a numeric address with a prefix length or an IPv4
// netmask. warn is true for a legal but deprecated form.
func checkHost(host string) (msg string, warn bool) {
	switch {
	case host == "" || host == "*" || host[0] == '@':
		return "", false
	case strings.HasPrefix(host, "gss/"):
		return fmt.Sprintf("client %q is deprecated: use * with sec=%s", host, strings.TrimPrefix(host, "gss/")), true
	}
	for i := 0; i < len(host); i++ {
		switch host[i] {
		case '*', '?', '[':
			return "", false
		case '/':
			return checkNetwork(host), false
		case '\\':
			i++
		}
	}
	return "", false
}

func checkNetwork(host string) string {
	addrText, mask, _ := strings.Cut(host, "/")
	addr, err := netip.ParseAddr(addrText)
	if err != nil {
		return fmt.Sprintf("invalid IP address in client %q", host)
	}
	if strings.Contains(mask, ".") {
		m, err := netip.ParseAddr(mask)
		if err != nil || !m.Is4() || !addr.Is4() {
			return fmt.Sprintf("invalid netmask %q in client %q", mask, host)
		}
		return ""
	}
	bits := 128
	if addr.Is4() {
		bits = 32
	}
	digits := strings.TrimPrefix(mask, "+")
	if digits == "" && mask == "" {
		return ""
	}
	if n, err := strconv.Atoi(digits); err != nil || !isDigits(digits) || n > bits {
		return fmt.Sprintf("invalid prefix %q in client %q (0 to %d)", mask, host, bits)
	}
	return ""
}

// canonicalOptions maps options to the flags they set, for comparing two
// option lists.
func canonicalOptions(opts []string) map[string]string {
	m := map[string]string{}
	for _, o := range opts {
		if f, ok := exportFlags[o]; ok {
			m[f[0]] = f[1]
			continue
		}
		name, value, _ := strings.Cut(o, "=")
		if name == "mp" {
			name = "mountpoint"
		}
		if name == "sec" {
			value = m["sec"] + ":" + value
		}
		m[name] = value
	}
	return m
}
