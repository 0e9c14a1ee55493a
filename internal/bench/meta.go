package bench

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/history"
	"github.com/nas-userscript/userscript/internal/system"
)

// DeviceName is this machine's name: the kernel's hostname under the
// root, else the operating system's, else "-".
func DeviceName(sys system.System) string {
	if data, err := sys.ReadFile(sys.Root("/proc/sys/kernel/hostname")); err == nil {
		if name := strings.TrimSpace(string(data)); name != "" {
			return name
		}
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		return name
	}
	return "-"
}

// LiveGeneration is the config generation live now: the newest one in
// app/state/gen whose result is ok, or "-". It only reads.
func LiveGeneration(sys system.System, app string) string {
	gens, _ := (&history.Store{Dir: filepath.Join(app, "state", "gen"), Sys: sys}).List()
	for i := len(gens) - 1; i >= 0; i-- {
		if gens[i].Result == history.OK {
			return strconv.Itoa(gens[i].ID)
		}
	}
	return "-"
}

var goodName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ResultsDir is where results go by default: app/conf.d/.bench, readable
// from the share. It refuses a .bench that is a link or not a folder
// (conf.d can be written by anyone on the LAN).
func ResultsDir(sys system.System, app string) (string, error) {
	confd := filepath.Join(app, "conf.d")
	if fi, err := sys.Lstat(confd); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: no conf.d folder here: pass --app DIR or --out FILE.csv", confd)
	}
	dir := filepath.Join(confd, ".bench")
	fi, err := sys.Lstat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return "", fmt.Errorf("%s: not a folder (a link or a file): remove it, or pass --out FILE.csv", dir)
	case err != nil && !os.IsNotExist(err):
		return "", fmt.Errorf("%s: %w", dir, err)
	case err != nil:
		if err := sys.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("%s: %w", dir, err)
		}
	}
	return dir, nil
}

// Destination is where a run's results go: out when given, else
// DATE-NAME.csv in app/conf.d/.bench, else (with a note saying why) in
// the current folder. start is the run's start (DATE).
func Destination(sys system.System, app, out, name string, start time.Time) (path, note string, err error) {
	if out != "" {
		return out, "", nil
	}
	dir, derr := ResultsDir(sys, app)
	if derr != nil {
		dir, note = ".", derr.Error()+"; writing to the current folder"
	}
	path, err = ResultsFile(dir, name, start)
	return path, note, err
}

// ResultsFile names a results file DATE-NAME.csv in dir.
func ResultsFile(dir, name string, now time.Time) (string, error) {
	if !goodName.MatchString(name) {
		return "", fmt.Errorf("name %q: use letters, digits, '.', '_' and '-' only", name)
	}
	return filepath.Join(dir, now.UTC().Format("2006-01-02-150405")+"-"+name+".csv"), nil
}

// Save writes the report as csvPath and, next to it, the same name with
// .json; each is replaced atomically.
func Save(sys system.System, csvPath string, rep *Report) (jsonPath string, err error) {
	var c, j bytes.Buffer
	if err := WriteCSV(&c, rep.Results); err != nil {
		return "", err
	}
	if err := WriteJSON(&j, rep); err != nil {
		return "", err
	}
	jsonPath = strings.TrimSuffix(csvPath, ".csv") + ".json"
	for p, data := range map[string][]byte{csvPath: c.Bytes(), jsonPath: j.Bytes()} {
		if err := sys.WriteFile(p, data, fs.FileMode(0o644)); err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
	}
	return jsonPath, nil
}

// DevicePath is the device path of a real path under the root, and
// whether it is under the root at all.
func DevicePath(sys system.System, real string) (string, bool) {
	rel, err := filepath.Rel(sys.Root("/"), real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(filepath.Join("/", rel)), true
}
