package cli

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kardianos/service"
)

// runService installs `userscript run` with the host's service manager
// (systemd on the BananaPi's Arch Linux, sysv, openrc, upstart) so it
// starts at boot and is restarted when it dies. Firmware devices without
// one use the init hook instead.
func runService(ctx context.Context, e *env, args []string) error {
	fs := e.flags("service")
	if err := e.parse(fs, args, 1, 1); err != nil {
		return err
	}
	args = fs.Args()
	app, err := e.appDir()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	daemonArgs := []string{"--app", app}
	if e.root != "" {
		daemonArgs = append(daemonArgs, "--root", e.root)
	}
	cfg := &service.Config{
		Name:        "userscript",
		DisplayName: "userscript",
		Description: "Applies conf.d over the firmware's configs and watches it for edits",
		Executable:  exe,
		Arguments:   append(daemonArgs, "run"),
		Option:      service.KeyValue{"Restart": "on-failure"},
	}
	action := args[0]
	if action == "install" {
		// At boot the engine must find the file servers started, not
		// about to be (profile.Units).
		if _, prof, _, err := e.settings(app); err == nil && len(prof.Units()) > 0 {
			cfg.Dependencies = []string{"After=" + strings.Join(prof.Units(), " ")}
		}
	}
	s, err := service.New(nopProgram{}, cfg)
	if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	switch action {
	case "status":
		st, err := s.Status()
		if err != nil {
			return fmt.Errorf("service status (%s): %w", service.ChosenSystem(), err)
		}
		word := map[service.Status]string{service.StatusRunning: "running", service.StatusStopped: "stopped"}[st]
		if word == "" {
			word = "unknown"
		}
		fmt.Fprintf(e.stdout, "userscript service (%s): %s\n", service.ChosenSystem(), word)
		return nil
	case "install", "uninstall", "start", "stop", "restart":
		if err := service.Control(s, action); err != nil {
			return fmt.Errorf("service %s (%s): %w", action, service.ChosenSystem(), err)
		}
		fmt.Fprintf(e.stdout, "userscript service: %s done (%s)\n", action, service.ChosenSystem())
		return nil
	}
	return usagef("service: unknown action %q: use install, uninstall, start, stop, restart or status", action)
}

// nopProgram satisfies kardianos/service; the service manager runs
// `userscript run` itself.
type nopProgram struct{}

func (nopProgram) Start(service.Service) error { return nil }
func (nopProgram) Stop(service.Service) error  { return nil }
