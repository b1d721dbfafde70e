package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mattn/go-runewidth"

	"github.com/trajmine/trajmine/internal/textfmt"
)

// table is a terminal table: numbers right-aligned, fitted to a width by
// shortening its text columns, an optional totals row under a rule, and
// footer lines that explain its markers. Every command's tables go through
// it, so they read alike.
type table struct {
	header []string
	rows   [][]string
	totals []string // printed under a rule when set
	footer []string // one line each, after the table
	// right marks right-aligned columns; nil: numbers (cells that parse as
	// numbers once marks like "," "%" "~" "*" "?" "$" "×" are set aside)
	// are right-aligned, text left.
	right []bool
	// min is each column's narrowest width when fitting (default: its
	// header's width, at least 6).
	min []int
	// prose is 1 + the index of a column of running text (a rule's
	// description, an event's text; 0: none): it takes the width the
	// others leave, so fitting shortens it first, to its min, before any
	// other text column; --wide (width 0) shows it whole.
	prose int
	// ids is 1 + the index of a column of run ids (0: none): fitting
	// never makes it narrower than the width at which its cells, cut in
	// the middle (textfmt.CutMiddle), stay distinct (textfmt.UniqueWidth),
	// so that a session and its sub-agents never print alike.
	ids int
	// noHeader leaves the header line out (the lines before the table
	// name its columns).
	noHeader bool
	// indent starts every line but the footer's (counted in the width).
	indent string
	// key marks the columns (indices) that fitting keeps whole, or at
	// least keyWidth wide: the column that names each row.
	key []int
	// optional are columns (indices) that may be left out, the first
	// first: at a width, the table leaves them out one by one only while
	// it cannot otherwise fit with its key columns whole, and a footer
	// line names them (leaveOut).
	optional []int
	// optionalHint ends the "left out" footer line (default: "widen the
	// terminal").
	optionalHint string
}

// keyWidth is how narrow fitting may make a key column whose natural
// width is wider.
const keyWidth = 24

// gap is the space between columns.
const gap = 2

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// isNumber reports whether s reads as a number: digits with separators,
// signs, a decimal point, and the markers our tables put beside numbers.
func isNumber(s string) bool {
	s = strings.TrimSpace(s)
	if strings.Trim(s, "-~*?^") == "" {
		return true // blank, "-" and bare markers fit either alignment
	}
	digits := false
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case strings.ContainsRune(",.%~*?^$×x+-−[] ", r):
		default:
			return false
		}
	}
	return digits
}

// widths is each column's natural width.
func (t *table) widths() []int {
	w := make([]int, len(t.header))
	lines := append([][]string{t.header}, t.rows...)
	if t.noHeader {
		lines = lines[1:]
	}
	for _, r := range append(lines, t.totals) {
		for i, c := range r {
			if i < len(w) {
				w[i] = max(w[i], runewidth.StringWidth(c))
			}
		}
	}
	return w
}

// alignment is whether each column is right-aligned.
func (t *table) alignment() []bool {
	if t.right != nil {
		return t.right
	}
	right := make([]bool, len(t.header))
	for i := range right {
		right[i] = true
		any := false
		for _, r := range t.rows {
			if i < len(r) {
				if !isNumber(r[i]) {
					right[i] = false
					break
				}
				any = any || strings.TrimSpace(r[i]) != "" && r[i] != "-"
			}
		}
		right[i] = right[i] && any
	}
	return right
}

// fit shrinks the text (left-aligned) columns, widest first, until the
// table is at most width wide or every text column is at its minimum;
// numbers are never cut. width ≤ 0 means no limit.
func (t *table) fit(w []int, right []bool, width int) {
	if width <= 0 {
		return
	}
	total := func() int {
		n := 0
		for _, x := range w {
			n += x
		}
		return n + gap*(len(w)-1)
	}
	minOf := func(i int) int {
		if t.min != nil && i < len(t.min) && t.min[i] > 0 {
			return t.min[i]
		}
		return max(6, runewidth.StringWidth(t.header[i]))
	}
	// the prose column first, down to its min
	if p := t.prose - 1; p >= 0 && p < len(w) && !right[p] {
		w[p] = max(min(w[p], w[p]-(total()-width)), min(w[p], minOf(p)))
	}
	// then one column at a time, the widest first, so that the text columns
	// shrink alike (a water level) rather than one of them to nothing
	for over := total() - width; over > 0; over-- {
		widest := -1
		for i := range w {
			if !right[i] && w[i] > minOf(i) && (widest < 0 || w[i] > w[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return
		}
		w[widest]--
	}
}

// write prints the table fitted to width (≤ 0: natural widths); bold makes
// the header bold (a terminal that wants it: see styled).
func (t *table) write(out io.Writer, width int, bold bool) error {
	t = t.uniqueIDs().leaveOut(width)
	w := t.widths()
	right := t.alignment()
	fitTo := width
	if width > 0 {
		fitTo = max(width-runewidth.StringWidth(t.indent), 1)
	}
	t.fit(w, right, fitTo)
	var b strings.Builder
	line := func(cells []string, header bool) {
		var l strings.Builder
		for i := range w {
			c := ""
			if i < len(cells) {
				c = termSafe(cells[i]) // the table writes past the safe writer (its bold is ours)
			}
			if runewidth.StringWidth(c) > w[i] {
				if i == t.ids-1 {
					c = textfmt.CutMiddle(c, w[i])
				} else {
					c = runewidth.Truncate(c, w[i], "…")
				}
			}
			pad := strings.Repeat(" ", w[i]-runewidth.StringWidth(c))
			if i > 0 {
				l.WriteString(strings.Repeat(" ", gap))
			}
			if right[i] {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		s := t.indent + strings.TrimRight(l.String(), " ")
		if header && bold {
			s = "\x1b[1m" + s + "\x1b[0m"
		}
		b.WriteString(s + "\n")
	}
	if !t.noHeader {
		line(t.header, true)
	}
	for _, r := range t.rows {
		line(r, false)
	}
	if t.totals != nil {
		n := 0
		for _, x := range w {
			n += x
		}
		b.WriteString(t.indent + strings.Repeat("─", n+gap*(len(w)-1)) + "\n")
		line(t.totals, false)
	}
	for _, f := range t.footer {
		for _, l := range wrap(termSafe(f), width) {
			b.WriteString(l + "\n")
		}
	}
	_, err := io.WriteString(rawWriter(out), b.String())
	return err
}

// cuts reports whether write(…, width, …) would shorten a cell: the
// table is wider than width (less its indent) at its natural widths and
// has a text column to shorten.
func (t *table) cuts(width int) bool {
	if width <= 0 {
		return false
	}
	t = t.uniqueIDs().leaveOut(width)
	w := t.widths()
	nat := slices.Clone(w)
	t.fit(w, t.alignment(), max(width-runewidth.StringWidth(t.indent), 1))
	return !slices.Equal(w, nat)
}

// allZero reports whether every cell of column i is zero, blank or "-"
// (a table whose figures are all zero says so in a line instead).
func (t *table) allZero(i int) bool {
	for _, r := range t.rows {
		if i < len(r) {
			if c := strings.Trim(strings.TrimSpace(r[i]), "~*?%"); c != "" && c != "-" && strings.Trim(c, "0.,") != "" {
				return false
			}
		}
	}
	return true
}

// wrap breaks s at spaces into lines at most width wide (≤ 0: one line); a
// word longer than width stands alone.
func wrap(s string, width int) []string {
	if width <= 0 || runewidth.StringWidth(s) <= width {
		return []string{s}
	}
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case runewidth.StringWidth(line)+1+runewidth.StringWidth(word) <= width:
			line += " " + word
		default:
			out = append(out, line)
			line = word
		}
	}
	return append(out, line)
}

// collapse removes the columns among cols whose every cell is zero, blank
// or "-" (allZero) and returns their headers, for a footer that says so:
// a column of zeros says nothing a line cannot.
func (t *table) collapse(cols ...int) []string {
	drop := map[int]bool{}
	var names []string
	for _, c := range cols {
		if c < len(t.header) && len(t.rows) > 0 && t.allZero(c) {
			drop[c] = true
			names = append(names, t.header[c])
		}
	}
	t.drop(drop)
	return names
}

// dropColumn removes column c (a footer says what it held).
func (t *table) dropColumn(c int) { t.drop(map[int]bool{c: true}) }

// drop removes the columns in drop from every row, the header, the totals
// and the per-column settings.
func (t *table) drop(drop map[int]bool) {
	if len(drop) == 0 {
		return
	}
	t.prose, t.ids = shifted(t.prose, drop), shifted(t.ids, drop)
	t.header, t.totals = keepColumns(t.header, drop), keepColumns(t.totals, drop)
	for i, r := range t.rows {
		t.rows[i] = keepColumns(r, drop)
	}
	t.right, t.min = keepColumns(t.right, drop), keepColumns(t.min, drop)
}

// shifted is a 1-based column setting (prose, ids) once the columns in
// drop are gone: 0 when its column is.
func shifted(col int, drop map[int]bool) int {
	p := col - 1
	if p < 0 || drop[p] {
		return 0
	}
	for c := range drop {
		if c < p {
			col--
		}
	}
	return col
}

// uniqueIDs is t with its run-id column's min raised to the width at
// which its cells stay distinct (t itself when it has none).
func (t *table) uniqueIDs() *table {
	i := t.ids - 1
	if i < 0 || i >= len(t.header) {
		return t
	}
	c := t.clone()
	c.key, c.optional = t.key, t.optional
	cells := make([]string, 0, len(t.rows))
	for _, r := range t.rows {
		if i < len(r) {
			cells = append(cells, termSafe(r[i]))
		}
	}
	lo := max(6, runewidth.StringWidth(t.header[i]))
	if i < len(t.min) && t.min[i] > 0 {
		lo = t.min[i]
	}
	if c.min == nil {
		c.min = make([]int, len(t.header))
	}
	for len(c.min) < len(t.header) {
		c.min = append(c.min, 0)
	}
	c.min[i] = textfmt.UniqueWidth(cells, lo)
	return c
}

// keepColumns returns the entries of s, one per column, whose column is
// not in drop; nil stays nil.
func keepColumns[T any](s []T, drop map[int]bool) []T {
	if s == nil {
		return nil
	}
	out := make([]T, 0, len(s))
	for i, x := range s {
		if !drop[i] {
			out = append(out, x)
		}
	}
	return out
}

// leaveOut is t as write prints it at width: its key columns' mins raised
// to keep them whole (or keyWidth wide), and its optional columns left out,
// the first first, only while the table cannot otherwise fit; a footer
// line names those left out. t itself is not changed.
func (t *table) leaveOut(width int) *table {
	if width <= 0 || len(t.key) == 0 && len(t.optional) == 0 {
		return t
	}
	nat := t.widths()
	mins := make([]int, len(t.header))
	for i := range mins {
		if t.min != nil && i < len(t.min) && t.min[i] > 0 {
			mins[i] = t.min[i]
		} else {
			mins[i] = max(6, runewidth.StringWidth(t.header[i]))
		}
	}
	for _, k := range t.key {
		if k < len(mins) {
			mins[k] = max(mins[k], min(nat[k], keyWidth))
		}
	}
	fitTo := max(width-runewidth.StringWidth(t.indent), 1)
	var left []string
	gone := map[int]bool{}
	for n := 0; ; n++ {
		c := t.clone()
		c.min = slices.Clone(mins)
		c.drop(gone)
		w := c.widths()
		c.fit(w, c.alignment(), fitTo)
		total := gap * (len(w) - 1)
		for _, x := range w {
			total += x
		}
		if total <= fitTo || n == len(t.optional) {
			if len(left) > 0 {
				hint := t.optionalHint
				if hint == "" {
					hint = "widen the terminal"
				}
				c.footer = append(slices.Clone(c.footer), fmt.Sprintf("left out at %d columns: %s (%s)", width, strings.Join(left, ", "), hint))
			}
			return c
		}
		if o := t.optional[n]; o < len(t.header) && !gone[o] {
			gone[o] = true
			left = append(left, t.header[o])
		}
	}
}

// clone is a copy of t whose slices drop may change.
func (t *table) clone() *table {
	c := *t
	c.header, c.totals, c.footer = slices.Clone(t.header), slices.Clone(t.totals), slices.Clone(t.footer)
	c.rows = make([][]string, len(t.rows))
	for i, r := range t.rows {
		c.rows[i] = slices.Clone(r)
	}
	c.right, c.min = slices.Clone(t.right), slices.Clone(t.min)
	c.key, c.optional = nil, nil
	return &c
}

// columns is the indices of the columns headed names, in that order
// (names no column has are skipped).
func (t *table) columns(names ...string) []int {
	var out []int
	for _, n := range names {
		if i := slices.Index(t.header, n); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// printWrapped prints each paragraph on its own lines, wrapped to width
// (≤ 0: one line each).
func printWrapped(w io.Writer, width int, paragraphs ...string) {
	for _, p := range paragraphs {
		for _, l := range wrap(p, width) {
			fmt.Fprintln(w, l)
		}
	}
}

// printIndented prints s wrapped to width (≤ 0: one line), its first line
// after first, the rest after rest (both counted in the width).
func printIndented(w io.Writer, width int, first, rest, s string) {
	inner := 0
	if width > 0 {
		inner = max(width-max(runewidth.StringWidth(first), runewidth.StringWidth(rest)), 1)
	}
	for i, l := range wrap(s, inner) {
		if i == 0 {
			fmt.Fprintln(w, first+l)
		} else {
			fmt.Fprintln(w, rest+l)
		}
	}
}

// printFitted prints text's lines fitted to width (≤ 0: as they are): a
// line too wide is wrapped at spaces, its continuation lines indented two
// more than its own indent, and a word still too wide is cut with "…".
func printFitted(w io.Writer, width int, text string) {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return
	}
	for _, l := range strings.Split(text, "\n") {
		if width <= 0 || runewidth.StringWidth(l) <= width {
			fmt.Fprintln(w, l)
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		var b strings.Builder
		printIndented(&b, width, lead, lead+"  ", strings.TrimLeft(l, " "))
		for _, x := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if runewidth.StringWidth(x) > width {
				x = runewidth.Truncate(x, width, "…")
			}
			fmt.Fprintln(w, x)
		}
	}
}
