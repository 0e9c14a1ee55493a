// Command archive packs a folder reproducibly (see package release):
//
//	archive -o OUT.zip|OUT.tar.gz -C DIR -top NAME -mtime SECONDS
//
// Every file under DIR goes in as NAME/RELPATH.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/nas-userscript/userscript/internal/release"
)

func main() {
	out := flag.String("o", "", "the archive to write (.zip, else .tar.gz)")
	dir := flag.String("C", "", "the folder to pack")
	top := flag.String("top", "", "the one top folder in the archive")
	mtime := flag.Int64("mtime", 0, "the time of every entry, in seconds since 1970 (SOURCE_DATE_EPOCH)")
	flag.Parse()
	if *out == "" || *dir == "" || *top == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: archive -o OUT -C DIR -top NAME [-mtime SECONDS]")
		os.Exit(2)
	}
	files, err := release.Collect(*dir, *top)
	if err == nil {
		err = release.Write(*out, files, time.Unix(*mtime, 0))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "archive:", err)
		os.Exit(1)
	}
}
