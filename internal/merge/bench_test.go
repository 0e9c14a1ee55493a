package merge

import (
	"fmt"
	"strings"
	"testing"
)

// large returns a base and a fragment of about 1 MiB each, the most the
// engine accepts, half of whose keys are in the base.
func large(format string) (base, frag []byte) {
	var b, f strings.Builder
	switch format {
	case Samba:
		b.WriteString("[global]\n")
		f.WriteString("[global]\n")
	case ProFTPD:
		b.WriteString("<Global>\n")
		f.WriteString("<Global>\n")
	}
	for i := 0; b.Len() < 1<<20; i++ {
		switch format {
		case Exports:
			fmt.Fprintf(&b, "/mnt/share%d 10.0.0.%d(rw,async)\n", i, i%250)
			fmt.Fprintf(&f, "/mnt/share%d 10.0.1.%d(ro)\n", 2*i, i%250)
		case ProFTPD:
			fmt.Fprintf(&b, "  Directive%d on\n", i)
			fmt.Fprintf(&f, "  Directive%d off\n", 2*i)
		default:
			fmt.Fprintf(&b, "   key number %d = value %d\n", i, i)
			fmt.Fprintf(&f, "key number %d = new %d\n", 2*i, i)
		}
	}
	if format == ProFTPD {
		b.WriteString("</Global>\n")
		f.WriteString("</Global>\n")
	}
	return []byte(b.String()), []byte(f.String())
}

// BenchmarkMergeLarge merges 1 MiB fragments onto 1 MiB files: the
// engine must stay fast at the size limit.
func BenchmarkMergeLarge(b *testing.B) {
	for _, format := range []string{Samba, ProFTPD, Exports, KeyValue} {
		base, frag := large(format)
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if _, err := Merge(format, base, frag, "x.merge"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
