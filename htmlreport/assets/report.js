// trajmine report: draws the charts from the JSON blocks and fills the run
// drill-down. Text from logs is only ever set with textContent (never
// innerHTML), and chart tooltips render on the canvas (renderMode richText).
(function () {
  'use strict';

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  var charts = readJSON('trajmine-charts') || [];
  var runs = readJSON('trajmine-runs') || { policies: [], runs: [] };
  var spec = {};
  var inst = {};
  charts.forEach(function (c) { spec[c.id] = c; });

  document.querySelectorAll('[data-chart]').forEach(function (el) {
    var c = spec[el.getAttribute('data-chart')];
    if (!c) { return; }
    var chart = echarts.init(el, null, { renderer: 'canvas' });
    chart.setOption(c.option);
    inst[c.id] = chart;
  });
  window.addEventListener('resize', function () {
    Object.keys(inst).forEach(function (k) { inst[k].resize(); });
  });

  function variant(id, key) {
    var c = spec[id];
    if (!c || !c.variants) { return null; }
    for (var i = 0; i < c.variants.length; i++) {
      if (c.variants[i].key === key) { return c.variants[i].option; }
    }
    return null;
  }

  function showVariant(id, key) {
    var o = variant(id, key);
    if (o && inst[id]) { inst[id].setOption(o, true); }
  }

  // selectors that switch chart variants (and the matching table bodies)
  document.querySelectorAll('select[data-variants]').forEach(function (sel) {
    sel.addEventListener('change', function () {
      sel.getAttribute('data-variants').split(' ').forEach(function (id) { showVariant(id, sel.value); });
      var t = sel.getAttribute('data-tables');
      var table = t ? document.getElementById(t) : null;
      if (table) {
        table.querySelectorAll('tbody[data-group]').forEach(function (tb) {
          tb.hidden = tb.getAttribute('data-group') !== sel.value;
        });
      }
    });
  });

  // --- run drill-down ---------------------------------------------------

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }

  function fmt(n) {
    if (n === null || n === undefined) { return '-'; }
    return Number(n).toLocaleString('en-US');
  }

  function pct(f) { return (100 * f).toFixed(1) + '%'; }

  function fillTable(table, head, rows, textCols) {
    while (table.firstChild) { table.removeChild(table.firstChild); }
    var thead = el('thead');
    var tr = el('tr');
    head.forEach(function (h) { tr.appendChild(el('th', h)); });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el('tbody');
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (v, i) { row.appendChild(el('td', v, textCols && textCols[i] ? 'text' : '')); });
      tbody.appendChild(row);
    });
    table.appendChild(tbody);
  }

  var modes = { p: 'placeholder', t: 'truncated', d: 'dropped', s: 'summarized' };

  function runByKey(key) {
    for (var i = 0; i < runs.runs.length; i++) {
      if (runs.runs[i].key === key) { return runs.runs[i]; }
    }
    return null;
  }

  function renderDrill(key) {
    var r = runByKey(key);
    var facts = document.getElementById('drill-facts');
    if (!r || !facts) { return; }
    while (facts.firstChild) { facts.removeChild(facts.firstChild); }
    [
      ['run', r.run_id],
      ['model', r.model + ' (' + r.family + ')'],
      ['harness / format', r.harness + ' / ' + r.format],
      ['window', r.window > 0 ? fmt(r.window) + ' (' + r.window_source + ')' : 'unknown'],
      ['peak', fmt(r.peak_tokens) + (r.window > 0 ? ' (' + pct(r.peak_share) + ' of the window)' : '')],
      ['end', r.end_reason + ' (' + r.end_source + '): ' + r.end_why],
      ['in the sample as', r.why === 'top' ? 'a top run by peak share' : 'a hashed sample run']
    ].forEach(function (kv) {
      facts.appendChild(el('dt', kv[0]));
      facts.appendChild(el('dd', kv[1]));
    });

    fillTable(document.getElementById('drill-policies'),
      ['policy', 'status', 'overflow call', 'first acted', 'token ratio', 'peak', 're-inv.', 'placeholders (max)', 'chars removed'],
      r.policies.map(function (p) {
        return [p.policy, p.status, p.overflow_call >= 0 ? p.overflow_call : '-', p.first_activation >= 0 ? p.first_activation : '-',
          p.token_ratio.toFixed(3), fmt(p.peak_tokens), p.reinvocations, p.placeholders_max, pct(p.chars_removed_share)];
      }));

    // prompt per call per policy: the occupancy chart's dataset for this run
    var opt = variant('occupancy-run', key);
    var ds = opt && opt.dataset ? opt.dataset : { dimensions: ['call', 'logged'], source: [] };
    var meta = {};
    r.calls.forEach(function (c) { meta[c[0]] = c; });
    var head = ['call', 'source', 'compaction'].concat(ds.dimensions.slice(1));
    fillTable(document.getElementById('drill-calls'), head, ds.source.map(function (row) {
      var m = meta[row[0]];
      var cells = [row[0], m ? (m[2] ? 'estimated' : 'logged') : '-', m && m[3] ? 'yes' : ''];
      return cells.concat(row.slice(1).map(fmt));
    }));

    var pols = runs.policies;
    fillTable(document.getElementById('drill-outputs'),
      ['seq', 'call', 'tool', 'key', 'target', 'tokens', 'chars', 'output (start)', 'what the policies did'],
      r.outputs.map(function (o) {
        var did = [];
        o.actions.forEach(function (a, i) {
          if (a) { did.push(pols[i] + ': ' + (modes[a.charAt(0)] || a.charAt(0)) + ' at call ' + a.slice(1)); }
        });
        return [o.seq, o.turn, o.tool, o.key, o.target, fmt(o.est_tokens), fmt(o.chars), o.preview, did.length ? did.join('; ') : '-'];
      }), [false, false, true, true, true, false, false, true, true]);
  }

  function selectRun(key) {
    document.querySelectorAll('select.run-select').forEach(function (s) { s.value = key; });
    showVariant('occupancy-run', key);
    renderDrill(key);
  }

  document.querySelectorAll('select.run-select').forEach(function (sel) {
    sel.addEventListener('change', function () { selectRun(sel.value); });
  });
  if (runs.runs.length > 0) { renderDrill(runs.runs[0].key); }

  document.documentElement.setAttribute('data-ready', String(Object.keys(inst).length));
})();
