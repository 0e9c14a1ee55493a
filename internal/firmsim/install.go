package firmsim

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/nas-userscript/userscript/internal/systest"
)

// Install unpacks a package archive into the data disk's
// public/applications/, as the web GUI's upload does.
func (n *NAS) Install(tgz string) error {
	return Unpack(tgz, filepath.Join(n.Root, AppsDir))
}

// Unpack extracts a .tgz into dir, refusing entries that would land
// outside it.
func Unpack(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		name := filepath.Clean(h.Name)
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("%s: entry %q leaves the folder", tgz, h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, os.FileMode(h.Mode).Perm()); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := systest.Unforked(func() error { return extract(p, tr, h) }); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: entry %q is not a file or folder", tgz, h.Name)
		}
	}
}

// extract writes the tar entry h at p.
func extract(p string, r io.Reader, h *tar.Header) error {
	w, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode).Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}
