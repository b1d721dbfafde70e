package dashboards_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards/browsertest"
)

// TestBrowserNumberFormats: the page's script formats its figures with
// textfmt's rules (trajmineFmt), so a figure reads the same wherever it is
// shown. Two runs' costs, by hand: $1,234.50 (dollars with thousands
// separators, cents from $1 up) and $0.0456 (four decimals below $1), each
// read in the run list and in the opened run's facts; and a sampled run's
// token ratio under halflife (1 − 0.2 × 2 in the fixture: 0.600) in its
// facts and in the drill-down's policy table.
func TestBrowserNumberFormats(t *testing.T) {
	browsertest.Chromium(t)
	d := fixture(true)
	d.Runs[0].CostUSD = 1234.5
	d.Runs[1].CostUSD = 0.0456
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, []byte(render(t, d)), 0o644); err != nil {
		t.Fatal(err)
	}
	// costOf opens the run whose run-list cost cell starts with prefix and
	// returns "<run list cost> | <facts cost>"
	costOf := func(prefix string) string {
		return `(function () { var rows = document.querySelectorAll('#runs-table tbody tr'), cost = -1;
			document.querySelectorAll('#runs-table thead th').forEach(function (h, i) { if (h.textContent === 'cost') { cost = i; } });
			for (var i = 0; i < rows.length; i++) { var c = rows[i].cells[cost].textContent; if (c.indexOf('` + prefix + `') === 0) { rows[i].click();
				var dt = Array.from(document.querySelectorAll('#drill-facts dt')).find(function (x) { return x.textContent === 'cost'; });
				return c + ' | ' + (dt ? dt.nextElementSibling.textContent : 'no cost fact'); } }
			return 'no run costs ` + prefix + `…'; })()`
	}
	steps := []struct{ js, want string }{
		{costOf("$1,"), "$1,234.50 | $1,234.50"},
		{costOf("$0.0"), "$0.0456 | $0.0456"},
		// a sampled run under halflife: the facts' ratio and the
		// drill-down table's token ratio cell
		{`(function () { var rows = document.querySelectorAll('#runs-table tbody tr'); for (var i = 0; i < rows.length; i++) { if (rows[i].cells[rows[i].cells.length - 1].textContent === 'yes') { rows[i].click(); break; } }
			var p = document.getElementById('timeline-policy'); p.value = 'halflife'; p.dispatchEvent(new Event('change'));
			var dt = Array.from(document.querySelectorAll('#drill-facts dt')).find(function (x) { return x.textContent === 'under halflife'; });
			var fact = dt ? /, ([0-9.]+) × what ran/.exec(dt.nextElementSibling.textContent) : null;
			var t = document.getElementById('drill-policies'), col = Array.from(t.tHead.rows[0].cells).findIndex(function (h) { return h.textContent === 'token ratio'; });
			var row = Array.from(t.tBodies[0].rows).find(function (r) { return r.cells[0].textContent === 'halflife'; });
			return (fact ? fact[1] : 'no fact') + ' | ' + (row ? row.cells[col].textContent : 'no row'); })()`, "0.600 | 0.600"},
	}
	var js []string
	for _, s := range steps {
		js = append(js, s.js)
	}
	r := browsertest.Load(t, file, &browsertest.Options{Steps: js})
	for _, e := range r.Errors {
		t.Errorf("browser error: %s", e)
	}
	for i, s := range steps {
		if i >= len(r.Steps) || r.Steps[i] != s.want {
			got := ""
			if i < len(r.Steps) {
				got = r.Steps[i]
			}
			t.Errorf("step %d = %q, want %q", i, got, s.want)
		}
	}
	if strings.Contains(r.Text, "$1234.50") {
		t.Error("a cost without thousands separators: not textfmt's dollars")
	}
}
