package cli

import (
	"context"
	"fmt"

	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/system"
)

func runProfiles(ctx context.Context, e *env, args []string) error {
	fs := e.flags("profiles")
	sh := fs.String("sh", "", "render profile `NAME` for the sh engine (lib/profile)")
	if err := e.parse(fs, args, 0, 0); err != nil {
		return err
	}
	if *sh != "" {
		if _, err := profile.Builtin(*sh); err != nil {
			return usagef("%v", err)
		}
		// dsm is rendered for the DSM version under --root, if any.
		p, err := profile.ForDevice(*sh, system.NewReal(e.root))
		if err != nil {
			return err
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
