package dashboards_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trajmine/trajmine/dashboards"
	"github.com/trajmine/trajmine/dashboards/browsertest"
)

// procmapCheck is a browser step: for each view of the process map (the
// select's options, chosen in turn), the figure shown (exactly one), its
// edge labels' rendered boxes (none empty, no two intersecting, none over
// a node), and its self-loops drawn (a path of some size) with their
// labels.
const procmapCheck = `(function () {
	var sel = document.querySelector('#process select'), out = [];
	var hit = function (a, b) { return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; };
	Array.from(sel.options).forEach(function (o) {
		sel.value = o.value; sel.dispatchEvent(new Event('change'));
		var figs = Array.from(document.querySelectorAll('#process-map figure')).filter(function (f) { return !f.hidden; });
		if (figs.length !== 1 || figs[0].getAttribute('data-group') !== o.value) { out.push(o.value + ': ' + figs.length + ' figures shown'); return; }
		var f = figs[0];
		var labels = Array.from(f.querySelectorAll('text.pm-elabel')).map(function (t) { return t.getBoundingClientRect(); });
		var boxes = Array.from(f.querySelectorAll('.pm-node rect, .pm-node circle')).map(function (r) { return r.getBoundingClientRect(); });
		var overlaps = 0, onNode = 0, empty = 0;
		labels.forEach(function (a, i) {
			if (a.width < 1 || a.height < 1) { empty++; }
			for (var j = i + 1; j < labels.length; j++) { if (hit(a, labels[j])) { overlaps++; } }
			boxes.forEach(function (b) { if (hit(a, b)) { onNode++; } });
		});
		var loops = Array.from(f.querySelectorAll('g.pm-loop path')).filter(function (p) { var r = p.getBoundingClientRect(); return r.width > 4 && r.height > 4; }).length;
		var loopLabels = Array.from(f.querySelectorAll('text.pm-loop-label')).map(function (t) { return t.lastChild.nodeValue; }).join(',');
		out.push(o.value + ': ' + labels.length + ' labels, ' + overlaps + ' overlapping, ' + onNode + ' on a box, ' + empty + ' empty; ' + loops + ' loops drawn (' + loopLabels + ')');
	});
	sel.value = sel.options[0].value; sel.dispatchEvent(new Event('change'));
	return out.join(' | ');
})()`

// TestBrowserProcessMap loads pages with a process map in headless
// Chromium at 1440 px and checks each view (procmapCheck): the planted map
// (a self-loop, two edges between the same two boxes, medians by hand:
// dashboards.PlantedMap), a busy one (every edge between 8 activities,
// 8 loops) and the synth store's (dashboards.SynthMap); and takes the
// process section's screenshot.
func TestBrowserProcessMap(t *testing.T) {
	browsertest.Chromium(t)
	cases := []struct {
		name string
		pm   *dashboards.ProcessMap
		want string
	}{
		{"planted", dashboards.PlantedMap(),
			"frequency: 7 labels, 0 overlapping, 0 on a box, 0 empty; 1 loops drawn (3) | performance: 4 labels, 0 overlapping, 0 on a box, 0 empty; 1 loops drawn (500 ms)"},
		// busy's default view: 35 transitions (TestProcessMapRules); its
		// loops a → a … h → h: 1 + 10i mod 11 = 1, 11, 10, 9, 8, 7, 6, 5
		{"busy", dashboards.BusyMap(),
			"frequency: 35 labels, 0 overlapping, 0 on a box, 0 empty; 8 loops drawn (1,11,10,9,8,7,6,5) | " +
				"frequency-all: 80 labels, 0 overlapping, 0 on a box, 0 empty; 8 loops drawn (1,11,10,9,8,7,6,5)"},
		// the synth store's map (testdata/procmap/synth-1000-dfg.json, by
		// hand): 57 transitions, 11 from start or to end (no label in the
		// performance views); the default view keeps 31 (the 11, the 5
		// loops, each activity's busiest in and out: 31 ≥ the limit 22);
		// its loops context 21 (4.332 s), edit 796 (7.363 s), read 13,681
		// (3.744 s), search 1,700 (5.022 s), test 1,040 (23.614 s)
		{"synth-1000", dashboards.SynthMap(t),
			"frequency: 31 labels, 0 overlapping, 0 on a box, 0 empty; 5 loops drawn (21,796,13,681,1,700,1,040) | " +
				"performance: 20 labels, 0 overlapping, 0 on a box, 0 empty; 5 loops drawn (4.3 s,7.4 s,3.7 s,5.0 s,23.6 s) | " +
				"frequency-all: 57 labels, 0 overlapping, 0 on a box, 0 empty; 5 loops drawn (21,796,13,681,1,700,1,040) | " +
				"performance-all: 46 labels, 0 overlapping, 0 on a box, 0 empty; 5 loops drawn (4.3 s,7.4 s,3.7 s,5.0 s,23.6 s)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := fixture(true)
			d.ProcessMap = tc.pm
			file := filepath.Join(t.TempDir(), "report.html")
			if err := os.WriteFile(file, []byte(render(t, d)), 0o644); err != nil {
				t.Fatal(err)
			}
			shots := browsertest.ShotDir(t, "procmap-"+tc.name)
			r := browsertest.Load(t, file, &browsertest.Options{ShotDir: shots, Steps: []string{procmapCheck}})
			browsertest.Check(t, file, r, len(dashboards.Charts(d)))
			if len(r.Steps) != 1 || r.Steps[0] != tc.want {
				t.Errorf("process map views:\n got %q\nwant %q", strings.Join(r.Steps, ""), tc.want)
			}
			if r.Sections["process"] == "" {
				t.Error("no screenshot of the process section")
			}
			t.Logf("screenshots in %s", shots)
		})
	}
}
