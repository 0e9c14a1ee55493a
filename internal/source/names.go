package source

import (
	"regexp"
	"slices"
	"strings"
)

// Reserved names in conf.d: files the owner drops to steer the engines,
// or that the engines write. They are never sources and never get a
// status file of their own. Case does not count (Windows shows DISABLE.txt
// as DISABLE when it hides extensions).
const (
	Disable    = "DISABLE"     // any content: apply nothing (also DISABLE.txt, DISABLE.txt.txt)
	SafeMode   = "SAFE-MODE"   // written after starts that never finished; delete it to go on
	DoctorFile = "DOCTOR.txt"  // what `userscript doctor` found at the last start
	PageFile   = "STATUS.html" // the page an owner opens (internal/statuspage)
)

// The lists behind Reserved, IsDisable and systemDropping, in lower case
// (names compare without case); the sh engine's lib/words.sh is
// generated from them (internal/shwords).
var (
	// DISABLE.txt.txt is what Notepad saves as "DISABLE.txt" when
	// Explorer hides extensions.
	ReservedNames = []string{"disable", "disable.txt", "disable.txt.txt", "safe-mode", "doctor.txt", "status.html"}
	DisableNames  = []string{"disable", "disable.txt", "disable.txt.txt"}
	// What Windows Explorer leaves (thumbnail caches, folder settings);
	// macOS's .DS_Store and ._* resource forks start with a dot.
	Droppings = []string{"thumbs.db", "ehthumbs.db", "desktop.ini"}
	// The endings of the owner's own backups (smb.conf.bak), also with
	// the ".txt" Notepad adds (smb.conf.bak.txt).
	BackupEndings = []string{".bak", ".old", ".orig"}
)

// Reserved reports whether name is one of the reserved names.
func Reserved(name string) bool {
	return slices.Contains(ReservedNames, strings.ToLower(name))
}

// IsDisable reports whether name is the owner's off switch.
func IsDisable(name string) bool {
	return slices.Contains(DisableNames, strings.ToLower(name))
}

// Backup reports whether name is one of the owner's backups.
func Backup(name string) bool {
	lower, _ := cutFold(strings.ToLower(name), ".txt")
	for _, end := range BackupEndings {
		if strings.HasSuffix(lower, end) && len(lower) > len(end) {
			return true
		}
	}
	return false
}

// systemDropping reports whether Windows Explorer or macOS Finder left the
// file there on its own (thumbnail caches, folder settings, resource forks).
func systemDropping(name string) bool {
	if slices.Contains(Droppings, strings.ToLower(name)) {
		return true
	}
	return strings.HasPrefix(name, "._") || name == ".DS_Store"
}

// Copies and renames that Windows and macOS make, with what they did.
var copyPatterns = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`(?i)^(.+?) - (copy|kopie|copie|copia)( \(\d+\))?$`), "it looks like a copy Windows made"},
	{regexp.MustCompile(`(?i)^(?:copy|kopie)(?: \(\d+\))? (?:of|von) (.+)$`), "it looks like a copy Windows made"},
	{regexp.MustCompile(`(?i)^(.+?) (?:copy|kopie)(?: \d+)?$`), "it looks like a copy macOS made"},
	{regexp.MustCompile(`^(.+?) \(\d+\)$`), "Windows added a number to a second file of the same name"},
	{regexp.MustCompile(`^(.+?) \d+$`), "macOS added a number to a second file of the same name"},
}

// Meant guesses which source name a file that names no target was meant
// to have, among known (target names, e.g. "smb.conf"); it returns "" when
// it cannot tell. why says what went wrong, for the owner.
//
// It undoes, in this order: an extension Windows hides (smb.conf.txt), a
// copy's or a duplicate's suffix, in the base name or after it
// (smb.conf - Copy, smb - Copy.conf, smb (2).conf, smb 2.conf, Copy of
// smb.conf), and the case of the letters (SMB.CONF).
func Meant(name string, known []string) (meant, why string) {
	var whys []string
	cand := name
	if trimmed, ok := cutFold(cand, ".txt"); ok && trimmed != "" {
		cand = trimmed
		whys = append(whys, `Windows added ".txt", as it hides known extensions; View → File name extensions shows them`)
	}
	if c, w, ok := uncopy(cand); ok {
		cand = c
		whys = append(whys, w)
	}
	if m := match(cand, known); m != "" {
		if m != cand {
			whys = append(whys, "names are case-sensitive on the NAS")
		}
		if len(whys) == 0 {
			return "", ""
		}
		return m, strings.Join(whys, "; ")
	}
	return "", ""
}

// uncopy takes a copy's or a duplicate's suffix off name, in the base
// name before its extensions (smb (2).conf) or after them (smb.conf (2)).
func uncopy(name string) (string, string, bool) {
	for _, p := range copyPatterns {
		if m := p.re.FindStringSubmatch(name); m != nil {
			return m[1], p.why, true
		}
	}
	stem, ext, ok := strings.Cut(name, ".")
	if !ok {
		return "", "", false
	}
	for _, p := range copyPatterns {
		if m := p.re.FindStringSubmatch(stem); m != nil {
			return m[1] + "." + ext, p.why, true
		}
	}
	return "", "", false
}

// match finds name among the known targets and their .add and .merge
// sources, ignoring case; it returns the name as it should be written.
func match(name string, known []string) string {
	for _, k := range known {
		for _, n := range []string{k, k + ".add", k + ".merge"} {
			if strings.EqualFold(n, name) {
				return n
			}
		}
	}
	return ""
}

func cutFold(s, suffix string) (string, bool) {
	if len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}
