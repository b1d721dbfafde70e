// charts.js inspects every chart container of the page ([data-chart]): its
// canvases (a sample of non-transparent pixels) and SVGs, and, through its
// ECharts instance (ECharts 5: getModel, getViewOfSeriesModel and the
// series' data), what it draws against what its data says:
//
//  1. marks against data: every series the legend leaves selected draws a
//     mark for each data item it should show (a bar for each non-zero
//     value, a point for each point, a line through two or more points, a
//     box, a node), the chart draws at least one (a chart with no mark is
//     blank: an empty chart is not to be drawn, the page says why in
//     text), and each row of a bar chart's category axis holds a value;
//  2. legend against series: every series with data has an entry, every
//     entry names a series with data, no two entries differ only in case
//     or punctuation ("as logged", "as-logged"), the legend does not page
//     (a scrolling legend hides entries) and does not overlap the plot
//     area;
//  3. no line hidden under another: a line series whose points a later
//     drawn solid (or same-dashed) line at least as wide covers is hidden;
//  4. no clipped text: the title (with its subtitle), the legend and every
//     axis (labels and name) lie within the chart's box; every shown axis
//     has a title.
//
// It evaluates to one object per container: {id, canvas, svg, inked,
// marks, problems}.
(function () {
  function norm(s) { return String(s).toLowerCase().replace(/[^a-z0-9]+/g, ''); }
  function finite(v) { return typeof v === 'number' && isFinite(v); }
  function round(r) { return '[' + [r.x, r.y, r.x + r.width, r.y + r.height].map(Math.round).join(', ') + ']'; }
  // the bounding box of a component's view in chart pixels
  function viewRect(v) {
    if (!v || !v.group) { return null; }
    var g = v.group;
    g.updateTransform();
    var r = g.getBoundingRect().clone();
    if (g.transform) { r.applyTransform(g.transform); }
    return r;
  }
  function shown(e) { return e && !e.invisible && !e.ignore; }
  function extent(e) {
    if (!shown(e)) { return false; }
    var r = e.getBoundingRect();
    return r.width > 0 || r.height > 0;
  }
  // lineDrawn: the series view holds a polyline through two or more points
  function lineDrawn(view) {
    var ok = false;
    if (view && view.group) {
      view.group.traverse(function (e) {
        if (!e.isGroup && shown(e) && e.shape && e.shape.points && e.shape.points.length >= 4 && extent(e)) { ok = true; }
      });
    }
    return ok;
  }
  // anyDrawn: the series view holds any element with an extent (large
  // scatter draws all points as one path)
  function anyDrawn(view) {
    var ok = false;
    if (view && view.group) {
      view.group.traverse(function (e) { if (!e.isGroup && extent(e)) { ok = true; } });
    }
    return ok;
  }
  // seriesMarks counts the marks series s should draw (want) and draws
  function seriesMarks(ch, s) {
    var data = s.getData(), n = data.count(), want = 0, drawn = 0, i, e, view = ch.getViewOfSeriesModel(s);
    switch (s.subType) {
      case 'bar': {
        var cs = s.coordinateSystem, vd = data.mapDimension(cs.getOtherAxis(cs.getBaseAxis()).dim);
        for (i = 0; i < n; i++) {
          var v = data.get(vd, i);
          if (!finite(v) || v === 0) { continue; }
          want++;
          var l = data.getItemLayout(i);
          e = data.getItemGraphicEl(i);
          if (l && shown(e) && Math.abs(l.width) > 0 && Math.abs(l.height) > 0) { drawn++; }
        }
        break;
      }
      case 'line': {
        var pts = data.getLayout('points') || [];
        for (i = 0; i + 1 < pts.length; i += 2) { if (finite(pts[i]) && finite(pts[i + 1])) { want++; } }
        if (want >= 2 && lineDrawn(view)) {
          drawn = want;
        } else {
          for (i = 0; i < n; i++) { if (extent(data.getItemGraphicEl(i))) { drawn++; } }
          drawn = Math.min(drawn, want);
        }
        break;
      }
      case 'scatter':
      case 'effectScatter': {
        for (i = 0; i < n; i++) {
          var p = data.getItemLayout(i);
          if (p && finite(p[0]) && finite(p[1])) { want++; }
        }
        if (s.pipelineContext && s.pipelineContext.large) {
          drawn = anyDrawn(view) ? want : 0;
        } else {
          for (i = 0; i < n; i++) { if (extent(data.getItemGraphicEl(i))) { drawn++; } }
        }
        break;
      }
      default: // boxplot, graph and the rest: one element per item
        for (i = 0; i < n; i++) {
          want++;
          if (extent(data.getItemGraphicEl(i))) { drawn++; }
        }
        if (drawn === 0 && anyDrawn(view) && s.subType !== 'boxplot' && s.subType !== 'graph') { drawn = want; }
    }
    return { want: want, drawn: drawn };
  }
  // covered: the share of line a's points that line b passes within 1.5 px of
  function covered(a, b) {
    var at = {}, k, hit = 0, all = 0;
    for (k = 0; k + 1 < b.length; k += 2) {
      if (finite(b[k]) && finite(b[k + 1])) { at[Math.round(b[k])] = b[k + 1]; }
    }
    for (k = 0; k + 1 < a.length; k += 2) {
      if (!finite(a[k]) || !finite(a[k + 1])) { continue; }
      all++;
      var x = Math.round(a[k]);
      for (var dx = -1; dx <= 1; dx++) {
        var y = at[x + dx];
        if (y !== undefined && Math.abs(y - a[k + 1]) <= 1.5) { hit++; break; }
      }
    }
    return all < 2 ? 0 : hit / all;
  }

  return Array.from(document.querySelectorAll('[data-chart]')).map(function (el) {
    var inked = 0, canvas = 0, problems = [], marks = 0;
    el.querySelectorAll('canvas').forEach(function (c) {
      if (c.width === 0 || c.height === 0) { return; }
      canvas++;
      var d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (var i = 3; i < d.length; i += 4 * 7) { if (d[i] !== 0) { inked++; } }
    });
    var ch = window.echarts && echarts.getInstanceByDom(el);
    if (!ch) {
      problems.push('no ECharts instance');
      return { id: el.getAttribute('data-chart'), canvas: canvas, svg: el.querySelectorAll('svg').length, inked: inked, marks: 0, problems: problems };
    }
    var model = ch.getModel(), W = ch.getWidth(), H = ch.getHeight();
    var within = function (r) { return r.x >= -1 && r.y >= -1 && r.x + r.width <= W + 1 && r.y + r.height <= H + 1; };
    var legend = model.getComponent('legend', 0);
    if (legend && legend.get('show') === false) { legend = null; }
    var names = legend ? legend.getData().map(function (it) { return it.get('name'); }) : [];
    if (legend && legend.get('type') === 'scroll') { problems.push('the legend scrolls: entries on other pages are hidden'); }
    var withData = [], lines = [];
    // eachRawSeries: legend-unselected series too (eachSeries skips them)
    model.eachRawSeries(function (s) {
      var n = s.getData().count();
      if (n === 0) { return; }
      var name = s.name || '';
      if (name && withData.indexOf(name) < 0) { withData.push(name); }
      if (legend && name && names.indexOf(name) < 0) { problems.push('series ' + name + ' has data but no legend entry'); }
      if (model.isSeriesFiltered(s)) { return; }
      var m = seriesMarks(ch, s);
      marks += m.drawn;
      if (m.drawn < m.want) {
        problems.push('series ' + (name || s.subType) + ' draws ' + m.drawn + ' of the ' + m.want + ' marks its data holds');
      }
      if (s.subType === 'line' && m.drawn > 0) {
        lines.push({ name: name || ('series ' + s.seriesIndex), index: s.seriesIndex, z: (s.get('zlevel') || 0) * 1000 + (s.get('z') || 0),
          width: s.get(['lineStyle', 'width']), type: s.get(['lineStyle', 'type']) || 'solid', pts: s.getData().getLayout('points') || [] });
      }
    });
    // every row (column) of a bar chart's category axis holds a value in
    // some bar series (0 counts; a row of no data at all is an empty row)
    var filled = {}, cats = null;
    model.eachSeries(function (s) {
      if (s.subType !== 'bar' || !s.coordinateSystem || !s.coordinateSystem.getBaseAxis) { return; }
      var base = s.coordinateSystem.getBaseAxis();
      if (base.type !== 'category') { return; }
      cats = base.scale.getOrdinalMeta().categories;
      var data = s.getData(), bd = data.mapDimension(base.dim), vd = data.mapDimension(s.coordinateSystem.getOtherAxis(base).dim);
      for (var i = 0; i < data.count(); i++) {
        if (finite(data.get(vd, i))) { filled[data.get(bd, i)] = true; }
      }
    });
    (cats || []).forEach(function (c, k) {
      if (!filled[k]) { problems.push('row ' + JSON.stringify(String(c)) + ' is empty: no bar series has a value there'); }
    });
    if (marks === 0) { problems.push('blank: the chart draws no data mark (a chart without data is not to be drawn: say so in text)'); }
    names.forEach(function (n, i) {
      if (withData.indexOf(n) < 0) { problems.push('legend entry ' + n + ' names no series with data'); }
      for (var j = 0; j < i; j++) {
        if (names[j] !== n && norm(names[j]) === norm(n)) { problems.push('legend entries "' + names[j] + '" and "' + n + '" differ only in case or punctuation'); }
      }
    });
    // a line is hidden when one drawn after it, as wide or wider and solid
    // (or dashed alike), passes through its points
    lines.forEach(function (a) {
      lines.forEach(function (b) {
        if (a === b || b.z < a.z || (b.z === a.z && b.index < a.index)) { return; }
        if (b.width >= a.width && (b.type === 'solid' || b.type === a.type) && covered(a.pts, b.pts) >= 0.9) {
          problems.push('line ' + a.name + ' is hidden under line ' + b.name + ' (drawn over it, as wide, through the same points)');
        }
      });
    });
    model.eachComponent('title', function (m) {
      if (m.get('show') === false) { return; }
      var r = viewRect(ch.getViewOfComponentModel(m));
      if (r && r.width > 0 && !within(r)) { problems.push('the title "' + m.get('text') + '" (with its subtitle) is clipped: its box ' + round(r) + ' leaves the chart (' + W + ' × ' + H + ')'); }
    });
    if (legend) {
      var lr = viewRect(ch.getViewOfComponentModel(legend));
      if (lr && lr.width > 0 && !within(lr)) { problems.push('the legend is clipped: its box ' + round(lr) + ' leaves the chart (' + W + ' × ' + H + ')'); }
      var grid = model.getComponent('grid', 0);
      if (lr && grid && grid.coordinateSystem) {
        var gr = grid.coordinateSystem.getRect();
        if (lr.width > 0 && lr.y + lr.height > gr.y + 1 && lr.y < gr.y + gr.height && lr.x < gr.x + gr.width && lr.x + lr.width > gr.x) {
          problems.push('the legend overlaps the plot (legend bottom ' + Math.round(lr.y + lr.height) + ' px, plot top ' + Math.round(gr.y) + ' px)');
        }
      }
    }
    ['xAxis', 'yAxis'].forEach(function (k) {
      model.eachComponent(k, function (m, i) {
        if (m.get('show') === false) { return; }
        if (!m.get('name')) { problems.push(k + '[' + i + '] has no title'); }
        var v = ch.getViewOfComponentModel(m);
        if (!v || !v.group) { return; }
        v.group.traverse(function (e) {
          if (e.type !== 'text' || !shown(e)) { return; }
          var t = e.getComputedTransform(), r;
          if (e.style.width) {
            // a label truncated to a box: zrender's rect is the box's, not
            // the text's; the label's anchor must be in the chart
            var p = [e.x, e.y];
            if (e.parent) { var pt = e.parent.getComputedTransform(); if (pt) { p = [pt[0] * p[0] + pt[2] * p[1] + pt[4], pt[1] * p[0] + pt[3] * p[1] + pt[5]]; } }
            r = new echarts.graphic.BoundingRect(p[0], p[1], 0, 0);
          } else {
            r = e.getBoundingRect().clone();
            if (t) { r.applyTransform(t); }
          }
          if (!within(r)) { problems.push(k + '[' + i + '] "' + (m.get('name') || '') + '": its text "' + e.style.text + '" is clipped: its box ' + round(r) + ' leaves the chart (' + W + ' × ' + H + ')'); }
        });
      });
    });
    return { id: el.getAttribute('data-chart'), canvas: canvas, svg: el.querySelectorAll('svg').length, inked: inked, marks: marks, problems: problems };
  });
})()
