package bench

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// meter shows a transfer's progress on a terminal, once a second: a bar,
// MiB done of total and the rate so far. done reports the bytes done.
// On anything but a terminal (a log, a test) it shows nothing. The
// returned func stops it and clears the line.
func meter(w io.Writer, label string, total int64, done func() int64) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	start := time.Now()
	ticker := time.NewTicker(time.Second)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-quit:
				fmt.Fprintf(w, "\r%s\r", strings.Repeat(" ", 72))
				return
			case <-ticker.C:
				fmt.Fprint(w, "\r"+bar(label, done(), total, time.Since(start)))
			}
		}
	}()
	return func() {
		ticker.Stop()
		close(quit)
		wg.Wait()
	}
}

// bar is one progress line: "S1 [#####.....] 512/1000 MiB 45.6 MB/s".
func bar(label string, done, total int64, elapsed time.Duration) string {
	const width = 20
	filled := 0
	if total > 0 {
		filled = int(min(done, total) * width / total)
	}
	return fmt.Sprintf("  %-14s [%s%s] %d/%d MiB %.1f MB/s", label,
		strings.Repeat("#", filled), strings.Repeat(".", width-filled),
		done/MiB, total/MiB, Rate(done, elapsed.Seconds()))
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
