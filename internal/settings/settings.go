package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/nas-userscript/userscript/internal/profile"
)

// Settings is userscript.toml.
type Settings struct {
	Profile string `toml:"profile"`
	Strict  bool   `toml:"strict"`
	Keep    int    `toml:"keep"`
	// ValidateTimeout bounds each validator process ("30s").
	ValidateTimeout string `toml:"validate_timeout"`
	// PollInterval is how often the sh engine's poll loop looks at conf.d
	// ("5s"); the Go daemon watches with inotify and only checks it.
	PollInterval string `toml:"poll_interval"`
	// LogSize is the size at which state/log is rotated ("256KiB").
	LogSize string `toml:"log_size"`
	// Language is the language of conf.d/STATUS.html: "en" (the
	// default) or "de".
	Language string             `toml:"language"`
	Targets  map[string]Target  `toml:"targets"`
	Services map[string]Service `toml:"services"`
	// Unknown says which keys were not understood (and ignored).
	Unknown []string `toml:"-"`
}

// Target changes or adds a target of the profile. Empty fields keep the
// profile's value; `remove = true` drops the target.
type Target struct {
	Path      string  `toml:"path"`
	Validator *string `toml:"validator"`
	Service   *string `toml:"service"`
	Remove    bool    `toml:"remove"`
	// NeverEmpty refuses an empty file for the target.
	NeverEmpty *bool `toml:"never_empty"`
	// Mode is the octal mode a new file gets ("0644").
	Mode string `toml:"mode"`
}

// Service changes or adds a service of the profile.
type Service struct {
	Restart []string `toml:"restart"`
	Timeout string   `toml:"timeout"`
	Process *string  `toml:"process"`
	Ports   []int    `toml:"ports"`
	Settle  string   `toml:"settle"`
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
	for _, k := range md.Undecoded() {
		s.Unknown = append(s.Unknown, fmt.Sprintf("%s: unknown key %s, ignored: check the spelling against userscript.toml.example", path, k.String()))
	}
	if s.Keep < 1 {
		return nil, fmt.Errorf("%s: keep = %d: keep at least 1 generation", path, s.Keep)
	}
	if _, err := s.Timeout(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.PollInterval != "" {
		if _, err := duration("poll_interval", s.PollInterval); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if _, err := s.LogBytes(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// LogBytes is log_size in bytes ("256KiB", "1MiB", a number of bytes),
// or 0 for the default.
func (s *Settings) LogBytes() (int64, error) {
	if s.LogSize == "" {
		return 0, nil
	}
	num := strings.TrimRight(s.LogSize, "KMiB")
	mult := int64(1)
	switch strings.TrimPrefix(s.LogSize, num) {
	case "", "B":
	case "K", "KB", "KiB":
		mult = 1 << 10
	case "M", "MB", "MiB":
		mult = 1 << 20
	default:
		num = ""
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("log_size = %q: write a size like \"256KiB\"", s.LogSize)
	}
	return n * mult, nil
}

// Timeout is validate_timeout, or 0 for the validators' default.
func (s *Settings) Timeout() (time.Duration, error) {
	if s.ValidateTimeout == "" {
		return 0, nil
	}
	return duration("validate_timeout", s.ValidateTimeout)
}

// duration parses a setting like "60s"; it must be positive.
func duration(key, v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s = %q: write a positive duration like \"60s\"", key, v)
	}
	return d, nil
}

// Apply returns p changed by the settings' targets and services.
func (s *Settings) Apply(p *profile.Profile) (*profile.Profile, error) {
	for name, sv := range s.Services {
		cur, ok := p.Services[name]
		if !ok {
			cur = profile.Service{Name: name, Timeout: 60 * time.Second}
		}
		if sv.Restart != nil {
			cur.Restart, cur.Fallbacks = sv.Restart, nil
		}
		if sv.Timeout != "" {
			d, err := duration("services."+name+".timeout", sv.Timeout)
			if err != nil {
				return nil, err
			}
			cur.Timeout = d
		}
		if sv.Settle != "" {
			d, err := time.ParseDuration(sv.Settle)
			if err != nil || d < 0 {
				return nil, fmt.Errorf("services.%s.settle = %q: write a duration like \"3s\" (\"0s\": no settle period)", name, sv.Settle)
			}
			cur.Settle = d
			if d == 0 {
				cur.Settle = -1 // explicitly none
			}
		}
		if sv.Process != nil {
			cur.Process = *sv.Process
		}
		if sv.Ports != nil {
			cur.Ports, cur.PortsPinned = sv.Ports, true
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
		if tv.NeverEmpty != nil {
			cur.NeverEmpty = *tv.NeverEmpty
		}
		if tv.Mode != "" {
			m, err := strconv.ParseUint(tv.Mode, 8, 32)
			if err != nil || m > 0o777 {
				return nil, fmt.Errorf("targets.%s.mode = %q: write an octal mode like \"0644\"", name, tv.Mode)
			}
			cur.Mode = fs.FileMode(m)
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
