package doctor

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/nas-userscript/userscript/internal/overlay"
	"github.com/nas-userscript/userscript/internal/profile"
	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/status"
	"github.com/nas-userscript/userscript/internal/tuning"
)

// Origins of a target's live content.
const (
	Firmware = "firmware" // no source: the firmware's own file
	Replaced = "replaced" // conf.d/NAME
	Merged   = "merged"   // conf.d/NAME.merge
	Added    = "added"    // conf.d/NAME.add
)

// Info is what the caller knows and the engine does not.
type Info struct {
	Version     string // the program's version
	ProfileFrom string // where the profile name came from
}

// A Report is what doctor found; Render writes it.
type Report struct {
	Time     time.Time
	Engine   string
	App      string
	Profile  string
	Device   string // what the device says about itself, if its profile knows how to ask
	State    string // "applying" or why nothing is applied
	Targets  []string
	Services []string
	Disk     string
	Share    string
	Root     string // the plain warning: conf.d is root
	Warnings []string
	Names    []string
}

// maxNames bounds the files listed as not used.
const maxNames = 20

// Check looks at eng's installation. It writes nothing.
func Check(ctx context.Context, eng *overlay.Engine, info Info) *Report {
	r := &Report{
		Time:    eng.Sys.Now(),
		Engine:  fmt.Sprintf("Go engine, userscript %s (%s/%s)", info.Version, runtime.GOOS, runtime.GOARCH),
		App:     devicePath(eng),
		Profile: fmt.Sprintf("%s (%s), %s", eng.Profile.Name, info.ProfileFrom, eng.Profile.Description),
		Device:  profile.Device(eng.Profile.Name, func(p string) ([]byte, error) { return eng.Sys.ReadFile(eng.Sys.Root(p)) }),
		State:   "applying conf.d",
		Root:    "anyone who can write conf.d can change what runs as root on this NAS (one line in smb.conf can run a command as root): let only your own account write it",
	}
	if why := eng.Stopped(); why != "" {
		r.State = "NOTHING IS APPLIED: " + why
	} else if n := eng.Starts(); n > 0 {
		r.State = fmt.Sprintf("applying conf.d; %d start(s) in a row did not finish (after %d, userscript enters safe mode)", n, overlay.SafeModeStarts)
	}
	r.targets(eng)
	for _, name := range serviceNames(eng.Profile) {
		word, how := eng.ServiceHealth(ctx, name)
		r.Services = append(r.Services, fmt.Sprintf("%s: %s: %s; restarted with %s", name, word, how, strings.Join(eng.RestartCommand(name), " ")))
	}
	r.disk(eng)
	r.Share = shareOf(eng)
	r.Warnings = eng.Exposure()
	r.Names = unusedNames(eng)
	return r
}

// targets describes every target of the profile and the kernel tuning
// files: origin, sources, the word of its status file.
func (r *Report) targets(eng *overlay.Engine) {
	plan, err := eng.Plan(false)
	if err != nil {
		r.Targets = append(r.Targets, "cannot read conf.d: "+err.Error())
		return
	}
	for _, t := range eng.Profile.Targets {
		origin, srcs := Firmware, ""
		if i := slices.IndexFunc(plan.Items, func(it *overlay.Item) bool { return it.Target.Name == t.Name }); i >= 0 && len(plan.Items[i].Sources) > 0 {
			origin, srcs = Origin(plan.Items[i].Sources), " from conf.d/"+strings.Join(plan.Items[i].SourceFiles(), ", conf.d/")
		}
		line := fmt.Sprintf("%s (%s): %s%s", t.Name, t.Path, origin, srcs)
		if w := status.Read(eng.Sys, filepath.Join(eng.App, "conf.d", t.Name+".status")); w != "" && origin != Firmware {
			line += "; status " + string(w)
		}
		r.Targets = append(r.Targets, line)
	}
	for _, src := range plan.Tuning {
		line := fmt.Sprintf("%s: kernel tuning from conf.d/%s", src.Target, src.File)
		if w := status.Read(eng.Sys, filepath.Join(eng.App, "conf.d", tuning.StatusName(src.Target)+".status")); w != "" {
			line += "; status " + string(w)
		}
		r.Targets = append(r.Targets, line)
	}
}

// Origin says where a target's content comes from, by its sources:
// "replaced", "merged", "added", or several joined by "+".
func Origin(srcs []source.Source) string {
	var parts []string
	for _, k := range []struct{ kind, word string }{{source.Replace, Replaced}, {source.Merge, Merged}, {source.Add, Added}} {
		if slices.ContainsFunc(srcs, func(s source.Source) bool { return s.Kind == k.kind }) {
			parts = append(parts, k.word)
		}
	}
	if len(parts) == 0 {
		return Firmware
	}
	return strings.Join(parts, "+")
}

func serviceNames(p *profile.Profile) []string {
	var names []string
	for n := range p.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (r *Report) disk(eng *overlay.Engine) {
	free, err := eng.Sys.Free(filepath.Join(eng.App, "conf.d"))
	if err != nil {
		r.Disk = "cannot tell: " + err.Error()
		return
	}
	r.Disk = fmt.Sprintf("%s free on the data disk", bytesWord(free))
	if free < 64<<10 {
		r.Disk += ": FULL, nothing new is applied until there is room"
	}
}

func bytesWord(n int64) string {
	switch {
	case n >= 10<<30:
		return fmt.Sprintf("%d GB", n>>30)
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// shareOf finds who can write conf.d through the live smb.conf.
func shareOf(eng *overlay.Engine) string {
	i := slices.IndexFunc(eng.Profile.Targets, func(t profile.Target) bool { return t.Validator == profile.ValidateTestparm })
	if i < 0 {
		return "not checked: this profile has no smb.conf"
	}
	t := eng.Profile.Targets[i]
	data, err := eng.Sys.ReadFile(eng.Sys.Root(t.Path))
	if err != nil {
		return fmt.Sprintf("not checked: %s cannot be read", t.Path)
	}
	finding, _ := shareExposure(data, devicePath(eng))
	return finding
}

// devicePath is the app dir as the device sees it: under the root, with
// the root taken off.
func devicePath(eng *overlay.Engine) string {
	root := eng.Sys.Root("/")
	if rel, err := filepath.Rel(root, eng.App); err == nil && root != "/" && !strings.HasPrefix(rel, "..") {
		return "/" + filepath.ToSlash(rel)
	}
	return eng.App
}

// unusedNames lists the files in conf.d that are not used, with the name
// that was probably meant.
func unusedNames(eng *overlay.Engine) []string {
	entries, err := eng.Sys.ReadDir(filepath.Join(eng.App, "conf.d"))
	if err != nil {
		return nil
	}
	known := eng.KnownNames()
	var out []string
	for _, ent := range entries {
		name := ent.Name()
		target, _ := source.Split(name)
		if source.Ignored(name) || slices.Contains(known, target) {
			continue
		}
		if len(out) == maxNames {
			out = append(out, "… and more")
			break
		}
		line := fmt.Sprintf("%q: not used", printable(name))
		if meant, why := source.Meant(name, known); meant != "" {
			line += fmt.Sprintf("; did you mean %s? (%s): rename it to %s, or delete it", meant, why, meant)
		} else {
			line += fmt.Sprintf(": this NAS has no file of that name (known: %s)", strings.Join(known, ", "))
		}
		if profile.CheckName(target) == nil {
			line += fmt.Sprintf("; see conf.d/%s.status", target)
		}
		out = append(out, line)
	}
	return out
}

// printable keeps a file name on one line and short.
func printable(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, name)
	if r := []rune(name); len(r) > 80 {
		name = string(r[:80]) + "…"
	}
	return name
}
