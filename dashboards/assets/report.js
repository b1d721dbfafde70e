// trajmine report: draws the charts from the JSON blocks, makes every table
// sortable and filterable, lists every run (decoded from the compressed
// run records) and draws the chosen run's timeline. Text from logs is only
// ever set with textContent (never innerHTML), and chart tooltips render on
// the canvas (renderMode richText). Every figure it writes is formatted by
// trajmineFmt (internal/textfmt's rules, inlined before this script), so
// that a figure reads as the terminal and the page's tables print it.
(function () {
  'use strict';

  function readJSON(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  var charts = readJSON('trajmine-charts') || [];
  var runs = readJSON('trajmine-runs') || { policies: [], runs: [], recommended: {}, all: '', all_runs: 0 };
  var spec = {};
  var inst = {};
  var shown = {}; // chart id -> the variant key shown
  var pending = 0; // asynchronous work before the page is ready
  charts.forEach(function (c) { spec[c.id] = c; });

  var loaded = false;

  function ready() {
    if (loaded && pending === 0) {
      document.documentElement.setAttribute('data-ready', String(Object.keys(inst).length));
    }
  }

  // --- charts -------------------------------------------------------------

  var onInit = {}; // chart id -> function(chart) run once it exists

  function initChart(el) {
    var id = el.getAttribute('data-chart');
    var c = spec[id];
    if (!c || inst[id]) { return; }
    var chart = echarts.init(el, null, { renderer: 'canvas' });
    var o = shown[id] ? variant(id, shown[id]) : null;
    chart.setOption(o || c.option);
    inst[id] = chart;
    if (onInit[id]) { onInit[id](chart); }
    ready();
  }

  // charts inside a closed <details> have no size yet: draw them when opened
  document.querySelectorAll('[data-chart]').forEach(function (el) {
    var d = el.closest('details');
    if (d && !d.open) {
      d.addEventListener('toggle', function () {
        if (d.open) { d.querySelectorAll('[data-chart]').forEach(initChart); }
      });
      return;
    }
    initChart(el);
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
    shown[id] = key;
    var o = variant(id, key);
    if (o && inst[id]) { inst[id].setOption(o, true); }
  }

  function onChart(id, f) {
    if (inst[id]) { f(inst[id]); }
    onInit[id] = f;
  }

  // selectors that switch chart variants (and the matching table bodies)
  document.querySelectorAll('select[data-variants]').forEach(function (sel) {
    sel.addEventListener('change', function () {
      sel.getAttribute('data-variants').split(' ').forEach(function (id) { showVariant(id, sel.value); });
      var t = sel.getAttribute('data-tables');
      var table = t ? document.getElementById(t) : null;
      if (table) {
        table.querySelectorAll('tbody[data-group], figure[data-group]').forEach(function (tb) {
          tb.hidden = tb.getAttribute('data-group') !== sel.value;
        });
      }
    });
  });

  // --- helpers ------------------------------------------------------------

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }

  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } }

  var F = trajmineFmt;

  // fmt is a count with thousands separators (textfmt.Thousands); "-" for
  // none
  function fmt(n) {
    if (n === null || n === undefined) { return '-'; }
    return F.count(Number(n));
  }

  var pct = F.pct; // textfmt.Pct: 12.5%
  var ratio = F.ratio; // textfmt.Ratio: 0.900
  // usd is a cost (textfmt.Dollars): cents from $1 up, four decimals below
  // (a cheap run is not $0.00)
  var usd = F.dollars;

  // columns splits a dataset whose first row names the columns (the
  // sampled-run chart's): {dims, rows}
  function columnsOf(ds) {
    var src = ds && ds.source ? ds.source : [];
    return { dims: src.length ? src[0] : ['call', 'logged'], rows: src.slice(1) };
  }

  // --- sortable, filterable tables ----------------------------------------

  // sortKey reads a cell as a number when it starts like one (1,234; 12.5%;
  // $0.40; call 9), else as text
  function sortKey(text) {
    var t = text.trim();
    if (t === '-' || t === '') { return { n: -Infinity }; }
    var m = t.replace(/,/g, '').match(/^(?:call\s+|\$)?(-?\d+(?:\.\d+)?)/);
    return m ? { n: parseFloat(m[1]) } : { s: t.toLowerCase() };
  }

  function compareKeys(a, b) {
    if (a.n !== undefined && b.n !== undefined) { return a.n - b.n; }
    if (a.n !== undefined) { return -1; }
    if (b.n !== undefined) { return 1; }
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }

  // enhance adds a filter box before a static table and sorts it by a
  // clicked header (again: the other way)
  function enhance(table) {
    if (table.getAttribute('data-enhanced')) { return; }
    table.setAttribute('data-enhanced', '1');
    var box = el('input', null, 'filter');
    box.type = 'search';
    box.placeholder = 'filter rows…';
    box.setAttribute('aria-label', 'filter rows');
    table.parentNode.insertBefore(box, table);
    box.addEventListener('input', function () {
      var q = box.value.toLowerCase();
      table.querySelectorAll('tbody tr').forEach(function (tr) {
        tr.hidden = q !== '' && tr.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
    table.querySelectorAll('thead th').forEach(function (th, col) {
      th.classList.add('sortable');
      // a header naming a glossary term keeps its definition as the tooltip
      th.title = th.title ? th.title + ' (click to sort)' : 'sort';
      th.addEventListener('click', function (e) {
        if (e.target.closest && e.target.closest('a')) { return; } // the "?" goes to the glossary
        var dir = th.classList.contains('asc') ? -1 : 1;
        table.querySelectorAll('thead th').forEach(function (h) { h.classList.remove('asc', 'desc'); });
        th.classList.add(dir > 0 ? 'asc' : 'desc');
        table.querySelectorAll('tbody').forEach(function (tb) {
          var rows = Array.prototype.slice.call(tb.rows);
          var keys = rows.map(function (r) { return sortKey(r.cells[col] ? r.cells[col].textContent : ''); });
          var idx = rows.map(function (r, i) { return i; });
          idx.sort(function (a, b) { return dir * compareKeys(keys[a], keys[b]) || a - b; });
          idx.forEach(function (i) { tb.appendChild(rows[i]); });
        });
      });
    });
  }

  document.querySelectorAll('main table').forEach(function (t) {
    if (t.id !== 'runs-table' && t.id !== 'search-results') { enhance(t); }
  });

  // --- every run: compact records ------------------------------------------

  var all = null; // decoded allRunsJSON
  // ids, when set, are the runs a server filter or search kept (trajmine
  // serve: conversation.js), idsLabel says which
  var list = { q: '', family: '', end: '', share: -1, outcome: '', page: 0, sort: 'share', dir: -1, rows: [], ids: null, idsLabel: '' };
  var PAGE = 50;

  function decodeRuns(b64) {
    var bin = atob(b64);
    var u = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { u[i] = bin.charCodeAt(i); }
    var ds = new Blob([u]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(ds).text().then(JSON.parse);
  }

  function rec(i) {
    var d = all.dict;
    return {
      i: i, id: all.id[i], model: d[all.model[i]], family: d[all.family[i]], format: d[all.format[i]],
      end: d[all.end[i]], endSrc: d[all.end_src[i]], window: all.window[i], peak: all.peak[i],
      share: all.share[i] / 10000, calls: all.calls[i], est: all.est[i], sample: all.sample[i], comp: all.comp[i],
      cost: all.cost[i] < 0 ? -1 : all.cost[i] / 10000, rec: recRatio(i)
    };
  }

  // outcome is run i's sim_runs row under policy name: status, overflow
  // call, token ratio; null when not simulated
  function outcome(i, name) {
    var k = policyIndex(name), p = all.pol[i];
    if (k < 0 || !p || p.length < 4 * (k + 1)) { return null; }
    return { status: all.dict[p[4 * k]], overflow: p[4 * k + 1], ratio: p[4 * k + 2] / 1000, saved: (p[4 * k + 3] & 1) !== 0, lost: (p[4 * k + 3] & 2) !== 0 };
  }

  // recRatio is run i's token ratio under its family's recommended policy
  function recRatio(i) {
    var o = outcome(i, runs.recommended[all.dict[all.family[i]]] || '');
    return o ? o.ratio : -1;
  }

  function points(i) {
    var f = all.points[i], out = [], t = 0, p = 0;
    for (var k = 0; k + 1 < f.length; k += 2) {
      t += f[k]; p += f[k + 1];
      out.push([t, p]);
    }
    return out;
  }

  // replays is run i's prompt per logged call under each of all.tl
  // (allRunsJSON.Rep decoded): name → [[call, prompt], …]; {} when the run
  // was not simulated
  function replays(i) {
    var out = {}, rep = all.rep ? all.rep[i] : null, first = [];
    if (!rep) { return out; }
    rep.forEach(function (d, k) {
      var xs = [], v = 0;
      for (var j = 0; j < d.length; j++) {
        v += d[j];
        xs.push(k > 0 && j < first.length ? v + first[j] : v);
      }
      if (k === 0) { first = xs; }
      // -1: a logged call this policy's replay did not send (a dropped
      // manage_context-only call): a gap in its line
      out[all.tl[k]] = xs.map(function (p, j) { return [j, p < 0 ? null : p]; });
    });
    return out;
  }

  var columns = [
    ['run', 'id'], ['model', 'model'], ['family', 'family'], ['format', 'format'], ['calls', 'calls'],
    ['peak tokens', 'peak'], ['peak share', 'share'], ['window', 'window'], ['end', 'end'], ['end source', 'endSrc'], ['cost', 'cost'],
    ['× what ran, recommended policy', 'rec'], ['sampled', 'sample']
  ];

  // shareBin is the peak-share chart's bin of a run: 10 % bins by integer
  // percent, the last one ≥ 100 %
  function shareBin(r) {
    return Math.min(Math.floor(Math.floor(all.share[r.i] / 100 + 1e-9) / 10), 10);
  }

  // hasOutcome: run i under the timeline's policy was saved from overflow
  // (lost under what ran, the policy gets through), lost (the reverse) or
  // overflows, as simulate's SAVED and LOST count them
  function hasOutcome(i, kind) {
    var p = outcome(i, policySel ? policySel.value : '');
    if (!p) { return false; }
    return kind === 'saved' ? p.saved : kind === 'lost' ? p.lost : p.status === 'overflow';
  }

  function matches(r) {
    if (list.ids && !list.ids[r.id]) { return false; }
    if (list.family && r.family !== list.family) { return false; }
    if (list.end && r.end !== list.end) { return false; }
    if (list.share >= 0 && !(r.window > 0 && shareBin(r) === Math.round(list.share * 10))) { return false; }
    if (list.outcome && !hasOutcome(r.i, list.outcome)) { return false; }
    if (list.q) {
      var s = (r.id + ' ' + r.model + ' ' + r.family + ' ' + r.format + ' ' + r.end).toLowerCase();
      if (s.indexOf(list.q) < 0) { return false; }
    }
    return true;
  }

  function refreshList() {
    if (!all) { return; }
    var rows = [];
    for (var i = 0; i < all.id.length; i++) {
      var r = rec(i);
      if (matches(r)) { rows.push(r); }
    }
    var k = list.sort, dir = list.dir;
    rows.sort(function (a, b) {
      var x = a[k], y = b[k];
      if (k === 'share') { x = a.window > 0 ? x : -1; y = b.window > 0 ? y : -1; }
      return dir * (x < y ? -1 : x > y ? 1 : 0) || a.i - b.i;
    });
    list.rows = rows;
    list.page = Math.min(list.page, Math.max(0, Math.ceil(rows.length / PAGE) - 1));
    renderList();
  }

  function renderList() {
    var table = document.getElementById('runs-table');
    if (!table) { return; }
    clear(table);
    var thead = el('thead'), tr = el('tr');
    columns.forEach(function (c) {
      var th = el('th', c[0], 'sortable' + (list.sort === c[1] ? (list.dir > 0 ? ' asc' : ' desc') : ''));
      th.title = 'sort';
      th.addEventListener('click', function () {
        list.dir = list.sort === c[1] ? -list.dir : 1;
        list.sort = c[1];
        refreshList();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    table.appendChild(thead);
    var tbody = el('tbody');
    var from = list.page * PAGE;
    list.rows.slice(from, from + PAGE).forEach(function (r) {
      var row = el('tr', null, r.i === openIndex ? 'open' : '');
      [r.id, r.model, r.family, r.format, fmt(r.calls), fmt(r.peak), r.window > 0 ? pct(r.share) : '-',
        r.window > 0 ? fmt(r.window) : 'unknown', r.end, r.endSrc, r.cost >= 0 ? usd(r.cost) : '-',
        r.rec >= 0 ? ratio(r.rec) : '-', r.sample >= 0 ? 'yes' : ''].forEach(function (v, c) {
        row.appendChild(el('td', v, c < 4 || c === 8 ? 'text' : ''));
      });
      row.addEventListener('click', function () { openRun(r.i, 'nearest'); });
      tbody.appendChild(row);
    });
    if (list.rows.length === 0) {
      var none = el('tr'), td = el('td', 'no run matches');
      td.colSpan = columns.length;
      none.appendChild(td);
      tbody.appendChild(none);
    }
    table.appendChild(tbody);
    var pager = document.getElementById('runs-pager');
    clear(pager);
    var prev = el('button', '‹ previous'), next = el('button', 'next ›');
    prev.type = next.type = 'button';
    prev.disabled = list.page === 0;
    next.disabled = from + PAGE >= list.rows.length;
    prev.addEventListener('click', function () { list.page--; renderList(); });
    next.addEventListener('click', function () { list.page++; renderList(); });
    pager.appendChild(prev);
    pager.appendChild(el('span', list.rows.length ? 'runs ' + fmt(from + 1) + '–' + fmt(Math.min(from + PAGE, list.rows.length)) + ' of ' + fmt(list.rows.length) +
      (list.rows.length < all.id.length ? ' (filtered from ' + fmt(all.id.length) + (list.ids ? '; ' + list.idsLabel : '') + ')' : '') : 'no runs' + (list.ids ? ' (' + list.idsLabel + ')' : ''), 'note'));
    pager.appendChild(next);
  }

  var tools = {};

  function buildTools() {
    var box = document.getElementById('runs-tools');
    if (!box || !all) { return; }
    var q = el('input', null, 'filter');
    q.type = 'search';
    q.placeholder = 'filter runs: id, model, format, end…';
    q.setAttribute('aria-label', 'filter runs');
    q.addEventListener('input', function () { list.q = q.value.toLowerCase(); list.page = 0; refreshList(); });
    box.appendChild(q);
    function facet(label, key, values, names) {
      var s = el('select');
      s.setAttribute('aria-label', label);
      s.appendChild(new Option(label + ': any', ''));
      values.forEach(function (v, i) { s.appendChild(new Option(names ? names[i] : v, String(v))); });
      s.addEventListener('change', function () {
        list[key] = key === 'share' ? (s.value === '' ? -1 : parseFloat(s.value)) : s.value;
        list.page = 0;
        refreshList();
      });
      box.appendChild(s);
      tools[key] = s;
    }
    var fams = {}, ends = {};
    for (var i = 0; i < all.id.length; i++) { fams[all.dict[all.family[i]]] = 1; ends[all.dict[all.end[i]]] = 1; }
    facet('family', 'family', Object.keys(fams).sort());
    facet('end', 'end', Object.keys(ends).sort());
    var bins = [], names = [];
    for (var b = 0; b < 10; b++) { bins.push(b / 10); names.push('peak ' + (10 * b) + '–' + (10 * b + 10) + '%'); }
    bins.push(1); names.push('peak ≥ 100%');
    facet('peak share', 'share', bins, names);
    facet('under the timeline policy', 'outcome', ['saved', 'lost', 'overflow'], ['saved from overflow', 'lost (overflows where what ran fits)', 'overflows']);
  }

  function setFacet(key, value) {
    if (!all) { return; }
    list[key] = value;
    if (tools[key]) { tools[key].value = key === 'share' ? (value < 0 ? '' : String(value)) : value; }
    list.page = 0;
    refreshList();
    var t = document.getElementById('drilldown');
    if (t) { t.scrollIntoView(); }
  }

  // --- the run timeline ---------------------------------------------------

  var openIndex = -1;

  function sampleOf(r) { return r.sample >= 0 ? runs.runs[r.sample] : null; }

  function policyIndex(name) { return runs.policies.indexOf(name); }

  function defaultPolicy(family) {
    var p = runs.recommended[family];
    if (p && policyIndex(p) >= 0) { return p; }
    return runs.policies.length > 1 ? runs.policies[1] : runs.policies[0] || '';
  }

  function timelineOption(r, policy) {
    var s = sampleOf(r);
    var logged = s ? s.calls.map(function (c) { return [c[0], c[1]]; }) : points(r.i);
    var one = logged.length < 2;
    var marks = [];
    (s ? s.calls.filter(function (c) { return c[3]; }).map(function (c) { return c[0]; }) : r.comp).forEach(function (t) {
      marks.push({ name: 'compaction', xAxis: t, label: { formatter: 'compaction', position: 'insideEndTop' }, lineStyle: { color: '#59a14f', type: 'dashed' } });
    });
    if (r.end === 'context_overflow' && logged.length) {
      marks.push({ name: 'overflow (logged)', xAxis: logged[logged.length - 1][0], label: { formatter: 'overflow (logged)', position: 'insideEndBottom' }, lineStyle: { color: '#c00', width: 2 } });
    }
    if (r.window > 0) {
      marks.push({ name: 'window', yAxis: r.window, label: { formatter: 'window ' + fmt(r.window), position: 'insideEndTop' }, lineStyle: { color: '#c00', type: 'dashed' } });
    }
    // logged is drawn first and widest, half transparent; every replay is
    // drawn over it, narrower (dashed when it is the chosen policy's), so
    // that a replay equal to the log (as-logged's, keep-all's) shows on it
    // instead of hiding under it
    var series = [{
      name: 'logged', type: 'line', data: logged, showSymbol: one, symbolSize: 7,
      lineStyle: { width: 5, color: '#1f3b5b', opacity: 0.45 }, itemStyle: { color: '#1f3b5b' },
      markLine: { silent: true, symbol: ['none', 'none'], data: marks }
    }];
    var note = '';
    if (s) {
      var k = -1;
      for (var j = 0; j < s.policies.length; j++) { if (s.policies[j].policy === policy) { k = j; } }
      var opt = variant('occupancy-run', 'r' + r.sample);
      if (k >= 0 && opt && opt.dataset) {
        var ds = columnsOf(opt.dataset), col = ds.dims.indexOf(policy);
        var pdata = ds.rows.filter(function (row) { return row[col] !== null && row[col] !== undefined; }).map(function (row) { return [row[0], row[col]]; });
        var pm = [];
        var p = s.policies[k];
        if (p.overflow_call >= 0) {
          pm.push({ name: 'overflow (' + policy + ')', xAxis: p.overflow_call, label: { formatter: 'overflow (' + policy + ')', position: 'insideEndBottom' }, lineStyle: { color: '#e15759', width: 2 } });
        }
        if (p.first_activation >= 0) {
          pm.push({ name: 'first acted', xAxis: p.first_activation, label: { formatter: policy + ' first acts', position: 'insideEndTop' }, lineStyle: { color: '#f28e2b', type: 'dotted' } });
        }
        series.push({ name: policy + ' (replay)', type: 'line', data: pdata, showSymbol: pdata.length < 2, symbolSize: 7,
          lineStyle: { width: 2, color: '#f28e2b', type: 'dashed' }, itemStyle: { color: '#f28e2b' },
          markLine: { silent: true, symbol: ['none', 'none'], data: pm } });
      }
      var per = {};
      s.outputs.forEach(function (o) { per[o.call] = (per[o.call] || 0) + o.est_tokens; });
      var bars = Object.keys(per).map(function (t) { return [Number(t), per[t]]; });
      if (bars.length) {
        series.push({ name: 'tool outputs (est. tokens)', type: 'bar', yAxisIndex: 1, data: bars, barMaxWidth: 10, itemStyle: { color: '#b07aa1', opacity: 0.7 } });
      }
      note = 'A sampled run: the policy line is its replay (sim_calls), the bars its tool outputs by call.';
    } else {
      var out = outcome(r.i, policy);
      if (out && out.overflow >= 0) {
        marks.push({ name: 'overflow (' + policy + ')', xAxis: out.overflow, label: { formatter: 'overflow (' + policy + ')', position: 'insideEndBottom' }, lineStyle: { color: '#e15759', width: 2 } });
      }
      // the replays every run carries: as-logged and keep-all as references,
      // the chosen policy when it is one of them (all.tl)
      var rp = replays(r.i), drawn = [];
      [[policy, '#f28e2b', 'dashed', 2.5], ['as-logged', '#4e79a7', 'solid', 1.5], ['keep-all', '#999', 'dotted', 1.5]].forEach(function (x) {
        var pts = rp[x[0]];
        if (!pts || drawn.indexOf(x[0]) >= 0) { return; }
        drawn.push(x[0]);
        series.push({ name: x[0] + ' (replay)', type: 'line', data: pts, showSymbol: pts.length < 2, symbolSize: 7,
          lineStyle: { width: x[3], color: x[1], type: x[2] }, itemStyle: { color: x[1] } });
      });
      var stored = all.tl.filter(function (n) { return rp[n]; });
      note = (out ? 'Under ' + policy + ': ' + out.status + (out.overflow >= 0 ? ' at call ' + out.overflow : '') + ', ' + ratio(out.ratio) + ' × what ran\'s tokens (sim_runs.as_logged_ratio). ' : '') +
        'Not in the sample: its logged prompts' + (r.calls > all.points_max ? ' (downsampled to ' + all.points_max + ' of ' + fmt(r.calls) + ' calls, keeping each slice\'s largest prompt)' : '') +
        ', compactions and overflow' + (stored.length ? ', and its replay call by call (sim_calls) under ' + stored.join(', ') + (rp[policy] ? '' : ' (' + policy + '\'s is kept for the ' + runs.runs.length + ' sampled runs only)') : '') + '.';
    }
    var names = series.map(function (x) { return x.name; });
    var ymax = r.window > 0 && r.window >= r.peak ? r.window : null;
    return {
      option: {
        animation: false,
        title: { text: r.id.length > 90 ? r.id.slice(0, 89) + '…' : r.id, subtext: r.model + ' · ' + r.format + ' · window ' + (r.window > 0 ? fmt(r.window) : 'unknown') + ' · ' + r.end + ' (' + r.endSrc + ')', left: 'center' },
        tooltip: { trigger: 'axis', renderMode: 'richText', confine: true },
        legend: { top: 58, data: names },
        grid: { left: '3%', right: '4%', top: 100, bottom: 60, containLabel: true },
        xAxis: { type: 'value', name: 'model call', nameLocation: 'middle', nameGap: 28, min: 0 },
        yAxis: [{ type: 'value', name: 'prompt tokens', min: 0, max: ymax }, { type: 'value', name: 'tool output tokens', min: 0, splitLine: { show: false } }],
        dataZoom: [{ type: 'inside', xAxisIndex: 0 }, { type: 'slider', xAxisIndex: 0, height: 18, bottom: 8 }],
        color: ['#1f3b5b', '#f28e2b', '#b07aa1'],
        textStyle: { fontFamily: 'sans-serif' },
        series: series
      },
      note: note
    };
  }

  function renderFacts(r) {
    var facts = document.getElementById('drill-facts');
    if (!facts) { return; }
    clear(facts);
    var s = sampleOf(r);
    [
      ['run', r.id],
      ['model', r.model + ' (' + r.family + ')'],
      ['format', r.format + (s ? ' · harness ' + s.harness : '')],
      ['window', r.window > 0 ? fmt(r.window) + (s ? ' (' + s.window_source + ')' : '') : 'unknown'],
      ['calls', fmt(r.calls) + (r.est ? ' (' + fmt(r.est) + ' prompts estimated)' : '')],
      ['peak', fmt(r.peak) + (r.window > 0 ? ' (' + pct(r.share) + ' of the window)' : '')],
      ['end', r.end + ' (' + r.endSrc + ')' + (s && s.end_why ? ': ' + s.end_why : '')],
      ['cost', r.cost >= 0 ? usd(r.cost) : 'unknown'],
      ['under ' + (policySel ? policySel.value : ''), (function () {
        var o = outcome(r.i, policySel ? policySel.value : '');
        return o ? o.status + (o.overflow >= 0 ? ' (overflow at call ' + o.overflow + ')' : '') + ', ' + ratio(o.ratio) + ' × what ran\'s tokens' : 'not simulated';
      })()],
      ['in the sample', s ? (s.why === 'top' ? 'yes: a top run by peak share' : 'yes: a hashed sample run') : 'no']
    ].forEach(function (kv) {
      facts.appendChild(el('dt', kv[0]));
      facts.appendChild(el('dd', kv[1]));
    });
  }

  var policySel = document.getElementById('timeline-policy');

  function drawTimeline() {
    if (!all || openIndex < 0) { return; }
    var r = rec(openIndex);
    var t = timelineOption(r, policySel ? policySel.value : '');
    var note = document.getElementById('timeline-note');
    if (note) { note.textContent = t.note; }
    spec['run-timeline'].option = t.option;
    if (inst['run-timeline']) { inst['run-timeline'].setOption(t.option, true); }
  }

  // openRun shows run i (an index of the run records) in the timeline and
  // its facts, and in the sampled-run tables when it is sampled; quiet
  // leaves the address alone (the page's first run)
  function openRun(i, scroll, quiet) {
    if (!all || i < 0 || i >= all.id.length) { return; }
    openIndex = i;
    var r = rec(i);
    if (policySel) {
      var dp = defaultPolicy(r.family);
      // a run outside the sample carries the best-policy card's replay, not
      // every policy's: open it under that one when its family's is not kept
      if (r.sample < 0 && !replays(i)[dp] && all.best && replays(i)[all.best] && policyIndex(all.best) >= 0) { dp = all.best; }
      policySel.value = dp;
    }
    drawTimeline();
    renderFacts(r);
    if (r.sample >= 0) { selectRun('r' + r.sample, true); }
    renderList();
    if (!quiet && history.replaceState) { history.replaceState(null, '', '#run=' + encodeURIComponent(r.id)); }
    // the conversation view (conversation.js) shows the run's conversation
    document.dispatchEvent(new CustomEvent('trajmine-run', { detail: { id: r.id, index: i, model: r.model } }));
    if (scroll) {
      var h = document.getElementById('timeline-title');
      if (h) { h.scrollIntoView(scroll === 'nearest' ? { block: 'nearest' } : true); }
    }
  }

  function openSample(key, scroll) {
    if (!all) { return; }
    var k = Number(key.slice(1));
    for (var i = 0; i < all.sample.length; i++) {
      if (all.sample[i] === k) { openRun(i, scroll); return; }
    }
  }

  if (policySel) {
    policySel.addEventListener('change', function () {
      if (list.outcome) { refreshList(); }
      drawTimeline();
      if (openIndex >= 0) { renderFacts(rec(openIndex)); }
    });
  }

  // --- sampled run drill-down ----------------------------------------------

  function fillTable(table, head, rows, textCols) {
    clear(table);
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
    table.removeAttribute('data-enhanced');
    var prev = table.previousSibling;
    if (prev && prev.className === 'filter') { prev.parentNode.removeChild(prev); }
    enhance(table);
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
    if (!r || !document.getElementById('drill-policies')) { return; }
    fillTable(document.getElementById('drill-policies'),
      ['policy', 'status', 'overflow call', 'first acted', 'token ratio', 'peak', 're-inv.', 'placeholders (max)', 'chars removed'],
      r.policies.map(function (p) {
        return [p.policy, p.status, p.overflow_call >= 0 ? p.overflow_call : '-', p.first_activation >= 0 ? p.first_activation : '-',
          ratio(p.token_ratio), fmt(p.peak_tokens), fmt(p.reinvocations), fmt(p.placeholders_max), pct(p.chars_removed_share)];
      }));

    // prompt per call per policy: the occupancy chart's dataset for this run
    var opt = variant('occupancy-run', key);
    var ds = columnsOf(opt ? opt.dataset : null);
    var meta = {};
    r.calls.forEach(function (c) { meta[c[0]] = c; });
    var head = ['call', 'source', 'compaction'].concat(ds.dims.slice(1));
    fillTable(document.getElementById('drill-calls'), head, ds.rows.map(function (row) {
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
        return [o.seq, o.call, o.tool, o.key, o.target, fmt(o.est_tokens), fmt(o.chars), o.preview, did.length ? did.join('; ') : '-'];
      }), [false, false, true, true, true, false, false, true, true]);
  }

  // selectRun shows sampled run key in the sampled-run chart and tables;
  // from a click elsewhere it opens the run's timeline too (scroll: go to it)
  function selectRun(key, fromTimeline, scroll) {
    document.querySelectorAll('select.run-select').forEach(function (s) { s.value = key; });
    showVariant('occupancy-run', key);
    renderDrill(key);
    if (!fromTimeline) { openSample(key, scroll); }
  }

  document.querySelectorAll('select.run-select').forEach(function (sel) {
    sel.addEventListener('change', function () { selectRun(sel.value, false); });
  });
  if (runs.runs.length > 0) { renderDrill(runs.default || runs.runs[0].key); }

  // --- clicks on charts and table rows open runs or filter the run list ---

  document.querySelectorAll('[data-run]').forEach(function (e) {
    var key = e.getAttribute('data-run');
    onChart(e.getAttribute('data-chart'), function (c) {
      c.getZr().on('click', function () { selectRun(key, false, true); });
    });
    e.classList.add('clickable');
  });
  onChart('runs-scatter', function (c) {
    c.on('click', function (p) {
      var v = p.data || p.value;
      if (v && v.length > 2) { openRun(v[2], true); }
    });
  });
  onChart('verdict-peaks', function (c) {
    c.on('click', function (p) { setFacet('share', Math.min(p.dataIndex, 10) / 10); });
  });
  // a bar of the runs-saved chart lists the runs: its policy in the timeline, its series the outcome
  onChart('policy-outcomes', function (c) {
    c.on('click', function (p) {
      if (policySel && policyIndex(p.name) >= 0) {
        policySel.value = p.name;
        policySel.dispatchEvent(new Event('change'));
      }
      setFacet('outcome', p.seriesName);
    });
  });
  // a family's row in the recommendation and behaviour charts lists its runs
  onChart('recommend-saving', function (c) {
    c.on('click', function (p) {
      var name = typeof p.name === 'string' ? p.name : '', k = name.lastIndexOf(': ');
      if (k > 0) { setFacet('family', name.slice(0, k)); }
    });
  });
  onChart('behaviour', function (c) {
    c.on('click', function (p) { if (p.name) { setFacet('family', p.name); } });
  });
  onChart('verdict-ends', function (c) {
    c.on('click', function (p) { setFacet('end', p.name === '-' ? '' : p.name); });
  });
  document.querySelectorAll('tr[data-family]').forEach(function (tr) {
    tr.classList.add('clickable');
    tr.title = 'list this family\'s runs';
    tr.addEventListener('click', function () { setFacet('family', tr.getAttribute('data-family')); });
  });

  // --- decode the run records, then the page is ready ----------------------

  // firstRun is the run the page opens with: the one the address names
  // (#run=<id>, as opening a run sets it)
  function firstRun() {
    var m = /^#run=(.*)$/.exec(location.hash);
    if (m) {
      var id = null;
      try { id = decodeURIComponent(m[1]); } catch (e) { id = null; }
      var k = id === null ? -1 : all.id.indexOf(id);
      if (k >= 0) { return k; }
    }
    // else the sampled run the page shows first (the longest main-agent
    // run of the sample: runs.default)
    var first = runs.default ? Number(runs.default.slice(1)) : 0;
    for (var i = 0; i < all.sample.length; i++) { if (all.sample[i] === first) { return i; } }
    return 0;
  }

  if (runs.all && document.getElementById('runs-table')) {
    if (typeof DecompressionStream === 'undefined') {
      document.getElementById('runs-tools').appendChild(el('p', 'This browser cannot decode the run list (it needs DecompressionStream); the sampled runs are above.', 'notcomputed'));
    } else {
      pending++;
      decodeRuns(runs.all).then(function (a) {
        all = a;
        buildTools();
        refreshList();
        if (all.id.length) { openRun(firstRun(), false, true); }
      }).catch(function (e) {
        console.error('decode run records: ' + e);
      }).then(function () {
        pending--;
        ready();
      });
    }
  }
  // what the conversation view and trajmine serve's tools (conversation.js)
  // use: the runs block, opening a run by its index, the server filter of the run
  // list, and holding the page's readiness while they load
  window.trajmineReport = {
    runs: runs,
    el: el,
    clear: clear,
    fmt: fmt,
    usd: usd,
    // openIndex opens run i of the run list; false when there is none
    openIndex: function (i, scroll) {
      if (!all || i < 0 || i >= all.id.length) { return false; }
      openRun(i, scroll);
      return true;
    },
    // setIds keeps only the runs of ids (an object of run ids) in the run
    // list, label saying why; null shows every run again
    setIds: function (ids, label) {
      list.ids = ids;
      list.idsLabel = label || '';
      list.page = 0;
      refreshList();
    },
    hold: function () { pending++; },
    release: function () { pending--; ready(); }
  };
  loaded = true;
  ready();
})();
