package overlay

import (
	"bufio"
	"bytes"
	"net"
	"path"
	"strconv"
	"strings"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/system"
)

// configuredListen reads where a daemon is told to listen in its config:
// smb.conf's `smb ports`, and `interfaces` when `bind interfaces only` is
// set; proftpd.conf's main `Port`, and `DefaultAddress` when
// `SocketBindTight` is on. ok is false for other formats.
func configuredListen(validator string, data []byte, ifaces []system.Interface) (listen, bool) {
	switch validator {
	case profile.ValidateTestparm:
		return sambaListen(data, ifaces), true
	case profile.ValidateProftpd:
		return proftpdListen(data), true
	}
	return listen{}, false
}

// sambaListen reads [global]; Samba ignores case and spaces in names.
func sambaListen(data []byte, sys []system.Interface) listen {
	var l listen
	global := true
	var names []string
	bindOnly := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			global = strings.EqualFold(strings.Trim(line, "[] \t"), "global")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !global || !ok || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		switch strings.ToLower(strings.Join(strings.Fields(k), "")) {
		case "smbports":
			l.ports = nil
			for _, f := range fieldsOf(v) {
				if p, err := strconv.Atoi(f); err == nil && p > 0 && p < 65536 {
					l.ports = append(l.ports, p)
				}
			}
		case "interfaces":
			names = fieldsOf(v)
		case "bindinterfacesonly":
			bindOnly = yes(v)
		}
	}
	if bindOnly {
		l.hosts = interfaceHosts(names, sys)
	}
	return l
}

// proftpdListen reads the main server's directives (outside any block).
func proftpdListen(data []byte) listen {
	var l listen
	depth := 0
	var addrs []string
	tight := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch {
		case strings.HasPrefix(f[0], "</"):
			depth--
			continue
		case strings.HasPrefix(f[0], "<"):
			depth++
			continue
		}
		if depth > 0 || len(f) < 2 {
			continue
		}
		switch strings.ToLower(f[0]) {
		case "port":
			if p, err := strconv.Atoi(f[1]); err == nil && p > 0 && p < 65536 {
				l.ports = []int{p}
			}
		case "defaultaddress":
			addrs = f[1:]
		case "socketbindtight":
			tight = yes(f[1])
		}
	}
	if tight {
		for _, a := range addrs {
			if net.ParseIP(a) != nil {
				l.hosts = append(l.hosts, a)
			}
		}
	}
	return l
}

func fieldsOf(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == ';' })
}

func yes(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "yes", "true", "1", "on":
		return true
	}
	return false
}

// interfaceHosts turns Samba's interfaces list (addresses, address/mask,
// interface names, name patterns) into the addresses to dial.
func interfaceHosts(names []string, sys []system.Interface) []string {
	var hosts []string
	for _, f := range names {
		addr, _, _ := strings.Cut(f, "/")
		addr = strings.Trim(addr, "[]")
		if ip := net.ParseIP(addr); ip != nil {
			hosts = append(hosts, ip.String())
			continue
		}
		for _, iface := range sys {
			if ok, _ := path.Match(f, iface.Name); ok {
				hosts = append(hosts, iface.Addrs...)
			}
		}
	}
	return hosts
}
