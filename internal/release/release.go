package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A File is one entry: its name in the archive and where its bytes are.
type File struct {
	Name string // slash-separated
	Path string
	Exec bool
}

// Collect lists every regular file under dir, named top/RELPATH;
// executables keep their execute bit.
func Collect(dir, top string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, File{Name: top + "/" + filepath.ToSlash(rel), Path: p, Exec: fi.Mode()&0o111 != 0})
		return nil
	})
	return files, err
}

// Write writes files to out as a zip when out ends in .zip, else as a
// gzip'ed tar, every entry dated mtime. It writes aside and renames.
func Write(out string, files []File, mtime time.Time) error {
	files = append([]File(nil), files...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	var buf bytes.Buffer
	var err error
	if strings.HasSuffix(out, ".zip") {
		err = writeZip(&buf, files, mtime.UTC())
	} else {
		err = writeTarGz(&buf, files, mtime.UTC())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

func mode(f File) fs.FileMode {
	if f.Exec {
		return 0o755
	}
	return 0o644
}

func writeZip(w io.Writer, files []File, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(mode(f))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if err := copyFile(fw, f.Path); err != nil {
			return err
		}
	}
	return zw.Close()
}

func writeTarGz(w io.Writer, files []File, mtime time.Time) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	for _, f := range files {
		for d := pathDir(f.Name); d != "" && !dirs[d]; d = pathDir(d) {
			dirs[d] = true
		}
	}
	var names []string
	for d := range dirs {
		names = append(names, d+"/")
	}
	for _, f := range files {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	byName := map[string]File{}
	for _, f := range files {
		byName[f.Name] = f
	}
	for _, n := range names {
		h := &tar.Header{Name: n, ModTime: mtime, Format: tar.FormatUSTAR, Typeflag: tar.TypeDir, Mode: 0o755}
		f, isFile := byName[n]
		if isFile {
			fi, err := os.Stat(f.Path)
			if err != nil {
				return err
			}
			h.Typeflag, h.Mode, h.Size = tar.TypeReg, int64(mode(f)), fi.Size()
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if isFile {
			if err := copyFile(tw, f.Path); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func pathDir(name string) string {
	i := strings.LastIndex(name, "/")
	if i < 0 {
		return ""
	}
	return name[:i]
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}
