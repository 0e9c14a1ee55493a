package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
)

// Results of a generation.
const (
	OK       = "ok"       // written, every service proved healthy: committed
	Pending  = "pending"  // journalled; written or being written, not yet proven
	Failed   = "failed"   // a write failed, or a service could not be restarted with the previous files either
	Rejected = "rejected" // a service did not prove healthy (or the apply was interrupted); its targets were put back
)

// Kinds of a generation.
const (
	Apply    = "apply"
	Rollback = "rollback"
)

// A File is one target as a generation left it.
type File struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Hash string `json:"hash"`
	Size int    `json:"size"`
}

// A Replaced is what a changed target held before the generation wrote
// it: its content is in prev/NAME; Size -1 (and no Hash) means there was
// no file.
type Replaced struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
	Size int    `json:"size"`
}

// A Generation is one recorded apply or rollback.
type Generation struct {
	ID        int        `json:"id"`
	Time      time.Time  `json:"time"`
	Kind      string     `json:"kind"`      // Apply or Rollback
	From      int        `json:"from"`      // for a rollback: the generation restored (0: the firmware's files)
	Result    string     `json:"result"`    // OK, Pending, Failed or Rejected
	Note      string     `json:"note"`      // why it was rejected or failed
	Changed   []string   `json:"changed"`   // targets written by this generation
	Restarted []string   `json:"restarted"` // services restarted
	Rejected  []string   `json:"rejected"`  // targets put back because their service did not prove healthy
	Files     []File     `json:"files"`     // every managed target after it
	Replaced  []Replaced `json:"replaced"`  // what each changed target held before
}

// Effective is the generation whose content this one holds: a rollback
// holds the content of the generation it restored.
func (g *Generation) Effective() int {
	if g.Kind == Rollback && g.From > 0 {
		return g.From
	}
	return g.ID
}

// File returns the entry of target name.
func (g *Generation) File(name string) (File, bool) {
	i := slices.IndexFunc(g.Files, func(f File) bool { return f.Name == name })
	if i < 0 {
		return File{}, false
	}
	return g.Files[i], true
}

// Store is state/gen.
type Store struct {
	Dir  string
	Sys  system.System
	Keep int
}

func (s *Store) genDir(id int) string { return filepath.Join(s.Dir, fmt.Sprintf("%06d", id)) }

// ids lists the numbered folders of state/gen, oldest first.
func (s *Store) ids() ([]int, error) {
	entries, err := s.Sys.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []int
	for _, e := range entries {
		if id, err := strconv.Atoi(e.Name()); err == nil && id > 0 && e.IsDir() {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	return ids, nil
}

// complete reports whether generation id has its meta.json (written
// last: a folder without one never started to change anything).
func (s *Store) complete(id int) bool {
	_, err := s.Sys.Lstat(filepath.Join(s.genDir(id), "meta.json"))
	return err == nil
}

// List returns every readable generation, oldest first. Unreadable ones
// are reported in the error but do not hide the others.
func (s *Store) List() ([]*Generation, error) {
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	var gens []*Generation
	var errs []error
	for _, id := range ids {
		if !s.complete(id) {
			continue
		}
		g, err := s.Get(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gens = append(gens, g)
	}
	return gens, errors.Join(errs...)
}

// Get reads generation id.
func (s *Store) Get(id int) (*Generation, error) {
	data, err := s.Sys.ReadFile(filepath.Join(s.genDir(id), "meta.json"))
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", id, err)
	}
	var g Generation
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("generation %d: meta.json: %w", id, err)
	}
	return &g, nil
}

// Content returns a target's content as generation g left it, checked
// against its recorded hash.
func (s *Store) Content(g *Generation, name string) ([]byte, error) {
	f, ok := g.File(name)
	if !ok {
		return nil, fmt.Errorf("generation %d has no %s", g.ID, name)
	}
	return s.read(g, "files", name, f.Hash)
}

// Prev returns what a changed target held before generation g; ok is
// false when there was no file.
func (s *Store) Prev(g *Generation, name string) (data []byte, ok bool, err error) {
	i := slices.IndexFunc(g.Replaced, func(r Replaced) bool { return r.Name == name })
	if i < 0 {
		return nil, false, fmt.Errorf("generation %d did not change %s", g.ID, name)
	}
	if r := g.Replaced[i]; r.Size < 0 {
		return nil, false, nil
	}
	data, err = s.read(g, "prev", name, g.Replaced[i].Hash)
	return data, err == nil, err
}

func (s *Store) read(g *Generation, sub, name, hash string) ([]byte, error) {
	data, err := s.Sys.ReadFile(filepath.Join(s.genDir(g.ID), sub, name))
	if err != nil {
		return nil, fmt.Errorf("generation %d: %w", g.ID, err)
	}
	if state.Hash(data) != hash {
		return nil, fmt.Errorf("generation %d: %s/%s: content does not match its hash; the history is damaged", g.ID, sub, name)
	}
	return data, nil
}

// Next returns the id the next generation gets.
func (s *Store) Next() (int, error) {
	ids, err := s.ids()
	if err != nil || len(ids) == 0 {
		return 1, err
	}
	return ids[len(ids)-1] + 1, nil
}

// Begin is the journal of a transaction: it writes generation g as
// Pending, with the content of every managed target after it (files,
// by target name) and what each changed target holds now (prev; a
// missing key means there is no file). The files go first and meta.json
// last, each synced, so once Begin returns a crash at any later moment
// leaves a generation that says what to undo.
func (s *Store) Begin(g *Generation, files, prev map[string][]byte) error {
	g.Result = Pending
	dir := s.genDir(g.ID)
	for _, f := range g.Files {
		if err := s.write(filepath.Join(dir, "files", f.Name), files[f.Name]); err != nil {
			return err
		}
	}
	g.Replaced = nil
	for _, name := range g.Changed {
		data, ok := prev[name]
		r := Replaced{Name: name, Size: -1}
		if ok {
			r.Hash, r.Size = state.Hash(data), len(data)
			if err := s.write(filepath.Join(dir, "prev", name), data); err != nil {
				return err
			}
		}
		g.Replaced = append(g.Replaced, r)
	}
	return s.Update(g)
}

func (s *Store) write(name string, data []byte) error {
	if err := s.Sys.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	if err := s.Sys.WriteFile(name, data, 0o644); err != nil {
		return fmt.Errorf("state/gen: %w", err)
	}
	return nil
}

// Discard removes a generation whose Begin failed (nothing was written
// under it).
func (s *Store) Discard(g *Generation) error {
	return s.Sys.RemoveAll(s.genDir(g.ID))
}

// Update rewrites g's meta.json (e.g. when its result is known).
func (s *Store) Update(g *Generation) error {
	return s.write(filepath.Join(s.genDir(g.ID), "meta.json"), Marshal(g))
}

// Prune removes the oldest generations beyond Keep, never one that holds
// a target's last committed content (boot puts it back), and folders a killed Begin left
// without a meta.json.
func (s *Store) Prune() error {
	ids, err := s.ids()
	if err != nil {
		return err
	}
	gens, _ := s.List()
	keepOK := map[int]bool{}
	for _, g := range Committed(gens) {
		keepOK[g.ID] = true
	}
	var errs []error
	complete := 0
	for i := len(ids) - 1; i >= 0; i-- {
		id := ids[i]
		if !s.complete(id) {
			if i != len(ids)-1 || complete > 0 {
				errs = append(errs, s.Sys.RemoveAll(s.genDir(id)))
			}
			continue
		}
		complete++
		if complete > s.Keep && !keepOK[id] {
			errs = append(errs, s.Sys.RemoveAll(s.genDir(id)))
		}
	}
	return errors.Join(errs...)
}

// Commits reports whether target's content in g proved healthy: each
// target of a generation has its own result. g committed as a whole, or
// it was rejected and target is not among the targets it put back.
func (g *Generation) Commits(target string) bool {
	if _, ok := g.File(target); !ok {
		return false
	}
	switch g.Result {
	case OK:
		return true
	case Rejected:
		return !slices.Contains(g.Rejected, target)
	}
	return false
}

// Committed is, by target, the newest generation whose content of it
// proved healthy (see Commits): a good change of one target is
// committed even when another target of the same generation was
// rejected. Generations older than the newest one committed as a whole
// are not looked at: a target it does not hold was the firmware's.
func Committed(gens []*Generation) map[string]*Generation {
	c := map[string]*Generation{}
	for i := len(gens) - 1; i >= 0; i-- {
		g := gens[i]
		for _, f := range g.Files {
			if _, done := c[f.Name]; !done && g.Commits(f.Name) {
				c[f.Name] = g
			}
		}
		if g.Result == OK {
			break
		}
	}
	return c
}

// LastCommitted is the newest generation whose result is OK, or nil.
func LastCommitted(gens []*Generation) *Generation {
	for i := len(gens) - 1; i >= 0; i-- {
		if gens[i].Result == OK {
			return gens[i]
		}
	}
	return nil
}

// Previous returns the generation a rollback without a number goes to:
// the newest good generation older than the content that is live now.
func Previous(gens []*Generation) (*Generation, error) {
	if len(gens) == 0 {
		return nil, errors.New("no generations yet: nothing to roll back to")
	}
	cur := gens[len(gens)-1].Effective()
	for i := len(gens) - 1; i >= 0; i-- {
		g := gens[i]
		if g.ID < cur && g.Result == OK {
			return g, nil
		}
	}
	return nil, fmt.Errorf("no good generation before %d: nothing to roll back to", cur)
}
