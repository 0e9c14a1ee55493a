package ansibletest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/nas-userscript/userscript/internal/needtool"
)

// TestRoleLint proves the role and the example playbook pass
// ansible-lint's production profile (offline: it installs nothing).
func TestRoleLint(t *testing.T) {
	needtool.Tool(t, "ansible-lint")
	home := t.TempDir()
	cmd := exec.Command("ansible-lint", "--offline", "--nocolor", "site.yml", "roles/userscript")
	cmd.Dir = filepath.Join(repoRoot, "contrib", "ansible")
	cmd.Env = append(cmd.Environ(), "HOME="+home, "ANSIBLE_ROLES_PATH=roles",
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(home, "tmp"), "ANSIBLE_COLLECTIONS_PATH="+filepath.Join(home, "collections"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ansible-lint: %v\n%s", err, out)
	}
}
