//go:build !noclients

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"net/url"
	"path"
	"time"

	"github.com/jlaffaye/ftp"
)

// ftpEndpoint is an FTP server reached with the jlaffaye/ftp client:
// ftp://[USER[:PASSWORD]@]HOST[:PORT][/FOLDER]; the password can come
// from USERSCRIPT_FTP_PASSWORD; without a user, anonymous. On the
// IcyBox, a FOLDER in RAM (/tmp) keeps the disk out of the measurement.
type ftpEndpoint struct {
	addr, user, pass, folder, name string
	conn                           *ftp.ServerConn
}

func newFTP(raw, name string) (*ftpEndpoint, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "ftp" || u.Host == "" {
		return nil, fmt.Errorf("--ftp %q: want ftp://[USER@]HOST[:PORT][/FOLDER]", raw)
	}
	e := &ftpEndpoint{addr: hostPort(u, "21"), folder: u.Path, name: name}
	e.user, e.pass = login(u, "anonymous", "userscript@", "USERSCRIPT_FTP_PASSWORD")
	return e, nil
}

func (e *ftpEndpoint) proto() string        { return "FTP" }
func (e *ftpEndpoint) how() string          { return "jlaffaye/ftp" }
func (e *ftpEndpoint) cached() bool         { return false }
func (e *ftpEndpoint) free() (int64, error) { return 0, errNoStatfs }
func (e *ftpEndpoint) file() string         { return path.Join(e.folder, e.name) }

func (e *ftpEndpoint) where() string {
	return fmt.Sprintf("ftp://%s@%s%s", e.user, e.addr, path.Join("/", e.file()))
}

func (e *ftpEndpoint) open(ctx context.Context) error {
	c, err := ftp.Dial(e.addr, ftp.DialWithContext(ctx), ftp.DialWithTimeout(30*time.Second))
	if err != nil {
		return fmt.Errorf("ftp://%s: %w", e.addr, err)
	}
	if err := c.Login(e.user, e.pass); err != nil {
		c.Quit()
		return fmt.Errorf("ftp://%s: login as %s: %w", e.addr, e.user, err)
	}
	e.conn = c
	return nil
}

// write stores the file; it counts as written when the server confirms.
func (e *ftpEndpoint) write(ctx context.Context, r io.Reader) error {
	return e.conn.Stor(e.file(), readerCtx(ctx, r))
}

func (e *ftpEndpoint) read(ctx context.Context, w io.Writer) error {
	resp, err := e.conn.Retr(e.file())
	if err != nil {
		return err
	}
	_, err = io.Copy(w, readerCtx(ctx, resp))
	if cerr := resp.Close(); err == nil {
		err = cerr
	}
	return err
}

func (e *ftpEndpoint) cleanup(context.Context) error {
	if e.conn == nil {
		return nil
	}
	err := e.conn.Delete(e.file())
	var te *textproto.Error
	if errors.As(err, &te) && te.Code == ftp.StatusFileUnavailable {
		return nil // never written
	}
	return err
}

func (e *ftpEndpoint) close() {
	if e.conn != nil {
		e.conn.Quit()
	}
}

func (e *ftpEndpoint) address() string { return e.addr }
