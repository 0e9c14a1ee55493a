package statuspage

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "write package/lib/pagetext.sh")

var committed = filepath.Join("..", "..", "package", "lib", "pagetext.sh")

// TestShellCommitted proves that package/lib/pagetext.sh is what the
// templates give: a template changed in Go fails here until the file is
// written again (-update).
func TestShellCommitted(t *testing.T) {
	want := Shell()
	if *update {
		if err := os.WriteFile(committed, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is stale: run go test ./internal/statuspage -update", committed)
	}
}
