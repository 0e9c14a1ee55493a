package doctor

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"strings"
)

// A section is one [section] of an smb.conf: its parameters by
// canonical name (lower case, no spaces, synonyms folded), last wins.
type section struct {
	name   string
	params map[string]string
}

// Samba's synonyms, folded to one name; inverted ones are true.
var synonyms = map[string]struct {
	name   string
	invert bool
}{
	"writable":  {"readonly", true},
	"writeable": {"readonly", true},
	"writeok":   {"readonly", true},
	"public":    {"guestok", false},
	"onlyguest": {"guestonly", false},
}

// parseSmb reads an smb.conf: [global] and the shares, in file order.
func parseSmb(data []byte) (global section, shares []section) {
	global = section{name: "global", params: map[string]string{}}
	cur := &global
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cont string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasSuffix(line, "\\") {
			cont += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line, cont = strings.TrimSpace(cont+line), ""
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			name := strings.TrimSpace(strings.Trim(line, "[]"))
			if strings.EqualFold(name, "global") {
				cur = &global
				continue
			}
			shares = append(shares, section{name: name, params: map[string]string{}})
			cur = &shares[len(shares)-1]
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			key := strings.ToLower(strings.Join(strings.Fields(k), ""))
			v = strings.TrimSpace(v)
			if syn, ok := synonyms[key]; ok {
				key = syn.name
				if syn.invert {
					v = boolWord(!yes(v))
				}
			}
			cur.params[key] = v
		}
	}
	return global, shares
}

// get is a share's parameter, else [global]'s (which sets the default
// of every share), else def.
func get(s, global section, key, def string) string {
	if v, ok := s.params[key]; ok {
		return v
	}
	if v, ok := global.params[key]; ok {
		return v
	}
	return def
}

func yes(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes", "true", "1", "on":
		return true
	}
	return false
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// shareExposure says who can write the app dir (a device path) through
// the live smb.conf: the share whose path holds it (the most specific
// one), and whether guests can write there. risky is true when guests
// can write it.
func shareExposure(smbConf []byte, app string) (finding string, risky bool) {
	global, shares := parseSmb(smbConf)
	var best *section
	bestPath := ""
	for i := range shares {
		p := path.Clean(shares[i].params["path"])
		if shares[i].params["path"] == "" || strings.Contains(p, "%") {
			continue
		}
		if (app == p || strings.HasPrefix(app, strings.TrimSuffix(p, "/")+"/")) && len(p) > len(bestPath) {
			best, bestPath = &shares[i], p
		}
	}
	if best == nil {
		return fmt.Sprintf("no share of the live smb.conf holds the app folder (%s)", app), false
	}
	s := *best
	where := fmt.Sprintf("the app folder is in the share [%s] (path %s)", s.name, bestPath)
	if !yes(get(s, global, "available", "yes")) {
		return where + ": the share is switched off (available = no)", false
	}
	guestOK := yes(get(s, global, "guestok", "no"))
	writable := !yes(get(s, global, "readonly", "yes"))
	writeList := get(s, global, "writelist", "")
	guest := get(s, global, "guestaccount", "nobody")
	var facts []string
	facts = append(facts, "guest ok = "+boolWord(guestOK), "read only = "+boolWord(!writable))
	if writeList != "" {
		facts = append(facts, "write list = "+writeList)
	}
	switch {
	case guestOK && (writable || listed(writeList, guest)):
		return fmt.Sprintf("%s: GUESTS CAN WRITE IT (%s): anyone on your network, without a password, can change conf.d", where, strings.Join(facts, ", ")), true
	case writable:
		return fmt.Sprintf("%s: every user the share lets in can write it (%s)", where, strings.Join(facts, ", ")), false
	case writeList != "":
		return fmt.Sprintf("%s: the users of its write list can write it (%s)", where, strings.Join(facts, ", ")), false
	}
	return fmt.Sprintf("%s: read-only over the network (%s)", where, strings.Join(facts, ", ")), false
}

// listed reports whether the write list names the guest account (or
// nobody's group) by name.
func listed(list, guest string) bool {
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		f = strings.TrimLeft(f, "@+&")
		if f == guest || f == "nobody" || f == "nogroup" {
			return true
		}
	}
	return false
}
