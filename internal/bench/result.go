package bench

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Columns are the CSV columns, in this order (both engines write them).
var Columns = []string{"time", "device", "engine", "version", "generation", "test", "run", "bytes", "seconds", "mb_per_s", "command", "source", "destination", "filesystem"}

// A Result is one test run: one CSV row.
type Result struct {
	Time        time.Time
	Device      string
	Engine      string
	Version     string
	Generation  string
	Test        string
	Run         int
	Bytes       int64
	Seconds     float64
	MBPerS      float64
	Command     string
	Source      string
	Destination string
	Filesystem  string
	// Variant is the version of the config an A/B test measured (A or
	// B); "" elsewhere. Its CSV column is there only when one is set.
	Variant string
}

// VariantColumn is the column an A/B test's CSV adds at the end.
const VariantColumn = "variant"

// Meta says where results come from: the machine, the engine and the
// config generation that was live.
type Meta struct {
	Device     string `json:"device"`
	Engine     string `json:"engine"`
	Version    string `json:"version"`
	Generation string `json:"generation"`
}

// A Skip is a test that did not run, and why.
type Skip struct {
	Test   string `json:"test"`
	Reason string `json:"reason"`
}

// A Report is everything one bench run produced: the .json next to the
// .csv.
type Report struct {
	Meta
	Size      int64       `json:"size"`
	Runs      int         `json:"runs"`
	Results   []Result    `json:"results"`
	Skipped   []Skip      `json:"skipped"`
	Warnings  []string    `json:"warnings"`
	Partition []Partition `json:"partitions,omitempty"`
}

func (r Result) record() []string {
	return []string{
		r.Time.UTC().Format(time.RFC3339), r.Device, r.Engine, r.Version, r.Generation,
		r.Test, strconv.Itoa(r.Run), strconv.FormatInt(r.Bytes, 10),
		strconv.FormatFloat(r.Seconds, 'f', 3, 64), strconv.FormatFloat(r.MBPerS, 'f', 2, 64),
		r.Command, r.Source, r.Destination, r.Filesystem,
	}
}

// WriteCSV writes the header and one row per result; with the variant
// column when a result has a Variant.
func WriteCSV(w io.Writer, rs []Result) error {
	ab := slices.ContainsFunc(rs, func(r Result) bool { return r.Variant != "" })
	cw := csv.NewWriter(w)
	if ab {
		cw.Write(append(slices.Clone(Columns), VariantColumn))
	} else {
		cw.Write(Columns)
	}
	for _, r := range rs {
		if ab {
			cw.Write(append(r.record(), r.Variant))
		} else {
			cw.Write(r.record())
		}
	}
	cw.Flush()
	return cw.Error()
}

// MarshalJSON writes a result as the .json files hold it: the row
// without the run's metadata (the report has it once), rounded as in the
// CSV.
func (r Result) MarshalJSON() ([]byte, error) {
	rec := r.record()
	return json.Marshal(struct {
		Time        string      `json:"time"`
		Test        string      `json:"test"`
		Run         int         `json:"run"`
		Bytes       int64       `json:"bytes"`
		Seconds     json.Number `json:"seconds"`
		MBPerS      json.Number `json:"mb_per_s"`
		Command     string      `json:"command"`
		Source      string      `json:"source"`
		Destination string      `json:"destination"`
		Filesystem  string      `json:"filesystem"`
		Generation  string      `json:"generation,omitempty"`
		Variant     string      `json:"variant,omitempty"`
	}{rec[0], r.Test, r.Run, r.Bytes, json.Number(rec[8]), json.Number(rec[9]), r.Command, r.Source, r.Destination, r.Filesystem, variantGen(r), r.Variant})
}

// variantGen is an A/B row's generation (each variant's differs); other
// rows leave it to the report.
func variantGen(r Result) string {
	if r.Variant == "" {
		return ""
	}
	return r.Generation
}

// WriteJSON writes the report, indented by two spaces.
func WriteJSON(w io.Writer, rep *Report) error {
	r := *rep
	r.Results, r.Skipped, r.Warnings = nonNil(r.Results), nonNil(r.Skipped), nonNil(r.Warnings)
	rep = &r
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// ReadCSV reads a results file written by either engine; name is used in
// errors.
func ReadCSV(r io.Reader, name string) ([]Result, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file: want a CSV written by userscript bench", name)
	}
	cols := strings.Join(Columns, ",")
	if err != nil || (strings.Join(head, ",") != cols && strings.Join(head, ",") != cols+","+VariantColumn) {
		return nil, fmt.Errorf("%s: not a userscript bench CSV: the first line must be %s (an A/B test's adds ,%s)", name, cols, VariantColumn)
	}
	cr.FieldsPerRecord = len(head)
	var rs []Result
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		res, err := parseRecord(rec)
		if len(rec) > len(Columns) {
			res.Variant = rec[len(Columns)]
		}
		if err != nil {
			line, _ := cr.FieldPos(0)
			return nil, fmt.Errorf("%s: line %d: %w", name, line, err)
		}
		rs = append(rs, res)
	}
}

func parseRecord(rec []string) (Result, error) {
	r := Result{Device: rec[1], Engine: rec[2], Version: rec[3], Generation: rec[4], Test: rec[5],
		Command: rec[10], Source: rec[11], Destination: rec[12], Filesystem: rec[13]}
	var errs []error
	var err error
	if r.Time, err = time.Parse(time.RFC3339, rec[0]); err != nil {
		errs = append(errs, fmt.Errorf("time %q: want like 2026-12-02T12:30:00Z", rec[0]))
	}
	if r.Run, err = strconv.Atoi(rec[6]); err != nil || r.Run < 1 {
		errs = append(errs, fmt.Errorf("run %q: want a number from 1", rec[6]))
	}
	if r.Bytes, err = strconv.ParseInt(rec[7], 10, 64); err != nil || r.Bytes < 0 {
		errs = append(errs, fmt.Errorf("bytes %q: want a whole number", rec[7]))
	}
	if r.Seconds, err = strconv.ParseFloat(rec[8], 64); err != nil || !finite(r.Seconds) {
		errs = append(errs, fmt.Errorf("seconds %q: want a number from 0 (not inf or nan)", rec[8]))
	}
	if r.MBPerS, err = strconv.ParseFloat(rec[9], 64); err != nil || !finite(r.MBPerS) {
		errs = append(errs, fmt.Errorf("mb_per_s %q: want a number from 0 (not inf or nan)", rec[9]))
	}
	if r.Test == "" {
		errs = append(errs, errors.New("test is empty"))
	}
	return r, errors.Join(errs...)
}

// finite is a number from 0 that is neither inf nor nan.
func finite(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// nonNil makes an empty list a JSON [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
