package cli

import (
	"context"
	"fmt"

	"github.com/nas-userscript/userscript/internal/profile"
)

func runProfiles(ctx context.Context, e *env, args []string) error {
	fs := e.flags("profiles")
	sh := fs.String("sh", "", "render profile `NAME` for the sh engine (lib/profile)")
	if err := e.parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *sh != "" {
		p, err := profile.Builtin(*sh)
		if err != nil {
			return usagef("%v", err)
		}
		return p.WriteShell(e.stdout)
	}
	for _, name := range profile.Names() {
		p, _ := profile.Builtin(name)
		fmt.Fprintf(e.stdout, "%s: %s\n", p.Name, p.Description)
		for _, t := range p.Targets {
			fmt.Fprintf(e.stdout, "  %-13s %-36s %-9s %s\n", t.Name, t.Path, orDash(t.Validator), orDash(t.Service))
		}
	}
	return nil
}

func runVersion(ctx context.Context, e *env, args []string) error {
	if err := e.parse(e.flags("version"), args, 0, 0); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "userscript %s\n", e.version)
	return nil
}
