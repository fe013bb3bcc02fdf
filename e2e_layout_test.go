package main

import (
	"context"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// trendsLayout is how the trends chart of a job page renders: its labels'
// font sizes in CSS pixels, the picture's size and how many SVG texts it
// holds.
type trendsLayout struct {
	Label, Max, LegendText float64
	Height, Width          float64
	SVGTexts               int
}

// checkTrendsLayout fails unless the trends chart's lane labels and legend
// have the page's text sizes (14 px, 12 px for the maxima) and the picture
// is 208 px high at any width, with no text drawn in SVG units (which
// would grow with the width).
func checkTrendsLayout(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	l, err := chromedp.Run(ctx, chromedp.Evaluate[trendsLayout](`(() => {
		const px = (sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize);
		const svg = document.querySelector('#trends-chart [data-testid="trends-svg"]').getBoundingClientRect();
		return {Label: px('[data-testid="trends-labels"] p'), Max: px('[data-testid="trends-labels"] p span'),
			LegendText: px('#trends-chart ul[aria-label="Legend"] li'), Height: svg.height, Width: svg.width,
			SVGTexts: document.querySelectorAll('#trends-chart svg text').length};
	})()`))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if l.Label != 14 || l.Max != 12 || l.LegendText != 14 || l.Height != 208 || l.Width < 150 || l.SVGTexts != 0 {
		t.Errorf("%s: trends chart %+v, want labels 14 px, maxima 12 px, legend 14 px, 208 px high, no SVG text", what, l)
	}
}

// checkInside fails when the element inner reaches past the right edge of
// outer (a table scrolling sideways in its box).
func checkInside(t *testing.T, ctx context.Context, inner, outer, what string) {
	t.Helper()
	past, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.querySelector(`+strconv.Quote(inner)+`).getBoundingClientRect().right -
		document.querySelector(`+strconv.Quote(outer)+`).getBoundingClientRect().right`))
	if err != nil || past > 0.5 {
		t.Errorf("%s: %s reaches %.1f px past %s (%v)", what, inner, past, outer, err)
	}
}
