package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/nas-userscript/userscript/internal/state"
	"github.com/nas-userscript/userscript/internal/system"
)

// Results of a generation.
const (
	OK       = "ok"       // written and every service restarted fine
	Pending  = "pending"  // written, services not yet proven healthy
	Failed   = "failed"   // a write or a restart failed
	Rejected = "rejected" // a service did not prove healthy; rolled back
)

// A File is one target as a generation left it.
type File struct {
	Name string `json:"name"`
	Path string `json:"path"`
	Hash string `json:"hash"`
	Size int    `json:"size"`
}

// A Generation is one recorded apply or rollback.
type Generation struct {
	ID        int       `json:"id"`
	Time      time.Time `json:"time"`
	Kind      string    `json:"kind"`           // "apply", "rollback" or "boot"
	From      int       `json:"from,omitempty"` // for a rollback: the generation restored
	Changed   []string  `json:"changed"`        // targets written by this generation
	Files     []File    `json:"files"`          // every managed target after it
	Restarted []string  `json:"restarted"`      // services restarted
	Result    string    `json:"result"`
	Note      string    `json:"note,omitempty"`
}

// Effective is the generation whose content this one holds: a rollback
// holds the content of the generation it restored.
func (g *Generation) Effective() int {
	if g.Kind == "rollback" && g.From > 0 {
		return g.From
	}
	return g.ID
}

// Store is state/gen.
type Store struct {
	Dir  string
	Sys  system.System
	Keep int
}

func (s *Store) genDir(id int) string { return filepath.Join(s.Dir, fmt.Sprintf("%06d", id)) }

// List returns every readable generation, oldest first. Unreadable ones
// are reported in the error but do not hide the others.
func (s *Store) List() ([]*Generation, error) {
	entries, err := s.Sys.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var gens []*Generation
	var errs []error
	for _, e := range entries {
		id, err := strconv.Atoi(e.Name())
		if err != nil || !e.IsDir() {
			continue
		}
		if _, err := s.Sys.Lstat(filepath.Join(s.genDir(id), "meta.json")); errors.Is(err, fs.ErrNotExist) {
			continue // never completed (meta.json is written last): not a generation
		}
		g, err := s.Get(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gens = append(gens, g)
	}
	sort.Slice(gens, func(i, j int) bool { return gens[i].ID < gens[j].ID })
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
	for _, f := range g.Files {
		if f.Name != name {
			continue
		}
		data, err := s.Sys.ReadFile(filepath.Join(s.genDir(g.ID), "files", name))
		if err != nil {
			return nil, fmt.Errorf("generation %d: %w", g.ID, err)
		}
		if state.Hash(data) != f.Hash {
			return nil, fmt.Errorf("generation %d: %s: content does not match its hash; the history is damaged", g.ID, name)
		}
		return data, nil
	}
	return nil, fmt.Errorf("generation %d has no %s", g.ID, name)
}

// Next returns the id the next generation gets.
func (s *Store) Next() (int, error) {
	entries, err := s.Sys.ReadDir(s.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	max := 0
	for _, e := range entries {
		if id, err := strconv.Atoi(e.Name()); err == nil && id > max {
			max = id
		}
	}
	return max + 1, nil
}

// Record writes g with the content of every file in contents (by target
// name). The files are written before meta.json, so a generation whose
// meta.json exists is complete.
func (s *Store) Record(g *Generation, contents map[string][]byte) error {
	dir := s.genDir(g.ID)
	if err := s.Sys.MkdirAll(filepath.Join(dir, "files"), 0o755); err != nil {
		return err
	}
	for _, f := range g.Files {
		if err := s.Sys.WriteFile(filepath.Join(dir, "files", f.Name), contents[f.Name], 0o644); err != nil {
			return fmt.Errorf("generation %d: %w", g.ID, err)
		}
	}
	return s.Update(g)
}

// Update rewrites g's meta.json (e.g. when its result is known).
func (s *Store) Update(g *Generation) error {
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	return s.Sys.WriteFile(filepath.Join(s.genDir(g.ID), "meta.json"), append(data, '\n'), 0o644)
}

// Prune removes the oldest generations beyond Keep.
func (s *Store) Prune() error {
	entries, err := s.Sys.ReadDir(s.Dir)
	if err != nil {
		return nil
	}
	var ids []int
	for _, e := range entries {
		if id, err := strconv.Atoi(e.Name()); err == nil {
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	var errs []error
	for len(ids) > s.Keep {
		if err := removeAll(s.Sys, s.genDir(ids[0])); err != nil {
			errs = append(errs, err)
		}
		ids = ids[1:]
	}
	return errors.Join(errs...)
}

func removeAll(sys system.System, dir string) error {
	entries, _ := sys.ReadDir(filepath.Join(dir, "files"))
	for _, e := range entries {
		sys.Remove(filepath.Join(dir, "files", e.Name()))
	}
	sys.Remove(filepath.Join(dir, "files"))
	sys.Remove(filepath.Join(dir, "meta.json"))
	return sys.Remove(dir)
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
