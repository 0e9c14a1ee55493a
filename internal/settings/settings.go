package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/nas-userscript/userscript/internal/profile"
)

// Settings is userscript.toml.
type Settings struct {
	Profile  string             `toml:"profile"`
	Strict   bool               `toml:"strict"`
	Keep     int                `toml:"keep"`
	Targets  map[string]Target  `toml:"targets"`
	Services map[string]Service `toml:"services"`
}

// Target changes or adds a target of the profile. Empty fields keep the
// profile's value; `remove = true` drops the target.
type Target struct {
	Path      string  `toml:"path"`
	Validator *string `toml:"validator"`
	Service   *string `toml:"service"`
	Remove    bool    `toml:"remove"`
}

// Service changes or adds a service of the profile.
type Service struct {
	Restart []string `toml:"restart"`
	Timeout string   `toml:"timeout"`
	Process *string  `toml:"process"`
	Ports   []int    `toml:"ports"`
}

// DefaultKeep is how many generations history keeps.
const DefaultKeep = 20

// Load reads path. A missing file gives the defaults.
func Load(path string) (*Settings, error) {
	s := &Settings{Keep: DefaultKeep}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	md, err := toml.Decode(string(data), s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("%s: unknown key %s: check the spelling against the commented example", path, strings.Join(keys, ", "))
	}
	if s.Keep < 1 {
		return nil, fmt.Errorf("%s: keep = %d: keep at least 1 generation", path, s.Keep)
	}
	return s, nil
}

// Apply returns p changed by the settings' targets and services.
func (s *Settings) Apply(p *profile.Profile) (*profile.Profile, error) {
	for name, sv := range s.Services {
		cur, ok := p.Services[name]
		if !ok {
			cur = profile.Service{Name: name, Timeout: 60 * time.Second}
		}
		if sv.Restart != nil {
			cur.Restart = sv.Restart
		}
		if sv.Timeout != "" {
			d, err := time.ParseDuration(sv.Timeout)
			if err != nil {
				return nil, fmt.Errorf("services.%s.timeout: %w (write it like \"60s\")", name, err)
			}
			cur.Timeout = d
		}
		if sv.Process != nil {
			cur.Process = *sv.Process
		}
		if sv.Ports != nil {
			cur.Ports = sv.Ports
		}
		p.Services[name] = cur
	}
	for name, tv := range s.Targets {
		i := -1
		for j, t := range p.Targets {
			if t.Name == name {
				i = j
			}
		}
		if tv.Remove {
			if i >= 0 {
				p.Targets = append(p.Targets[:i], p.Targets[i+1:]...)
			}
			continue
		}
		cur := profile.Target{Name: name}
		if i >= 0 {
			cur = p.Targets[i]
		}
		if tv.Path != "" {
			cur.Path = tv.Path
		}
		if tv.Validator != nil {
			cur.Validator = *tv.Validator
			if cur.Validator == "none" {
				cur.Validator = ""
			}
		}
		if tv.Service != nil {
			cur.Service = *tv.Service
		}
		if cur.Path == "" {
			return nil, fmt.Errorf("targets.%s: a new target needs a path", name)
		}
		if i >= 0 {
			p.Targets[i] = cur
		} else {
			p.Targets = append(p.Targets, cur)
		}
	}
	profile.Sort(p)
	if err := p.Check(); err != nil {
		return nil, fmt.Errorf("userscript.toml: %w", err)
	}
	return p, nil
}
