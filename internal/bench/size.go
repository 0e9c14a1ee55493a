package bench

import (
	"fmt"
	"strconv"
	"strings"
)

// MiB is the unit of sizes and of MB/s: 2^20 bytes, as on the page.
const MiB = 1 << 20

// DefaultSize is the page's test size: 1000 MB.
const DefaultSize = 1000 * MiB

// ParseSize reads a test size: a whole number with M (2^20 bytes) or G
// (2^30 bytes), e.g. 1000M or 2G.
func ParseSize(s string) (int64, error) {
	num, unit := s, int64(0)
	switch {
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		num, unit = s[:len(s)-1], MiB
	case strings.HasSuffix(s, "G"), strings.HasSuffix(s, "g"):
		num, unit = s[:len(s)-1], 1<<30
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if unit == 0 || err != nil || n <= 0 || n > (1<<40)/unit {
		return 0, fmt.Errorf("size %q: want a whole number of M or G, e.g. 1000M or 2G", s)
	}
	return n * unit, nil
}

// Rate is the throughput of bytes in seconds in MB/s (2^20 bytes).
func Rate(bytes int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	return float64(bytes) / MiB / seconds
}
