package systest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestWriteFileNotBusy proves a script written with WriteFile runs at
// once while other goroutines fork all the time: no child holds it open
// for writing ("text file busy"). With os.WriteFile this fails within a
// few rounds on a busy machine.
func TestWriteFileNotBusy(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				exec.Command("true").Run()
			}
		}()
	}
	defer wg.Wait()
	defer cancel()
	dir := t.TempDir()
	for i := range 100 {
		p := filepath.Join(dir, fmt.Sprintf("s%d", i))
		if err := WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command(p).Run(); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		os.Remove(p)
	}
}
