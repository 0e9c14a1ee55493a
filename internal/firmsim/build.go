package firmsim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildEngine builds the Go engine (./cmd/userscript of this module) into
// dir and returns the binary's path: the tests run the real program.
func BuildEngine(dir string) (string, error) {
	top, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "userscript")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/userscript")
	cmd.Dir = top
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/userscript: %v\n%s", err, out)
	}
	return bin, nil
}

// BuildTool builds the command of this module at pkg (e.g.
// "./internal/firmsim/cmd/fakedaemon") into dir and returns its path.
func BuildTool(dir, pkg string) (string, error) {
	top, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = top
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// moduleRoot is the folder above the working directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}
