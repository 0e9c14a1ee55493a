// Command spkicon draws the Synology package icon (PACKAGE_ICON.PNG,
// PACKAGE_ICON_256.PNG) as a PNG of the given size on stdout:
//
//	go run ./scripts/spkicon 72 >PACKAGE_ICON.PNG
//
// A blue rounded square holding a white sheet (a config file) with three
// lines and a green check mark. It is drawn from geometry alone, 4×4
// samples a pixel, so the same size gives the same bytes every time
// (scripts/dist.sh relies on that for reproducible packages).
package main

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"strconv"
)

var (
	blue  = color.NRGBA{0x2b, 0x6c, 0xb0, 0xff}
	white = color.NRGBA{0xff, 0xff, 0xff, 0xff}
	grey  = color.NRGBA{0x9a, 0xa5, 0xb1, 0xff}
	green = color.NRGBA{0x2f, 0x9e, 0x44, 0xff}
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: spkicon SIZE >icon.png")
		os.Exit(2)
	}
	size, err := strconv.Atoi(os.Args[1])
	if err != nil || size < 16 || size > 1024 {
		fmt.Fprintf(os.Stderr, "spkicon: size %q: want a number of pixels from 16 to 1024\n", os.Args[1])
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	if err := png.Encode(w, draw(size)); err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "spkicon: %v\n", err)
		os.Exit(1)
	}
}

// draw renders the icon at size×size pixels.
func draw(size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const n = 4 // samples per axis
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			var r, g, b, a float64
			for sy := 0; sy < n; sy++ {
				for sx := 0; sx < n; sx++ {
					// the sample point in icon units 0..1
					u := (float64(x) + (float64(sx)+0.5)/n) / float64(size)
					v := (float64(y) + (float64(sy)+0.5)/n) / float64(size)
					c := shade(u, v)
					f := float64(c.A) / 255
					r += float64(c.R) * f
					g += float64(c.G) * f
					b += float64(c.B) * f
					a += f
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(x, y, color.NRGBA{
				R: uint8(math.Round(r / a)), G: uint8(math.Round(g / a)), B: uint8(math.Round(b / a)),
				A: uint8(math.Round(a / (n * n) * 255)),
			})
		}
	}
	return img
}

// shade is the icon's colour at the point u, v (0..1, y down).
func shade(u, v float64) color.NRGBA {
	switch {
	case !inRoundRect(u, v, 0.04, 0.04, 0.96, 0.96, 0.18):
		return color.NRGBA{}
	case onCheck(u, v):
		return green
	case inRoundRect(u, v, 0.27, 0.18, 0.73, 0.82, 0.05):
		for _, line := range []float64{0.34, 0.46, 0.58} {
			if inRoundRect(u, v, 0.35, line-0.025, 0.65, line+0.025, 0.02) {
				return grey
			}
		}
		return white
	}
	return blue
}

// inRoundRect reports whether u, v is inside the rectangle x0,y0–x1,y1
// with corners of radius r.
func inRoundRect(u, v, x0, y0, x1, y1, r float64) bool {
	if u < x0 || u > x1 || v < y0 || v > y1 {
		return false
	}
	cx := math.Max(x0+r, math.Min(u, x1-r))
	cy := math.Max(y0+r, math.Min(v, y1-r))
	return (u-cx)*(u-cx)+(v-cy)*(v-cy) <= r*r
}

// onCheck reports whether u, v is on the check mark at the sheet's
// lower right: two strokes from (0.52,0.70) down to (0.60,0.78) and up to
// (0.78,0.56).
func onCheck(u, v float64) bool {
	const w = 0.045
	return nearSegment(u, v, 0.52, 0.70, 0.60, 0.78, w) || nearSegment(u, v, 0.60, 0.78, 0.78, 0.56, w)
}

// nearSegment reports whether u, v is within w of the segment a–b.
func nearSegment(u, v, ax, ay, bx, by, w float64) bool {
	dx, dy := bx-ax, by-ay
	t := ((u-ax)*dx + (v-ay)*dy) / (dx*dx + dy*dy)
	t = math.Max(0, math.Min(1, t))
	px, py := ax+t*dx-u, ay+t*dy-v
	return px*px+py*py <= w*w
}
