package cli

import (
	"context"
	"fmt"
)

func runUninstall(ctx context.Context, e *env, args []string) error {
	if err := e.parse(e.flags("uninstall"), args, 0, 0); err != nil {
		return err
	}
	eng, release, err := e.engine(ctx, false, true)
	if err != nil {
		return err
	}
	defer release()
	res, err := eng.Uninstall(ctx)
	e.writePage(eng)
	if res != nil {
		printResult(e, res)
	}
	if err != nil {
		return fmt.Errorf("%w\nconf.d/DISABLE is written: a reboot brings the firmware's own files back", err)
	}
	fmt.Fprintf(e.stdout, "the firmware's own files and kernel values are back; conf.d/DISABLE switches userscript off.\nDelete the folder %s to remove userscript (conf.d holds your files: keep a copy), or delete conf.d/DISABLE to switch it on again.\n", eng.App)
	return nil
}
