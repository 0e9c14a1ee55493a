package statuspage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/nas-userscript/userscript/internal/source"
	"github.com/nas-userscript/userscript/internal/system"
)

// File is the page's name in conf.d.
const File = source.PageFile

// Write builds the page from what is on disk under app and writes
// conf.d/STATUS.html when it differs from the page there, so an idle
// engine writes nothing. lang is userscript.toml's language.
func Write(sys system.System, app, lang string) error {
	path := filepath.Join(app, "conf.d", File)
	page := Build(Read(sys, app), lang)
	old, err := sys.ReadFile(path)
	if err == nil && bytes.Equal(old, page) {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := sys.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file; remove it so the page can be written", path)
		}
	}
	return sys.WriteFile(path, page, 0o644)
}

// Lang is the page's language for a language setting: "de", else "en".
func Lang(setting string) string {
	if setting == "de" {
		return "de"
	}
	return "en"
}

// Build renders the page of s in lang.
func Build(s *State, lang string) []byte {
	lang = Lang(lang)
	var b strings.Builder
	put := func(name string, kv ...string) { b.WriteString(fill(text(lang, name), kv...)) }
	put("head", "lang", lang)
	banner(s, put)
	if len(s.Rows) == 0 {
		put("nofiles")
	} else {
		put("files")
		for _, r := range s.Rows {
			row(lang, r, put)
		}
		put("files_end")
	}
	if len(s.Gens) == 0 {
		put("nohist")
	} else {
		put("hist")
		for _, g := range s.Gens {
			rej, note := "", ""
			if g.Rejected != "" {
				rej = fill(text(lang, "hrej"), "rejected", esc(g.Rejected))
			}
			if g.Note != "" {
				note = fill(text(lang, "hnote"), "note", esc(g.Note))
			}
			put("hrow", "result", esc(g.Result), "id", esc(g.ID), "time", esc(g.Time), "kind", esc(g.Kind),
				"rejhtml", rej, "notehtml", note, "changed", esc(g.Changed), "restarted", esc(g.Restarted))
		}
		put("hist_end")
	}
	if len(s.Findings) > 0 {
		put("doc")
		for _, f := range s.Findings {
			put("finding", "text", esc(f))
		}
		put("doc_end")
	}
	if s.Chart != "" || len(s.CSV) > 0 {
		put("bench")
		if s.Chart != "" {
			put("chart", "name", esc(s.Chart), "svghtml", dataURL(s.ChartSVG))
		}
		if len(s.CSV) > 0 {
			put("csvs")
			for _, c := range s.CSV {
				put("csv", "name", esc(c))
			}
			put("bench_end")
		}
	}
	put("foot")
	return []byte(b.String())
}

// banner puts the line at the top: off, safe mode, disk full, something
// needs you (how many), nothing yet, or all fine.
func banner(s *State, put func(string, ...string)) {
	n, full := len(s.Findings), false
	for _, r := range s.Rows {
		switch r.Word {
		case "REFUSED", "REJECTED", "FAILED", "UNKNOWN", "HELD":
			n++
		}
		if r.Word == "FAILED" && strings.HasPrefix(r.Reason, "data disk full") {
			full = true
		}
	}
	switch {
	case s.Disable != "":
		put("ban_off", "name", esc(s.Disable))
	case s.Safe != "":
		put("ban_safe", "why", esc(s.SafeWhy), "name", esc(s.Safe))
	case full:
		put("ban_full")
	case n > 0:
		put("ban_need", "n", fmt.Sprint(n))
	case len(s.Rows) == 0:
		put("ban_empty")
	default:
		put("ban_ok")
	}
}

func row(lang string, r Row, put func(string, ...string)) {
	var what strings.Builder
	part := func(name, key, v string) {
		if v != "" {
			what.WriteString(fill(text(lang, name), key, esc(v)))
		}
	}
	part("reason", "reason", r.Reason)
	part("line", "line", r.Line)
	part("todo", "todo", r.Todo)
	part("since", "time", r.Time)
	held := ""
	if r.Held {
		held = text(lang, "held")
	}
	put("row", "class", class(r.Word), "word", esc(r.Word), "heldhtml", held, "file", esc(r.File),
		"whathtml", what.String(), "gen", esc(r.Gen))
}

// class is the row's CSS class for a status word.
func class(word string) string {
	switch word {
	case "OK", "REFUSED", "REJECTED", "FAILED", "UNKNOWN", "HELD", "DISABLED":
		return "s-" + strings.ToLower(word)
	case "NOT VALIDATED":
		return "s-not-validated"
	}
	return "s-other"
}

// fill puts the values of kv (name, value, ...) into the template t.
// in one pass, so a value that holds {{name}} stays as it is.
func fill(t string, kv ...string) string {
	pairs := make([]string, len(kv))
	for i := 0; i+1 < len(kv); i += 2 {
		pairs[i], pairs[i+1] = "{{"+kv[i]+"}}", kv[i+1]
	}
	return strings.NewReplacer(pairs...).Replace(t)
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;", `\`, "&#92;")

// esc escapes owner text for HTML (a backslash too: the sh engine's echo
// must never see one).
func esc(s string) string { return escaper.Replace(s) }

var urlEscaper = strings.NewReplacer("%", "%25", "#", "%23", "'", "%27", "&", "%26", `\`, "%5C", `"`, "%22", "<", "%3C", ">", "%3E")

// dataURL is the SVG as the text of a data: URL, one line of the file a
// line of the page, each ending in %0A. An image loaded this way runs no
// script and loads nothing.
func dataURL(svg []byte) string {
	ls := strings.Split(string(svg), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	for i, l := range ls {
		ls[i] = urlEscaper.Replace(l) + "%0A"
	}
	return strings.Join(ls, "\n")
}
