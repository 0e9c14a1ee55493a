package vm

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A cutBox is what the power-cut loop needs of a box.
type cutBox struct {
	name   string
	m      func() *Machine
	boot   func(ctx context.Context) error // start qemu, wait for the agent
	booted func(ctx context.Context) error // the boot's apply has run
	app    string                          // the app dir, as the agent sees it
	live   map[string]string               // target name → live path
	precut string                          // the app dir as the disk held it before this boot's engine ran
	// precutLive: each target as the disk held it before this boot's
	// engine ran (the systemd box; the firmware box's targets are
	// restored from ROM at every boot)
	precutLive map[string]string
	sources    map[string][2]string // conf.d name → its two good versions
	bad        [2]string            // a conf.d name and a version the service cannot serve with
}

// cutCounts sums up the cuts.
type cutCounts struct {
	cuts                map[string]int // by phase
	journal             map[string]int // newest committed generation at the cut: old, new, torn, none
	live                map[string]int // targets on the disk at the cut (precutLive): old, new, torn
	lost, torn          int            // conf.d files the owner saved: gone, or not whole
	converged, notTrue  int
	problems            []string
	applyWin, rejectWin time.Duration
	bootWin             time.Duration
	reboots             []time.Duration
}

func md5hex(s string) string { h := md5.Sum([]byte(s)); return hex.EncodeToString(h[:]) }

// state is what the loop expects: the version each source holds and the
// content each target should have once the engine is done.
type state struct {
	saved   map[string]string // conf.d name → body
	want    map[string]string // target → md5 of its content when settled
	status  map[string]string // target → status word when settled
	results map[string]map[string]string
	// bad: target → md5 of what the bad version makes of it, the
	// candidate a rollback cut may find live (its generation pending)
	bad map[string]string
}

// settle waits until every target holds what st wants with its status
// and no generation is pending; it returns what it saw last. A target
// holds its new content from the write on, while its status may still
// be the last one's: only the commit says the engine is done (a cut
// before it interrupts the change, and the next phase's cut may then
// interrupt the boot's second try of it, which is then held).
func settle(ctx context.Context, b *cutBox, st *state, limit time.Duration) (ok bool, seen string) {
	end := time.Now().Add(limit)
	for {
		ok, seen = true, ""
		pending, _, err := b.m().Exec(ctx, "cd "+quote(b.app+"/state/gen")+" 2>/dev/null && grep -l '\"result\": \"pending\"' */meta.json")
		if err != nil {
			return false, err.Error()
		}
		if p := strings.Fields(pending); len(p) > 0 {
			ok, seen = false, "pending: "+strings.Join(p, " ")+"; "
		}
		for tg, want := range st.want {
			body, _, err := b.m().Read(ctx, b.live[tg])
			if err != nil {
				return false, err.Error()
			}
			stat, _, _ := b.m().Read(ctx, b.app+"/conf.d/"+tg+".status")
			word := Status(stat)
			seen += fmt.Sprintf("%s: %s live %s (want %s %s); ", tg, word, md5hex(body)[:8], st.status[tg], want[:8])
			if md5hex(body) != want || word != st.status[tg] {
				ok = false
			}
		}
		if ok || time.Now().After(end) || ctx.Err() != nil {
			return ok, seen
		}
		time.Sleep(time.Second)
	}
}

// learn applies both versions of every source once, uncut, and records
// what the engine makes of them, how long an apply and a rejection take.
func learn(t *testing.T, ctx context.Context, b *cutBox, c *cutCounts) *state {
	st := &state{saved: map[string]string{}, want: map[string]string{}, status: map[string]string{},
		results: map[string]map[string]string{}, bad: map[string]string{}}
	for v := 1; v >= 0; v-- {
		t0 := time.Now()
		for name, vs := range b.sources {
			if err := b.m().Save(ctx, b.app+"/conf.d/"+name, vs[v]); err != nil {
				t.Fatal(err)
			}
			st.saved[name] = vs[v]
		}
		for tg := range b.live {
			st.status[tg] = "OK"
			st.want[tg] = "?"
		}
		// Wait for OK statuses, then take the live content as the result.
		for tg := range b.live {
			for {
				stat, _, _ := b.m().Read(ctx, b.app+"/conf.d/"+tg+".status")
				if Status(stat) == "OK" && strings.Contains(stat, "time:") {
					body, _, _ := b.m().Read(ctx, b.live[tg])
					if v == 0 || md5hex(body) != st.want[tg] {
						if strings.Contains(body, marker(v)) {
							st.want[tg] = md5hex(body)
							break
						}
					}
				}
				if time.Since(t0) > 4*time.Minute {
					t.Fatalf("%s: version %d of %s never went live: %s", b.name, v, tg, stat)
				}
				time.Sleep(time.Second)
			}
			if st.results[tg] == nil {
				st.results[tg] = map[string]string{}
			}
			st.results[tg][st.want[tg]] = fmt.Sprint("v", v)
		}
		c.applyWin = max(c.applyWin, time.Since(t0))
	}
	// A rejection, timed, then the good version back.
	t0 := time.Now()
	if err := b.m().Save(ctx, b.app+"/conf.d/"+b.bad[0], b.bad[1]); err != nil {
		t.Fatal(err)
	}
	badTarget := strings.TrimSuffix(b.bad[0], ".merge")
	st.status[badTarget] = "REJECTED"
	if ok, seen := settle(ctx, b, st, 4*time.Minute); !ok {
		t.Fatalf("%s: the bad %s was not REJECTED: %s", b.name, b.bad[0], seen)
	}
	c.rejectWin = time.Since(t0)
	t.Logf("%s: the rejection in state/log:%s", b.name, logTail(ctx, b.m(), b.app))
	st.bad[badTarget] = md5hex(rejectedCandidate(t, ctx, b, badTarget))
	st.status[badTarget] = "OK"
	if err := b.m().Save(ctx, b.app+"/conf.d/"+b.bad[0], st.saved[b.bad[0]]+"\n"); err != nil {
		t.Fatal(err)
	}
	st.saved[b.bad[0]] += "\n"
	if ok, seen := settle(ctx, b, st, 4*time.Minute); !ok {
		t.Fatalf("%s: the good %s did not come back: %s", b.name, b.bad[0], seen)
	}
	return st
}

// rejectedCandidate is what the newest rejected generation wrote to tg.
func rejectedCandidate(t *testing.T, ctx context.Context, b *cutBox, tg string) string {
	out, _, err := b.m().Exec(ctx, "cd "+quote(b.app+"/state/gen")+" && grep -l '\"result\": \"rejected\"' */meta.json | sort | tail -n 1")
	gen := path.Dir(strings.TrimSpace(out))
	body, ok, _ := b.m().Read(ctx, b.app+"/state/gen/"+gen+"/files/"+tg)
	if err != nil || gen == "." || !ok {
		t.Fatalf("%s: no rejected generation holds %s: %v %s", b.name, tg, err, out)
	}
	return body
}

// marker is the text version v of a source carries, so that its result
// can be told.
func marker(v int) string { return "userscript-cut-v" + strconv.Itoa(v) }

// powerCuts kills the box n times at random moments of an apply, a
// rollback and a boot, boots it again after each, and checks it.
func powerCuts(t *testing.T, ctx context.Context, b *cutBox, n int) *cutCounts {
	c := &cutCounts{cuts: map[string]int{}, journal: map[string]int{}, live: map[string]int{}}
	st := learn(t, ctx, b, c)
	t0 := time.Now()
	if err := rebootHard(ctx, b, c); err != nil {
		t.Fatal(err)
	}
	c.bootWin = time.Since(t0)
	t.Logf("%s: apply %v, rejection %v, boot %v", b.name, c.applyWin, c.rejectWin, c.bootWin)
	seed := time.Now().UnixNano()
	if s := os.Getenv("USERSCRIPT_VM_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("%s: seed %d (USERSCRIPT_VM_SEED)", b.name, seed)
	v, fix := 0, false
	for i := 0; i < n; i++ {
		phase := cutPhase(i)
		c.cuts[phase]++
		prevWant := map[string]string{}
		for k, x := range st.want {
			prevWant[k] = x
		}
		var delay time.Duration
		switch phase {
		case "apply":
			for name, vs := range b.sources {
				body := vs[v]
				if name == b.bad[0] {
					body += strings.Repeat("\n", i%3+2) // an edit, even back to the same version
				}
				if err := b.m().Save(ctx, b.app+"/conf.d/"+name, body); err != nil {
					t.Fatal(err)
				}
				st.saved[name] = body
			}
			for tg, res := range st.results {
				for h, ver := range res {
					if ver == fmt.Sprint("v", v) {
						st.want[tg] = h
					}
				}
				st.status[tg] = "OK"
			}
			v = 1 - v
			delay = time.Duration(rng.Int63n(int64(c.applyWin)))
		case "rollback":
			if err := b.m().Save(ctx, b.app+"/conf.d/"+b.bad[0], b.bad[1]); err != nil {
				t.Fatal(err)
			}
			st.saved[b.bad[0]] = b.bad[1]
			st.status[strings.TrimSuffix(b.bad[0], ".merge")] = "REJECTED"
			fix = true
			delay = time.Duration(rng.Int63n(int64(c.rejectWin)))
		case "boot":
			// The boot after the previous cut, still running (its
			// engine recovering what that cut interrupted), is cut in
			// turn: at a random moment between its agent's first answer
			// (the check above needs it; the engines start later) and
			// the end of a whole boot.
			delay = time.Duration(rng.Int63n(int64(max(c.bootWin-b.m().Since(), time.Second))))
		}
		if delay > 0 {
			time.Sleep(delay)
		}
		ran := b.m().Since()
		b.m().Kill()
		if err := b.boot(ctx); err != nil {
			t.Fatalf("cut %d (%s): %v", i, phase, err)
		}
		c.check(ctx, t, b, st, prevWant, i, phase)
		t.Logf("%s: cut %d (%s) after %v, qemu had run %v", b.name, i, phase, max(delay, 0).Round(time.Millisecond), ran.Round(time.Millisecond))
		if i+1 < n && cutPhase(i+1) == "boot" {
			continue // this boot is the next cut's
		}
		if err := b.booted(ctx); err != nil {
			t.Fatalf("cut %d (%s): %v", i, phase, err)
		}
		c.settled(ctx, t, b, st, i, phase)
		if fix {
			// The owner fixes the file: the next edit must converge.
			fix = false
			st.status[strings.TrimSuffix(b.bad[0], ".merge")] = "OK"
			st.saved[b.bad[0]] = b.sources[b.bad[0]][1-v] + strings.Repeat("\n", i%5+1)
			if err := b.m().Save(ctx, b.app+"/conf.d/"+b.bad[0], st.saved[b.bad[0]]); err != nil {
				t.Fatal(err)
			}
			if ok, seen := settle(ctx, b, st, 3*time.Minute); !ok {
				c.problem(t, fmt.Sprintf("cut %d (%s): the fixed file did not converge: %s%s", i, phase, seen, logTail(ctx, b.m(), b.app)))
			}
		}
	}
	return c
}

// cutPhase is what cut i interrupts: an apply, a rollback, then the
// boot after that rollback's cut.
func cutPhase(i int) string { return []string{"apply", "rollback", "boot"}[i%3] }

// settled waits after a boot until the box settles on what st wants
// and counts whether it did.
func (c *cutCounts) settled(ctx context.Context, t *testing.T, b *cutBox, st *state, i int, phase string) {
	ok, seen := settle(ctx, b, st, 3*time.Minute)
	if !ok && phase != "apply" {
		// A change interrupted twice is held (FORMATS, recovery).
		tg := strings.TrimSuffix(b.bad[0], ".merge")
		if st.status[tg] == "REJECTED" {
			st.status[tg] = "HELD"
			ok, seen = settle(ctx, b, st, 10*time.Second)
			st.status[tg] = "REJECTED"
		}
	}
	t.Logf("%s: after cut %d (%s): settled %v", b.name, i, phase, ok)
	if ok {
		c.converged++
		return
	}
	c.notTrue++
	c.problem(t, fmt.Sprintf("cut %d (%s): not settled: %s%s", i, phase, seen, logTail(ctx, b.m(), b.app)))
}

// problem records what a cut found wrong, and logs it at once: a long
// run's log then shows it beside the cut, and before the run ends.
func (c *cutCounts) problem(t *testing.T, p string) {
	t.Logf("problem: %s", p)
	c.problems = append(c.problems, p)
}

// rebootHard is a cut at rest: kill and boot.
func rebootHard(ctx context.Context, b *cutBox, c *cutCounts) error {
	b.m().Kill()
	if err := b.boot(ctx); err != nil {
		return err
	}
	return b.booted(ctx)
}

// check looks at what the disk held before this boot's engine ran: the
// owner's conf.d files whole, and the newest committed generation.
func (c *cutCounts) check(ctx context.Context, t *testing.T, b *cutBox, st *state, prevWant map[string]string, i int, phase string) {
	if _, err := b.m().Run(ctx, "@wait "+b.precut); err != nil {
		t.Fatalf("cut %d (%s): no copy of what the disk held: %v", i, phase, err)
	}
	for name, body := range st.saved {
		got, ok, err := b.m().Read(ctx, b.precut+"/conf.d/"+name)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case !ok:
			c.lost++
			c.problem(t, fmt.Sprintf("cut %d (%s): conf.d/%s lost", i, phase, name))
		case got != body:
			c.torn++
			c.problem(t, fmt.Sprintf("cut %d (%s): conf.d/%s not what was saved (%d bytes, saved %d)", i, phase, name, len(got), len(body)))
		}
	}
	for tg, p := range b.precutLive {
		body, _, _ := b.m().Read(ctx, p)
		h := md5hex(body)
		switch {
		case h == st.want[tg]:
			c.live["new"]++
		case h == prevWant[tg] || st.results[tg][h] != "":
			c.live["old"]++
		case h == st.bad[tg] && phase != "apply":
			// The candidate a rollback was proving when the power went
			// (this cut's, or the cut before this boot's): its
			// generation is pending, and the boot puts the last
			// committed content back.
			c.live["candidate"]++
		default:
			c.live["torn"]++
			c.problem(t, fmt.Sprintf("cut %d (%s): the live %s at the cut is no version (%d bytes)", i, phase, tg, len(body)))
		}
	}
	out, _, err := b.m().Exec(ctx, "cd "+quote(b.precut+"/state/gen")+" 2>/dev/null && grep -l '\"result\": \"ok\"' */meta.json | sort | tail -n 1")
	if err != nil {
		t.Fatal(err)
	}
	gen := path.Dir(strings.TrimSpace(out))
	if gen == "." {
		c.journal["none"]++
		return
	}
	var tgs []string
	for tg := range st.want {
		tgs = append(tgs, tg)
	}
	sort.Strings(tgs)
	for _, tg := range tgs {
		body, ok, _ := b.m().Read(ctx, b.precut+"/state/gen/"+gen+"/files/"+tg)
		h := md5hex(body)
		switch {
		case !ok:
			c.journal["none"]++
		case h == st.want[tg] && h == prevWant[tg]:
			c.journal["new"]++ // unchanged by this cut's edit
		case h == st.want[tg]:
			c.journal["new"]++
		case h == prevWant[tg]:
			c.journal["old"]++
		case st.results[tg][h] != "":
			c.journal["old"]++ // an older committed version
		default:
			c.journal["torn"]++
			c.problem(t, fmt.Sprintf("cut %d (%s): generation %s holds a %s that is no version (%d bytes)", i, phase, gen, tg, len(body)))
		}
	}
}

func (c *cutCounts) String() string {
	live := ""
	if len(c.live) > 0 {
		live = fmt.Sprintf("; targets on the disk at the cut: old %d, new %d, a rejected candidate %d, torn %d", c.live["old"], c.live["new"], c.live["candidate"], c.live["torn"])
	}
	return fmt.Sprintf("cuts: %d (apply %d, rollback %d, boot %d); generation at the cut: old %d, new %d, torn %d; conf.d: lost %d, torn %d; settled and true after a boot %d, not %d",
		c.cuts["apply"]+c.cuts["rollback"]+c.cuts["boot"], c.cuts["apply"], c.cuts["rollback"], c.cuts["boot"],
		c.journal["old"], c.journal["new"], c.journal["torn"], c.lost, c.torn, c.converged, c.notTrue) + live
}

// runCuts cuts the power of the box open makes cutsWanted() times, beside
// the other machines, and fails on every problem found after a cut. A cut
// costs one to two minutes: the loop is given five a cut, and ten to
// start.
func runCuts(t *testing.T, name string, open func(context.Context) *cutBox) {
	t.Parallel()
	n := cutsWanted()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute+time.Duration(n)*5*time.Minute)
	defer cancel()
	c := powerCuts(t, ctx, open(ctx), n)
	t.Logf("%s %s", name, c)
	for _, p := range c.problems {
		t.Error(p)
	}
}

// cutsWanted is the number of cuts per box: USERSCRIPT_VM_CUTS, else 20.
func cutsWanted() int {
	if n, err := strconv.Atoi(os.Getenv("USERSCRIPT_VM_CUTS")); err == nil && n > 0 {
		return n
	}
	return 20
}
