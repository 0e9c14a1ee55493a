// Command userscript puts a NAS owner's edited configs back over the
// firmware's files. See README.md.
package main

import (
	"os"

	"github.com/nas-userscript/userscript/internal/cli"
)

// version is stamped by the build: -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr, version))
}
