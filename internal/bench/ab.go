package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// AB finds which of two versions of one conf.d source serves this PC
// faster: it writes each version into the NAS's conf.d as an owner's
// save would, waits until the engine has applied it (its status file
// says OK with a new generation), lets the service settle, and measures
// it over the network with Net. Rounds alternate A B, B A, ... so that a
// drift over time falls on both alike. However it ends, the owner's
// original file is put back (or the one Keep names).
type AB struct {
	ConfD    string    // the NAS's conf.d as this PC sees it
	Name     string    // the source: smb.conf, smb.conf.merge, ...
	Files    [2]string // the versions A and B, files on this PC
	Net      *Net      // what to measure; its Runs is one per round
	Rounds   int
	Keep     string        // KeepOriginal, KeepA, KeepB or KeepFaster
	Wait     time.Duration // the longest wait for an apply (0: 3 minutes)
	Settle   time.Duration // after the service answers, before measuring
	Backup   string        // a copy of the original is kept here until it is back
	Out      io.Writer
	variants [2][]byte
	original []byte // nil: there was no such file
}

// What --keep may name.
const (
	KeepOriginal = "original"
	KeepA        = "A"
	KeepB        = "B"
	KeepFaster   = "faster"
)

// Variants are the names of the two versions in the results.
var Variants = [2]string{"A", "B"}

// An ABResult is what an A/B test found.
type ABResult struct {
	Report *Report // every row with its Variant and the generation live
	Rows   []Row   // B compared with A, test by test
	Kept   string  // what conf.d holds at the end
}

// Run runs the test. It returns what was measured also when it ended
// early (a refused variant, Ctrl-C, a failed measurement).
func (ab *AB) Run(ctx context.Context) (*ABResult, error) {
	if err := ab.load(); err != nil {
		return nil, err
	}
	res := &ABResult{Report: &Report{Meta: ab.Net.Meta, Size: ab.Net.Size, Runs: ab.Rounds}, Kept: KeepOriginal}
	ab.settled(ctx)
	err := ab.rounds(ctx, res.Report)
	res.Rows = ab.compare(res.Report.Results)
	keep := ab.Keep
	if err != nil {
		keep = KeepOriginal
	}
	res.Kept = ab.choose(keep, res.Rows)
	if rerr := ab.restore(ctx, res.Kept); rerr != nil {
		return res, errors.Join(err, rerr)
	}
	return res, err
}

// load reads both versions and the original, and keeps a copy of the
// original at Backup.
func (ab *AB) load() error {
	if ab.Name == "" || strings.ContainsAny(ab.Name, `/\`) || strings.HasSuffix(ab.Name, ".status") {
		return fmt.Errorf("--name %q: want the source's file name in conf.d, e.g. smb.conf or smb.conf.merge", ab.Name)
	}
	if fi, err := os.Stat(ab.ConfD); err != nil || !fi.IsDir() {
		return fmt.Errorf("--confd %s: not a folder: give the NAS's conf.d as this PC sees it (a mapped drive, \\\\NAS\\share\\...\\conf.d, a mounted share)", ab.ConfD)
	}
	for i, f := range ab.Files {
		data, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("variant %s: %w", Variants[i], err)
		}
		ab.variants[i] = data
	}
	orig, err := os.ReadFile(ab.source())
	switch {
	case err == nil:
		ab.original = orig
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", ab.source(), err)
	}
	if ab.Backup != "" && ab.original != nil {
		if err := os.WriteFile(ab.Backup, ab.original, 0o644); err != nil {
			return fmt.Errorf("keeping a copy of your %s: %w", ab.Name, err)
		}
	}
	if ab.Rounds < 1 {
		return fmt.Errorf("--rounds %d: want 1 or more", ab.Rounds)
	}
	return nil
}

// settled waits a little (pendingWait at most) while the source is
// newer than its status: an edit the NAS has not applied yet would
// otherwise be taken for the first variant's apply.
func (ab *AB) settled(ctx context.Context) {
	deadline := time.Now().Add(pendingWait)
	for time.Now().Before(deadline) {
		src, err := os.Stat(ab.source())
		if err != nil {
			return
		}
		if st, err := os.Stat(ab.statusFile()); err == nil && !st.ModTime().Before(src.ModTime()) {
			return
		}
		if sleep(ctx, 200*time.Millisecond) != nil {
			return
		}
	}
}

// pendingWait bounds settled: a source that gives the same status as
// before leaves the status file as it was.
const pendingWait = 10 * time.Second

func (ab *AB) source() string { return filepath.Join(ab.ConfD, ab.Name) }

// statusFile is the target's status file: smb.conf.merge reports in
// smb.conf.status.
func (ab *AB) statusFile() string {
	t := strings.TrimSuffix(strings.TrimSuffix(ab.Name, ".merge"), ".add")
	return filepath.Join(ab.ConfD, t+".status")
}

// order is the variants of round r (from 1): A B, B A, A B, ...
func order(r int) [2]int {
	if r%2 == 1 {
		return [2]int{0, 1}
	}
	return [2]int{1, 0}
}

// rounds measures A B, B A, ... Each switch restarts the service, so a
// variant is measured once right after its apply and once after the
// other variant's, alike for both: A B | B A | A B has A fresh in rounds
// 2, 4, ... and B in 1, 3, ...; the very first apply is the one extra,
// and its measurement is a warm-up that does not count.
func (ab *AB) rounds(ctx context.Context, rep *Report) error {
	for r := 1; r <= ab.Rounds; r++ {
		for i, v := range order(r) {
			gen, err := ab.apply(ctx, ab.variants[v])
			if err != nil {
				return fmt.Errorf("round %d, variant %s: %w", r, Variants[v], err)
			}
			if r == 1 && i == 0 {
				if err := ab.measure(ctx, &Report{}, 0, v, gen); err != nil {
					return fmt.Errorf("warm-up, variant %s: %w", Variants[v], err)
				}
			}
			if err := ab.measure(ctx, rep, r, v, gen); err != nil {
				return fmt.Errorf("round %d, variant %s: %w", r, Variants[v], err)
			}
		}
	}
	return nil
}

func appendNew(list []string, more ...string) []string {
	for _, m := range more {
		if !contains(list, m) {
			list = append(list, m)
		}
	}
	return list
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// measure measures the live variant once and tells the owner.
func (ab *AB) measure(ctx context.Context, rep *Report, round, v int, gen int) error {
	if err := ab.settle(ctx); err != nil {
		return err
	}
	n := *ab.Net
	n.Runs, n.Out = 1, io.Discard
	n.Meta.Generation = strconv.Itoa(gen)
	got, err := n.Run(ctx)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var line []string
	if got != nil {
		for _, r := range got.Results {
			r.Run, r.Variant = round, Variants[v]
			rep.Results = append(rep.Results, r)
			line = append(line, fmt.Sprintf("%s %.2f MB/s", r.Test, r.MBPerS))
		}
		rep.Warnings = appendNew(rep.Warnings, got.Warnings...)
	}
	what := fmt.Sprintf("round %d/%d", round, ab.Rounds)
	if round == 0 {
		what = "warm-up (not counted)"
	}
	fmt.Fprintf(ab.Out, "%s  %s (generation %d): %s\n", what, Variants[v], gen, strings.Join(line, ", "))
	return err
}

// settle waits until every network service measured answers again (a
// restart is under way right after an apply), then Settle more.
func (ab *AB) settle(ctx context.Context) error {
	deadline := time.Now().Add(ab.wait())
	for _, addr := range ab.Net.addrs() {
		for {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", addr)
			if err == nil {
				c.Close()
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s does not answer after the apply (%v)", addr, err)
			}
			if err := sleep(ctx, 200*time.Millisecond); err != nil {
				return err
			}
		}
	}
	return sleep(ctx, ab.Settle)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (ab *AB) wait() time.Duration {
	if ab.Wait > 0 {
		return ab.Wait
	}
	return 3 * time.Minute
}

// apply writes content as the source, as an owner's save does, and waits
// until the engine has applied it: it returns the generation live. A
// source that already holds content and is live is not written again.
func (ab *AB) apply(ctx context.Context, content []byte) (int, error) {
	return ab.applyWait(ctx, content, ab.wait(), false)
}

// applyWait is apply, waiting up to wait; quiet accepts a live status
// that did not change when wait ends (putting back a source that gives
// the same target as the variant before it).
func (ab *AB) applyWait(ctx context.Context, content []byte, wait time.Duration, quiet bool) (int, error) {
	before := readStatus(ab.statusFile())
	cur, err := os.ReadFile(ab.source())
	if err == nil && bytes.Equal(cur, content) && before.live() {
		return before.gen, nil
	}
	if err := os.WriteFile(ab.source(), content, 0o644); err != nil {
		return 0, fmt.Errorf("writing %s: %w", ab.source(), err)
	}
	cur = content
	deadline := time.Now().Add(wait)
	for {
		st := readStatus(ab.statusFile())
		switch {
		case st.text != before.text && st.live() && st.gen > before.gen:
			return st.gen, nil
		case st.text != before.text && st.word != "" && !st.live():
			return 0, fmt.Errorf("%s says %s: %s", filepath.Base(ab.statusFile()), st.word, orDash(st.reason))
		case time.Now().After(deadline) && quiet && st.live() && bytes.Equal(cur, content):
			// The source is there and live, but gave no new generation
			// (the same target as before): nothing to wait for.
			return st.gen, nil
		case time.Now().After(deadline):
			return 0, fmt.Errorf("no new generation in %s after %v (status %s): is userscript running on the NAS, is conf.d/DISABLE there?", filepath.Base(ab.statusFile()), ab.wait(), orDash(st.word))
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return 0, err
		}
	}
}

// abStatus is what apply reads of a status file.
type abStatus struct {
	text, word, reason string // text without its time: line
	gen                int
}

func (s abStatus) live() bool { return s.word == "OK" || s.word == "NOT VALIDATED" }

func readStatus(name string) abStatus {
	data, err := os.ReadFile(name)
	if err != nil {
		return abStatus{}
	}
	var s abStatus
	var keep []string
	for _, l := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		k, v, _ := strings.Cut(l, ": ")
		switch k {
		case "time":
			continue
		case "status":
			s.word = v
		case "reason":
			s.reason = v
		case "generation":
			s.gen, _ = strconv.Atoi(v)
		}
		keep = append(keep, l)
	}
	s.text = strings.Join(keep, "\n")
	return s
}

// compare is B against A, test by test.
func (ab *AB) compare(rs []Result) []Row {
	var a, b []Result
	for _, r := range rs {
		if r.Variant == Variants[0] {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	return Compare(a, b)
}

// choose is the version --keep asks for; faster is B when some test
// finds B faster and none slower, A the other way, else the original.
func (ab *AB) choose(keep string, rows []Row) string {
	if keep != KeepFaster {
		return keep
	}
	var faster, slower bool
	for _, r := range rows {
		faster = faster || r.Verdict == Faster
		slower = slower || r.Verdict == Slower
	}
	switch {
	case faster && !slower:
		return KeepB
	case slower && !faster:
		return KeepA
	}
	return KeepOriginal
}

// restore puts the kept version into conf.d (also after Ctrl-C) and
// waits, bounded, until it is applied.
func (ab *AB) restore(ctx context.Context, kept string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ab.wait())
	defer cancel()
	var content []byte
	switch kept {
	case KeepA:
		content = ab.variants[0]
	case KeepB:
		content = ab.variants[1]
	default:
		content = ab.original
	}
	if content == nil {
		err := os.Remove(ab.source())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s (there was none before): %w", ab.source(), err)
		}
		fmt.Fprintf(ab.Out, "%s removed again (there was none before the test)\n", ab.Name)
		return nil
	}
	var err error
	for {
		var gen int
		if gen, err = ab.applyWait(ctx, content, restoreQuiet, true); err == nil {
			fmt.Fprintf(ab.Out, "conf.d/%s: %s is back, live as generation %d\n", ab.Name, map[bool]string{true: "your original", false: "variant " + kept}[kept == KeepOriginal], gen)
			if ab.Backup != "" {
				os.Remove(ab.Backup)
			}
			return nil
		}
		if ctx.Err() != nil || !isWriteError(err) {
			break
		}
		sleep(ctx, time.Second) // a dropped share: try again
	}
	where := ""
	if ab.Backup != "" {
		where = "; your original is saved in " + ab.Backup
	}
	return fmt.Errorf("putting back conf.d/%s: %w%s", ab.Name, err, where)
}

// restoreQuiet is how long restore waits for a new generation before it
// takes a live, unchanged status as the answer.
const restoreQuiet = 20 * time.Second

func isWriteError(err error) bool { return strings.Contains(err.Error(), "writing ") }

// ABSummary is the verdict in words, test by test: "SMBRead: B is 12.0 %
// faster than A (95 % CI +6.0 to +18.0 %, p = 0.002)".
func ABSummary(rows []Row) string {
	var b strings.Builder
	for _, r := range rows {
		switch r.Verdict {
		case Faster, Slower:
			word := "faster"
			if r.Verdict == Slower {
				word = "slower"
			}
			eff := r.Effect
			if eff < 0 {
				eff = -eff
			}
			fmt.Fprintf(&b, "%s: B is %.1f %% %s than A (95 %% CI %+.1f to %+.1f %%, %s)\n", r.Test, eff, word, r.Lo, r.Hi, pText(r.P))
		case Inconclusive:
			fmt.Fprintf(&b, "%s: not conclusive, B %+.1f %% against A: %s\n", r.Test, r.Effect, r.Why)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
