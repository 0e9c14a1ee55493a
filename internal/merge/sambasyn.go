package merge

// sambaSynonyms are the names Samba gives one parameter, each with the
// parameter's main name and whether it means the opposite (a boolean
// Samba stores inverted). Names are compared as Samba compares them:
// lower case, white space removed.
//
// Taken from Samba's own parameter definitions: the <synonym> elements
// and the synonym="1" parameters (type "boolean-rev" for the inverted
// ones) of docs-xml/smbdotconf/*/*.xml in samba-team/samba (master,
// 2026), and, for the Samba 3.0 of old firmware, the entries of
// parm_table in source/param/loadparm.c (tag samba-3.0.20) that share
// one variable (P_BOOLREV for the inverted ones). Left out: "smb ports",
// since 2025 a synonym of "server smb transports" but before that a
// parameter of its own with other values.
var sambaSynonyms = map[string]sambaSynonym{}

type sambaSynonym struct {
	main     string // the main name, squeezed
	inverted bool   // yes here is no there
}

func init() {
	for main, names := range map[string][]string{
		"read only":                 {"-writeable", "-writable", "-write ok"},
		"disable spoolss":           {"-enable spoolss"},
		"path":                      {"directory"},
		"browseable":                {"browsable"},
		"guest ok":                  {"public"},
		"guest only":                {"only guest"},
		"printable":                 {"print ok"},
		"printer name":              {"printer"},
		"printcap name":             {"printcap"},
		"force group":               {"group"},
		"create mask":               {"create mode"},
		"directory mask":            {"directory mode"},
		"hosts allow":               {"allow hosts"},
		"hosts deny":                {"deny hosts"},
		"root directory":            {"root dir", "root"},
		"preexec":                   {"exec"},
		"default service":           {"default"},
		"auto services":             {"preload"},
		"lock directory":            {"lock dir"},
		"log level":                 {"debuglevel"},
		"timestamp logs":            {"debug timestamp"},
		"case sensitive":            {"casesignames"},
		"preferred master":          {"prefered master"},
		"server max protocol":       {"max protocol", "protocol"},
		"server min protocol":       {"min protocol"},
		"vfs objects":               {"vfs object"},
		"idmap uid":                 {"winbind uid"},
		"idmap gid":                 {"winbind gid"},
		"ldap passwd sync":          {"ldap password sync"},
		"username":                  {"user", "users"},
		"smb1 unix extensions":      {"unix extensions"},
		"private dir":               {"private directory"},
		"binddns dir":               {"bind dns directory"},
		"nbt client socket address": {"socket address"},
		"server smb encrypt":        {"smb encrypt"},
	} {
		m := squeeze(main)
		sambaSynonyms[m] = sambaSynonym{main: m}
		for _, n := range names {
			inv := n[0] == '-'
			if inv {
				n = n[1:]
			}
			sambaSynonyms[squeeze(n)] = sambaSynonym{main: m, inverted: inv}
		}
	}
}

// sambaParam returns the main name of the parameter key names, and
// whether key means its opposite.
func sambaParam(key string) (main string, inverted bool) {
	k := squeeze(key)
	if s, ok := sambaSynonyms[k]; ok {
		return s.main, s.inverted
	}
	return k, false
}

// sambaKeyFor is the key a line of the file keeps when a fragment's
// line sets its parameter: its own, unless it means the opposite of the
// fragment's key (writable for read only), then the fragment's.
func sambaKeyFor(have, want *node) string {
	_, hi := sambaParam(have.key)
	_, wi := sambaParam(want.key)
	if hi != wi {
		return want.key
	}
	return have.key
}
