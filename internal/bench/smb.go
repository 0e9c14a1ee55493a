//go:build !noclients

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"

	"github.com/cloudsoda/go-smb2"
)

// smbEndpoint is an SMB share reached with the go-smb2 client (no mount
// needed): smb://[USER[:PASSWORD]@]HOST[:PORT]/SHARE[/FOLDER]. The
// password can come from USERSCRIPT_SMB_PASSWORD instead (not in the
// shell's history); without a user, guest.
type smbEndpoint struct {
	addr, user, pass  string
	shareName, folder string // folder: backslash-separated, "" for the share's top
	name              string
	session           *smb2.Session
	share             *smb2.Share
}

func newSMB(raw, name string) (*smbEndpoint, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("--smb %q: want smb://[USER@]HOST[:PORT]/SHARE[/FOLDER] or a mounted folder", raw)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if parts[0] == "" {
		return nil, fmt.Errorf("--smb %q: no share: want smb://HOST/SHARE", raw)
	}
	e := &smbEndpoint{addr: hostPort(u, "445"), shareName: parts[0], folder: strings.Join(parts[1:], `\`), name: name}
	e.user, e.pass = login(u, "guest", "", "USERSCRIPT_SMB_PASSWORD")
	return e, nil
}

func (e *smbEndpoint) proto() string { return "SMB" }
func (e *smbEndpoint) how() string   { return "go-smb2" }
func (e *smbEndpoint) cached() bool  { return false }

func (e *smbEndpoint) where() string {
	p := e.shareName
	if e.folder != "" {
		p += "/" + strings.ReplaceAll(e.folder, `\`, "/")
	}
	return fmt.Sprintf("smb://%s@%s/%s/%s", e.user, e.addr, p, e.name)
}

func (e *smbEndpoint) file() string {
	if e.folder == "" {
		return e.name
	}
	return e.folder + `\` + e.name
}

func (e *smbEndpoint) open(ctx context.Context) error {
	d := &smb2.Dialer{Initiator: &smb2.NTLMInitiator{User: e.user, Password: e.pass}}
	s, err := d.Dial(ctx, e.addr)
	if err != nil {
		return fmt.Errorf("smb://%s: %w", e.addr, err)
	}
	sh, err := s.WithContext(ctx).Mount(e.shareName)
	if err != nil {
		s.Logoff()
		return fmt.Errorf("smb://%s/%s: %w", e.addr, e.shareName, err)
	}
	e.session, e.share = s, sh
	return nil
}

func (e *smbEndpoint) free() (int64, error) {
	dir := e.folder
	if dir == "" {
		dir = "."
	}
	fi, err := e.share.Statfs(dir)
	if err != nil {
		return 0, err
	}
	return int64(fi.AvailableBlockCount() * fi.BlockSize()), nil
}

// write creates the file and flushes it on the server before it counts
// as written.
func (e *smbEndpoint) write(ctx context.Context, r io.Reader) error {
	f, err := e.share.WithContext(ctx).Create(e.file())
	if err != nil {
		return err
	}
	return copySynced(f, r)
}

func (e *smbEndpoint) read(ctx context.Context, w io.Writer) error {
	f, err := e.share.WithContext(ctx).Open(e.file())
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func (e *smbEndpoint) cleanup(ctx context.Context) error {
	if e.share == nil {
		return nil
	}
	if err := e.share.WithContext(ctx).Remove(e.file()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (e *smbEndpoint) close() {
	if e.share != nil {
		e.share.Umount()
	}
	if e.session != nil {
		e.session.Logoff()
	}
}

func (e *smbEndpoint) address() string { return e.addr }
