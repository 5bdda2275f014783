package main

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// A small SVG line-chart writer: a grid of panels, each with its own axes,
// lines and legend. Enough for this program, and no dependency.

// chart is a grid of panels, filled row by row, under a title and a title
// per column.
type chart struct {
	title   string
	columns []string // the title of each column
	panels  []panel
}

// panel is one plot: lines over time, from 0 to xMax seconds.
type panel struct {
	title string
	unit  string  // of the y axis, such as "ms" or "/s"
	xMax  float64 // seconds
	yMax  float64 // top of the y axis; 0 fits the data
	shade [2]float64
	lines []line
}

// line is a named series of points; a NaN y leaves a gap.
type line struct {
	name   string
	color  string
	dashed bool
	points []point
}

type point struct{ x, y float64 }

// The geometry of a panel, in pixels.
const (
	panelWidth  = 480
	panelHeight = 210
	plotLeft    = 52 // room for the y labels
	plotRight   = 14
	plotTop     = 30 // room for the title and the legend
	plotBottom  = 30 // room for the x labels
	chartTop    = 60 // room for the chart's title and the column titles
)

// Colors of the lines, chosen to be told apart.
const (
	blue   = "#1f77b4"
	orange = "#ff7f0e"
	green  = "#2ca02c"
	red    = "#d62728"
	grey   = "#7f7f7f"
	purple = "#9467bd"
)

// svg returns the chart as an SVG document.
func (c chart) svg() []byte {
	cols := max(len(c.columns), 1)
	rows := (len(c.panels) + cols - 1) / cols
	width, height := cols*panelWidth, chartTop+rows*panelHeight

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14">%s</text>`+"\n", plotLeft, html.EscapeString(c.title))
	for i, title := range c.columns {
		fmt.Fprintf(&b, `<text x="%d" y="50" font-size="14" font-weight="bold">%s</text>`+"\n",
			i*panelWidth+plotLeft, html.EscapeString(title))
	}
	for i, p := range c.panels {
		x, y := (i%cols)*panelWidth, chartTop+(i/cols)*panelHeight
		fmt.Fprintf(&b, `<g transform="translate(%d,%d)">`+"\n", x, y)
		p.draw(&b)
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// draw writes the panel, its origin at the top-left corner of its cell.
func (p panel) draw(b *bytes.Buffer) {
	w := float64(panelWidth - plotLeft - plotRight)
	h := float64(panelHeight - plotTop - plotBottom)
	xMax := p.xMax
	if !usable(xMax) {
		xMax = 1
	}
	yMax := p.yMax
	if !usable(yMax) {
		yMax = niceCeil(p.dataMax())
	}
	px := func(x float64) float64 { return plotLeft + math.Min(x/xMax, 1)*w }
	py := func(y float64) float64 { return plotTop + h - math.Min(math.Max(y/yMax, 0), 1)*h }

	fmt.Fprintf(b, `<text x="%d" y="16" font-size="12">%s</text>`+"\n", plotLeft, html.EscapeString(p.title))
	if p.shade[1] > p.shade[0] {
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%.1f" fill="#eeeeee"/>`+"\n",
			px(p.shade[0]), plotTop, px(p.shade[1])-px(p.shade[0]), h)
	}

	// Axes, grid and labels.
	yStep := niceStep(yMax / 4)
	for y := 0.0; y <= yMax*1.0001; y += yStep {
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", plotLeft, py(y), plotLeft+w, py(y))
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s%s</text>`+"\n", plotLeft-4, py(y)+4, label(y), p.unit)
	}
	xStep := niceStep(xMax / 6)
	for x := 0.0; x <= xMax*1.0001; x += xStep {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%ss</text>`+"\n", px(x), plotTop+h+16, label(x))
	}
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#999999"/>`+"\n", plotLeft, plotTop, w, h)

	// Lines, then their legend in the title row, right-aligned.
	for _, l := range p.lines {
		dash := ""
		if l.dashed {
			dash = ` stroke-dasharray="5,3"`
		}
		for _, seg := range segments(l.points) {
			if len(seg) == 1 { // a lone point: a dot, since a line needs two
				fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2" fill="%s"/>`+"\n", px(seg[0].x), py(seg[0].y), l.color)
				continue
			}
			var pts strings.Builder
			for _, pt := range seg {
				fmt.Fprintf(&pts, "%.1f,%.1f ", px(pt.x), py(pt.y))
			}
			fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"%s/>`+"\n",
				strings.TrimSpace(pts.String()), l.color, dash)
		}
	}
	x := float64(panelWidth - plotRight)
	for i := len(p.lines) - 1; i >= 0; i-- {
		l := p.lines[i]
		fmt.Fprintf(b, `<text x="%.1f" y="16" text-anchor="end" fill="%s">%s</text>`+"\n", x, l.color, html.EscapeString(l.name))
		x -= float64(6*len(l.name) + 14)
	}
}

// dataMax returns the largest y of the panel's lines, or 1 if there is
// no usable one.
func (p panel) dataMax() float64 {
	m := 0.0
	for _, l := range p.lines {
		for _, pt := range l.points {
			if usable(pt.y) && pt.y > m {
				m = pt.y
			}
		}
	}
	if m < 1e-9 {
		return 1
	}
	return m
}

// usable reports whether v can be the top of an axis: positive and finite.
func usable(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// segments splits points at the NaN ys.
func segments(points []point) [][]point {
	var segs [][]point
	start := 0
	for i := 0; i <= len(points); i++ {
		if i == len(points) || math.IsNaN(points[i].y) {
			if i > start {
				segs = append(segs, points[start:i])
			}
			start = i + 1
		}
	}
	return segs
}

// niceStep returns the smallest of 1, 2 or 5 times a power of ten that is
// at least v (1 for a v out of range).
func niceStep(v float64) float64 {
	pow := math.Pow(10, math.Floor(math.Log10(v)))
	if !usable(pow) {
		return 1
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*pow >= v*0.999 {
			return m * pow
		}
	}
	return 10 * pow
}

// niceCeil rounds v up to a multiple of a nice step, for the top of an axis.
func niceCeil(v float64) float64 {
	step := niceStep(v / 4)
	return math.Ceil(v/step) * step
}

// label formats an axis value without trailing zeros.
func label(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}
