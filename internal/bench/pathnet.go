package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// pathEndpoint is a share mounted on this PC: an SMB share (a drive
// letter, a \\server\share path, /mnt/nas) or an NFS mount.
type pathEndpoint struct {
	protocol, dir, name string
}

func (p *pathEndpoint) proto() string { return p.protocol }
func (p *pathEndpoint) where() string { return filepath.Join(p.dir, p.name) }
func (p *pathEndpoint) how() string   { return "mounted path" }
func (p *pathEndpoint) cached() bool  { return true }
func (p *pathEndpoint) close()        {}

func (p *pathEndpoint) open(context.Context) error {
	fi, err := os.Stat(p.dir)
	if err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: not a mounted folder: mount the share first, or give a URL", p.dir)
	}
	return nil
}

func (p *pathEndpoint) free() (int64, error) { return freeBytes(p.dir) }

// write creates the file and writes it through to the server (fsync).
func (p *pathEndpoint) write(ctx context.Context, r io.Reader) error {
	f, err := os.OpenFile(p.where(), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	return copySynced(f, readerCtx(ctx, r))
}

// copySynced copies r into a new remote file and has the server flush
// it (fsync on a mount, FLUSH in SMB) before it counts as written.
func copySynced(f interface {
	io.WriteCloser
	Sync() error
}, r io.Reader) error {
	_, err := io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (p *pathEndpoint) read(ctx context.Context, w io.Writer) error {
	f, err := os.Open(p.where())
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, readerCtx(ctx, f))
	return err
}

func (p *pathEndpoint) cleanup(context.Context) error {
	if err := os.Remove(p.where()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// readerCtx stops a copy when ctx ends.
func readerCtx(ctx context.Context, r io.Reader) io.Reader { return &ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
