package report

import (
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// chart draws one bar per peer for every row of the category, on a
// logarithmic axis (the rows span several orders of magnitude), and
// writes it as SVG to file. It reports false when there is nothing to draw.
func (r *Report) chart(c Category, cols []string, file string) (bool, error) {
	cases := r.cases(c.Name)
	var peers []string
	for _, p := range cols {
		for _, cs := range cases {
			if _, ok := r.Data.Stat(Key{c.Name, cs, p}, c.Unit); ok {
				peers = append(peers, p)
				break
			}
		}
	}
	if len(peers) == 0 {
		return false, nil
	}
	p := plot.New()
	unitLabel := "time per operation (log scale)"
	if c.Unit == UnitRouter {
		unitLabel = "heap kept (log scale)"
	}
	p.Title.Text = c.Title
	p.Y.Label.Text = unitLabel
	p.Y.Tick.Marker = logTicks{bytes: c.Unit == UnitRouter}
	p.Y.Min = 0
	legend := plot.NewLegend()
	legend.Top = true
	legend.Left = true
	legend.Padding = vg.Points(3)
	p.NominalX(cases...)
	if len(cases) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 5
		p.X.Tick.Label.XAlign = text.XRight
		p.X.Tick.Label.YAlign = text.YCenter
	}
	width := vg.Length(math.Max(14, float64(len(cases))*2.6)) * vg.Centimeter
	const legendWidth = 3.2 * vg.Centimeter
	area := width - 2.2*vg.Centimeter // less the Y axis and margins
	bw := area / vg.Length(len(cases)) * 0.8 / vg.Length(len(peers))
	maxY := 0.0
	for i, peer := range peers {
		vals := make(plotter.Values, len(cases))
		for j, cs := range cases {
			if s, ok := r.Data.Stat(Key{c.Name, cs, peer}, c.Unit); ok && s.Center > 1 {
				vals[j] = math.Log10(s.Center)
				maxY = math.Max(maxY, vals[j])
			}
		}
		bars, err := plotter.NewBarChart(vals, bw)
		if err != nil {
			return false, err
		}
		bars.LineStyle.Width = 0
		bars.Color = palette[r.colorIndex(peer, i)%len(palette)]
		bars.Offset = vg.Length(float64(i)-float64(len(peers)-1)/2) * bw
		p.Add(bars)
		legend.Add(peer, bars)
	}
	p.Y.Max = math.Ceil(maxY)
	height := 10 * vg.Centimeter
	canvas := vgsvg.New(width+legendWidth, height)
	dc := draw.New(canvas)
	p.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(dc, width+0.2*vg.Centimeter, 0, 0, -0.8*vg.Centimeter))
	f, err := os.Create(file)
	if err != nil {
		return false, err
	}
	if _, err := canvas.WriteTo(f); err != nil {
		f.Close()
		return false, err
	}
	return true, f.Close()
}

// logTicks labels a log10 axis with the values it stands for.
type logTicks struct{ bytes bool }

func (t logTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for k := math.Floor(min); k <= max; k++ {
		v := math.Pow(10, k)
		label := FormatTime(v)
		if t.bytes {
			label = FormatBytes(v)
		}
		if v >= 1e3 && !t.bytes {
			label = fmt.Sprintf("%s", FormatTime(v))
		}
		ticks = append(ticks, plot.Tick{Value: k, Label: label})
		for m := 2.0; m < 10; m++ {
			if k+math.Log10(m) <= max {
				ticks = append(ticks, plot.Tick{Value: k + math.Log10(m)})
			}
		}
	}
	return ticks
}

// palette gives vane a strong color and each peer a distinct one.
var palette = []color.Color{
	rgb(0xd6, 0x27, 0x28), // vane
	rgb(0x1f, 0x77, 0xb4),
	rgb(0xff, 0x7f, 0x0e),
	rgb(0x2c, 0xa0, 0x2c),
	rgb(0x94, 0x67, 0xbd),
	rgb(0x8c, 0x56, 0x4b),
	rgb(0xe3, 0x77, 0xc2),
	rgb(0x7f, 0x7f, 0x7f),
	rgb(0xbc, 0xbd, 0x22),
	rgb(0x17, 0xbe, 0xcf),
	rgb(0x39, 0x3b, 0x79),
}

func rgb(r, g, b uint8) color.Color { return color.RGBA{r, g, b, 0xff} }

// colorIndex keeps a peer's color the same in every chart.
func (r *Report) colorIndex(peer string, local int) int {
	for i, p := range r.Meta.Peers {
		if p == peer {
			return i
		}
	}
	return local
}
